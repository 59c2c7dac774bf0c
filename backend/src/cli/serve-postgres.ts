// `upness serve --store postgres://…`: timelines in PostgreSQL, shared by several replicas and
// several clusters. With `--lease-name`, the replicas elect a leader with a Kubernetes Lease: only
// the leader watches and writes, the others serve what it wrote. `--follow` makes a replica that
// never leads (a query-only service, e.g. one per region reading every cluster).

import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { createApp } from '../http/app.ts';
import type { LiveCluster } from '../kube/live.ts';
import { defaultLeaseNamespace, kubeLeaseApi, connectionFromKubeConfig } from '../leader/lease.ts';
import { Replica } from '../leader/replica.ts';
import { FollowerSource, followerStoreStatus } from '../service/follower.ts';
import { expired } from '../service/retention.ts';
import { EngineSource, type TimelineSource } from '../service/source.ts';
import { checkClusterName, describeUrl } from '../store/postgres.ts';
import { ClusterEngine } from '../nodes/engine.ts';
import { parseTimerDuration, UsageError } from './options.ts';
import type { WatchSettings } from './watch-options.ts';

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
  retentionMs: number;
  /** The cluster to watch when leading; null for a follower. */
  cluster: WatchSettings | null;
}

function ms(value: string, option: string): number {
  return parseTimerDuration(value, option, '15s');
}

/** Serves the API; resolves with the server and the URL it listens on (the port may have been 0). */
async function listen(source: TimelineSource, common: Common, extra: Partial<Parameters<typeof createApp>[0]>): Promise<{ server: Server; url: string }> {
  const app = createApp({ source, token: common.token, logger: common.logger, terminalGraceMs: common.terminalGraceMs, retentionMs: common.retentionMs, ...extra });
  const server = app.listen(common.port, common.host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const address = server.address() as AddressInfo;
  return { server, url: `http://${address.address}:${address.port}` };
}

export async function servePostgres(options: PostgresServeOptions, common: Common): Promise<void> {
  const { logger } = common;
  try {
    checkClusterName(options.clusterName);
  } catch (error) {
    throw new UsageError(`--cluster-name: ${(error as Error).message}`);
  }
  const follow = options.serveClusters === 'all' ? ('all' as const) : options.serveClusters.split(',').map((c) => c.trim()).filter((c) => c !== '');
  const where = describeUrl(options.url);

  if (options.follow) {
    // Never leads: serves what the leaders of the named clusters write.
    const follower = new FollowerSource(options.url, follow === 'all' ? {} : { clusters: follow });
    follower.start();
    const { server, url } = await listen(follower, common, { store: () => followerStoreStatus(follower) });
    logger.info({ url, store: where, role: 'follower', clusters: follow }, 'listening');
    process.once('SIGTERM', () => server.close(() => process.exit(0)));
    process.once('SIGINT', () => server.close(() => process.exit(0)));
    return;
  }

  const cluster = common.cluster;
  if (cluster === null) {
    throw new UsageError('--store needs a cluster to watch (--kubeconfig, $KUBECONFIG, or running in a pod), or --follow to only serve what others write');
  }
  const { loadKubeConfig } = await import('../kube/config.ts');
  const { watchCluster } = await import('../kube/live.ts');
  const lease =
    options.leaseName === undefined
      ? null
      : kubeLeaseApi(connectionFromKubeConfig(loadKubeConfig(cluster).config), options.leaseNamespace ?? defaultLeaseNamespace(), options.leaseName);

  const replica = new Replica({
    url: options.url,
    cluster: options.clusterName,
    identity: options.replicaId ?? hostname(),
    lease,
    timings: { leaseDurationMs: ms(options.leaseDuration, '--lease-duration'), renewDeadlineMs: ms(options.renewDeadline, '--renew-deadline'), retryPeriodMs: ms(options.retryPeriod, '--retry-period') },
    follow: follow === 'all' ? 'all' : follow.length > 0 ? follow : [options.clusterName],
    logger: logger.child({ component: 'replica' }),
    store: {
      onError: (error) =>
        error === null
          ? logger.info({ store: where }, 'writing to PostgreSQL again; nothing was lost')
          : logger.error({ store: where, err: error.message }, 'cannot write to PostgreSQL: new records are kept in memory and retried; /readyz says so'),
    },
    lead: async (store, recovery) => {
      const engine = new ClusterEngine({ onUpdate: store.record.bind(store), cluster: options.clusterName });
      engine.restore(recovery.machines, recovery.observedUntil);
      const source = new EngineSource('kubernetes', engine, true);
      // A new leader takes over everything stored: sort and sum it before the watch starts.
      source.prepare();
      source.addCheck(() => {
        const error = store.status().error;
        return error === null ? { ready: true } : { ready: false, reason: `cannot write to PostgreSQL ${where}: ${error}` };
      });
      const live: LiveCluster = watchCluster(engine, source, cluster, logger);
      const timers = [
        setInterval(() => live.watcher.readiness().ready && store.observed(source.horizon(Date.now())), 1000),
        setInterval(() => {
          const gone = expired(engine.timelines(), Date.now(), common.retentionMs);
          if (gone.length > 0) engine.forget(gone);
          store.snapshot(engine.machines(), engine.horizon).catch((err) => logger.error({ err }, 'retention failed'));
        }, 3_600_000),
      ];
      for (const t of timers) t.unref();
      return {
        source,
        stop: async () => {
          for (const t of timers) clearInterval(t);
          await live.stop();
        },
      };
    },
  });
  const { server, url } = await listen(replica.source, common, { beforeRead: () => replica.flushed(), store: () => replica.storeStatus() });
  replica.start();
  logger.info({ url, store: where, cluster: options.clusterName, lease: options.leaseName ?? 'none (single writer)' }, 'listening');

  const stop = (signal: string): void => {
    logger.info({ signal }, 'stopping: handing over the Lease');
    server.close();
    replica.stop().then(
      () => process.exit(0),
      (err) => {
        logger.error({ err }, 'stopping failed');
        process.exit(1);
      },
    );
    setTimeout(() => process.exit(0), 15_000).unref();
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}
