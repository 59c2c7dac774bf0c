// Version 1: timelines, their transitions, and one row per cluster (its writer and its horizon).
//
// Every row carries the cluster it was observed in: JobSet UIDs are unique only within a cluster, and
// several clusters' services may write to one database. Times are timestamptz (millisecond values),
// so the tables can also be read with plain SQL (psql, Grafana's PostgreSQL data source).
//
// `upness_rev` numbers every row written: transitions.id and timelines.rev. The writers of one cluster
// are serialised by its `upness_clusters` row (every write transaction updates it first), so within a
// cluster the numbers grow in commit order, and a follower that has read everything up to N reads
// what came after with `> N`.

import type { Migration } from './index.ts';

export const initial: Migration = {
  version: 1,
  name: 'timelines, transitions, clusters',
  sql: `
CREATE SEQUENCE upness_rev AS bigint;

CREATE TABLE upness_clusters (
  cluster         text PRIMARY KEY CHECK (cluster <> ''),
  -- The writer's fencing token: a new leader increments it, and every write transaction of an older
  -- one (still running, paused, or on the wrong side of a partition) then finds it changed and stops.
  epoch           bigint NOT NULL DEFAULT 0,
  writer          text,
  writer_since    timestamptz,
  -- Everything up to here was observed (the horizon): a gap begins here after a crash.
  observed_until  timestamptz,
  -- Incremented when retention deletes timelines: followers reload the cluster.
  pruned          bigint NOT NULL DEFAULT 0,
  updated_at      timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE upness_timelines (
  cluster           text NOT NULL REFERENCES upness_clusters (cluster),
  uid               text NOT NULL,
  namespace         text NOT NULL,
  name              text NOT NULL,
  labels            jsonb NOT NULL DEFAULT '{}',
  accelerator       text,
  topology          text,
  created_at        timestamptz NOT NULL,
  -- The state machine's memory (backend/src/timeline/machine.ts), so a new writer continues it.
  ever_up           boolean NOT NULL,
  restarts          integer NOT NULL,
  resource_version  text,
  deleted_at        timestamptz,
  -- When it reached a terminal state (completed, failed, deleted): retention counts from here.
  closed_at         timestamptz,
  rev               bigint NOT NULL DEFAULT nextval('upness_rev'),
  PRIMARY KEY (cluster, uid)
);
CREATE INDEX upness_timelines_name ON upness_timelines (cluster, namespace, name);
CREATE INDEX upness_timelines_rev ON upness_timelines (cluster, rev);
CREATE INDEX upness_timelines_closed ON upness_timelines (cluster, closed_at) WHERE closed_at IS NOT NULL;
CREATE INDEX upness_timelines_labels ON upness_timelines USING gin (labels jsonb_path_ops);

CREATE TABLE upness_transitions (
  id                        bigint NOT NULL DEFAULT nextval('upness_rev'),
  cluster                   text NOT NULL,
  uid                       text NOT NULL,
  -- Its index in the timeline: (cluster, uid, seq) makes a retried write a no-op, never a duplicate.
  seq                       integer NOT NULL CHECK (seq >= 0),
  at                        timestamptz NOT NULL,
  -- provisioning, up, down, suspended, unknown, completed, failed, deleted (Transition.state).
  state                     text NOT NULL,
  -- Events proven to have happened while nobody watched (see Transition.unobserved).
  unobserved_interruptions  integer,
  unobserved_recoveries     integer,
  -- What was observed around an interruption (Transition.causes), as known when it was written.
  causes                    jsonb,
  PRIMARY KEY (cluster, uid, seq),
  FOREIGN KEY (cluster, uid) REFERENCES upness_timelines (cluster, uid) ON DELETE CASCADE
);
CREATE UNIQUE INDEX upness_transitions_id ON upness_transitions (cluster, id);
CREATE INDEX upness_transitions_at ON upness_transitions (cluster, at);
`,
};
