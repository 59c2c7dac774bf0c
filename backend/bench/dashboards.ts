// `npm run bench:dashboards`: the provisioned dashboards, asked as a wall of screens asks them, on
// the fleet `npm start` serves (`upness serve` with no kubeconfig: the simulated cluster), over
// each dashboard's default range.
//   panels  every panel's request (its targets in one POST, as the plugin's backend sends them), for
//           All, one namespace, and one namespace and one JobSet: the median time and the answer's
//           size, against the peer in the same run: the same request without any selection
//           (no namespaces, no name), the path a whole-fleet answer takes
//   load    C clients (default 16), each refreshing one dashboard after another as fast as it is
//           answered, one panel's request at a time (so C requests are in flight): requests/s,
//           p50, p99, max, the server's CPU per request, and any answer that is not 200
// Options: --clients C, --seconds S (the load), --runs R (per panel request), --smoke, --profile
// (the service runs with --cpu-prof; its profile is written to results/ when it stops).
//
// Variables are set as the plugin sets them for these dashboards: All is the variables' custom all
// value `*` (no namespace filter, every name), or the first value listed where a variable has no
// All (the JobSet detail dashboard, as Grafana opens it); one value is the middle one the service
// lists for the range (the test of every provisioned panel picks the same).

import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { panelTime, relativeTime } from '../../test/provisioning/panel-time.ts';
import { cpuSeconds, fmt, int, memory, MiB, ms, sleep, stats, timedFetch, type Timed } from './prometheus/proc.ts';
import { UpnessServer } from './prometheus/upness.ts';

const { values: args } = parseArgs({
  options: {
    clients: { type: 'string', default: '16' },
    seconds: { type: 'string' },
    runs: { type: 'string' },
    smoke: { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
  },
});
const CLIENTS = Number(args.clients);
const SECONDS = Number(args.seconds ?? (args.smoke ? 2 : 20));
const RUNS = Number(args.runs ?? (args.smoke ? 1 : 5));
for (const [name, value] of [['clients', CLIENTS], ['seconds', SECONDS], ['runs', RUNS]] as const) {
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a whole number of at least 1, not ${String(args[name])}`);
}

const ROOT = join(import.meta.dirname, '..', '..');
const DASHBOARDS = join(ROOT, 'provisioning', 'dashboards', 'upness');
const RESULTS = join(import.meta.dirname, 'results');
const log = (line = ''): void => void process.stdout.write(`${line}\n`);

/* eslint-disable @typescript-eslint/no-explicit-any -- dashboards are JSON documents */
type Json = any;

/** The upness service of `npm start`, in memory, on a free port of the loopback interface, once ready. */
async function startService(): Promise<{ url: string; pid: number; stop: () => Promise<void> }> {
  const server = await UpnessServer.start(null, args.profile ? { nodeFlags: ['--cpu-prof', `--cpu-prof-dir=${RESULTS}`] } : {});
  const stop = (): Promise<void> => server.stop();
  try {
    const started = Date.now();
    while ((await timedFetch(`${server.url}/readyz`)).status !== 200) {
      if (Date.now() - started > 300_000) throw new Error('upness serve was not ready after 300 s');
      await sleep(100);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: server.url, pid: server.pid, stop };
}

interface PanelRequest {
  dashboard: string;
  panel: string;
  selection: string;
  body: Json;
  /** The same request without any selection: the peer. */
  peer: Json;
}

type Selection = { label: string; namespace: string | null; jobset: string | null };

/** Every panel's request of every dashboard, for each selection. */
async function panelRequests(url: string, now: number): Promise<PanelRequest[]> {
  const out: PanelRequest[] = [];
  for (const file of readdirSync(DASHBOARDS).filter((f) => f.endsWith('.json')).sort()) {
    const dashboard = JSON.parse(readFileSync(join(DASHBOARDS, file), 'utf8')) as Json;
    const from = relativeTime(dashboard.time.from, now);
    const to = relativeTime(dashboard.time.to, now);
    const range = `from=${from}&to=${to}`;
    const values = async (path: string): Promise<string[]> => (JSON.parse((await timedFetch(`${url}${path}`)).body) as { values: string[] }).values;
    const variable = (name: string): Json => (dashboard.templating?.list ?? []).find((v: Json) => v.name === name) ?? {};
    // A variable without All opens on the first value it lists (Grafana's default), so "All" there is that value.
    const pick = (name: string, list: string[], choice: 'all' | 'one'): string | null =>
      choice === 'one' ? list[Math.floor(list.length / 2)]! : variable(name).includeAll ? null : list[0]!;
    const selections: Selection[] = [];
    for (const [label, nsChoice, jobChoice] of [
      ['All', 'all', 'all'],
      ['one namespace', 'one', 'all'],
      ['one namespace, one JobSet', 'one', 'one'],
    ] as const) {
      const namespace = pick('namespace', await values(`/api/v1/values/namespaces?${range}`), nsChoice);
      const scope = namespace === null ? '' : `namespace=${encodeURIComponent(namespace)}&`;
      const jobset = pick('jobset', await values(`/api/v1/values/jobsets?${scope}${range}`), jobChoice);
      selections.push({ label, namespace, jobset });
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
          if (typeof q.name === 'string') q.name = s === null ? '' : q.name === '$jobset' ? (s.jobset ?? '*') : q.name;
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
function post(url: string, body: Json): Promise<Timed> {
  const to = Date.now();
  const fresh = { ...body, from: String(to - body.spanMs), to: String(to) };
  delete fresh.spanMs;
  return timedFetch(`${url}/api/v1/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(fresh) });
}

interface PanelResult {
  dashboard: string;
  panel: string;
  selection: string;
  status: number;
  medianMs: number;
  peerMedianMs: number;
  /** The peer's status: a peer that is refused (its whole fleet, one JobSet at a time, over the limit) is no measure. */
  peerStatus: number;
  bytes: number;
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
    for (let k = 0; k < RUNS; k++) {
      last = await post(url, r.body);
      mine.push(last.ms);
      lastPeer = await post(url, r.peer);
      peer.push(lastPeer.ms);
    }
    results.push({
      ...r,
      status: last!.status,
      medianMs: stats(mine).median,
      peerMedianMs: stats(peer).median,
      peerStatus: lastPeer!.status,
      bytes: Buffer.byteLength(last!.body),
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
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      for (let k = client; performance.now() < end; k++) {
        for (const body of screens[k % screens.length]!) {
          const a = await post(url, body);
          latencies.push(a.ms);
          if (a.status !== 200) notOk[a.status] = (notOk[a.status] ?? 0) + 1;
        }
      }
    }),
  );
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
  };
}

async function main(): Promise<void> {
  log(`# bench:dashboards${args.smoke ? ' (smoke)' : ''}: ${cpus()[0]?.model ?? 'cpu'} × ${availableParallelism()}`);
  log('starting upness serve (the simulated cluster of npm start) …');
  const started = performance.now();
  const service = await startService();
  try {
    const ready = JSON.parse((await timedFetch(`${service.url}/readyz`)).body) as { jobsets: number; horizon: string };
    log(`ready in ${fmt((performance.now() - started) / 1000)} s: ${int(ready.jobsets)} JobSets, RSS ${fmt(memory(service.pid).rssBytes / MiB)} MiB`);
    const requests = await panelRequests(service.url, Date.parse(ready.horizon));
    log(`${requests.length} panel requests (${new Set(requests.map((r) => `${r.dashboard}/${r.panel}`)).size} panels × 3 selections), ${RUNS} timed runs each against its peer …`);
    const panels = await timePanels(service.url, requests);
    const failed = panels.filter((p) => p.status !== 200);
    log();
    log('| dashboard | panel | selection | median | peer (no selection) | ratio | answer |');
    log('|---|---|---|---|---|---|---|');
    const worst = [...panels].sort((a, b) => b.medianMs - a.medianMs).slice(0, args.smoke ? 5 : 15);
    for (const p of worst) {
      const ratio = p.peerStatus === 200 ? `${fmt(p.medianMs / p.peerMedianMs, 2)}×` : `(peer refused: ${p.peerStatus})`;
      log(`| ${p.dashboard} | ${p.panel} | ${p.selection} | ${ms(p.medianMs)} | ${ms(p.peerMedianMs)} | ${ratio} | ${fmt(p.bytes / 1024)} KiB |`);
    }
    const compared = panels.filter((p) => p.peerStatus === 200);
    const ratios = compared.map((p) => p.medianMs / p.peerMedianMs).sort((a, b) => a - b);
    const overTwice = compared.filter((p) => p.medianMs > 2 * p.peerMedianMs);
    const biggest = panels.reduce((a, b) => (b.bytes > a.bytes ? b : a));
    log();
    log(
      `slowest ${worst.length} of ${panels.length} above; ratio to the peer (${compared.length} whose peer answers): median ${fmt(ratios[Math.floor(ratios.length / 2)]!, 2)}×, ` +
        `max ${fmt(ratios[ratios.length - 1]!, 2)}×; over 2×: ${overTwice.map((p) => `${p.dashboard} · ${p.panel} · ${p.selection} (${ms(p.medianMs)})`).join('; ') || 'none'}`,
    );
    log(`largest answer: ${fmt(biggest.bytes / 1024)} KiB (${biggest.dashboard} · ${biggest.panel} · ${biggest.selection}); not 200: ${failed.length}`);
    for (const f of failed) log(`  ${f.status}: ${f.dashboard} · ${f.panel} · ${f.selection}`);
    log();
    log(`load: ${CLIENTS} clients for ${SECONDS} s …`);
    const loaded = await load(service.url, service.pid, requests);
    log(
      `load: ${int(loaded.requests)} requests in ${fmt(loaded.seconds)} s = ${fmt(loaded.perSecond)} requests/s; p50 ${ms(loaded.p50Ms)}, p99 ${ms(loaded.p99Ms)}, max ${ms(loaded.maxMs)}; ` +
        `server CPU ${fmt(loaded.serverCpuMsPerRequest, 2)} ms per request; the clients used ${fmt(loaded.clientCpuShare, 2)} cores; not 200: ${JSON.stringify(loaded.notOk)}`,
    );
    log(`RSS after: ${fmt(memory(service.pid).rssBytes / MiB)} MiB`);
    mkdirSync(RESULTS, { recursive: true });
    const out = join(RESULTS, args.smoke ? 'dashboards-smoke.json' : 'dashboards.json');
    writeFileSync(out, JSON.stringify({ jobsets: ready.jobsets, panels, load: loaded }, null, 2));
    log(`every number: ${out}`);
    if (failed.length > 0 || Object.keys(loaded.notOk).length > 0) process.exitCode = 1;
  } finally {
    await service.stop();
  }
}

await main();
