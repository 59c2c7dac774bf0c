// Version 6: the node pools' facts (backend/src/timeline/facts.ts PoolFact): each transition of a
// pool timeline (the first one with the pool's identity), the node that caused an interruption, and
// a JobSet that ran on the pool. A pool timeline is a timeline of its own, not a JobSet's, so its facts
// have a table of their own, kept as they are (jsonb) and read back in order by number. A retried
// write is a no-op (the primary key).

import type { Migration } from './index.ts';

export const nodePools: Migration = {
  version: 6,
  name: 'node pool facts',
  sql: `
CREATE TABLE upness_pool_facts (
  id       bigint NOT NULL DEFAULT nextval('upness_rev'),
  cluster  text NOT NULL,
  uid      text NOT NULL,
  fact     jsonb NOT NULL,
  PRIMARY KEY (cluster, uid, fact)
);
CREATE UNIQUE INDEX upness_pool_facts_id ON upness_pool_facts (cluster, id);
`,
};
