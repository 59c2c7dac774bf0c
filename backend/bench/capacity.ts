// `npm run bench:capacity`: the slopes behind README's capacity table (issue 21 §8), measured, and
// one point of the many-cluster recipe run for real.
//   memory   `upness serve --memory` fed the realistic simulated trace at two sizes: RSS (after full
//            garbage collections forced through its inspector, as bench:watch reads it) per
//            JobSet-month (the slope between them, so the process's fixed start-up cost drops out),
//            per run and per transition; ingest per server CPU-second (observations per core)
//   disk     the same fleet recorded by the embedded store: log and snapshot bytes per JobSet-month
//   postgres the same fleet recorded by the PostgreSQL store: rows and bytes (tables and indexes)
//            per JobSet-month
//   clusters K clusters' leaders writing into one PostgreSQL, and two `upness serve --follow`
//            processes serving all of them: time to ready, settled RSS, and each cluster's pooled figures
//            from both followers against the leaders' own (they must be equal)
// A JobSet-month is one JobSet name slot of the simulator for 30 days (the realistic profile makes
// ~87 runs of it a month: short jobs one after another). PostgreSQL is Debian's package, started
// as the postgres tier starts it (test/postgres/server.ts; installed with apt-get if missing).
// Options: --jobsets N (the larger size; the smaller is a quarter), --days D, --clusters K,
// --cluster-jobsets N, --cluster-days D, --seed S, --smoke.

import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPostgres, type PostgresServer } from '../../test/postgres/server.ts';
import { figures } from '../src/series/figures.ts';
import { simulateFleet } from '../src/sources/simulator/index.ts';
import { EmbeddedStore } from '../src/store/embedded.ts';
import { PostgresStore } from '../src/store/postgres.ts';
import type { TimelineStore } from '../src/store/store.ts';
import { TimelineEngine } from '../src/timeline/engine.ts';
import { cpuSeconds, fmt, freePort, int, MiB, sleep, timedFetch } from './prometheus/proc.ts';
import { loadFleet, UpnessServer } from './prometheus/upness.ts';
import { inspectorAt, settledMemory } from './settled-memory.ts';
import { transitionCount } from '../src/timeline/types.ts';
import { benchArgs } from './args.ts';

const { values: args } = benchArgs(import.meta.filename, {
  options: {
    jobsets: { type: 'string', default: '400' },
    days: { type: 'string', default: '30' },
    clusters: { type: 'string', default: '10' },
    'cluster-jobsets': { type: 'string', default: '100' },
    'cluster-days': { type: 'string', default: '7' },
    seed: { type: 'string', default: '7' },
    smoke: { type: 'boolean', default: false },
  },
});
const positive = (name: string, value: string): number => {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) {
    process.stderr.write(`bench:capacity: --${name} must be a positive number (got "${value}")\n`);
    process.exit(2);
  }
  return n;
};
const smoke = args.smoke === true;
const jobsets = smoke ? 40 : Math.round(positive('jobsets', args.jobsets));
const days = smoke ? 2 : positive('days', args.days);
const clusters = smoke ? 2 : Math.round(positive('clusters', args.clusters));
const clusterJobsets = smoke ? 10 : Math.round(positive('cluster-jobsets', args['cluster-jobsets']));
const clusterDays = smoke ? 1 : positive('cluster-days', args['cluster-days']);
const seed = Math.round(positive('seed', args.seed));
const DAY = 86_400_000;
const START = Date.UTC(2026, 0, 1);
const months = (n: number, d: number): number => (n * d) / 30;
const log = (line: string): void => void process.stdout.write(`${line}\n`);
const work = mkdtempSync(join(tmpdir(), 'upness-bench-capacity-'));

log(`bench:capacity: ${cpus()[0]?.model ?? 'unknown CPU'}, ${availableParallelism()} cores; realistic profile, seed ${seed}`);

// 1. Memory and ingest: the served process at two sizes.
interface Served {
  jobsets: number;
  runs: number;
  transitions: number;
  observations: number;
  rssBytes: number;
  baselineRssBytes: number;
  perCoreSecond: number;
}
async function served(n: number): Promise<Served> {
  const from = START;
  const to = START + days * DAY;
  const inspect = await freePort();
  const { server, load, truth } = await loadFleet(
    {
      jobsets: n,
      days,
      seed,
      fleetProfile: 'realistic',
      truth: { from, to, first: to, last: to, stepMs: 3_600_000, perJobSet: false, keepTimelines: false, detailSample: 1 << 30 },
      truthFile: join(work, `truth-${n}.v8`),
    },
    { nodeFlags: [`--inspect=127.0.0.1:${inspect}`] },
  );
  // What it keeps, not the garbage and young generation of the load (V8 would hand those back within a minute).
  const settled = await settledMemory(await inspectorAt(inspect), server.pid);
  await server.stop();
  const result = {
    jobsets: n,
    runs: truth.uids,
    transitions: truth.transitions,
    observations: load.observations,
    rssBytes: settled.rss,
    baselineRssBytes: load.baselineRssBytes,
    perCoreSecond: load.observations / load.serverCpuSeconds,
  };
  log(
    `  ${int(n)} JobSets × ${days} d: ${int(result.runs)} runs, ${int(result.transitions)} transitions, RSS ${fmt(result.baselineRssBytes / MiB)} → ${fmt(result.rssBytes / MiB)} MiB, ` +
      `ingest ${int(result.perCoreSecond)} observations per server CPU-second`,
  );
  return result;
}

// 2 and 3. The same fleet through a store, in this process: the engine records into it as a served
// engine does.
async function record(store: TimelineStore, n: number, d: number, s: number, cluster?: string): Promise<TimelineEngine> {
  const engine = new TimelineEngine({ onUpdate: (u, m) => store.record(u, m), ...(cluster !== undefined ? { cluster } : {}) });
  let i = 0;
  for (const o of simulateFleet({ jobsets: n, days: d, seed: s, profile: 'realistic' }).observations()) {
    engine.observe(o);
    // Let the group commit run now and then, as it does between watch events.
    if (++i % 5000 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  store.observed(engine.horizon);
  await store.flushed();
  return engine;
}

const dirBytes = (dir: string, prefix: string): number =>
  readdirSync(dir)
    .filter((f) => f.startsWith(prefix))
    .reduce((a, f) => a + statSync(join(dir, f)).size, 0);

async function embedded(): Promise<{ logBytes: number; snapshotBytes: number; runs: number; transitions: number }> {
  const dir = join(work, 'data');
  const { store } = await EmbeddedStore.open(dir);
  const engine = await record(store, jobsets, days, seed);
  const logBytes = dirBytes(dir, 'log-');
  await store.snapshot(engine.machines(), engine.horizon);
  await store.close();
  const timelines = engine.timelines();
  return { logBytes, snapshotBytes: dirBytes(dir, 'snapshot'), runs: timelines.length, transitions: timelines.reduce((a, tl) => a + transitionCount(tl), 0) };
}

interface TableSize {
  table: string;
  rows: number;
  bytes: number;
}
async function tableSizes(pg: PostgresServer, database: string): Promise<TableSize[]> {
  const tables = await pg.query<{ relname: string; bytes: string }>(
    "SELECT relname, pg_total_relation_size(relid) AS bytes FROM pg_stat_user_tables WHERE relname LIKE 'upness_%' ORDER BY relname",
    [],
    database,
  );
  const out: TableSize[] = [];
  for (const t of tables.rows) {
    const count = await pg.query<{ n: string }>(`SELECT count(*) AS n FROM ${t.relname}`, [], database);
    out.push({ table: t.relname, rows: Number(count.rows[0]!.n), bytes: Number(t.bytes) });
  }
  return out;
}

const children: UpnessServer[] = [];
let pg: PostgresServer | null = null;
async function cleanUp(): Promise<void> {
  await Promise.all(children.splice(0).map((c) => c.stop()));
  await pg?.destroy();
  pg = null;
  rmSync(work, { recursive: true, force: true });
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void cleanUp().then(() => process.exit(130)));
}

try {
  log(`\nmemory and ingest: \`upness serve --memory\` fed the trace (${int(jobsets / 4)} and ${int(jobsets)} JobSets × ${days} d)`);
  const small = await served(Math.max(1, Math.round(jobsets / 4)));
  const large = await served(jobsets);
  const monthsApart = months(large.jobsets - small.jobsets, days);
  const rssPerMonth = (large.rssBytes - small.rssBytes) / monthsApart;
  const rssPerRun = (large.rssBytes - small.rssBytes) / (large.runs - small.runs);
  const rssPerTransition = (large.rssBytes - small.rssBytes) / (large.transitions - small.transitions);

  log(`\ndisk: the embedded store (${int(jobsets)} JobSets × ${days} d)`);
  const disk = await embedded();
  const jobsetMonths = months(jobsets, days);
  log(`  log ${fmt(disk.logBytes / MiB)} MiB, snapshot ${fmt(disk.snapshotBytes / MiB)} MiB for ${int(disk.runs)} runs, ${int(disk.transitions)} transitions`);

  log(`\npostgres: the PostgreSQL store (${int(jobsets)} JobSets × ${days} d)`);
  pg = await startPostgres();
  const url = await pg.createDatabase('capacity');
  const { store: pgStore } = await PostgresStore.open(url, { cluster: 'default' });
  await record(pgStore, jobsets, days, seed);
  await pgStore.close();
  const sizes = await tableSizes(pg, 'capacity');
  for (const t of sizes) log(`  ${t.table}: ${int(t.rows)} rows, ${fmt(t.bytes / MiB)} MiB`);
  const pgRows = sizes.reduce((a, t) => a + t.rows, 0);
  const pgBytes = sizes.reduce((a, t) => a + t.bytes, 0);

  log(`\nclusters: ${clusters} leaders (${int(clusterJobsets)} JobSets × ${clusterDays} d each) into one PostgreSQL, two followers serving all`);
  const shared = await pg.createDatabase('clusters');
  const leaders: { cluster: string; engine: TimelineEngine }[] = [];
  const writeStart = performance.now();
  for (let k = 0; k < clusters; k++) {
    const cluster = `cluster-${k}`;
    const { store } = await PostgresStore.open(shared, { cluster });
    leaders.push({ cluster, engine: await record(store, clusterJobsets, clusterDays, seed + k, cluster) });
    await store.close();
  }
  log(`  written in ${fmt((performance.now() - writeStart) / 1000)} s`);
  const followers: { server: UpnessServer; readyMs: number; rssBytes: number; cpu: number }[] = [];
  for (let f = 0; f < 2; f++) {
    const started = performance.now();
    const inspect = await freePort();
    const server = await UpnessServer.start(null, { nodeFlags: [`--inspect=127.0.0.1:${inspect}`], serveArgs: ['--follow', '--store', shared, '--serve-clusters', 'all'] });
    children.push(server);
    for (;;) {
      if ((await timedFetch(`${server.url}/readyz`)).status === 200) break;
      if (performance.now() - started > 600_000) throw new Error('a follower was not ready within 10 minutes');
      await sleep(50);
    }
    const readyMs = performance.now() - started;
    const cpu = cpuSeconds(server.pid);
    followers.push({ server, readyMs, rssBytes: (await settledMemory(await inspectorAt(inspect), server.pid)).rss, cpu });
  }
  // Each cluster's pooled up seconds and interruptions over the leaders' common horizon.
  const horizon = Math.min(...leaders.map((l) => l.engine.horizon ?? START));
  const expected = new Map(
    leaders.map(({ cluster, engine }) => {
      let up = 0;
      let interruptions = 0;
      for (const tl of engine.timelines()) {
        const f = figures(tl, engine.horizon ?? horizon, START, horizon);
        up += f.upSeconds;
        interruptions += f.interruptions;
      }
      return [cluster, [up, interruptions]] as const;
    }),
  );
  // Up seconds are sums of milliseconds ÷ 1000 in another order: equal to the last few bits.
  const close = (a: number, b: number): boolean => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));
  let exact = true;
  for (const [i, f] of followers.entries()) {
    const res = await f.server.query({
      from: String(START),
      to: String(horizon),
      queries: [{ refId: 'A', queryType: 'summary', groupBy: 'cluster', aggregate: 'pooled', figures: ['upSeconds', 'interruptions'] }],
    });
    if (res.status !== 200) throw new Error(`follower ${i + 1}: HTTP ${res.status}: ${res.body.slice(0, 300)}`);
    const frame = (JSON.parse(res.body) as { results: { A: { frames: { schema: { fields: { name: string }[] }; data: { values: unknown[][] } }[] } } }).results.A.frames[0]!;
    const column = (name: string): unknown[] => frame.data.values[frame.schema.fields.findIndex((fl) => fl.name === name)] ?? [];
    const got = new Map(column('cluster').map((c, j) => [String(c), [Number(column('upSeconds')[j]), Number(column('interruptions')[j])]]));
    for (const [cluster, want] of expected) {
      const have = got.get(cluster);
      if (have === undefined || !close(have[0]!, want[0]) || have[1] !== want[1]) {
        exact = false;
        log(`  follower ${i + 1}, ${cluster}: ${JSON.stringify(have)} against the leader's ${JSON.stringify(want)}`);
      }
    }
    log(`  follower ${i + 1}: ready in ${fmt(f.readyMs / 1000)} s (${fmt(f.cpu)} CPU-s), RSS ${fmt(f.rssBytes / MiB)} MiB, ${got.size} clusters' figures ${exact ? 'equal to the leaders\u2019' : 'NOT equal'}`);
  }
  const clusterRuns = leaders.reduce((a, l) => a + l.engine.timelines().length, 0);

  log('\n## capacity (per JobSet-month: one JobSet name slot for 30 days, realistic profile)\n');
  log('| what | measured | per JobSet-month |');
  log('|---|---:|---:|');
  log(`| served RSS (\`--memory\`), slope between ${int(small.jobsets)} and ${int(large.jobsets)} JobSets | ${int(rssPerRun)} bytes a run, ${int(rssPerTransition)} a transition | ${fmt(rssPerMonth / MiB, 2)} MiB |`);
  log(`| served RSS when empty (after start) | ${fmt(large.baselineRssBytes / MiB)} MiB | |`);
  log(`| ingest | ${int(large.perCoreSecond)} observations per server CPU-second | ${int(large.observations / months(large.jobsets, days))} observations |`);
  log(`| embedded store, log | ${fmt(disk.logBytes / disk.transitions, 1)} bytes a transition | ${fmt(disk.logBytes / jobsetMonths / MiB, 3)} MiB |`);
  log(`| embedded store, snapshot | ${fmt(disk.snapshotBytes / disk.transitions, 1)} bytes a transition | ${fmt(disk.snapshotBytes / jobsetMonths / MiB, 3)} MiB |`);
  log(`| PostgreSQL, rows (all tables) | ${fmt(pgRows / disk.transitions, 2)} a transition | ${int(pgRows / jobsetMonths)} rows |`);
  log(`| PostgreSQL, bytes (tables and indexes) | ${fmt(pgBytes / disk.transitions, 1)} bytes a transition | ${fmt(pgBytes / jobsetMonths / MiB, 3)} MiB |`);
  log(`| a follower of ${clusters} clusters (${int(clusterRuns)} runs) | ready in ${fmt(Math.max(...followers.map((f) => f.readyMs)) / 1000)} s, RSS ${fmt(Math.max(...followers.map((f) => f.rssBytes)) / MiB)} MiB | ${exact ? 'exact' : 'NOT exact'} |`);
  if (!exact) process.exitCode = 1;
} finally {
  await cleanUp();
}
