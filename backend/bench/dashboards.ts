// `npm run bench:dashboards`: the provisioned dashboards, asked as a wall of screens asks them, on
// the fleet `npm start` serves (`upness serve` with no kubeconfig: the simulated cluster), over
// each dashboard's default range.
//   panels  every panel's request (its targets in one POST, as the plugin's backend sends them), for
//           All, one namespace, and one namespace and one JobSet: its median and least time and the
//           answer's size, against the peer in the same run: the same request without any selection
//           (no namespaces, no name), the path a whole-fleet answer takes. After one untimed run of
//           each, the panel and its peer are timed in turn, pair after pair (panel-runs.ts), until
//           both sides' timed runs add up to --budget-ms B (default 600), at least --runs R
//           (default 5) and at most --most-runs M (default 60) pairs: a panel and peer of 20 ms or
//           less get 15 pairs or more, where five runs of a 6 ms panel were judged by what one
//           garbage collection or another process did to two of them. A panel is over 2× when its
//           median is over twice its peer's median (the judgement); the summary also names the
//           panels over 2× by their least times, and those over by both; its JSON keeps every run
//   load    C clients (default 16), each refreshing one dashboard after another as fast as it is
//           answered, one panel's request at a time (so C requests are in flight): requests/s,
//           p50, p99, max, the server's CPU per request, and any answer that is not 200. A
//           refresh asks all its panels of one range, as Grafana does (its dashboards' time range
//           is worked out once a refresh, and every panel's query reads that value);
//           --range-per-request asks each request of its own moment instead (the older load);
//           --scrape-seconds S: GET /metrics every S seconds during the load, as a Prometheus that
//           scrapes the service does (each scrape's time and size reported; the clients' latencies
//           then hold the service's time on the scrapes)
// Options: --clients C, --seconds S (the load), --runs R, --most-runs M, --budget-ms B (the panels'
// timing, above; --smoke times one pair each), --smoke, --profile
// (the service runs with --cpu-prof; its profile is written to results/ when it stops).
// A larger fleet than npm start's: --jobsets N, --history-days D, --sim-profile P (serve's simulated
// cluster options --jobsets, --history-days and --profile; e.g. issue 21's 10,000 × 30 days of the
// realistic profile: --jobsets 10000 --history-days 30 --sim-profile realistic). The simulated
// cluster keeps nodes, pods and usage beside the JobSets (17,334 runs of 200 names × 30 days: 2.2 GiB);
// --trace-fleet serves the same fleet as `npm run bench` does instead: JobSets alone, its trace piped
// from the simulator into `upness serve --memory --trace -` (the node and usage panels answer empty).
// --data-dir DIR serves a data dir kept by `bench:store` (e.g. $TMPDIR/upness-bench-restart-2000x30d-seed42:
// JobSets alone, as --trace-fleet, ready in seconds): a copy of it (`cp -a`, removed after), as
// `upness serve --data-dir COPY --trace /dev/null`, so the kept dir is never written.
// A kept fleet (--trace-fleet, --data-dir) ends long before the wall clock: its requests are asked up
// to an hour before its horizon instead, moving on with the wall clock (panel-runs.ts keptFleetClock;
// until 2026-11-28 they were asked at the wall clock, and most panels answered empty frames). Each
// run says how many answers held no frame.
// --service-flags="F …": Node or V8 flags for the service's process (e.g. a heap option, measured).
// --owners: the service also preloads buffer-owners.js, and each memory reading lists its live typed
// arrays' backing stores by the code that made them (with --service-flags=--expose-gc: after a full
// collection), the largest first: what "array buffers" holds, owner by owner. Slows its allocations.
// Memory: the service's RSS and, through a preloaded probe (memory-probe.js, on SIGUSR2), V8's heap
// spaces and memoryUsage()'s external and array buffers, once ready, after the panels' timing, after
// the load and after --idle-seconds S (default 10) of nothing asked; each reading also says what glibc's
// main arena holds resident (the [heap] mapping) and, with --expose-gc, the RSS after the probe's full
// collection; with UPNESS_BENCH_LAST_RESORT=1 in the environment, the RSS after a memory-reducing
// collection too and its time (it changes what the later readings see: V8 gives back its pooled pages).
//
// --in-process (no server, no HTTP): the same fleet (npm start's simulated cluster, its defaults)
// built in this process at a fixed "now", and every panel request run through the service's query
// runner (runQueries) and turned into its JSON, R times (default 25) in turn, each run a second
// later than the one before (as refreshes ask); per request its CPU time (process.cpuUsage), the
// least of the R runs, so other load on the machine counts little. Prints the mean per request,
// the panels sorted by their cost, and a digest of the first run's answers: the fleet and "now" are
// fixed, so two builds that answer alike print the same digest.
//
// Variables are set as the plugin sets them for these dashboards: All is the variables' custom all
// value `*` (no namespace filter, every name), or the first value listed where a variable has no
// All (the JobSet detail dashboard, as Grafana opens it); one value is the middle one the service
// lists for the range (the test of every provisioned panel picks the same).

import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { panelTime, relativeTime } from '../../test/provisioning/panel-time.ts';
import { runQueries, type Observed } from '../src/frames/run-request.ts';
import { valuesView } from '../src/frames/views.ts';
import { ClusterEngine } from '../src/nodes/engine.ts';
import { LiveSimulation } from '../src/runtime/live-simulation.ts';
import { EngineView } from '../src/runtime/served-view.ts';
import { SIMULATED_USAGE_INTERVAL_MS } from '../src/sources/simulator/index.ts';
import { UsageBook } from '../src/usage/book.ts';
import { cpuSeconds, fmt, int, memory, MiB, ms, sleep, stats, timedFetch, type Timed } from './prometheus/proc.ts';
import { loadFleet, UpnessServer } from './prometheus/upness.ts';
import { benchArgs } from './args.ts';
import { judge, keptFleetClock, wantsAnotherPair, type Judged, type RunPlan } from './panel-runs.ts';

const { values: args } = benchArgs(import.meta.filename, {
  options: {
    clients: { type: 'string', default: '16' },
    'range-per-request': { type: 'boolean', default: false },
    'scrape-seconds': { type: 'string' },
    seconds: { type: 'string' },
    runs: { type: 'string' },
    'most-runs': { type: 'string', default: '60' },
    'budget-ms': { type: 'string' },
    smoke: { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
    'in-process': { type: 'boolean', default: false },
    jobsets: { type: 'string', default: '24' },
    'history-days': { type: 'string', default: '7' },
    'sim-profile': { type: 'string', default: 'demo' },
    'trace-fleet': { type: 'boolean', default: false },
    'data-dir': { type: 'string' },
    'service-flags': { type: 'string', default: '' },
    'idle-seconds': { type: 'string' },
    owners: { type: 'boolean', default: false },
  },
});
/** The simulated cluster served (serve's defaults unless asked otherwise). */
const FLEET = { jobsets: Number(args.jobsets), historyDays: Number(args['history-days']), profile: args['sim-profile'] as 'demo' | 'realistic' | 'long-running' };
if (!Number.isInteger(FLEET.jobsets) || FLEET.jobsets < 1) throw new Error(`--jobsets must be a whole number of at least 1, not ${args.jobsets}`);
if (!(FLEET.historyDays > 0)) throw new Error(`--history-days must be a positive number of days, not ${args['history-days']}`);
if (!['demo', 'realistic', 'long-running'].includes(FLEET.profile)) throw new Error(`--sim-profile must be demo, realistic or long-running, not ${FLEET.profile}`);
const FLEET_ARGS = ['--memory', '--jobsets', String(FLEET.jobsets), '--history-days', String(FLEET.historyDays), '--profile', FLEET.profile];
const CLIENTS = Number(args.clients);
const SECONDS = Number(args.seconds ?? (args.smoke ? 2 : 20));
const IN_PROCESS = args['in-process'];
const RUNS = Number(args.runs ?? (args.smoke ? (IN_PROCESS ? 2 : 1) : IN_PROCESS ? 25 : 5));
const MOST_RUNS = Number(args['most-runs']);
for (const [name, value] of [['clients', CLIENTS], ['seconds', SECONDS], ['runs', RUNS], ['most-runs', MOST_RUNS]] as const) {
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a whole number of at least 1, not ${String(args[name])}`);
}
if (!IN_PROCESS && MOST_RUNS < RUNS) throw new Error(`--most-runs ${MOST_RUNS} is fewer than --runs ${RUNS}`);
const SCRAPE_SECONDS = args['scrape-seconds'] === undefined ? null : Number(args['scrape-seconds']);
if (SCRAPE_SECONDS !== null && !(SCRAPE_SECONDS > 0)) throw new Error(`--scrape-seconds must be a positive number of seconds, not ${args['scrape-seconds']}`);
const BUDGET_MS = Number(args['budget-ms'] ?? (args.smoke ? 0 : 600));
if (!(BUDGET_MS >= 0)) throw new Error(`--budget-ms must be a number of milliseconds, not ${args['budget-ms']}`);
/** How many pairs of a panel's request and its peer are timed (panel-runs.ts). */
const PLAN: RunPlan = { leastPairs: RUNS, mostPairs: MOST_RUNS, budgetMs: BUDGET_MS };
const IDLE_SECONDS = Number(args['idle-seconds'] ?? (args.smoke ? 1 : 10));
if (!(IDLE_SECONDS >= 0)) throw new Error(`--idle-seconds must be a number of seconds, not ${args['idle-seconds']}`);
const DATA_DIR = args['data-dir'];
if (DATA_DIR !== undefined && !existsSync(join(DATA_DIR, 'snapshot.json'))) throw new Error(`--data-dir ${DATA_DIR} holds no snapshot.json: not a data dir`);
if (DATA_DIR !== undefined && args['trace-fleet']) throw new Error('--data-dir and --trace-fleet are two fleets: give one');

const ROOT = join(import.meta.dirname, '..', '..');
const DASHBOARDS = join(ROOT, 'provisioning', 'dashboards', 'upness');
const RESULTS = join(import.meta.dirname, 'results');
const log = (line = ''): void => void process.stdout.write(`${line}\n`);

/* eslint-disable @typescript-eslint/no-explicit-any -- dashboards are JSON documents */
type Json = any;

/** The upness service of `npm start` (or the fleet asked), in memory, on a free port of the loopback interface, once ready. */
async function startService(): Promise<{ url: string; pid: number; stop: () => Promise<void> }> {
  if (args['trace-fleet']) return traceFleetService();
  if (DATA_DIR !== undefined) return dataDirService(DATA_DIR);
  const server = await UpnessServer.start(null, { serveArgs: FLEET_ARGS, nodeFlags: serviceFlags() });
  return untilReady(server, () => server.stop());
}

/** The service's Node flags: the memory probe, a CPU profile when asked, and --service-flags. */
function serviceFlags(): string[] {
  const owners = args.owners ? ['--import', join(import.meta.dirname, 'buffer-owners.js')] : [];
  const flags = [...owners, '--import', join(import.meta.dirname, 'memory-probe.js'), ...args['service-flags'].split(/\s+/).filter((f) => f !== '')];
  return args.profile ? [...flags, '--cpu-prof', `--cpu-prof-dir=${RESULTS}`] : flags;
}

/** Where the service's memory probe writes (memory-probe.js), for this run. */
const PROBE_FILE = join(tmpdir(), `upness-bench-dashboards-${process.pid}.memory.jsonl`);
process.env.UPNESS_BENCH_MEMORY_PROBE = PROBE_FILE;

/** --data-dir: a copy of the kept data dir, served from its snapshot; the copy is removed once the service has stopped. */
async function dataDirService(dir: string): Promise<{ url: string; pid: number; stop: () => Promise<void> }> {
  const parent = mkdtempSync(join(tmpdir(), 'upness-bench-dashboards-'));
  const copy = join(parent, 'data');
  execFileSync('cp', ['-a', dir, copy]);
  log(`serving a copy of ${dir}: upness serve --data-dir ${copy} --trace /dev/null …`);
  const remove = (): void => rmSync(parent, { recursive: true, force: true });
  let server: UpnessServer;
  try {
    server = await UpnessServer.start(null, { serveArgs: ['--data-dir', copy, '--trace', '/dev/null'], nodeFlags: serviceFlags() });
  } catch (error) {
    remove();
    throw error;
  }
  return untilReady(server, async () => {
    try {
      await server.stop();
    } finally {
      remove();
    }
  });
}

/** Waits until `server` says it is ready; stops it (with `stop`) when it never is. */
async function untilReady(server: UpnessServer, stop: () => Promise<void>): Promise<{ url: string; pid: number; stop: () => Promise<void> }> {
  try {
    // A large fleet's history takes minutes to simulate: a line every 30 s says it is still coming.
    const started = Date.now();
    let said = started;
    while ((await timedFetch(`${server.url}/readyz`)).status !== 200) {
      if (Date.now() - started > 3_600_000) throw new Error('upness serve was not ready after 3,600 s');
      if (Date.now() - said >= 30_000) {
        said = Date.now();
        log(`… not ready yet after ${fmt((said - started) / 1000, 0)} s, RSS ${fmt(memory(server.pid).rssBytes / MiB)} MiB`);
      }
      await sleep(100);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: server.url, pid: server.pid, stop };
}

/** --trace-fleet: the fleet's JobSets alone, replayed from the simulator's trace as `npm run bench` loads them. */
async function traceFleetService(): Promise<{ url: string; pid: number; stop: () => Promise<void> }> {
  const horizonDays = FLEET.historyDays;
  // Only the fleet's totals are summed on the simulator's side (loadFleet always sums a truth): no per-JobSet figures, no timelines kept.
  const truth = { from: 0, to: horizonDays * 86_400_000, first: 0, last: 0, stepMs: 3_600_000, perJobSet: false, keepTimelines: false, detailSample: 1_000_000 };
  const truthFile = join(tmpdir(), `upness-bench-dashboards-${process.pid}.truth.v8`);
  log(`replaying the realistic simulator's trace of ${int(FLEET.jobsets)} names × ${FLEET.historyDays} days (${FLEET.profile}) into upness serve --memory --trace - …`);
  const { server, load } = await loadFleet({ jobsets: FLEET.jobsets, days: FLEET.historyDays, seed: 42, fleetProfile: FLEET.profile, truth, truthFile }, { nodeFlags: serviceFlags() });
  log(`replayed ${int(load.observations)} observations in ${fmt(load.wallSeconds)} s (server CPU ${fmt(load.serverCpuSeconds)} s)`);
  return { url: server.url, pid: server.pid, stop: () => server.stop() };
}

interface PanelRequest {
  dashboard: string;
  panel: string;
  selection: string;
  body: Json;
  /** The same request without any selection: the peer. */
  peer: Json;
}

type Selection = { label: string; namespace: string | null; jobset: string | null; pool: string | null };

/** The values a variable lists over a range: the namespaces, the JobSet names (of one namespace, or of all), or the node pools. */
type ValuesOf = (what: 'namespaces' | 'jobsets' | 'pools', namespace: string | null, from: number, to: number) => Promise<string[]>;

/** What GET /api/v1/values/{what} answers the service at `url`. */
function valuesOver(url: string): ValuesOf {
  return async (what, namespace, from, to) => {
    const scope = namespace === null ? '' : `namespace=${encodeURIComponent(namespace)}&`;
    return (JSON.parse((await timedFetch(`${url}/api/v1/values/${what}?${scope}from=${from}&to=${to}`)).body) as { values: string[] }).values;
  };
}

/** Every panel's request of every dashboard, for each selection. */
async function panelRequests(values: ValuesOf, now: number): Promise<PanelRequest[]> {
  const out: PanelRequest[] = [];
  for (const file of readdirSync(DASHBOARDS).filter((f) => f.endsWith('.json')).sort()) {
    const dashboard = JSON.parse(readFileSync(join(DASHBOARDS, file), 'utf8')) as Json;
    const from = relativeTime(dashboard.time.from, now);
    const to = relativeTime(dashboard.time.to, now);
    const variable = (name: string): Json => (dashboard.templating?.list ?? []).find((v: Json) => v.name === name) ?? {};
    // A variable without All opens on the first value it lists (Grafana's default), so "All" there is that value.
    const pick = (name: string, list: string[], choice: 'all' | 'one'): string | null =>
      choice === 'one' ? list[Math.floor(list.length / 2)]! : variable(name).includeAll ? null : list[0]!;
    const selections: Selection[] = [];
    if (variable('pool').name === 'pool') {
      // The node pools' dashboard has one variable, the pool: All, and one pool.
      const pools = await values('pools', null, from, to);
      if (pools.length === 0 && (args['trace-fleet'] || DATA_DIR !== undefined)) {
        // `--trace-fleet` serves JobSets alone (npm run bench's trace), as bench:store's data dirs hold: no Nodes, so no pools to ask about.
        log(`${dashboard.uid}: left out (the fleet has JobSets alone, no node pools)`);
        continue;
      }
      if (pools.length === 0) throw new Error(`${dashboard.uid}: the service lists no node pools over the dashboard's range`);
      for (const [label, choice] of [['All', 'all'], ['one pool', 'one']] as const) {
        selections.push({ label, namespace: null, jobset: null, pool: pick('pool', pools, choice) ?? String(variable('pool').allValue) });
      }
    } else {
      for (const [label, nsChoice, jobChoice] of [
        ['All', 'all', 'all'],
        ['one namespace', 'one', 'all'],
        ['one namespace, one JobSet', 'one', 'one'],
      ] as const) {
        const namespace = pick('namespace', await values('namespaces', null, from, to), nsChoice);
        const jobset = pick('jobset', await values('jobsets', namespace, from, to), jobChoice);
        selections.push({ label, namespace, jobset, pool: null });
      }
    }
    const panels: Json[] = (dashboard.panels ?? []).flatMap((p: Json) => (p.type === 'row' ? (p.panels ?? []) : [p]));
    for (const panel of panels) {
      const targets: Json[] = (panel.targets ?? []).filter((t: Json) => t.datasource?.type === 'upness-jobset-datasource' || t.datasource === undefined);
      if (targets.length === 0) continue;
      // As Grafana works them out: the panel's width is its point budget, its interval rounded as Grafana rounds.
      const time = panelTime(dashboard, panel, now);
      const { intervalMs, maxDataPoints } = time;
      const request = (s: Selection | null): Json => ({
        spanMs: time.to - time.from,
        queries: targets.map((t, i) => {
          const { datasource: _datasource, ...query } = t;
          const q: Json = { ...query, refId: t.refId ?? String.fromCharCode(65 + i), intervalMs, maxDataPoints };
          if (Array.isArray(q.namespaces)) q.namespaces = s === null || s.namespace === null ? [] : q.namespaces.map((n: string) => (n === '$namespace' ? s.namespace : n));
          if (typeof q.name === 'string') q.name = s === null ? '' : q.name === '$jobset' ? (s.jobset ?? '*') : q.name === '$pool' ? s.pool! : q.name;
          if (typeof q.name === 'string' && q.name.includes('$')) throw new Error(`${dashboard.uid} · ${panel.title}: the variable in name ${q.name} is not filled in`);
          return q;
        }),
      });
      for (const s of selections) out.push({ dashboard: dashboard.uid, panel: panel.title, selection: s.label, body: request(s), peer: request(null) });
    }
  }
  return out;
}

/**
 * Sends a panel's request as a screen refreshing now would: its range ends now (each refresh asks
 * of a later moment, so no answer can be reused from an earlier one).
 */
function post(url: string, body: Json, wallMs = Date.now()): Promise<Timed> {
  return timedFetch(`${url}/api/v1/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(askedAt(body, askedNow(wallMs))) });
}

/**
 * The moment a request is asked at, from the wall clock: the wall clock itself for the live
 * simulated cluster; for a kept fleet (--data-dir, --trace-fleet), whose history ends long before,
 * up to an hour before its horizon (keptFleetClock), set once the service is ready.
 */
let askedNow = (wallMs: number): number => wallMs;

/** A panel's request as asked at `to`: its range ends then. */
function askedAt(body: Json, to: number): Json {
  const fresh = { ...body, from: String(to - body.spanMs), to: String(to) };
  delete fresh.spanMs;
  return fresh;
}

interface PanelResult extends Judged {
  dashboard: string;
  panel: string;
  selection: string;
  status: number;
  /** The peer's status: a peer that is refused (its whole fleet, one JobSet at a time, over the limit) is no measure. */
  peerStatus: number;
  bytes: number;
  /** The frames of the last answer, all its queries': none says the panel had nothing to show. */
  frames: number;
  /** Every timed run of the panel's request and of its peer, ms, in the order asked (the JSON's, for a second look). */
  runsMs: number[];
  peerRunsMs: number[];
}

/** How many frames an answer of POST /api/v1/query holds, over its queries. */
function framesOf(body: string): number {
  try {
    const results = Object.values((JSON.parse(body) as { results?: Record<string, { frames?: unknown[] }> }).results ?? {});
    return results.reduce((n, r) => n + (r.frames?.length ?? 0), 0);
  } catch {
    return 0;
  }
}

async function timePanels(url: string, requests: PanelRequest[]): Promise<PanelResult[]> {
  const results: PanelResult[] = [];
  for (const r of requests) {
    // One untimed run each, then alternate: the request and its peer see the same moment of the service.
    await post(url, r.body);
    await post(url, r.peer);
    const mine: number[] = [];
    const peer: number[] = [];
    let last: Timed | null = null;
    let lastPeer: Timed | null = null;
    while (wantsAnotherPair(PLAN, mine, peer)) {
      last = await post(url, r.body);
      mine.push(last.ms);
      lastPeer = await post(url, r.peer);
      peer.push(lastPeer.ms);
    }
    results.push({
      dashboard: r.dashboard,
      panel: r.panel,
      selection: r.selection,
      ...judge(mine, peer),
      status: last!.status,
      peerStatus: lastPeer!.status,
      bytes: Buffer.byteLength(last!.body),
      frames: framesOf(last!.body),
      runsMs: mine,
      peerRunsMs: peer,
    });
  }
  return results;
}

interface LoadResult {
  clients: number;
  seconds: number;
  requests: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  notOk: Record<string, number>;
  serverCpuMsPerRequest: number;
  /** The clients' own CPU (this process: sending, reading answers), in cores: it shares the machine with the service. */
  clientCpuShare: number;
  /** With --scrape-seconds: each GET /metrics during the load, its time and answer's bytes. */
  scrapes: { ms: number; bytes: number; status: number }[];
}

/** C clients, each refreshing the dashboards in turn, one panel's request at a time. */
async function load(url: string, pid: number, requests: PanelRequest[]): Promise<LoadResult> {
  const refreshes = new Map<string, Json[]>();
  for (const r of requests) {
    const key = `${r.dashboard} · ${r.selection}`;
    if (!refreshes.has(key)) refreshes.set(key, []);
    refreshes.get(key)!.push(r.body);
  }
  const screens = [...refreshes.values()];
  const latencies: number[] = [];
  const notOk: Record<string, number> = {};
  const cpu0 = cpuSeconds(pid);
  const own0 = process.cpuUsage();
  const t0 = performance.now();
  const end = t0 + SECONDS * 1000;
  const scrapes: LoadResult['scrapes'] = [];
  // As Prometheus scrapes: every S seconds from the load's start, one scrape at a time.
  const scraper = async (): Promise<void> => {
    for (let next = t0 + SCRAPE_SECONDS! * 1000; next < end; next += SCRAPE_SECONDS! * 1000) {
      await sleep(Math.max(0, next - performance.now()));
      const a = await timedFetch(`${url}/metrics`);
      scrapes.push({ ms: a.ms, bytes: Buffer.byteLength(a.body), status: a.status });
    }
  };
  await Promise.all([
    ...(SCRAPE_SECONDS === null ? [] : [scraper()]),
    ...Array.from({ length: CLIENTS }, async (_, client) => {
      for (let k = client; performance.now() < end; k++) {
        // The refresh's moment: every panel of it asks of the same range (unless --range-per-request).
        const refreshedAt = Date.now();
        for (const body of screens[k % screens.length]!) {
          const a = await post(url, body, args['range-per-request'] ? Date.now() : refreshedAt);
          latencies.push(a.ms);
          if (a.status !== 200) notOk[a.status] = (notOk[a.status] ?? 0) + 1;
        }
      }
    }),
  ]);
  const seconds = (performance.now() - t0) / 1000;
  const own = process.cpuUsage(own0);
  const s = stats(latencies);
  return {
    clients: CLIENTS,
    seconds,
    requests: latencies.length,
    perSecond: latencies.length / seconds,
    p50Ms: s.median,
    p99Ms: s.p99,
    maxMs: s.max,
    notOk,
    serverCpuMsPerRequest: ((cpuSeconds(pid) - cpu0) * 1000) / latencies.length,
    clientCpuShare: (own.user + own.system) / 1e6 / seconds,
    scrapes,
  };
}

interface MemoryReading {
  when: string;
  rssMiB: number;
  /** V8's heap spaces, MiB used / committed (old, new, large objects), and memoryUsage()'s external and arrayBuffers, MiB; null when the probe did not answer. */
  heap: { oldUsed: number; oldCommitted: number; newUsed: number; newCommitted: number; largeUsed: number; largeCommitted: number; external: number; arrayBuffers: number } | null;
  /** With --service-flags --expose-gc: the heap used and external MiB after a full collection the probe made (what lives), else null. */
  settled: { heapUsed: number; external: number; rssMiB: number } | null;
  /** With UPNESS_BENCH_LAST_RESORT=1 in the environment: the RSS after V8's memory-reducing collection (after the full one), else null. */
  reducedRssMiB: number | null;
  /** How long that collection took, ms (null without it). */
  reducedMs: number | null;
  /** The resident MiB of glibc's main arena (the [heap] mapping) when the probe read it, else null. */
  mallocHeapMiB: number | null;
  /** With --owners: the live typed arrays' backing stores by their maker (buffer-owners.js), largest first. */
  owners: { site: string; count: number; bytes: number }[] | null;
}

/** The service's memory now: RSS from /proc, the rest from its probe (memory-probe.js), asked with SIGUSR2. */
async function memoryNow(pid: number, when: string): Promise<MemoryReading> {
  const lines = (): string[] => (existsSync(PROBE_FILE) ? readFileSync(PROBE_FILE, 'utf8').split('\n').filter((l) => l !== '') : []);
  const before = lines().length;
  // Before the probe answers: its line is written by the service itself, and --settle's collection changes the RSS.
  const rssMiB = memory(pid).rssBytes / MiB;
  process.kill(pid, 'SIGUSR2');
  let heap: MemoryReading['heap'] = null;
  let settled: MemoryReading['settled'] = null;
  let owners: MemoryReading['owners'] = null;
  let mallocHeapMiB: number | null = null;
  let reducedRssMiB: number | null = null;
  let reducedMs: number | null = null;
  for (const t0 = Date.now(); Date.now() - t0 < 10_000; await sleep(20)) {
    const all = lines();
    if (all.length > before) {
      const line = JSON.parse(all[all.length - 1]!) as { usage: NodeJS.MemoryUsage; spaces: Record<string, { used: number; committed: number }>; settled: NodeJS.MemoryUsage | null; reducedRss?: number | null; reducedMs?: number | null; mallocHeap?: number | null; owners?: MemoryReading['owners'] };
      const { usage, spaces } = line;
      owners = line.owners ?? null;
      if (line.settled !== null) settled = { heapUsed: line.settled.heapUsed / MiB, external: line.settled.external / MiB, rssMiB: line.settled.rss / MiB };
      mallocHeapMiB = typeof line.mallocHeap === 'number' ? line.mallocHeap / MiB : null;
      reducedRssMiB = typeof line.reducedRss === 'number' ? line.reducedRss / MiB : null;
      reducedMs = typeof line.reducedMs === 'number' ? line.reducedMs : null;
      const space = (name: string): { used: number; committed: number } => spaces[name] ?? { used: 0, committed: 0 };
      heap = {
        oldUsed: space('old_space').used / MiB,
        oldCommitted: space('old_space').committed / MiB,
        newUsed: space('new_space').used / MiB,
        newCommitted: space('new_space').committed / MiB,
        largeUsed: space('large_object_space').used / MiB,
        largeCommitted: space('large_object_space').committed / MiB,
        external: usage.external / MiB,
        arrayBuffers: usage.arrayBuffers / MiB,
      };
      break;
    }
  }
  const reading = { when, rssMiB, heap, settled, mallocHeapMiB, reducedRssMiB, reducedMs, owners };
  const h = reading.heap;
  log(
    `memory ${when}: RSS ${fmt(reading.rssMiB)} MiB` +
      (h === null
        ? ' (the probe did not answer)'
        : `; heap MiB used/committed: old ${fmt(h.oldUsed)}/${fmt(h.oldCommitted)}, new ${fmt(h.newUsed)}/${fmt(h.newCommitted)}, large objects ${fmt(h.largeUsed)}/${fmt(h.largeCommitted)}; external ${fmt(h.external)} MiB (array buffers ${fmt(h.arrayBuffers)})`) +
      (mallocHeapMiB === null ? '' : `; malloc's main arena ${fmt(mallocHeapMiB)} MiB resident`) +
      (settled === null ? '' : `; after a full collection: heap used ${fmt(settled.heapUsed)} MiB, external ${fmt(settled.external)} MiB, RSS ${fmt(settled.rssMiB)} MiB`) +
      (reducedRssMiB === null ? '' : `; after a memory-reducing collection (${fmt(reducedMs ?? 0)} ms): RSS ${fmt(reducedRssMiB)} MiB`) +
      `; load average ${fmt(loadavg()[0]!, 2)}`,
  );
  if (owners !== null) {
    const total = owners.reduce((sum, o) => sum + o.bytes, 0);
    log(`  typed arrays' backing stores by maker: ${fmt(total / MiB)} MiB in all`);
    for (const o of owners.slice(0, 16)) log(`    ${fmt(o.bytes / MiB, 2).padStart(7)} MiB  ${int(o.count).padStart(9)}  ${o.site}`);
  }
  return reading;
}

const loadAverage = (): string => loadavg().map((l) => fmt(l, 2)).join(' ');

/** A table of panel requests: each side's median and least, their ratios, the pairs timed. */
function panelTable(title: string, rows: PanelResult[]): void {
  log(`${title}:`);
  log('| dashboard | panel | selection | median | peer (no selection) | ratio | least | peer least | ratio | pairs | answer |');
  log('|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const p of rows) {
    const ratio = (a: number, b: number): string => (p.peerStatus === 200 ? `${fmt(a / b, 2)}×` : `(peer refused: ${p.peerStatus})`);
    log(
      `| ${p.dashboard} | ${p.panel} | ${p.selection} | ${ms(p.medianMs)} | ${ms(p.peerMedianMs)} | ${ratio(p.medianMs, p.peerMedianMs)} | ` +
        `${ms(p.leastMs)} | ${ms(p.peerLeastMs)} | ${ratio(p.leastMs, p.peerLeastMs)} | ${p.pairs} | ${fmt(p.bytes / 1024)} KiB |`,
    );
  }
}

async function main(): Promise<void> {
  log(`# bench:dashboards${args.smoke ? ' (smoke)' : ''}: ${cpus()[0]?.model ?? 'cpu'} × ${availableParallelism()}`);
  if (!args['trace-fleet'] && DATA_DIR === undefined) log(`starting upness serve ${FLEET_ARGS.join(' ')} (the simulated cluster; npm start's: 24 names, 7 days, demo) …`);
  const started = performance.now();
  const service = await startService();
  try {
    const ready = JSON.parse((await timedFetch(`${service.url}/readyz`)).body) as { jobsets: number; horizon: string };
    log(`ready in ${fmt((performance.now() - started) / 1000)} s: ${int(ready.jobsets)} JobSets, RSS ${fmt(memory(service.pid).rssBytes / MiB)} MiB`);
    const memoryReadings = [await memoryNow(service.pid, 'once ready')];
    const horizon = Date.parse(ready.horizon);
    if (args['trace-fleet'] || DATA_DIR !== undefined) {
      askedNow = keptFleetClock(horizon, Date.now());
      log(`the fleet's history ends at ${ready.horizon}: every request is asked up to an hour before it (not at the wall clock, where no panel has data)`);
    }
    const requests = await panelRequests(valuesOver(service.url), horizon);
    log(
      `${requests.length} panel requests (${new Set(requests.map((r) => `${r.dashboard}/${r.panel}`)).size} panels × their selections), each against its peer in pairs ` +
        `until both sides' timed runs add up to ${int(BUDGET_MS)} ms, ${RUNS}–${MOST_RUNS} pairs; load average ${loadAverage()} …`,
    );
    const timing0 = performance.now();
    const panels = await timePanels(service.url, requests);
    log(`timed ${int(panels.reduce((n, p) => n + p.pairs, 0))} pairs in ${fmt((performance.now() - timing0) / 1000)} s; load average ${loadAverage()}`);
    memoryReadings.push(await memoryNow(service.pid, 'after the panels\' timing'));
    const failed = panels.filter((p) => p.status !== 200);
    const compared = panels.filter((p) => p.peerStatus === 200);
    const byRatio = [...compared].sort((a, b) => b.medianMs / b.peerMedianMs - a.medianMs / a.peerMedianMs);
    const shown = args.smoke ? 5 : 15;
    log();
    panelTable(`the ${Math.min(shown, panels.length)} slowest of ${panels.length}`, [...panels].sort((a, b) => b.medianMs - a.medianMs).slice(0, shown));
    log();
    panelTable(`the ${Math.min(shown, byRatio.length)} highest ratios to the peer`, byRatio.slice(0, shown));
    const ratios = compared.map((p) => p.medianMs / p.peerMedianMs).sort((a, b) => a - b);
    const leastRatios = compared.map((p) => p.leastMs / p.peerLeastMs).sort((a, b) => a - b);
    const named = (list: PanelResult[]): string => list.map((p) => `${p.dashboard} · ${p.panel} · ${p.selection} (${ms(p.medianMs)} against ${ms(p.peerMedianMs)}, least ${ms(p.leastMs)} against ${ms(p.peerLeastMs)}, ${p.pairs} pairs)`).join('; ') || 'none';
    const biggest = panels.reduce((a, b) => (b.bytes > a.bytes ? b : a));
    log();
    log(
      `ratio to the peer (${compared.length} whose peer answers): medians' median ${fmt(ratios[Math.floor(ratios.length / 2)]!, 2)}×, max ${fmt(ratios[ratios.length - 1]!, 2)}×; ` +
        `leasts' median ${fmt(leastRatios[Math.floor(leastRatios.length / 2)]!, 2)}×, max ${fmt(leastRatios[leastRatios.length - 1]!, 2)}×`,
    );
    log(`over 2× by the median (the judgement): ${named(compared.filter((p) => p.overTwiceByMedian))}`);
    log(`over 2× by the least: ${named(compared.filter((p) => p.overTwiceByLeast))}`);
    log(`over 2× by both: ${named(compared.filter((p) => p.overTwiceByMedian && p.overTwiceByLeast))}`);
    const empty = panels.filter((p) => p.frames === 0);
    log(`answers without a frame (nothing to show): ${empty.length} of ${panels.length}${empty.length === 0 ? '' : ` (${empty.slice(0, 5).map((p) => `${p.dashboard} · ${p.panel} · ${p.selection}`).join('; ')}${empty.length > 5 ? '; …' : ''})`}`);
    log(`largest answer: ${fmt(biggest.bytes / 1024)} KiB (${biggest.dashboard} · ${biggest.panel} · ${biggest.selection}); not 200: ${failed.length}`);
    for (const f of failed) log(`  ${f.status}: ${f.dashboard} · ${f.panel} · ${f.selection}`);
    log();
    log(`load: ${CLIENTS} clients for ${SECONDS} s …`);
    const loaded = await load(service.url, service.pid, requests);
    log(
      `load: ${int(loaded.requests)} requests in ${fmt(loaded.seconds)} s = ${fmt(loaded.perSecond)} requests/s; p50 ${ms(loaded.p50Ms)}, p99 ${ms(loaded.p99Ms)}, max ${ms(loaded.maxMs)}; ` +
        `server CPU ${fmt(loaded.serverCpuMsPerRequest, 2)} ms per request; the clients used ${fmt(loaded.clientCpuShare, 2)} cores; not 200: ${JSON.stringify(loaded.notOk)}`,
    );
    if (loaded.scrapes.length > 0) {
      log(
        `scrapes of /metrics during the load: ${loaded.scrapes.length}, ${loaded.scrapes.map((a) => ms(a.ms)).join(', ')}; ` +
          `${fmt(loaded.scrapes[0]!.bytes / 1e6, 1)} MB each; not 200: ${loaded.scrapes.filter((a) => a.status !== 200).length}`,
      );
    }
    memoryReadings.push(await memoryNow(service.pid, 'after the load'));
    await sleep(IDLE_SECONDS * 1000);
    memoryReadings.push(await memoryNow(service.pid, `after ${IDLE_SECONDS} s idle`));
    mkdirSync(RESULTS, { recursive: true });
    const out = join(RESULTS, args.smoke ? 'dashboards-smoke.json' : 'dashboards.json');
    writeFileSync(out, JSON.stringify({ fleet: FLEET, dataDir: DATA_DIR ?? null, jobsets: ready.jobsets, panels, load: loaded, memory: memoryReadings }, null, 2));
    log(`every number: ${out}`);
    if (failed.length > 0 || Object.keys(loaded.notOk).length > 0 || loaded.scrapes.some((a) => a.status !== 200)) process.exitCode = 1;
  } finally {
    await service.stop();
    rmSync(PROBE_FILE, { force: true });
  }
}

/** The fixed "now" of --in-process: the simulated cluster's history ends here. */
const IN_PROCESS_NOW = Date.UTC(2026, 10, 2, 13, 7, 11, 500);

/** The simulated cluster of `npm start` (serve's defaults) built in this process at IN_PROCESS_NOW, as its feed builds it (runtime/feeds.ts). */
function inProcessFleet(): { observed: (t: number) => Observed; counts: () => { jobsets: number } } {
  const engine = new ClusterEngine();
  const view = new EngineView('simulator', engine, true);
  const book = new UsageBook({ holdMs: SIMULATED_USAGE_INTERVAL_MS });
  view.setUsage(book);
  const RETENTION_MS = 90 * 86_400_000;
  const simulation = new LiveSimulation(engine, {
    jobsets: FLEET.jobsets,
    historyDays: FLEET.historyDays,
    seed: 1,
    profile: FLEET.profile,
    speed: 1,
    nodes: true,
    workloads: true,
    usage: { book, retentionMs: RETENTION_MS },
    now: () => IN_PROCESS_NOW,
  });
  simulation.advance();
  view.prepare();
  // As http/query.ts hands a request the view.
  const observed = (t: number): Observed => ({
    timelines: view.timelines(),
    horizon: view.horizon(t),
    get nodes() {
      return view.nodeLayer(t);
    },
    get pools() {
      return view.poolLayer(t);
    },
    index: view.index(),
    selections: view.selections(),
    retentionMs: RETENTION_MS,
    usage: view.usage()?.book ?? null,
  });
  return { observed, counts: () => ({ jobsets: view.counts().jobsets }) };
}

interface InProcessResult {
  dashboard: string;
  panel: string;
  selection: string;
  /** CPU of answering and of its JSON, the least of the runs, ms. */
  cpuMs: number;
  /** Wall time of the same run, ms. */
  wallMs: number;
  /** CPU of the first run, ms: before anything a request leaves behind (a selection's index, the fleet index's sums at its times) serves the next. */
  firstCpuMs: number;
  status: number;
  bytes: number;
}

/** The heap used after full collections; null without --expose-gc (npm run bench:dashboards gives it). */
function settledHeap(): number | null {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) return null;
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed;
}

/** Every panel request through runQueries and JSON.stringify in this process, RUNS times in turn: CPU time per request, the least of the runs. */
async function inProcess(): Promise<void> {
  log(`# bench:dashboards --in-process${args.smoke ? ' (smoke)' : ''}: ${cpus()[0]?.model ?? 'cpu'} × ${availableParallelism()}, load average ${loadAverage()}`);
  const built = performance.now();
  const fleet = inProcessFleet();
  log(`the simulated cluster of npm start, built in process in ${fmt((performance.now() - built) / 1000)} s: ${int(fleet.counts().jobsets)} JobSets`);
  const values: ValuesOf = async (what, namespace, from, to) => {
    const observed = fleet.observed(IN_PROCESS_NOW);
    // As http/values.ts lists them: node pools are timelines of their own layer.
    const timelines = what === 'pools' ? (observed.pools?.timelines ?? []) : observed.timelines;
    return valuesView(what, timelines, { ...(namespace === null ? {} : { namespaces: [namespace] }), range: { horizon: observed.horizon, from, to } }).values;
  };
  const requests = await panelRequests(values, IN_PROCESS_NOW);
  // The heap that answers leave behind (the selections' indexes, the kept C(t) of the fleet
  // indexes' partitions, the plans), after full collections: what a long-served wall of screens holds.
  const heapBefore = settledHeap();
  log(`${requests.length} panel requests (${new Set(requests.map((r) => `${r.dashboard}/${r.panel}`)).size} panels × their selections), ${RUNS} runs of them all …`);
  const results: InProcessResult[] = requests.map((r) => ({ dashboard: r.dashboard, panel: r.panel, selection: r.selection, cpuMs: Infinity, wallMs: Infinity, firstCpuMs: 0, status: 0, bytes: 0 }));
  const digest = createHash('sha256');
  for (let run = 0; run < RUNS; run++) {
    // Each run a second later: a refresh asks of its own "now", so no answer is the one before.
    const t = IN_PROCESS_NOW + run * 1000;
    requests.forEach((r, i) => {
      const body = askedAt(r.body, t);
      const wall0 = performance.now();
      const cpu0 = process.cpuUsage();
      const { status, results: answers } = runQueries(body, fleet.observed(t), t);
      const json = JSON.stringify({ results: answers });
      const cpu = process.cpuUsage(cpu0);
      const wallMs = performance.now() - wall0;
      const cpuMs = (cpu.user + cpu.system) / 1000;
      const result = results[i]!;
      if (cpuMs < result.cpuMs) {
        result.cpuMs = cpuMs;
        result.wallMs = wallMs;
      }
      result.status = status;
      result.bytes = Buffer.byteLength(json);
      if (run === 0) {
        digest.update(json);
        result.firstCpuMs = cpuMs;
      }
    });
  }
  const total = results.reduce((sum, r) => sum + r.cpuMs, 0);
  const panels = new Map<string, { dashboard: string; panel: string; cpuMs: number; selections: string[] }>();
  for (const r of results) {
    const key = `${r.dashboard}\u0000${r.panel}`;
    const p = panels.get(key) ?? { dashboard: r.dashboard, panel: r.panel, cpuMs: 0, selections: [] };
    p.cpuMs += r.cpuMs;
    p.selections.push(`${r.selection} ${fmt(r.cpuMs, 2)}`);
    panels.set(key, p);
  }
  const sorted = [...panels.values()].sort((a, b) => b.cpuMs - a.cpuMs);
  log();
  log('| dashboard | panel | CPU of its 3 requests | share | per selection (ms) |');
  log('|---|---|---:|---:|---|');
  for (const p of sorted.slice(0, args.smoke ? 5 : 20)) {
    log(`| ${p.dashboard} | ${p.panel} | ${fmt(p.cpuMs, 2)} ms | ${fmt((100 * p.cpuMs) / total, 1)}% | ${p.selections.join(' · ')} |`);
  }
  const failed = results.filter((r) => r.status !== 200);
  log();
  log(
    `every panel request (${results.length}), CPU of answering and its JSON, the least of ${RUNS} runs: mean ${fmt(total / results.length, 2)} ms per request, ` +
      `${fmt(total, 1)} ms for all; the first run: ${fmt(results.reduce((sum, r) => sum + r.firstCpuMs, 0) / results.length, 2)} ms per request; wall ${fmt(results.reduce((s, r) => s + r.wallMs, 0) / results.length, 2)} ms mean; not 200: ${failed.length}; load average now ${loadAverage()}`,
  );
  log(`answers of the first run (at ${new Date(IN_PROCESS_NOW).toISOString()}): sha256 ${digest.digest('hex')}`);
  const heapAfter = settledHeap();
  if (heapBefore !== null && heapAfter !== null) {
    log(`heap after full collections: ${fmt(heapBefore / MiB, 1)} MiB with the fleet built, ${fmt(heapAfter / MiB, 1)} MiB after the runs (${fmt((heapAfter - heapBefore) / MiB, 1)} MiB kept by what the answers left behind)`);
  }
  mkdirSync(RESULTS, { recursive: true });
  const out = join(RESULTS, args.smoke ? 'dashboards-in-process-smoke.json' : 'dashboards-in-process.json');
  writeFileSync(out, JSON.stringify({ runs: RUNS, meanCpuMs: total / results.length, requests: results }, null, 2));
  log(`every number: ${out}`);
  for (const f of failed) log(`  ${f.status}: ${f.dashboard} · ${f.panel} · ${f.selection}`);
  if (failed.length > 0) process.exitCode = 1;
}

await (IN_PROCESS ? inProcess() : main());
