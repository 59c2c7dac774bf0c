// Version 2: the node layer's facts (now backend/src/timeline/facts.ts), beside the transitions they refer
// to: each node-layer transition, and each cause attached to a transition of either layer. Numbered
// from `upness_rev` like every row, so followers tail them by number as they tail transitions; a
// retried write is a no-op (the primary keys). Deleted with their timeline (retention).
//
// upness_transitions.causes (version 1: a transition's causes as known when it was written) is no
// longer written: its causes are copied into upness_causes here, and the column is no longer read.

import type { Migration } from './index.ts';

export const facts: Migration = {
  version: 2,
  name: 'causes and node-layer transitions as facts',
  sql: `
CREATE TABLE upness_node_transitions (
  id                        bigint NOT NULL DEFAULT nextval('upness_rev'),
  cluster                   text NOT NULL,
  uid                       text NOT NULL,
  seq                       integer NOT NULL CHECK (seq >= 0),
  at                        timestamptz NOT NULL,
  state                     text NOT NULL,
  unobserved_interruptions  integer,
  unobserved_recoveries     integer,
  PRIMARY KEY (cluster, uid, seq),
  FOREIGN KEY (cluster, uid) REFERENCES upness_timelines (cluster, uid) ON DELETE CASCADE
);
CREATE UNIQUE INDEX upness_node_transitions_id ON upness_node_transitions (cluster, id);

CREATE TABLE upness_causes (
  id       bigint NOT NULL DEFAULT nextval('upness_rev'),
  cluster  text NOT NULL,
  uid      text NOT NULL,
  -- The timeline whose transition it is a cause of: the JobSet's, or its node layer.
  layer    text NOT NULL CHECK (layer IN ('jobset', 'nodes')),
  seq      integer NOT NULL CHECK (seq >= 0),
  cause    jsonb NOT NULL,
  PRIMARY KEY (cluster, uid, layer, seq, cause),
  FOREIGN KEY (cluster, uid) REFERENCES upness_timelines (cluster, uid) ON DELETE CASCADE
);
CREATE UNIQUE INDEX upness_causes_id ON upness_causes (cluster, id);

INSERT INTO upness_causes (cluster, uid, layer, seq, cause)
SELECT t.cluster, t.uid, 'jobset', t.seq, c.cause
FROM upness_transitions t, jsonb_array_elements(t.causes) AS c (cause)
WHERE t.causes IS NOT NULL AND jsonb_typeof(t.causes) = 'array'
ORDER BY t.cluster, t.uid, t.seq
ON CONFLICT DO NOTHING;
`,
};
