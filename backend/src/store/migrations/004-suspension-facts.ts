// Version 4: a suspension's reason learned after its transition was written (the watch saw
// spec.suspend before the Suspended condition) is a fact of its own, a row of upness_suspensions,
// as the embedded store writes it as a record of its own: nothing written is updated any more.
// Version 3 wrote such a reason into the transition's row (an UPDATE); those columns keep being read,
// so the reasons written before are kept where they are. Numbered from `upness_rev` like every row,
// so followers tail it by number; a retried write is a no-op (the primary key); deleted with its
// timeline (retention).

import type { Migration } from './index.ts';

export const suspensionFacts: Migration = {
  version: 4,
  name: 'reasons of suspensions learned later as facts',
  sql: `
CREATE TABLE upness_suspensions (
  id       bigint NOT NULL DEFAULT nextval('upness_rev'),
  cluster  text NOT NULL,
  uid      text NOT NULL,
  -- The index of the transition into \`suspended\` in the JobSet's timeline.
  seq      integer NOT NULL CHECK (seq >= 0),
  reason   text,
  message  text,
  PRIMARY KEY (cluster, uid, seq),
  FOREIGN KEY (cluster, uid) REFERENCES upness_timelines (cluster, uid) ON DELETE CASCADE
);
CREATE UNIQUE INDEX upness_suspensions_id ON upness_suspensions (cluster, id);
`,
};
