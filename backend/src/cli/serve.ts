// `upness serve`: the service. Its timelines come from a trace (--trace), from a Kubernetes cluster
// (--kubeconfig, --context, $KUBECONFIG or a pod's service account: backend/src/sources/cluster), or from a
// simulated cluster advancing in real time (the default), and are kept in a durable data dir
// (--data-dir) unless --memory says otherwise.

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pino } from 'pino';
import { describeUrl, isPostgresUrl } from '../store/postgres-url.ts';
import { clusterRequested } from '../sources/cluster/choice.ts';
import { clusterFeed, simulatorFeed, traceFeed, type Feed } from '../runtime/feeds.ts';
import { openSession, stopOnSignals, type PoolLayerOptions } from '../runtime/session.ts';
import { oldSpaceUsed } from '../runtime/heap-after-load.ts';
import { embeddedSink, memorySink } from '../runtime/sinks.ts';
import { serveApi, sinkOptions, withUsageErrors } from './compose.ts';
import { parseUsageOptions, parseWatchOptions, type UsageOptionValues, type WatchOptionValues } from './watch-options.ts';
import { UsageError } from './options.ts';
import type { ProfileName } from '../sources/simulator/index.ts';

export interface ServeOptions extends WatchOptionValues, UsageOptionValues {
  host: string;
  port: number;
  trace?: string;
  /** Worker threads that parse --trace beside the main thread, which parses a share too (default: one fewer than the available cores). */
  parseThreads?: number;
  kubeconfig?: string;
  tokenFile?: string;
  dataDir: string;
  memory?: boolean;
  /** ms */
  retention: number;
  snapshotEvery: number;
  jobsets: number;
  historyDays: number;
  seed: number;
  profile: ProfileName;
  speed: number;
  /** ms */
  terminalGrace: number;
  /** ms: how long stopping may take (default 10s, 15s for a leading replica, which hands over its Lease). */
  shutdownGrace?: number;
  logLevel: string;
  /** Percent the heap may grow past what lives once loaded (0: V8's own policy). */
  heapGrowth: number;
  /** PostgreSQL instead of --data-dir (see serve-postgres.ts). */
  store?: string;
  clusterName?: string;
  nodePoolLabel?: string;
  nodePoolSize?: Record<string, number>;
  follow?: boolean;
  serveClusters?: string;
  leaseName?: string;
  leaseNamespace?: string;
  replicaId?: string;
  leaseDuration: string;
  renewDeadline: string;
  retryPeriod: string;
}

function readToken(options: ServeOptions): string | null {
  if (options.tokenFile !== undefined) {
    const token = readFileSync(options.tokenFile, 'utf8').trim();
    if (token === '') throw new UsageError(`--token-file ${options.tokenFile} is empty`);
    return token;
  }
  const env = process.env.UPNESS_TOKEN?.trim();
  return env ? env : null;
}

/** How node pools are read: `--node-pool-label` and `--node-pool-size`. */
function poolOptions(options: ServeOptions): PoolLayerOptions {
  return { poolLabel: options.nodePoolLabel ?? null, expectedNodes: options.nodePoolSize ?? {} };
}

export async function serveCommand(options: ServeOptions): Promise<void> {
  // Numbers and durations come parsed and checked by commander (main.ts), --trace's conflicts too.
  const { port, terminalGrace: terminalGraceMs, retention: retentionMs, snapshotEvery, speed } = options;
  const shutdownGraceMs = options.shutdownGrace ?? null;
  // A trace wins over a cluster found in the environment ($KUBECONFIG, a pod's service account).
  const watching = options.trace === undefined && clusterRequested(options) ? parseWatchOptions(options) : null;
  // Usage is sampled from a cluster's kubelets only, and kept as long as timelines are.
  const usage = parseUsageOptions(options);
  if (usage !== null && watching === null) throw new UsageError('--watch-usage samples a cluster\'s kubelets: give a cluster to watch (--kubeconfig, $KUBECONFIG or a pod\'s service account)');
  const cluster = watching === null ? null : { ...watching, ...(usage !== null ? { usage: { ...usage, retentionMs } } : {}) };
  const token = readToken(options);
  const logger = pino({ level: options.logLevel, base: { service: 'upness' } });
  if (options.store !== undefined) {
    if (!isPostgresUrl(options.store)) throw new UsageError(`--store must be a postgres:// or postgresql:// URL, not "${describeUrl(options.store)}"`);
    // Loaded only here: PostgreSQL, the Replica and its Lease (client-node).
    const { servePostgres } = await import('./serve-postgres.ts');
    return servePostgres(
      {
        url: options.store,
        clusterName: options.clusterName ?? 'default',
        follow: options.follow === true,
        serveClusters: options.serveClusters ?? '',
        leaseDuration: options.leaseDuration,
        renewDeadline: options.renewDeadline,
        retryPeriod: options.retryPeriod,
        ...(options.leaseName !== undefined ? { leaseName: options.leaseName } : {}),
        ...(options.leaseNamespace !== undefined ? { leaseNamespace: options.leaseNamespace } : {}),
        ...(options.replicaId !== undefined ? { replicaId: options.replicaId } : {}),
      },
      { host: options.host, port, token, logger, terminalGraceMs, shutdownGraceMs, retentionMs, snapshotEvery, heapGrowthPercent: options.heapGrowth, cluster, pools: poolOptions(options) },
    );
  }
  // The feed: a trace, a cluster, or else the simulated cluster (its options are checked only then).
  const feed: Feed =
    options.trace !== undefined
      ? traceFeed(options.trace, options.parseThreads)
      : cluster !== null
        ? clusterFeed(cluster)
        : simulatorFeed({ jobsets: options.jobsets, historyDays: options.historyDays, seed: options.seed, profile: options.profile, speed }, retentionMs);
  // The data dir is read as its sink opens: part of the load that settleHeapAfterLoad weighs.
  const heapBeforeLoad = oldSpaceUsed();
  const sink = options.memory ? memorySink() : await embeddedSink(resolve(options.dataDir), logger);
  const session = await withUsageErrors(() =>
    openSession(feed, sink, { logger, retentionMs, snapshotEvery, heapBeforeLoad, heapGrowthPercent: options.heapGrowth, pools: poolOptions(options), ...(options.clusterName !== undefined ? { cluster: options.clusterName } : {}) }),
  );
  const { server, url, loaded } = await serveApi(options.host, port, { view: session.view, token, logger, now: session.now, terminalGraceMs, retentionMs, ...sinkOptions(sink) });
  logger.info({ url, auth: token === null ? 'none' : 'bearer token', source: feed.kind, dataDir: sink.where }, 'listening');
  stopOnSignals(logger, server, () => session.stop(), shutdownGraceMs ?? undefined);
  // Ready only once the feed has delivered everything it has: until then /readyz says why not.
  try {
    await session.start();
    loaded();
  } catch (error) {
    // A feed that cannot deliver (a malformed trace) stops the service, then the error is reported.
    server.close();
    await session.stop().catch((err: unknown) => logger.error({ err }, 'stopping failed'));
    throw error;
  }
}
