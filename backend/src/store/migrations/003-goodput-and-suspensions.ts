// Version 3: what the embedded store's format 3 added, so that a follower and a restarted leader
// answer what the leader answered before:
// - upness_timelines: the goodput inputs of the object → state function (Timeline.accelerators,
//   Timeline.checkpointIntervalMs); rows written before read as none known (0, NULL), as the
//   embedded store reads its older meta records.
// - upness_transitions: why a transition into `suspended` happened (Transition.suspension: the
//   JobSet's Suspended condition's reason and message); NULL on every other transition, and on
//   suspensions written before. A reason learned after its suspension was written fills these once
//   (postgres-rows.ts UPDATE_SUSPENSIONS), giving the row a new id so followers read it again.

import type { Migration } from './index.ts';

export const goodputAndSuspensions: Migration = {
  version: 3,
  name: 'goodput inputs of timelines, reasons of suspensions',
  sql: `
ALTER TABLE upness_timelines
  ADD COLUMN accelerators            integer NOT NULL DEFAULT 0 CHECK (accelerators >= 0),
  ADD COLUMN checkpoint_interval_ms  bigint CHECK (checkpoint_interval_ms > 0);

ALTER TABLE upness_transitions
  ADD COLUMN suspended_reason   text,
  ADD COLUMN suspended_message  text;
`,
};
