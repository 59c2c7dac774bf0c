// `upness serve`: the service. Its timelines come from a trace (--trace), from a Kubernetes cluster
// (--kubeconfig, --context, $KUBECONFIG or a pod's service account: backend/src/sources/cluster), or from a
// simulated cluster advancing in real time (the default), and are kept in a durable data dir
// (--data-dir) unless --memory says otherwise.

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pino } from 'pino';
import { parseDuration } from '../query/types.ts';
import { describeUrl, isPostgresUrl } from '../store/postgres.ts';
import { clusterRequested } from '../sources/cluster/choice.ts';
import { clusterSource, embeddedStore, memoryStore, openSession, serveApi, simulatorSource, stopOnSignals, storeOptions, traceSource, type Source } from './compose.ts';
import { parseWatchOptions, type WatchOptionValues } from './watch-options.ts';
import { parseInteger, parsePositiveInt, parsePositiveNumber, UsageError } from './options.ts';
import type { ProfileName } from '../sources/simulator/index.ts';

export interface ServeOptions extends WatchOptionValues {
  host: string;
  port: string;
  trace?: string;
  kubeconfig?: string;
  tokenFile?: string;
  dataDir: string;
  memory?: boolean;
  retention: string;
  snapshotEvery: string;
  jobsets: string;
  historyDays: string;
  seed: string;
  profile: ProfileName;
  speed: string;
  terminalGrace: string;
  /** How long stopping may take (default 10s, 15s for a leading replica, which hands over its Lease). */
  shutdownGrace?: string;
  logLevel: string;
  /** PostgreSQL instead of --data-dir (see serve-postgres.ts). */
  store?: string;
  clusterName?: string;
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

function duration(value: string, option: string): number {
  const ms = parseDuration(value);
  if (ms === null) throw new UsageError(`${option} must be a duration such as 10m or 90d, not "${value}"`);
  return ms;
}

export async function serveCommand(options: ServeOptions): Promise<void> {
  const port = Number(options.port);
  if (!/^\d+$/.test(options.port) || port > 65_535) throw new UsageError(`--port must be a port number, not "${options.port}"`);
  const terminalGraceMs = duration(options.terminalGrace, '--terminal-grace');
  const shutdownGraceMs = options.shutdownGrace === undefined ? null : duration(options.shutdownGrace, '--shutdown-grace');
  const retentionMs = duration(options.retention, '--retention');
  const snapshotEvery = parsePositiveInt(options.snapshotEvery, '--snapshot-every');
  const speed = parsePositiveNumber(options.speed, '--speed');
  if (options.trace !== undefined && (options.kubeconfig !== undefined || options.context !== undefined)) {
    throw new UsageError('--trace and --kubeconfig/--context exclude each other: serve a recorded trace or a live cluster');
  }
  // A trace wins over a cluster found in the environment ($KUBECONFIG, a pod's service account).
  const cluster = options.trace === undefined && clusterRequested(options) ? parseWatchOptions(options) : null;
  const token = readToken(options);
  const logger = pino({ level: options.logLevel, base: { service: 'upness' } });
  if (options.store !== undefined) {
    if (!isPostgresUrl(options.store)) throw new UsageError(`--store must be a postgres:// or postgresql:// URL, not "${describeUrl(options.store)}"`);
    if (options.trace !== undefined) throw new UsageError('--store keeps what a cluster is watched into; serve a trace with --data-dir or --memory');
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
      { host: options.host, port, token, logger, terminalGraceMs, shutdownGraceMs, retentionMs, snapshotEvery, cluster },
    );
  }
  // The source: a trace, a cluster, or else the simulated cluster (its options are checked only then).
  const source: Source =
    options.trace !== undefined
      ? traceSource(options.trace)
      : cluster !== null
        ? clusterSource(cluster)
        : simulatorSource({ jobsets: parsePositiveInt(options.jobsets, '--jobsets'), historyDays: parsePositiveNumber(options.historyDays, '--history-days'), seed: parseInteger(options.seed, '--seed'), profile: options.profile, speed });
  const store = options.memory ? memoryStore() : await embeddedStore(resolve(options.dataDir), logger);
  const session = await openSession(source, store, { logger, retentionMs, snapshotEvery, ...(options.clusterName !== undefined ? { cluster: options.clusterName } : {}) });
  const { server, url } = await serveApi(options.host, port, { source: session.source, token, logger, now: session.now, terminalGraceMs, retentionMs, ...storeOptions(store) });
  logger.info({ url, auth: token === null ? 'none' : 'bearer token', source: source.kind, dataDir: store.where }, 'listening');
  stopOnSignals(logger, server, () => session.stop(), shutdownGraceMs ?? undefined);
  // Ready only once the source has delivered everything it has: until then /readyz says why not.
  try {
    await session.start();
  } catch (error) {
    // A source that cannot deliver (a malformed trace) stops the service, then the error is reported.
    server.close();
    await session.stop().catch((err: unknown) => logger.error({ err }, 'stopping failed'));
    throw error;
  }
}
