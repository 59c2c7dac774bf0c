// Version 5: a timeline's pod count (Timeline.pods: Σ replicas × parallelism), its job size when it
// holds no accelerators (series/sizes.ts, issue 20 §3). Rows written before read 0: not known, so
// such a JobSet's size is its accelerators, or `unknown` without any, until it is observed again and
// its row written anew (the embedded store reads its older meta records the same way).

import type { Migration } from './index.ts';

export const jobSizes: Migration = {
  version: 5,
  name: 'pod counts of timelines',
  sql: `
ALTER TABLE upness_timelines
  ADD COLUMN pods  integer NOT NULL DEFAULT 0 CHECK (pods >= 0);
`,
};
