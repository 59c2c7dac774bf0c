// `node --expose-gc backend/bench/fleet-panels.ts --data-dir COPY [--checkout DIR] [--runs R]
// [--dashboard FILE] [--panel TITLE]… [--cpu-prof FILE]`: one dashboard's panel requests (the
// fleet overview's by default) asked in process of a kept fleet, as `upness serve --data-dir` serves
// it: no HTTP, no client, so what is left is the service's own work. The data dir is opened as a
// start opens it (a start appends an empty log segment: give it a copy of your own). Each request is
// asked for All and for one namespace, up to an hour before the fleet's horizon (as bench:dashboards
// asks a kept fleet), R times (default 15) in turn, each run a second later (a refresh asks of its own
// "now"); per request the least and median of runQueries and JSON.stringify on the clock, and a
// digest of its first answer (asked at a fixed "now"): two checkouts that answer alike print the same.
// `--checkout DIR`: the service's code imported from another checkout (e.g. the branch a change is
// measured against), this file's own by default; run the two in turn, in separate processes.

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { Session } from 'node:inspector/promises';
import { writeFileSync } from 'node:fs';
import { panelTime, relativeTime } from '../../test/provisioning/panel-time.ts';
import { benchArgs } from './args.ts';

const { values: args } = benchArgs(import.meta.filename, {
  options: {
    'data-dir': { type: 'string' },
    checkout: { type: 'string' },
    runs: { type: 'string', default: '15' },
    dashboard: { type: 'string', default: 'fleet-overview.json' },
    panel: { type: 'string', multiple: true },
    'cpu-prof': { type: 'string' },
  },
});
if (args['data-dir'] === undefined) throw new Error('usage: fleet-panels.ts --data-dir COPY [--checkout DIR] [--runs R] [--panel TITLE]…');
const RUNS = Number(args.runs);
if (!Number.isInteger(RUNS) || RUNS < 1) throw new Error(`--runs must be a whole number of at least 1, not ${args.runs}`);
const checkout = resolve(args.checkout ?? join(import.meta.dirname, '..', '..'));
const src = (path: string): string => join(checkout, 'backend', 'src', path);

/* eslint-disable @typescript-eslint/no-explicit-any -- modules of another checkout, and dashboards as JSON */
type Json = any;
const { EmbeddedStore } = (await import(src('store/embedded.ts'))) as Json;
const { ClusterEngine } = (await import(src('nodes/engine.ts'))) as Json;
const { EngineView, keptIndex } = (await import(src('runtime/served-view.ts'))) as Json;
const { runQueries } = (await import(src('frames/run-request.ts'))) as Json;
const { pino } = await import('pino');

const HOUR = 3_600_000;
const fmt = (ms: number): string => (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2));
const load = (): string => loadavg().map((l) => l.toFixed(2)).join(' ');

const opened = performance.now();
const { store, recovery } = await EmbeddedStore.open(args['data-dir']);
const engine = new ClusterEngine();
engine.restore(recovery.byUid ?? recovery.machines, recovery.observedUntil);
delete recovery.byUid;
engine.restoreNodeLayer(recovery.nodeLayers, recovery.observedUntil, recovery.pools ?? [], recovery.derivedNodeLayers);
// As the service does (runtime/feeds.ts): the node layer has them now.
delete recovery.derivedNodeLayers;
const view = new EngineView('trace', engine, false, keptIndex(recovery, pino({ level: 'silent' })));
recovery.machines = [];
view.prepare();
const horizon: number = view.horizon(Date.now());
const observed = (t: number): Json => ({ timelines: view.timelines(), horizon: view.horizon(t), index: view.index(), selections: view.selections(), retentionMs: null, usage: null });
process.stdout.write(`# fleet-panels: ${checkout}, ${view.timelines().length.toLocaleString('en-US')} runs, opened in ${((performance.now() - opened) / 1000).toFixed(1)} s; load average ${load()}\n`);

// As bench:dashboards asks a kept fleet: up to an hour before its horizon.
const NOW = horizon - HOUR;
const dashboard = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'provisioning', 'dashboards', 'upness', args.dashboard), 'utf8')) as Json;
const from = relativeTime(dashboard.time.from, NOW);
const timelines = view.timelines() as readonly { namespace: string; createdAt: number }[];
const namespaces = [...new Set(timelines.filter((tl) => tl.createdAt <= NOW).map((tl) => tl.namespace))].sort();
const oneNamespace = namespaces[Math.floor(namespaces.length / 2)]!;
// One --panel a title (titles hold commas); every panel of the dashboard when none is given.
const wanted = args.panel === undefined ? null : new Set(args.panel);
const panels: Json[] = (dashboard.panels ?? []).flatMap((p: Json) => (p.type === 'row' ? (p.panels ?? []) : [p])).filter((p: Json) => (p.targets ?? []).length > 0 && (wanted === null || wanted.has(p.title)));

interface Request {
  panel: string;
  selection: string;
  body: (to: number) => Json;
}
const requests: Request[] = [];
for (const panel of panels) {
  const time = panelTime(dashboard, panel, NOW);
  for (const [selection, namespace] of [
    ['All', null],
    ['one namespace', oneNamespace],
  ] as const) {
    const queries = panel.targets.map((t: Json, i: number) => {
      const { datasource: _datasource, ...query } = t;
      const q: Json = { ...query, refId: t.refId ?? String.fromCharCode(65 + i), intervalMs: time.intervalMs, maxDataPoints: time.maxDataPoints };
      if (Array.isArray(q.namespaces)) q.namespaces = namespace === null ? [] : [namespace];
      if (typeof q.name === 'string') q.name = '*';
      return q;
    });
    requests.push({ panel: panel.title, selection, body: (to) => ({ from: String(to - (NOW - from)), to: String(to), queries }) });
  }
}

function ask(r: Request, t: number): { ms: number; json: string; status: number } {
  const start = performance.now();
  const { status, results } = runQueries(r.body(t), observed(t), t);
  const json = JSON.stringify({ results });
  return { ms: performance.now() - start, json, status };
}

// The digest of each answer at a fixed "now": first, before anything a request leaves behind.
const digests = requests.map((r) => {
  const { json, status } = ask(r, NOW);
  return { status, bytes: json.length, digest: createHash('sha256').update(json).digest('hex').slice(0, 12) };
});
const session = args['cpu-prof'] === undefined ? null : new Session();
if (session !== null) {
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
}
const times = requests.map(() => [] as number[]);
const loadBefore = load();
for (let run = 0; run < RUNS; run++) {
  const t = NOW + (run + 1) * 1000;
  requests.forEach((r, i) => times[i]!.push(ask(r, t).ms));
}
if (session !== null) {
  const { profile } = await session.post('Profiler.stop');
  writeFileSync(args['cpu-prof']!, JSON.stringify(profile));
  session.disconnect();
}
process.stdout.write(`asked at ${new Date(NOW).toISOString()} (range ${dashboard.time.from}), ${RUNS} runs each; one namespace: ${oneNamespace}; load average ${loadBefore} → ${load()}\n`);
process.stdout.write('| panel | selection | least | median | status | bytes | digest |\n|---|---|---:|---:|---:|---:|---|\n');
requests.forEach((r, i) => {
  const sorted = times[i]!.slice().sort((a, b) => a - b);
  const d = digests[i]!;
  process.stdout.write(`| ${r.panel} | ${r.selection} | ${fmt(sorted[0]!)} | ${fmt(sorted[Math.floor(sorted.length / 2)]!)} | ${d.status} | ${d.bytes} | ${d.digest} |\n`);
});
await store.close();
