// `upness serve --store postgres://…`: timelines in PostgreSQL, shared by several replicas and
// several clusters. With `--lease-name`, the replicas elect a leader with a Kubernetes Lease: only
// the leader watches and writes, the others serve what it wrote. `--follow` makes a replica that
// never leads (a query-only service, e.g. one per region reading every cluster).

import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { Replica } from '../leader/replica.ts';
import { clusterFeed } from '../runtime/feeds.ts';
import { FollowerView, followerStoreStatus } from '../runtime/follower.ts';
import { openSession, stopOnSignals } from '../runtime/session.ts';
import { settleHeapAfterLoad } from '../runtime/heap-after-load.ts';
import { postgresSink } from '../runtime/sinks.ts';
import { usageHoldMs } from '../runtime/usage-store.ts';
import { checkClusterName, describeUrl } from '../store/postgres.ts';
import { serveApi, withUsageErrors } from './compose.ts';
import { parseTimerDuration, UsageError } from './options.ts';
import type { WatchSettings } from './watch-options.ts';
import type { PoolLayerOptions } from '../runtime/session.ts';

export interface PostgresServeOptions {
  url: string;
  clusterName: string;
  follow: boolean;
  /** Clusters to serve while following: names, or 'all'. */
  serveClusters: string;
  leaseName?: string;
  leaseNamespace?: string;
  replicaId?: string;
  leaseDuration: string;
  renewDeadline: string;
  retryPeriod: string;
}

export interface Common {
  host: string;
  port: number;
  token: string | null;
  logger: Logger;
  terminalGraceMs: number;
  /** `--shutdown-grace`, ms; null for the default. */
  shutdownGraceMs: number | null;
  retentionMs: number;
  snapshotEvery: number;
  /** `--heap-growth`: percent the heap may grow past what lives once loaded (0: V8's own policy). */
  heapGrowthPercent: number;
  /** The cluster to watch when leading (and its usage sampling); null for a follower. */
  cluster: (WatchSettings & { usage?: { intervalMs: number; retentionMs: number } }) | null;
  pools: PoolLayerOptions;
}

function ms(value: string, option: string): number {
  return parseTimerDuration(value, option, '15s');
}

export async function servePostgres(options: PostgresServeOptions, common: Common): Promise<void> {
  const { logger } = common;
  try {
    checkClusterName(options.clusterName);
  } catch (error) {
    throw new UsageError(`--cluster-name: ${error instanceof Error ? error.message : String(error)}`);
  }
  const follow = options.serveClusters === 'all' ? ('all' as const) : options.serveClusters.split(',').map((c) => c.trim()).filter((c) => c !== '');
  const where = describeUrl(options.url);
  const app = { token: common.token, logger, terminalGraceMs: common.terminalGraceMs, retentionMs: common.retentionMs };

  if (options.follow) {
    // Never leads: serves what the leaders of the named clusters write.
    const follower = new FollowerView(options.url, follow === 'all' ? {} : { clusters: follow });
    follower.start();
    const { server, url, loaded } = await serveApi(common.host, common.port, { ...app, view: follower, store: () => followerStoreStatus(follower) });
    // Once loaded, as a leader's session once its load is done: the queries' garbage grows the heap by
    // a bounded share, and the load's pooled pages are given back once no query comes for a while.
    void follower.loaded().then(() => {
      settleHeapAfterLoad(0, { compact: false, growthPercent: common.heapGrowthPercent });
      loaded();
    });
    logger.info({ url, store: where, role: 'follower', clusters: follow }, 'listening');
    stopOnSignals(logger, server, async () => follower.stop(), common.shutdownGraceMs ?? undefined);
    return;
  }

  const cluster = common.cluster;
  if (cluster === null) {
    throw new UsageError('--store needs a cluster to watch (--kubeconfig, $KUBECONFIG, or running in a pod), or --follow to only serve what others write');
  }
  let lease = null;
  if (options.leaseName !== undefined) {
    // client-node is loaded only when a Lease (or a cluster) needs it.
    const { loadKubeConfig } = await import('../sources/cluster/config.ts');
    const { defaultLeaseNamespace, kubeLeaseApi } = await import('../leader/lease-api.ts');
    lease = kubeLeaseApi(loadKubeConfig(cluster).config, options.leaseNamespace ?? defaultLeaseNamespace(), options.leaseName);
  }

  /** Called once a session's load is done (serveApi's `loaded`, set once it serves). */
  let sessionLoaded = (): void => {};
  const replica = new Replica({
    url: options.url,
    cluster: options.clusterName,
    identity: options.replicaId ?? hostname(),
    lease,
    timings: { leaseDurationMs: ms(options.leaseDuration, '--lease-duration'), renewDeadlineMs: ms(options.renewDeadline, '--renew-deadline'), retryPeriodMs: ms(options.retryPeriod, '--retry-period') },
    follow: follow === 'all' ? 'all' : follow.length > 0 ? follow : [options.clusterName],
    logger: logger.child({ component: 'replica' }),
    store: {
      // Recorded with the cluster: followers read the usage with the same hold.
      ...(cluster.usage !== undefined ? { usageHoldMs: usageHoldMs(cluster.usage.intervalMs) } : {}),
      onError: (error) =>
        error === null
          ? logger.info({ store: where }, 'writing to PostgreSQL again; nothing was lost')
          : logger.error({ store: where, err: error.message }, 'cannot write to PostgreSQL: new records are kept in memory and retried; /readyz says so'),
    },
    // Leading runs the same session as `upness serve --data-dir`: the cluster watched into this store.
    lead: async (store, recovery) => {
      const session = await withUsageErrors(() =>
        openSession(clusterFeed(cluster), postgresSink(store, recovery, where), {
          logger,
          retentionMs: common.retentionMs,
          snapshotEvery: common.snapshotEvery,
          heapGrowthPercent: common.heapGrowthPercent,
          cluster: options.clusterName,
          pools: common.pools,
        }),
      );
      await session.start();
      sessionLoaded();
      return { view: session.view, stop: () => session.stop() };
    },
  });
  const { server, url, loaded } = await serveApi(common.host, common.port, { ...app, view: replica.view, beforeRead: () => replica.flushed(), store: () => replica.storeStatus() });
  sessionLoaded = loaded;
  replica.start();
  logger.info({ url, store: where, cluster: options.clusterName, lease: options.leaseName ?? 'none (single writer)' }, 'listening');

  // Stopping hands over the Lease: the session stops, the store is closed, the Lease released.
  stopOnSignals(logger, server, () => replica.stop(), common.shutdownGraceMs ?? 15_000);
}
