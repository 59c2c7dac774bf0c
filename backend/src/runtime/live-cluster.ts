// The 'kubernetes' source of `upness serve` at run time: the cluster's watcher (sources/cluster)
// feeding a ClusterEngine, its readiness and its health on the served view, gaps passed on to the JobSet
// layer and to the node layer.

import type { Logger } from 'pino';
import type { ClusterEngine } from '../nodes/engine.ts';
import type { EngineView } from './served-view.ts';
import { loadKubeConfig } from '../sources/cluster/config.ts';
import type { WatchTimings } from '../sources/cluster/resource-watch.ts';
import { ClusterWatcher } from '../sources/cluster/watcher.ts';
import { fetchKubeletSummary } from '../sources/cluster/kubelet-stats.ts';
import { UsageBook } from '../usage/book.ts';
import type { JobSetUsage } from '../usage/jobset-usage.ts';
import { UsageSampler } from './usage-sampler.ts';
import { usageHoldMs } from './usage-store.ts';

export interface LiveClusterOptions {
  kubeconfig?: string;
  context?: string;
  namespaces: string[];
  timings: WatchTimings;
  readyBrokenMs: number;
  /** Watch Kueue's Workloads too (their eviction reasons). */
  workloads?: boolean;
  /** Sample the JobSet pods' resource usage from their kubelets (--watch-usage), kept for the retention period. */
  usage?: { intervalMs: number; retentionMs: number };
}

export interface LiveCluster {
  watcher: ClusterWatcher;
  /** Resolves once the first sync has been delivered. */
  firstSync: Promise<number>;
  stop(): Promise<void>;
}

/** Where the sampled usage goes: a book (restored from the store, when it kept any) and the store's writer. */
export interface UsageKeeping {
  book: UsageBook;
  onRecorded?: (usages: JobSetUsage[]) => void;
}

export { usageHoldMs } from './usage-store.ts';

export function watchCluster(engine: ClusterEngine, view: EngineView, options: LiveClusterOptions, logger: Logger, keeping?: UsageKeeping): LiveCluster {
  const { config, source: from } = loadKubeConfig(options);
  const cluster = config.getCurrentCluster();
  logger.info({ kubeconfig: from, context: config.getCurrentContext(), server: cluster?.server ?? null, namespaces: options.namespaces.length === 0 ? 'all' : options.namespaces }, 'kubernetes source');
  let synced: (at: number) => void = () => {};
  const firstSync = new Promise<number>((resolve) => (synced = resolve));
  const log = logger.child({ component: 'watch' });
  const watcher = new ClusterWatcher(
    { config, namespaces: options.namespaces, timings: options.timings, readyBrokenMs: options.readyBrokenMs, logger: log, workloads: options.workloads === true },
    {
      observe: (observation) => {
        try {
          engine.observe(observation);
        } catch (error) {
          // A bug, not the cluster's doing: say so and keep watching the other objects.
          log.error({ err: error, uid: observation.object.metadata.uid, kind: observation.object.kind }, 'observation refused by the engine');
        }
      },
      gap: ({ layer, phase, at }) => {
        if (layer === 'jobsets') {
          if (phase === 'begin') engine.beginGap(at);
          else engine.endGap(at);
        } else if (phase === 'begin') engine.beginNodeGap(at);
        else engine.endNodeGap(at);
      },
      firstSync: (at) => {
        // Restored from a store: the time since it last observed is a gap that this sync ends. What
        // the store holds and the cluster no longer has was deleted meanwhile.
        if (engine.gapStart !== null) {
          engine.reconcile({ uids: watcher.uids('jobsets'), namespaces: options.namespaces }, at);
          engine.endGap(at);
          // The node layer restored from the store: Pods and Nodes have been listed again too.
          engine.endNodeGap(at);
        }
        synced(at);
      },
    },
  );
  view.setWatches(() => watcher.status());
  // Readiness is the watcher's: polled, and logged when it turns.
  let wasReady: boolean | null = null;
  const refresh = (): void => {
    const readiness = watcher.readiness();
    view.setReadiness(readiness);
    if (readiness.ready === wasReady) return;
    if (readiness.ready) log.info('ready');
    else if (wasReady !== null) log.warn({ reason: readiness.reason }, 'not ready');
    wasReady = readiness.ready;
  };
  const timer = setInterval(refresh, 250);
  timer.unref();
  refresh();
  watcher.start();
  let sampler: UsageSampler | null = null;
  if (options.usage !== undefined) {
    const { intervalMs, retentionMs } = options.usage;
    const book = keeping?.book ?? new UsageBook({ holdMs: usageHoldMs(intervalMs) });
    sampler = new UsageSampler({
      intervalMs,
      fetchSummary: (node, signal) => fetchKubeletSummary(config, node, signal),
      pods: () => watcher.objects('pods'),
      book,
      ...(keeping?.onRecorded !== undefined ? { onRecorded: keeping.onRecorded } : {}),
      retentionMs,
      logger: logger.child({ component: 'usage' }),
    });
    view.setUsage(book, sampler);
    // The first sampling waits for the first sync: before it, the pods are not all known.
    void firstSync.then(() => sampler?.start());
  }
  return {
    watcher,
    firstSync,
    stop: async () => {
      clearInterval(timer);
      await sampler?.stop();
      await watcher.stop();
    },
  };
}
