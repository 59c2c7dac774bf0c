// `upness serve`: the service. Its timelines come from a trace (--trace), from a Kubernetes cluster
// (--kubeconfig, --context, $KUBECONFIG or a pod's service account: backend/src/kube), or from a
// simulated cluster advancing in real time (the default), and are kept in a durable data dir
// (--data-dir) unless --memory says otherwise.

import { createReadStream, existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { pino, type Logger } from 'pino';
import { createApp } from '../http/app.ts';
import { parseDuration } from '../query/types.ts';
import { LiveSimulation, type SimulationAnchor } from '../service/live-simulation.ts';
import { expired } from '../service/retention.ts';
import { EngineSource } from '../service/source.ts';
import type { ProfileName } from '../simulate/index.ts';
import { EmbeddedStore, type Recovery } from '../store/embedded.ts';
import { describeUrl, isPostgresUrl } from '../store/postgres.ts';
import { servePostgres } from './serve-postgres.ts';
import { TimelineEngine } from '../timeline/engine.ts';
import { ClusterEngine } from '../nodes/engine.ts';
import { clusterRequested } from '../kube/choice.ts';
import type { LiveCluster } from '../kube/live.ts';
import { parseWatchOptions, type WatchOptionValues } from './watch-options.ts';
import { replayTrace } from '../trace/replay.ts';
import { parseInteger, parsePositiveInt, parsePositiveNumber, UsageError } from './options.ts';

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

/** The simulated cluster is anchored in the data dir, so a restart resumes the same fleet. */
function simulationAnchor(dataDir: string | null, settings: Record<string, unknown>): SimulationAnchor | undefined {
  if (dataDir === null) return undefined;
  const path = join(dataDir, 'simulation.json');
  if (!existsSync(path)) return undefined;
  const saved = JSON.parse(readFileSync(path, 'utf8')) as { settings: Record<string, unknown>; anchor: SimulationAnchor };
  if (JSON.stringify(saved.settings) !== JSON.stringify(settings)) {
    throw new UsageError(
      `${dataDir} holds a simulated cluster with other settings (${JSON.stringify(saved.settings)}): use the same --jobsets, --history-days, --seed, --profile and --speed, or another --data-dir`,
    );
  }
  return saved.anchor;
}

async function openStore(dataDir: string, logger: Logger): Promise<{ store: EmbeddedStore; recovery: Recovery }> {
  const opened = await EmbeddedStore.open(dataDir, {
    onError: (error) =>
      error === null
        ? logger.info({ dataDir }, 'writing to the data dir again; nothing was lost')
        : logger.error({ dataDir, err: error.message }, 'cannot write to the data dir: new records are kept in memory and retried; /readyz says so'),
  });
  const { recovery } = opened;
  if (recovery.cut !== null) {
    logger.warn(recovery.cut, 'cut a torn record off the end of the log (the last run stopped in the middle of a write); everything before it is kept');
  }
  logger.info(
    { dataDir, timelines: recovery.machines.length, records: recovery.records, observedUntil: recovery.observedUntil && new Date(recovery.observedUntil).toISOString() },
    'data dir opened',
  );
  return opened;
}

export async function serveCommand(options: ServeOptions): Promise<void> {
  const port = Number(options.port);
  if (!/^\d+$/.test(options.port) || port > 65_535) throw new UsageError(`--port must be a port number, not "${options.port}"`);
  const terminalGraceMs = duration(options.terminalGrace, '--terminal-grace');
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
      { host: options.host, port, token, logger, terminalGraceMs, retentionMs, cluster },
    );
  }
  const dataDir = options.memory ? null : resolve(options.dataDir);

  const opened = dataDir === null ? null : await openStore(dataDir, logger);
  const store = opened?.store ?? null;
  const engineOptions = {
    ...(store === null ? {} : { onUpdate: store.record.bind(store) }),
    ...(options.clusterName !== undefined ? { cluster: options.clusterName } : {}),
  };
  // A cluster, or a trace of one, has Pods and Nodes: its engine keeps the node layer beside.
  const engine = cluster !== null || options.trace !== undefined ? new ClusterEngine(engineOptions) : new TimelineEngine(engineOptions);
  if (opened !== null) engine.restore(opened.recovery.machines, opened.recovery.observedUntil);
  const observedUntil = opened?.recovery.observedUntil ?? null;

  const source = new EngineSource(options.trace !== undefined ? 'trace' : cluster !== null ? 'kubernetes' : 'simulator', engine, options.trace === undefined);
  if (store !== null) {
    source.addCheck(() => {
      const error = store.status().error;
      return error === null ? { ready: true } : { ready: false, reason: `cannot write to the data dir ${dataDir}: ${error}` };
    });
  }

  let live: LiveCluster | null = null;
  if (cluster !== null) {
    const { watchCluster } = await import('../kube/live.ts');
    const { KubeConfigError } = await import('../kube/config.ts');
    try {
      live = watchCluster(engine as ClusterEngine, source, cluster, logger);
    } catch (error) {
      if (error instanceof KubeConfigError) throw new UsageError(error.message);
      throw error;
    }
  }

  let simulation: LiveSimulation | null = null;
  if (options.trace === undefined && cluster === null) {
    const settings = { jobsets: parsePositiveInt(options.jobsets, '--jobsets'), historyDays: parsePositiveNumber(options.historyDays, '--history-days'), seed: parseInteger(options.seed, '--seed'), profile: options.profile, speed };
    simulation = new LiveSimulation(engine, { ...settings, now: Date.now, anchor: simulationAnchor(dataDir, settings) });
    if (dataDir !== null) writeFileSync(join(dataDir, 'simulation.json'), JSON.stringify({ settings, anchor: simulation.anchor }, null, 2));
  }
  // The simulated cluster's "now" is as far as it has delivered (it advances in ticks, a simulated
  // hour each at --speed 3600), so nothing is vouched for that was not yet observed.
  const now = simulation === null ? Date.now : () => simulation.advancedTo ?? simulation.now();

  const app = createApp({
    source,
    token,
    logger,
    now,
    terminalGraceMs,
    retentionMs,
    ...(store === null ? {} : { beforeRead: () => store.flushed(), store: () => store.status() }),
  });
  const server = app.listen(port, options.host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const address = server.address() as AddressInfo;
  logger.info({ url: `http://${address.address}:${address.port}`, auth: token === null ? 'none' : 'bearer token', source: source.kind, dataDir: dataDir ?? 'none (in memory)' }, 'listening');

  // Ready only once the source has delivered everything it has: until then /readyz says why not.
  if (options.trace !== undefined) {
    source.setReadiness({ ready: false, reason: `replaying ${options.trace}` });
    // A trace holds every change: after a restart, what the store holds is skipped and nothing was missed.
    if (observedUntil !== null) engine.endGap(observedUntil);
    const started = Date.now();
    const input = options.trace === '-' ? process.stdin : createReadStream(options.trace, { highWaterMark: 1 << 20 });
    const counts = await replayTrace(
      input,
      engine,
      (c) => {
        store?.observed(engine.horizon);
        logger.info({ observations: c.observations, jobsets: c.jobsets }, 'replaying');
      },
      observedUntil,
    );
    store?.observed(engine.horizon);
    logger.info({ ...counts, seconds: (Date.now() - started) / 1000 }, 'trace replayed');
  } else if (live !== null) {
    // Readiness is the watcher's to say: false until the first sync, and while a watch is broken.
  } else {
    source.setReadiness({ ready: false, reason: 'simulating the history of the fleet' });
    if (observedUntil !== null) {
      const relisted = simulation!.resume(observedUntil);
      logger.info(
        { relisted, gapFrom: new Date(observedUntil).toISOString(), resumedAt: new Date(simulation!.advancedTo!).toISOString() },
        'resumed the simulated cluster after a restart: the time in between is unknown where the objects changed',
      );
    }
    simulation!.start();
    // Vouch for the history at once: a process killed before the first periodic mark must still
    // tell its successor where the gap begins.
    store?.observed(simulation!.advancedTo);
    await store?.flushed();
    logger.info(source.counts(), 'simulated cluster running');
  }
  const preparing = Date.now();
  source.prepare();
  logger.info({ seconds: (Date.now() - preparing) / 1000 }, 'timelines indexed');
  if (live === null) source.setReadiness({ ready: true });

  const timers: NodeJS.Timeout[] = [];
  if (store !== null) {
    const every = (ms: number, fn: () => void): void => {
      const t = setInterval(fn, ms);
      t.unref();
      timers.push(t);
    };
    // A live source vouches for the time up to what it has delivered, even when nothing changed.
    if (simulation !== null) every(1000, () => store.observed(simulation.advancedTo));
    // A watch vouches for the time up to now while it is synced; during a gap, up to where it broke.
    if (live !== null) every(1000, () => live.watcher.readiness().ready && store.observed(source.horizon(Date.now())));
    const compact = async (): Promise<void> => {
      const gone = expired(engine.timelines(), now(), retentionMs);
      if (gone.length > 0) engine.forget(gone);
      await store.snapshot(engine.machines(), engine.horizon);
      logger.info({ timelines: engine.counts.jobsets, dropped: gone.length }, 'snapshot written');
    };
    every(10_000, () => {
      if (store.status().recordsSinceSnapshot >= snapshotEvery) compact().catch((err) => logger.error({ err }, 'snapshot failed'));
    });
    every(3_600_000, () => void compact().catch((err) => logger.error({ err }, 'snapshot failed')));
  }

  const stop = (signal: string): void => {
    logger.info({ signal }, 'stopping');
    simulation?.stop();
    void live?.stop();
    for (const t of timers) clearInterval(t);
    server.close();
    const done = store === null ? Promise.resolve() : store.snapshot(engine.machines(), engine.horizon).then(() => store.close());
    done.then(
      () => process.exit(0),
      (err) => {
        logger.error({ err }, 'could not write the last snapshot; the log holds everything');
        process.exit(1);
      },
    );
    setTimeout(() => process.exit(0), 10_000).unref();
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}
