// The composition root of `upness serve`: one Source (a cluster watch, a trace replay or the
// simulator) feeds one engine, whose output goes to one Store (memory, the embedded data dir, or
// PostgreSQL), served by one HTTP app. Whatever the combination, the same session runs it: the same
// maintenance loop (the store's observed mark, snapshots, retention) and the same shutdown path.
//
//   serve.ts           options → a Source and a Store → runSession → serveApi → stopOnSignals
//   serve-postgres.ts  the same session inside a Replica's `lead` (PostgreSQL, leader election)

import { createReadStream, existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { z } from 'zod';
import { createApp, type AppOptions } from '../http/app.ts';
import type { LiveCluster } from '../service/live-cluster.ts';
import { ClusterEngine } from '../nodes/engine.ts';
import { LiveSimulation, type SimulationAnchor } from '../service/live-simulation.ts';
import { expired } from '../service/retention.ts';
import { EngineSource, type SourceKind } from '../service/source.ts';
import type { ProfileName } from '../sources/simulator/index.ts';
import { EmbeddedStore } from '../store/embedded.ts';
import type { PostgresStore } from '../store/postgres.ts';
import type { Recovery, StoreStatus } from '../store/store.ts';
import type { TimelineUpdate } from '../timeline/engine.ts';
import type { MachineState } from '../timeline/machine.ts';
import type { Timeline } from '../timeline/types.ts';
import type { LayerFact } from '../nodes/facts.ts';
import { replayTrace } from '../sources/trace/replay.ts';
import { UsageError } from './options.ts';
import type { WatchSettings } from './watch-options.ts';

// ---------------------------------------------------------------------------------------------
// Stores

/** Where an engine's output is kept. Knows nothing of record kinds: it takes what the engine emits. */
export interface Store {
  /** For logs and /readyz: "memory", the data dir, the PostgreSQL URL without its password. */
  readonly where: string;
  /** The data dir, for what a source keeps beside its timelines (the simulator's anchor); null elsewhere. */
  readonly dir: string | null;
  /** What the previous run left: restored into the engine before the source starts. */
  readonly recovery: Pick<Recovery, 'machines' | 'observedUntil' | 'nodeLayers'> | null;
  /** The engine's output (absent: nothing is written). */
  readonly record?: (update: TimelineUpdate, machine: MachineState) => void;
  /** The node layer's facts (causes, node-layer transitions), after what they refer to. */
  readonly fact?: (fact: LayerFact) => void;
  /** Everything up to `at` has been observed. */
  observed(at: number | null): void;
  /** Resolves when everything recorded so far is durable. */
  flushed(): Promise<void>;
  /** Compaction after retention dropped timelines: what the store keeps is now `machines`. */
  snapshot(machines: Iterable<MachineState>, observedUntil: number | null, nodeLayers: Iterable<Timeline>): Promise<void>;
  /** For /readyz and /metrics; absent: nothing to report (memory). */
  readonly status?: () => StoreStatus;
  /** Why it cannot write, or null. */
  failure(): string | null;
  /** Flushes what is left (the embedded store: a last snapshot) and closes. */
  close(machines: Iterable<MachineState>, observedUntil: number | null, nodeLayers: Iterable<Timeline>): Promise<void>;
}

/** `--memory`: nothing is written; retention still drops old timelines from memory. */
export function memoryStore(): Store {
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
export async function embeddedStore(dir: string, logger: Logger): Promise<Store> {
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
  if (recovery.cut !== null) {
    logger.warn(recovery.cut, 'cut a torn record off the end of the log (the last run stopped in the middle of a write); everything before it is kept');
  }
  logger.info(
    { dataDir: dir, timelines: recovery.machines.length, records: recovery.records, observedUntil: recovery.observedUntil && new Date(recovery.observedUntil).toISOString() },
    'data dir opened',
  );
  return {
    where: dir,
    dir,
    recovery,
    record: (update, machine) => store.record(update, machine),
    fact: (fact) => store.fact(fact),
    observed: (at) => store.observed(at),
    flushed: () => store.flushed(),
    snapshot: (machines, observedUntil, nodeLayers) => store.snapshot(machines, observedUntil, nodeLayers),
    status: () => store.status(),
    failure: () => {
      const error = store.status().error;
      return error === null ? null : `cannot write to the data dir ${dir}: ${error}`;
    },
    close: async (machines, observedUntil, nodeLayers) => {
      await store.snapshot(machines, observedUntil, nodeLayers);
      await store.close();
    },
  };
}

/** A leading replica's PostgreSQL store, as the Replica opened it (the Replica closes it when leading ends). */
export function postgresStore(store: PostgresStore, recovery: Pick<Recovery, 'machines' | 'observedUntil' | 'nodeLayers'>, where: string): Store {
  return {
    where,
    dir: null,
    recovery,
    record: (update, machine) => store.record(update, machine),
    fact: (fact) => store.fact(fact),
    observed: (at) => store.observed(at),
    flushed: () => store.flushed(),
    // The node layer's facts are in PostgreSQL as they come: a snapshot there is retention only.
    snapshot: (machines, observedUntil) => store.snapshot(machines, observedUntil),
    status: () => store.status(),
    failure: () => {
      const error = store.status().error;
      return error === null ? null : `cannot write to PostgreSQL ${where}: ${error}`;
    },
    close: async () => undefined,
  };
}

// ---------------------------------------------------------------------------------------------
// Sources

/** A source opened over a store's recovery: the engine it feeds and how to run it. */
export interface Feed {
  readonly source: EngineSource;
  /** Delivers what the source has (the trace, the simulated history) or starts the watch; resolves when it may be served. */
  start(): Promise<void>;
  /** Whether the source says itself when it is ready (a watch, after its first sync). */
  readonly ownReadiness: boolean;
  /** Up to when the source vouches for what it delivered, now (for the store's observed mark); null: nothing new. */
  vouched(): number | null;
  /** The API's "now": the wall clock, or as far as the simulator has delivered. */
  now(): number;
  /** The present retention is measured from: `now()` for a live source, the last observation of a recorded trace. */
  present(): number;
  stop(): Promise<void>;
}

export interface FeedContext {
  store: Store;
  logger: Logger;
  /** The cluster's name on its timelines. */
  cluster?: string;
}

/** Where timelines come from. */
export interface Source {
  readonly kind: SourceKind;
  open(context: FeedContext): Promise<Feed>;
}

function engineOptions(context: FeedContext): { onUpdate?: Store['record']; onFact?: Store['fact']; cluster?: string } {
  const { record, fact } = context.store;
  return {
    ...(record === undefined ? {} : { onUpdate: record }),
    ...(fact === undefined ? {} : { onFact: fact }),
    ...(context.cluster === undefined ? {} : { cluster: context.cluster }),
  };
}

/** Restores a cluster engine's two layers from what the store kept. The node layer is in a gap from
 *  where the store stopped until the watches relist (a trace replayed again keeps it as stored). */
function restoreCluster(engine: ClusterEngine, recovery: Store['recovery']): void {
  if (recovery === null) return;
  engine.restore(recovery.machines, recovery.observedUntil);
  engine.restoreNodeLayer(recovery.nodeLayers, recovery.observedUntil);
}

/** The time of the latest transition of any timeline; null when there is none. */
function latestTransition(timelines: Iterable<Timeline>): number | null {
  let latest: number | null = null;
  for (const { transitions } of timelines) {
    const last = transitions[transitions.length - 1];
    if (last !== undefined && (latest === null || last.at > latest)) latest = last.at;
  }
  return latest;
}

/** A trace (a file, or '-' for standard input), replayed once; a restart skips what the store holds. */
export function traceSource(trace: string): Source {
  return {
    kind: 'trace',
    open: async ({ store, logger, ...rest }) => {
      // A trace of a cluster has Pods and Nodes: the engine keeps the node layer beside.
      const engine = new ClusterEngine(engineOptions({ store, logger, ...rest }));
      const observedUntil = store.recovery?.observedUntil ?? null;
      restoreCluster(engine, store.recovery);
      const source = new EngineSource('trace', engine, false);
      return {
        source,
        ownReadiness: false,
        start: async () => {
          source.setReadiness({ ready: false, reason: `replaying ${trace}` });
          // A trace holds every change: after a restart, what the store holds is skipped and nothing was missed.
          if (observedUntil !== null) engine.endGap(observedUntil);
          const started = Date.now();
          const input = trace === '-' ? process.stdin : createReadStream(trace, { highWaterMark: 1 << 20 });
          const counts = await replayTrace(
            input,
            engine,
            (c) => {
              store.observed(engine.horizon);
              logger.info({ observations: c.observations, jobsets: c.jobsets }, 'replaying');
            },
            observedUntil,
          );
          store.observed(engine.horizon);
          logger.info({ ...counts, seconds: (Date.now() - started) / 1000 }, 'trace replayed');
        },
        vouched: () => null,
        now: Date.now,
        // A recording is as old as its last line: serving it does not age it (retention counts back
        // from there). A data dir that lost its observed mark (a kill before format 2) is at least as
        // late as its latest transition.
        present: () => engine.horizon ?? latestTransition(engine.timelines()) ?? Date.now(),
        stop: async () => undefined,
      };
    },
  };
}

export interface SimulatorSettings {
  jobsets: number;
  historyDays: number;
  seed: number;
  profile: ProfileName;
  speed: number;
}

/** The simulated cluster is anchored in the data dir, so a restart resumes the same fleet. */
function simulationAnchor(dir: string | null, settings: SimulatorSettings): SimulationAnchor | undefined {
  if (dir === null) return undefined;
  const path = join(dir, 'simulation.json');
  if (!existsSync(path)) return undefined;
  const saved = JSON.parse(readFileSync(path, 'utf8')) as { settings: Record<string, unknown>; anchor: SimulationAnchor };
  if (JSON.stringify(saved.settings) !== JSON.stringify(settings)) {
    throw new UsageError(
      `${dir} holds a simulated cluster with other settings (${JSON.stringify(saved.settings)}): use the same --jobsets, --history-days, --seed, --profile and --speed, or another --data-dir`,
    );
  }
  return saved.anchor;
}

/** A simulated cluster advancing in real time (× speed). */
export function simulatorSource(settings: SimulatorSettings): Source {
  return {
    kind: 'simulator',
    open: async (context) => {
      const { store, logger } = context;
      // The simulated cluster has Pods and Nodes too: the engine keeps the node layer beside.
      const engine = new ClusterEngine(engineOptions(context));
      const observedUntil = store.recovery?.observedUntil ?? null;
      restoreCluster(engine, store.recovery);
      const source = new EngineSource('simulator', engine, true);
      const simulation = new LiveSimulation(engine, { ...settings, nodes: true, now: Date.now, anchor: simulationAnchor(store.dir, settings) });
      if (store.dir !== null) writeFileSync(join(store.dir, 'simulation.json'), JSON.stringify({ settings, anchor: simulation.anchor }, null, 2));
      return {
        source,
        ownReadiness: false,
        start: async () => {
          source.setReadiness({ ready: false, reason: 'simulating the history of the fleet' });
          if (observedUntil !== null) {
            const relisted = simulation.resume(observedUntil);
            logger.info(
              { relisted, gapFrom: new Date(observedUntil).toISOString(), resumedAt: new Date(simulation.advancedTo ?? observedUntil).toISOString() },
              'resumed the simulated cluster after a restart: the time in between is unknown where the objects changed',
            );
          }
          simulation.start();
          // Vouch for the history at once: a process killed before the first periodic mark must still
          // tell its successor where the gap begins.
          store.observed(simulation.advancedTo);
          await store.flushed();
          logger.info(source.counts(), 'simulated cluster running');
        },
        // A live source vouches for the time up to what it has delivered, even when nothing changed.
        vouched: () => simulation.advancedTo,
        // Its "now" is as far as it has delivered (it advances in ticks, a simulated hour each at
        // --speed 3600), so nothing is vouched for that was not yet observed.
        now: () => simulation.advancedTo ?? simulation.now(),
        present: () => simulation.advancedTo ?? simulation.now(),
        stop: async () => simulation.stop(),
      };
    },
  };
}

/** A Kubernetes cluster, watched (client-node is loaded only here). */
export function clusterSource(settings: WatchSettings): Source {
  return {
    kind: 'kubernetes',
    open: async (context) => {
      const { store, logger } = context;
      const { watchCluster } = await import('../service/live-cluster.ts');
      const { KubeConfigError } = await import('../sources/cluster/config.ts');
      const engine = new ClusterEngine(engineOptions(context));
      restoreCluster(engine, store.recovery);
      const source = new EngineSource('kubernetes', engine, true);
      // Watching starts here, before the API listens: a kubeconfig that cannot be loaded is a usage error.
      let live: LiveCluster;
      try {
        live = watchCluster(engine, source, settings, logger);
      } catch (error) {
        if (error instanceof KubeConfigError) throw new UsageError(error.message);
        throw error;
      }
      return {
        source,
        // Readiness is the watcher's to say: false until the first sync, and while a watch is broken.
        ownReadiness: true,
        start: async () => undefined,
        // A watch vouches for the time up to now while it is synced; during a gap, up to where it broke.
        vouched: () => (live.watcher.readiness().ready ? source.horizon(Date.now()) : null),
        now: Date.now,
        present: Date.now,
        stop: () => live.stop(),
      };
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The session: a source feeding a store, kept up by one maintenance loop

export interface SessionOptions {
  logger: Logger;
  /** Timelines that ended longer ago than this are dropped (from memory, and from the store). */
  retentionMs: number;
  /** The embedded store compacts after this many records. */
  snapshotEvery: number;
  cluster?: string;
  /** The maintenance loop's periods, ms (defaults in sessionIntervals). */
  intervals?: Partial<z.input<typeof sessionIntervals>>;
}

/** The maintenance loop: the observed mark every second, a look at the records since the last snapshot every 10 s, retention and a snapshot hourly. */
export const sessionIntervals = z.object({
  observedMs: z.number().int().positive().default(1000),
  snapshotCheckMs: z.number().int().positive().default(10_000),
  compactMs: z.number().int().positive().default(3_600_000),
});

export interface Session {
  readonly source: EngineSource;
  readonly store: Store;
  readonly now: () => number;
  /** Runs the source until it may be served, then the maintenance loop. */
  start(): Promise<void>;
  /** Stops the loop and the source, then flushes and closes the store. */
  stop(): Promise<void>;
}

/** Opens `source` over `store`'s recovery. The one place where timers are set and a store is flushed at the end. */
export async function openSession(source: Source, store: Store, options: SessionOptions): Promise<Session> {
  const { logger } = options;
  const intervals = sessionIntervals.parse(options.intervals ?? {});
  const feed = await source.open({ store, logger, ...(options.cluster === undefined ? {} : { cluster: options.cluster }) });
  const engine = feed.source.engine;
  feed.source.addCheck(() => {
    const failure = store.failure();
    return failure === null ? { ready: true } : { ready: false, reason: failure };
  });
  const nodeLayers = (): readonly Timeline[] => (engine instanceof ClusterEngine ? engine.nodeTimelines() : []);
  const timers: NodeJS.Timeout[] = [];
  let compacting: Promise<void> | null = null;

  /** Retention, then (when the store keeps anything) a snapshot of what is left. */
  const compact = (why: string): Promise<void> => {
    compacting ??= (async () => {
      const gone = expired(engine.timelines(), feed.present(), options.retentionMs);
      if (gone.length > 0) engine.forget(gone);
      await store.snapshot(engine.machines(), engine.horizon, nodeLayers());
      logger.info({ timelines: engine.counts.jobsets, dropped: gone.length, why }, 'retention and snapshot');
    })().finally(() => (compacting = null));
    return compacting;
  };
  const every = (ms: number, fn: () => void): void => {
    const t = setInterval(fn, ms);
    t.unref();
    timers.push(t);
  };
  const failed = (err: unknown): void => logger.error({ err }, 'snapshot failed');

  return {
    source: feed.source,
    store,
    now: () => feed.now(),
    start: async () => {
      await feed.start();
      // What ended before the retention period is dropped before it is served, not an hour later.
      if (expired(engine.timelines(), feed.present(), options.retentionMs).length > 0) await compact('at start').catch(failed);
      const preparing = Date.now();
      feed.source.prepare();
      logger.info({ seconds: (Date.now() - preparing) / 1000 }, 'timelines indexed');
      if (!feed.ownReadiness) feed.source.setReadiness({ ready: true });
      // The loop: the observed mark every second, a snapshot when enough records were written, retention hourly.
      every(intervals.observedMs, () => {
        const at = feed.vouched();
        if (at !== null) store.observed(at);
      });
      every(intervals.snapshotCheckMs, () => {
        if ((store.status?.().recordsSinceSnapshot ?? 0) >= options.snapshotEvery) compact('records since the last snapshot').catch(failed);
      });
      every(intervals.compactMs, () => void compact('hourly').catch(failed));
    },
    stop: async () => {
      for (const t of timers) clearInterval(t);
      await feed.stop();
      await compacting;
      await store.close(engine.machines(), engine.horizon, nodeLayers());
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The API and the shutdown path

/** Serves the API; resolves with the server and the URL it listens on (the port may have been 0). */
export async function serveApi(host: string, port: number, options: AppOptions): Promise<{ server: Server; url: string }> {
  const server = createApp(options).listen(port, host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const address = server.address();
  const url = address === null || typeof address === 'string' ? String(address) : `http://${address.address}:${address.port}`;
  return { server, url };
}

/** What the API needs of a store (absent for memory). */
export function storeOptions(store: Store): Pick<AppOptions, 'beforeRead' | 'store'> {
  const { status } = store;
  return status === undefined ? {} : { beforeRead: () => store.flushed(), store: status };
}

/** How long stopping may take before the process exits anyway (`--shutdown-grace`). */
export const SHUTDOWN_GRACE_MS = 10_000;

/**
 * The one shutdown path: on SIGTERM or SIGINT, stop taking requests and `stop` (the source, then
 * the store: flushed and closed) while the requests already under way finish; exit 0, or 1 when
 * stopping failed. After `graceMs` it exits anyway, with 1: a request still open was cut, or what
 * `stop` had not finished (a last snapshot, a final write) was not done, and a supervisor must not
 * read that as a clean stop.
 */
export function stopOnSignals(logger: Logger, server: Server, stop: () => Promise<void>, graceMs = SHUTDOWN_GRACE_MS): void {
  const onSignal = (signal: string): void => {
    logger.info({ signal }, 'stopping');
    let storeStopped = false;
    // close() refuses new connections and closes idle ones; it calls back once the busy ones are done.
    const drained = new Promise<void>((resolve) => server.close(() => resolve()));
    const stopped = stop().then(() => {
      storeStopped = true;
    });
    Promise.all([drained, stopped]).then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'stopping failed: the store could not be flushed and closed (what its log or database holds is kept)');
        process.exit(1);
      },
    );
    setTimeout(() => {
      const waitingFor = storeStopped ? 'requests still under way (cut)' : 'the source and store to stop (what the store had written is kept)';
      logger.error({ graceMs, waitingFor }, `stopping took longer than the shutdown grace period: exiting without a clean stop, still waiting for ${waitingFor}`);
      process.exit(1);
    }, graceMs).unref();
  };
  process.once('SIGTERM', () => onSignal('SIGTERM'));
  process.once('SIGINT', () => onSignal('SIGINT'));
}
