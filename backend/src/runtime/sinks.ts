// The sinks of a session: where an engine's output is kept. One interface over the three stores
// (store/: memory keeps nothing, the embedded data dir, PostgreSQL), each opened and recovered here
// and given what the session needs of it: what the previous run left, the observed mark, flushing,
// compaction, its failure for readiness, and closing.

import type { Logger } from 'pino';
import type { PostgresStore } from '../store/postgres.ts';
import type { IndexSource, Recovery, StoreStatus, UsageRecord, UsageSnapshotEntry } from '../store/store.ts';
import type { TimelineUpdate } from '../timeline/engine.ts';
import type { MachineState } from '../timeline/machine.ts';
import type { Timeline } from '../timeline/types.ts';
import type { Fact } from '../timeline/facts.ts';

/** Where an engine's output is kept. Knows nothing of record kinds: it takes what the engine emits. */
export interface Sink {
  /** For logs and /readyz: "memory", the data dir, the PostgreSQL URL without its password. */
  readonly where: string;
  /** The data dir, for what a feed keeps beside its timelines (the simulator's anchor); null elsewhere. */
  readonly dir: string | null;
  /** What the previous run left: restored into the engine before the feed starts. */
  readonly recovery: Pick<Recovery, 'machines' | 'observedUntil' | 'nodeLayers' | 'derivedNodeLayers' | 'pools' | 'usage' | 'fleetIndex' | 'byUid' | 'kept'> | null;
  /** The engine's output (absent: nothing is written). */
  readonly record?: (update: TimelineUpdate, machine: MachineState) => void;
  /** The engine's facts (the node layer's causes and transitions, the node pools' timelines, Kueue's reasons for suspensions), after what they refer to. */
  readonly fact?: (fact: Fact) => void;
  /** Samplings of the JobSets' resource usage (absent: usage is not kept: memory). */
  readonly usage?: (records: readonly UsageRecord[]) => void;
  /** Everything up to `at` has been observed. */
  observed(at: number | null): void;
  /** Resolves when everything recorded so far is durable. */
  flushed(): Promise<void>;
  /** Compaction after retention dropped timelines: what the store keeps is now `machines` (and `index`, their fleet index, where the store keeps it). */
  snapshot(machines: Iterable<MachineState>, observedUntil: number | null, nodeLayers: Iterable<Timeline>, pools?: Iterable<Timeline>, usage?: Iterable<UsageSnapshotEntry>, index?: IndexSource): Promise<void>;
  /** For /readyz and /metrics; absent: nothing to report (memory). */
  readonly status?: () => StoreStatus;
  /** Why it cannot write, or null. */
  failure(): string | null;
  /** Flushes what is left (the embedded store: a last snapshot) and closes. */
  close(machines: Iterable<MachineState>, observedUntil: number | null, nodeLayers: Iterable<Timeline>, pools?: Iterable<Timeline>, usage?: Iterable<UsageSnapshotEntry>, index?: IndexSource): Promise<void>;
}

/** `--memory`: nothing is written; retention still drops old timelines from memory. */
export function memorySink(): Sink {
  return {
    where: 'none (in memory)',
    dir: null,
    recovery: null,
    observed: () => undefined,
    flushed: async () => undefined,
    snapshot: async () => undefined,
    failure: () => null,
    close: async () => undefined,
  };
}

/** The embedded store in `dir` (an append-only log and snapshots), opened and recovered. */
export async function embeddedSink(dir: string, logger: Logger): Promise<Sink> {
  // Loaded only here: `--memory` holds no store's code.
  const { EmbeddedStore } = await import('../store/embedded.ts');
  const { store, recovery, migration } = await EmbeddedStore.open(dir, {
    onError: (error) =>
      error === null
        ? logger.info({ dataDir: dir }, 'writing to the data dir again; nothing was lost')
        : logger.error({ dataDir: dir, err: error.message }, 'cannot write to the data dir: new records are kept in memory and retried; /readyz says so'),
  });
  if (migration !== null) {
    logger.warn(
      { dataDir: dir, from: migration.from, to: migration.to, changes: migration.changes },
      `migrated the data dir from format ${migration.from} to ${migration.to}; its copy ${migration.backup} was kept until the migrated one was read, then deleted`,
    );
  }
  if (recovery.fleetIndex !== undefined && 'refused' in recovery.fleetIndex) {
    logger.warn({ dataDir: dir, why: recovery.fleetIndex.refused }, 'the fleet index kept with the snapshot cannot be used: it is built again from the timelines');
  }
  if (recovery.cut !== null) {
    logger.warn(recovery.cut, 'cut a torn record off the end of the log (the last run stopped in the middle of a write); everything before it is kept');
  }
  logger.info(
    { dataDir: dir, timelines: (recovery.kept ?? recovery.machines).length, records: recovery.records, observedUntil: recovery.observedUntil && new Date(recovery.observedUntil).toISOString() },
    'data dir opened',
  );
  return {
    where: dir,
    dir,
    recovery,
    record: (update, machine) => store.record(update, machine),
    fact: (fact) => store.fact(fact),
    usage: (records) => store.usage(records),
    observed: (at) => store.observed(at),
    flushed: () => store.flushed(),
    snapshot: (machines, observedUntil, nodeLayers, pools, usage, index) => store.snapshot(machines, observedUntil, nodeLayers, pools, usage, index),
    status: () => store.status(),
    failure: () => {
      const error = store.status().error;
      return error === null ? null : `cannot write to the data dir ${dir}: ${error}`;
    },
    close: async (machines, observedUntil, nodeLayers, pools, usage, index) => {
      await store.snapshot(machines, observedUntil, nodeLayers, pools, usage, index);
      await store.close();
    },
  };
}

/** A leading replica's PostgreSQL store, as the Replica opened it (the Replica closes it when leading ends). */
export function postgresSink(store: PostgresStore, recovery: Pick<Recovery, 'machines' | 'observedUntil' | 'nodeLayers' | 'pools' | 'usage'>, where: string): Sink {
  return {
    where,
    dir: null,
    recovery,
    record: (update, machine) => store.record(update, machine),
    fact: (fact) => store.fact(fact),
    usage: (records) => store.usage(records),
    observed: (at) => store.observed(at),
    flushed: () => store.flushed(),
    // The node layer's facts and the usage samplings are in PostgreSQL as they come: a snapshot there
    // is retention (and the usage folded into 5-minute means beyond a day).
    snapshot: (machines, observedUntil, nodeLayers, pools, usage) => store.snapshot(machines, observedUntil, nodeLayers, pools, usage),
    status: () => store.status(),
    failure: () => {
      const error = store.status().error;
      return error === null ? null : `cannot write to PostgreSQL ${where}: ${error}`;
    },
    close: async () => undefined,
  };
}
