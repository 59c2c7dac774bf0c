// Version 7: the JobSets' resource usage (backend/src/usage/): one row per JobSet per sampling, its
// values in usage/metrics.ts' order (NULL: not reported), and, once a snapshot folded what is older
// than a day, one row per JobSet per 5-minute bucket (`folded`: the bucket's start and its means).
// Numbered like the facts, so followers tail it; a retried write is a no-op (the primary key). The
// cluster's row says how long a sampling holds (twice the leader's --usage-interval), so followers
// read the usage as the leader does; NULL: not known (a leader that does not sample).

import type { Migration } from './index.ts';

export const usage: Migration = {
  version: 7,
  name: 'resource usage',
  sql: `
CREATE TABLE upness_usage (
  id         bigint NOT NULL DEFAULT nextval('upness_rev'),
  cluster    text NOT NULL,
  owner      text NOT NULL,
  folded     boolean NOT NULL,
  at         timestamptz NOT NULL,
  namespace  text NOT NULL,
  name       text NOT NULL,
  v          float8[] NOT NULL,
  PRIMARY KEY (cluster, owner, folded, at)
);
CREATE UNIQUE INDEX upness_usage_id ON upness_usage (cluster, id);
ALTER TABLE upness_clusters ADD COLUMN usage_hold_ms integer;
`,
};
