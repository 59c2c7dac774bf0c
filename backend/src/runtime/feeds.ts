// The feeds of a session: one source (sources/: a trace replayed once, the simulated cluster
// advancing in real time, a Kubernetes cluster watched) feeding one engine, restored from what the
// sink kept, and the view of that engine the API serves. Each says how it starts, when it is ready,
// up to when it vouches for what it delivered, and what "now" is for it. A feed loads its source's
// code when it opens (the trace's parser, the simulator, client-node): a service holds only its own.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { ClusterEngine } from '../nodes/engine.ts';
import type { PoolLayerOptions } from '../nodes/pools/layer.ts';
import type { ProfileName } from '../sources/simulator/index.ts';
import { lastAt, transitionCount, type Timeline } from '../timeline/types.ts';
import type { LiveCluster, LiveClusterOptions, UsageKeeping } from './live-cluster.ts';
import type { JobSetUsage } from '../usage/jobset-usage.ts';
import { restoreUsage, usageRecords } from './usage-store.ts';
import type { SimulationAnchor } from './live-simulation.ts';
import { EngineView, keptIndex, type SourceKind } from './served-view.ts';
import { UsageBook } from '../usage/book.ts';
import type { Sink } from './sinks.ts';

/** A feed opened over a sink's recovery: the engine it feeds, the view served of it, and how to run it. */
export interface RunningFeed {
  readonly view: EngineView;
  /** Delivers what the source has (the trace, the simulated history) or starts the watch; resolves when it may be served. */
  start(): Promise<void>;
  /** Whether the source says itself when it is ready (a watch, after its first sync). */
  readonly ownReadiness: boolean;
  /** Up to when the source vouches for what it delivered, now (for the sink's observed mark); null: nothing new. */
  vouched(): number | null;
  /** The API's "now": the wall clock, or as far as the simulator has delivered. */
  now(): number;
  /** The present retention is measured from: `now()` for a live source, the last observation of a recorded trace. */
  present(): number;
  stop(): Promise<void>;
}

export interface FeedContext {
  sink: Sink;
  logger: Logger;
  /** The cluster's name on its timelines. */
  cluster?: string;
  /** How node pools are read (a cluster engine's pool layer). */
  pools?: PoolLayerOptions;
}

/** One source (sources/: a trace, the simulator, a cluster) feeding an engine, not opened yet. */
export interface Feed {
  readonly kind: SourceKind;
  open(context: FeedContext): Promise<RunningFeed>;
}

/** A feed's settings that cannot work (another simulation in the data dir, a kubeconfig that cannot be loaded): the command's usage error. */
export class FeedSettingsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FeedSettingsError';
  }
}

function engineOptions(context: FeedContext): { onUpdate?: Sink['record']; onFact?: Sink['fact']; cluster?: string; pools?: PoolLayerOptions } {
  const { record, fact } = context.sink;
  return {
    ...(record === undefined ? {} : { onUpdate: record }),
    ...(fact === undefined ? {} : { onFact: fact }),
    ...(context.cluster === undefined ? {} : { cluster: context.cluster }),
    ...(context.pools === undefined ? {} : { pools: context.pools }),
  };
}

/** Restores a cluster engine's two layers from what the sink kept. The node layer is in a gap from
 *  where the sink stopped until the watches relist (a trace replayed again keeps it as stored). */
function restoreCluster(engine: ClusterEngine, recovery: Sink['recovery']): void {
  if (recovery === null) return;
  engine.restore(recovery.byUid ?? recovery.machines, recovery.observedUntil);
  // The map is the engine's now (its closed runs' values are their timelines alone).
  delete recovery.byUid;
  engine.restoreNodeLayer(recovery.nodeLayers, recovery.observedUntil, recovery.pools ?? [], recovery.derivedNodeLayers);
  // The node layer has them now: their UIDs as strings (~56 bytes a closed run) are let go.
  delete recovery.derivedNodeLayers;
}

/**
 * The engine restored from the sink's recovery, and its view with the fleet index the sink kept. The
 * restored machines are the engine's from then on (a closed run's kept as its timeline alone:
 * timeline/machine.ts settledMachine), so the recovery lets go of them, or they would all stay.
 */
function restoredView(kind: SourceKind, engine: ClusterEngine, live: boolean, recovery: Sink['recovery'], logger: Logger): EngineView {
  restoreCluster(engine, recovery);
  const view = new EngineView(kind, engine, live, keptIndex(recovery, logger));
  if (recovery !== null) recovery.machines = [];
  return view;
}

/** The time of the latest transition of any timeline; null when there is none. */
function latestTransition(timelines: Iterable<Timeline>): number | null {
  let latest: number | null = null;
  for (const tl of timelines) {
    if (transitionCount(tl) === 0) continue;
    const last = lastAt(tl);
    if (latest === null || last > latest) latest = last;
  }
  return latest;
}

/** A trace (a file, or '-' for standard input), replayed once; a restart skips what the sink holds. */
export function traceFeed(trace: string, parseThreads?: number): Feed {
  return {
    kind: 'trace',
    open: async ({ sink, logger, ...rest }) => {
      const { replayTraceInWorkers, traceInput } = await import('./trace-workers.ts');
      // A trace of a cluster has Pods and Nodes: the engine keeps the node layer beside.
      const engine = new ClusterEngine(engineOptions({ sink, logger, ...rest }));
      const observedUntil = sink.recovery?.observedUntil ?? null;
      const view = restoredView('trace', engine, false, sink.recovery, logger);
      return {
        view,
        ownReadiness: false,
        start: async () => {
          view.setReadiness({ ready: false, reason: `replaying ${trace}` });
          // A trace holds every change: after a restart, what the sink holds is skipped and nothing was missed.
          if (observedUntil !== null) engine.endGap(observedUntil);
          const started = Date.now();
          const input = traceInput(trace);
          let chunks = { here: 0, workers: 0 };
          const counts = await replayTraceInWorkers(input, engine, {
            ...(parseThreads !== undefined ? { workers: parseThreads } : {}),
            poolLabel: engine.poolLayer.poolLabel,
            onProgress: (c) => {
              sink.observed(engine.horizon);
              logger.info({ observations: c.observations, jobsets: c.jobsets }, 'replaying');
            },
            after: observedUntil,
            onDone: (c) => (chunks = c),
          });
          sink.observed(engine.horizon);
          logger.info({ ...counts, seconds: (Date.now() - started) / 1000, chunksParsedInWorkers: chunks.workers, chunksParsedInMainThread: chunks.here }, 'trace replayed');
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
    throw new FeedSettingsError(
      `${dir} holds a simulated cluster with other settings (${JSON.stringify(saved.settings)}): use the same --jobsets, --history-days, --seed, --profile and --speed, or another --data-dir`,
    );
  }
  return saved.anchor;
}

/** A simulated cluster advancing in real time (× speed), with its JobSets' resource usage kept for `usageRetentionMs`. */
export function simulatorFeed(settings: SimulatorSettings, usageRetentionMs?: number): Feed {
  return {
    kind: 'simulator',
    open: async (context) => {
      const { sink, logger } = context;
      const { LiveSimulation } = await import('./live-simulation.ts');
      const { SIMULATED_USAGE_INTERVAL_MS } = await import('../sources/simulator/index.ts');
      // The simulated cluster has Pods and Nodes too (the engine keeps the node layer beside), and Kueue's Workloads.
      const engine = new ClusterEngine(engineOptions(context));
      const observedUntil = sink.recovery?.observedUntil ?? null;
      const view = restoredView('simulator', engine, true, sink.recovery, logger);
      // Its usage: every sampling made (the model is never late), so a sampling holds until the next, no longer.
      const book = new UsageBook({ holdMs: SIMULATED_USAGE_INTERVAL_MS });
      view.setUsage(book);
      const usage = { book, ...(usageRetentionMs !== undefined ? { retentionMs: usageRetentionMs } : {}) };
      const simulation = new LiveSimulation(engine, { ...settings, nodes: true, workloads: true, usage, now: Date.now, anchor: simulationAnchor(sink.dir, settings) });
      if (sink.dir !== null) writeFileSync(join(sink.dir, 'simulation.json'), JSON.stringify({ settings, anchor: simulation.anchor }, null, 2));
      return {
        view,
        ownReadiness: false,
        start: async () => {
          view.setReadiness({ ready: false, reason: 'simulating the history of the fleet' });
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
          sink.observed(simulation.advancedTo);
          await sink.flushed();
          logger.info(view.counts(), 'simulated cluster running');
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
export function clusterFeed(settings: LiveClusterOptions): Feed {
  return {
    kind: 'kubernetes',
    open: async (context) => {
      const { sink, logger } = context;
      const { watchCluster, usageHoldMs } = await import('./live-cluster.ts');
      const { KubeConfigError } = await import('../sources/cluster/config.ts');
      const engine = new ClusterEngine(engineOptions(context));
      const view = restoredView('kubernetes', engine, true, sink.recovery, logger);
      // The usage sampled before a restart, when the store kept it (the data dir), and the store's writer.
      let keeping: UsageKeeping | undefined;
      if (settings.usage !== undefined) {
        const book = new UsageBook({ holdMs: usageHoldMs(settings.usage.intervalMs) });
        restoreUsage(book, sink.recovery?.usage, Date.now(), settings.usage.retentionMs);
        const write = sink.usage;
        keeping = { book, ...(write !== undefined ? { onRecorded: (usages: JobSetUsage[]) => write(usageRecords(usages)) } : {}) };
      }
      // Watching starts here, before the API listens: a kubeconfig that cannot be loaded is a usage error.
      let live: LiveCluster;
      try {
        live = watchCluster(engine, view, settings, logger, keeping);
      } catch (error) {
        if (error instanceof KubeConfigError) throw new FeedSettingsError(error.message);
        throw error;
      }
      return {
        view,
        // Readiness is the watcher's to say: false until the first sync, and while a watch is broken.
        ownReadiness: true,
        start: async () => undefined,
        // A watch vouches for the time up to now while it is synced; during a gap, up to where it broke.
        vouched: () => (live.watcher.readiness().ready ? view.horizon(Date.now()) : null),
        now: Date.now,
        present: Date.now,
        stop: () => live.stop(),
      };
    },
  };
}
