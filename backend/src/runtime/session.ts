// The session: one feed (./feeds.ts) feeding one sink (./sinks.ts), whatever the combination, kept
// up by the same maintenance loop (the sink's observed mark, snapshots, retention) and stopped by
// the same shutdown path.
//
//   cli/serve.ts           options → a Feed and a Sink → openSession → the API → stopOnSignals
//   cli/serve-postgres.ts  the same session inside a Replica's `lead` (PostgreSQL, leader election)

import type { Server } from 'node:http';
import type { Logger } from 'pino';
import { ClusterEngine } from '../nodes/engine.ts';
import type { PoolLayerOptions } from '../nodes/pools/layer.ts';
import type { Timeline } from '../timeline/types.ts';
import type { IndexSource, UsageSnapshotEntry } from '../store/store.ts';
import type { Feed } from './feeds.ts';
import { HEAP_GROWTH_PERCENT, oldSpaceUsed, settleHeapAfterLoad } from './heap-after-load.ts';
import { expired } from './retention.ts';
import type { EngineView } from './served-view.ts';

export type { PoolLayerOptions };
import type { Sink } from './sinks.ts';

export interface SessionOptions {
  logger: Logger;
  /** Timelines that ended longer ago than this are dropped (from memory, and from the sink). */
  retentionMs: number;
  /** The embedded store compacts after this many records. */
  snapshotEvery: number;
  cluster?: string;
  /** How node pools are read (`--node-pool-label`, `--node-pool-size`). */
  pools?: PoolLayerOptions;
  /** The maintenance loop's periods, ms (defaults in SESSION_INTERVALS). */
  intervals?: Partial<SessionIntervals>;
  /** Compact the heap once the load is done (heap-after-load.ts; default true): false for a benchmark's peer without it. */
  compactAfterLoad?: boolean;
  /** The old generation's use before the sink was opened (oldSpaceUsed; a data dir is read there): the load counts from it. Default: when the session opens. */
  heapBeforeLoad?: number;
  /** How far the heap may grow past what lives once the load is done, in percent (`--heap-growth`; default HEAP_GROWTH_PERCENT; 0: V8's own policy). */
  heapGrowthPercent?: number;
}

/** The maintenance loop: the observed mark every second, a look at the records since the last snapshot every 10 s, retention and a snapshot hourly. */
// Plain defaults, not a zod schema: the service's start loads no zod (issue 21 §3); only tests set these.
export interface SessionIntervals {
  observedMs: number;
  snapshotCheckMs: number;
  compactMs: number;
}
export const SESSION_INTERVALS: Readonly<SessionIntervals> = { observedMs: 1000, snapshotCheckMs: 10_000, compactMs: 3_600_000 };

export interface Session {
  readonly view: EngineView;
  readonly sink: Sink;
  readonly now: () => number;
  /** Runs the feed until it may be served, then the maintenance loop. */
  start(): Promise<void>;
  /** Stops the loop and the feed, then flushes and closes the sink. */
  stop(): Promise<void>;
}

/** Opens `feed` over `sink`'s recovery. The one place where timers are set and a sink is flushed at the end. */
export async function openSession(feed: Feed, sink: Sink, options: SessionOptions): Promise<Session> {
  const { logger } = options;
  const intervals: SessionIntervals = {
    observedMs: options.intervals?.observedMs ?? SESSION_INTERVALS.observedMs,
    snapshotCheckMs: options.intervals?.snapshotCheckMs ?? SESSION_INTERVALS.snapshotCheckMs,
    compactMs: options.intervals?.compactMs ?? SESSION_INTERVALS.compactMs,
  };
  // What the heap held before the load (a restore happens in open, a data dir's when its sink opened): settleHeapAfterLoad weighs the load by it.
  const heapBeforeLoad = options.heapBeforeLoad ?? oldSpaceUsed();
  const running = await feed.open({ sink, logger, ...(options.cluster === undefined ? {} : { cluster: options.cluster }), ...(options.pools === undefined ? {} : { pools: options.pools }) });
  const engine = running.view.engine;
  running.view.addCheck(() => {
    const failure = sink.failure();
    return failure === null ? { ready: true } : { ready: false, reason: failure };
  });
  const nodeLayers = (): readonly Timeline[] => (engine instanceof ClusterEngine ? engine.nodeTimelines() : []);
  const pools = (): readonly Timeline[] => (engine instanceof ClusterEngine ? engine.poolTimelines() : []);
  // The usage a sampler measured is kept with the timelines; the simulator's is made again at start, so not kept.
  const usage = (): UsageSnapshotEntry[] => {
    const kept = running.view.usage();
    return kept?.sampler ? kept.book.dump() : [];
  };
  // The served view's fleet index, kept with the snapshot so that the next start need not build it.
  const index: IndexSource = (placeOf) => running.view.index().image(placeOf);
  const timers: NodeJS.Timeout[] = [];
  let compacting: Promise<void> | null = null;

  /** Retention, then (when the sink keeps anything) a snapshot of what is left. */
  const compact = (why: string): Promise<void> => {
    compacting ??= (async () => {
      const gone = expired(engine.timelines(), running.present(), options.retentionMs);
      if (gone.length > 0) engine.forget(gone);
      if (engine instanceof ClusterEngine) engine.poolLayer.forget(expired(engine.poolTimelines(), running.present(), options.retentionMs));
      await sink.snapshot(engine.machines(), engine.horizon, nodeLayers(), pools(), usage(), index);
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
    view: running.view,
    sink,
    now: () => running.now(),
    start: async () => {
      await running.start();
      // What ended before the retention period is dropped before it is served, not an hour later.
      if (expired(engine.timelines(), running.present(), options.retentionMs).length > 0) await compact('at start').catch(failed);
      const preparing = Date.now();
      running.view.prepare();
      logger.info({ seconds: (Date.now() - preparing) / 1000 }, 'timelines indexed');
      // The load's garbage left the heap's pages sparse: compacted once, so RSS is what is kept; and
      // the queries' garbage may grow it by a bounded share.
      const growthPercent = options.heapGrowthPercent ?? HEAP_GROWTH_PERCENT;
      const { compaction, boundMs } = settleHeapAfterLoad(heapBeforeLoad, { compact: options.compactAfterLoad !== false, growthPercent });
      if (boundMs > 0) logger.info({ ms: Math.round(boundMs), growthPercent }, 'heap collected after the load, its growth bounded');
      if (compaction !== null) logger.info({ ms: Math.round(compaction.ms), growthPercent, committedMiB: [compaction.committedBefore, compaction.committedAfter].map(mib), usedMiB: mib(compaction.usedAfter) }, 'heap compacted after the load');
      if (!running.ownReadiness) running.view.setReadiness({ ready: true });
      // The loop: the observed mark every second, a snapshot when enough records were written, retention hourly.
      every(intervals.observedMs, () => {
        const at = running.vouched();
        if (at !== null) sink.observed(at);
      });
      every(intervals.snapshotCheckMs, () => {
        if ((sink.status?.().recordsSinceSnapshot ?? 0) >= options.snapshotEvery) compact('records since the last snapshot').catch(failed);
      });
      every(intervals.compactMs, () => void compact('hourly').catch(failed));
    },
    stop: async () => {
      for (const t of timers) clearInterval(t);
      // Watched until now: the last mark, not the last tick's (up to a second before).
      const at = running.vouched();
      if (at !== null) sink.observed(at);
      await running.stop();
      await compacting;
      await sink.close(engine.machines(), engine.horizon, nodeLayers(), pools(), usage(), index);
    },
  };
}

const mib = (bytes: number): number => Math.round(bytes / 2 ** 20);

// ---------------------------------------------------------------------------------------------
// The shutdown path

/** How long stopping may take before the process exits anyway (`--shutdown-grace`). */
export const SHUTDOWN_GRACE_MS = 10_000;

/**
 * The one shutdown path: on SIGTERM or SIGINT, stop taking requests and `stop` (the feed, then
 * the sink: flushed and closed) while the requests already under way finish; exit 0, or 1 when
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
