// `node backend/bench/tables.ts`: the per-JobSet questions of `npm run bench` (backend/bench/prometheus/
// questions.ts) asked in process, as POST /api/v1/query asks them, of a trace loaded as `upness
// serve --memory --trace FILE` loads it: no HTTP, no client, so what is left is the service's own
// work. For each question: the least and median time of working the answer out (runQueries) and of
// its JSON (the body's bytes as the route writes them, frames/answer-bytes.ts; beside it the CPU of
// JSON.stringify and its bytes, the same bytes, as it wrote them before), on the clock and in CPU time, the answer's size,
// and a digest of its first answer (the fleet and "now" are fixed: two builds that answer alike print the same).
// Options: --trace FILE (else 500 JobSets × 7 days, seed 42, realistic, as `npm run bench` makes it,
// simulated into a temporary file), --runs R (default 30), --questions id,… (default the four),
// --cpu-prof DIR (a CPU profile of each question's runs, the load left out: DIR/<id>.cpuprofile),
// --http (also each question over HTTP: the service's app, as `upness serve` makes it, listening on
// loopback in this process, asked with fetch as `npm run bench` asks; the round trip on the clock,
// and the CPU of client and service together, this process's only work then).

import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { serveApi } from '../src/cli/compose.ts';
import { simulateCommand } from '../src/cli/simulate.ts';
import { answerPieces } from '../src/frames/answer-bytes.ts';
import { runQueries, type Observed } from '../src/frames/run-request.ts';
import { jsonBody, piecesBody } from '../src/http/json-answer.ts';
import { planSteps } from '../src/query/step.ts';
import { traceFeed } from '../src/runtime/feeds.ts';
import { openSession } from '../src/runtime/session.ts';
import { memorySink } from '../src/runtime/sinks.ts';
import { DEFAULT_START } from '../src/sources/simulator/index.ts';
import { transitionsOf, type Timeline } from '../src/timeline/types.ts';
import { QUESTIONS, type Detail, type Window } from './prometheus/questions.ts';
import { benchArgs } from './args.ts';

const { values: args } = benchArgs(import.meta.filename, {
  options: {
    trace: { type: 'string' },
    runs: { type: 'string', default: '30' },
    questions: { type: 'string', default: 'uptime-per-jobset,interruptions-per-jobset,slo-budget-per-jobset,jobset-detail' },
    jobsets: { type: 'string', default: '500' },
    days: { type: 'string', default: '7' },
    'cpu-prof': { type: 'string' },
    http: { type: 'boolean', default: false },
  },
});
const RUNS = Number(args.runs);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const days = Number(args.days);

let scratch: string | null = null;
let trace = args.trace;
if (trace === undefined) {
  scratch = mkdtempSync(join(tmpdir(), 'upness-tables-'));
  trace = join(scratch, 'trace.jsonl');
  process.stderr.write(`simulating ${args.jobsets} × ${days} d into ${trace}\n`);
  await simulateCommand({ jobsets: Number(args.jobsets), days, seed: 42, profile: 'realistic', out: trace });
}

/** The window `npm run bench` asks over (run.ts): the simulated period less its last hour. */
function benchWindow(): Window {
  const from = DEFAULT_START;
  const to = from + Math.max(1, Math.floor(days * 24 - 1)) * HOUR;
  const maxDataPoints = Math.min(11_000, Math.ceil((to - from) / HOUR) + 1);
  const steps = planSteps(from, to, HOUR, maxDataPoints);
  return { from, to, first: steps.first, last: steps.last, stepMs: steps.stepMs, rollingMs: DAY, maxDataPoints };
}

/** The JobSet name with the most transitions up to `to`, as the bench's truth picks its detail. */
function detailOf(timelines: readonly Timeline[], to: number): Detail {
  const byName = new Map<string, { score: number; tl: Timeline[] }>();
  for (const tl of timelines) {
    if (tl.createdAt > to) continue;
    const key = `${tl.namespace}/${tl.name}`;
    const e = byName.get(key) ?? { score: 0, tl: [] };
    e.score += transitionsOf(tl).filter((t) => t.at <= to).length;
    e.tl.push(tl);
    byName.set(key, e);
  }
  let best: [string, { score: number; tl: Timeline[] }] | null = null;
  for (const entry of byName) if (best === null || entry[1].score > best[1].score || (entry[1].score === best[1].score && entry[0] < best[0])) best = entry;
  const tls = best![1].tl;
  return { namespace: tls[0]!.namespace, name: tls[0]!.name, uids: tls.map((t) => t.uid), figures: new Map() };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const least = (xs: number[]): number => Math.min(...xs);
/** CPU milliseconds (user + system) between two process.cpuUsage() readings: on a loaded machine the clock says little. */
const cpuMs = (a: NodeJS.CpuUsage, b: NodeJS.CpuUsage): number => (b.user - a.user + b.system - a.system) / 1000;

try {
  const session = await openSession(traceFeed(trace), memorySink(), { logger: pino({ level: 'warn' }), retentionMs: 400 * DAY, snapshotEvery: 1_000_000 });
  await session.start();
  const view = session.view;
  const w = benchWindow();
  const timelines = view.timelines();
  process.stdout.write(`loaded ${timelines.length} UIDs; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}\n`);
  const detail = detailOf(timelines, w.to);
  const now = view.horizon(Date.now());
  const observed = (): Observed => ({
    timelines: view.timelines(),
    horizon: view.horizon(now),
    index: view.index?.() ?? null,
    selections: view.selections?.() ?? null,
    retentionMs: null,
    usage: view.usage?.()?.book ?? null,
  });
  const api = args.http ? await serveApi('127.0.0.1', 0, { view, token: null, logger: pino({ level: 'warn' }), now: () => now, retentionMs: 400 * DAY }) : null;
  const wanted = args.questions.split(',');
  for (const q of QUESTIONS.filter((x) => wanted.includes(x.id))) {
    const body = q.upness(w, detail);
    const work: number[] = [];
    const json: number[] = [];
    const workCpu: number[] = [];
    const jsonCpu: number[] = [];
    const stringifyCpu: number[] = [];
    let bytes = 0;
    let digest = '';
    const inspector = args['cpu-prof'] === undefined ? null : new Session();
    if (inspector !== null) {
      inspector.connect();
      await inspector.post('Profiler.enable');
      await inspector.post('Profiler.start');
    }
    for (let i = 0; i < RUNS + 2; i++) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const { status, results } = runQueries(body, observed(), now);
      const t1 = performance.now();
      const c1 = process.cpuUsage();
      const text = piecesBody(answerPieces(results));
      const t2 = performance.now();
      const c2 = process.cpuUsage();
      if (status !== 200) throw new Error(`${q.id}: ${status} ${text.slice(0, 300)}`);
      bytes = Buffer.byteLength(text);
      if (i === 0) digest = createHash('sha256').update(text).digest('hex').slice(0, 12);
      // The same answer as JSON.stringify writes it, to text and bytes as the route did before row-cells.ts (the same bytes).
      const c3 = process.cpuUsage();
      const plain = jsonBody(JSON.stringify({ results }));
      const c4 = process.cpuUsage();
      if (!plain.equals(text)) throw new Error(`${q.id}: the answer's pieces are not JSON.stringify's bytes`);
      if (i < 2) continue;
      work.push(t1 - t0);
      json.push(t2 - t1);
      workCpu.push(cpuMs(c0, c1));
      jsonCpu.push(cpuMs(c1, c2));
      stringifyCpu.push(cpuMs(c3, c4));
    }
    const http: number[] = [];
    const httpCpu: number[] = [];
    for (let i = 0; api !== null && i < RUNS + 2; i++) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const res = await fetch(`${api.url}/api/v1/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const text = await res.text();
      const t1 = performance.now();
      const c1 = process.cpuUsage();
      if (res.status !== 200) throw new Error(`${q.id} over HTTP: ${res.status} ${text.slice(0, 300)}`);
      if (i < 2) continue;
      http.push(t1 - t0);
      httpCpu.push(cpuMs(c0, c1));
    }
    if (inspector !== null) {
      const { profile } = await inspector.post('Profiler.stop');
      mkdirSync(args['cpu-prof']!, { recursive: true });
      writeFileSync(join(args['cpu-prof']!, `${q.id}.cpuprofile`), JSON.stringify(profile));
      inspector.disconnect();
    }
    process.stdout.write(
      `${q.id.padEnd(32)} work ${least(work).toFixed(2)} / ${median(work).toFixed(2)} ms (CPU ${least(workCpu).toFixed(2)} / ${median(workCpu).toFixed(2)}), JSON ${least(json).toFixed(2)} / ${median(json).toFixed(2)} ms (CPU ${least(jsonCpu).toFixed(2)} / ${median(jsonCpu).toFixed(2)}; JSON.stringify's CPU ${least(stringifyCpu).toFixed(2)} / ${median(stringifyCpu).toFixed(2)}) (least / median of ${RUNS}), ${(bytes / 1024).toFixed(0)} KiB, sha256 ${digest}…\n`,
    );
    if (api !== null) process.stdout.write(`${''.padEnd(32)} over HTTP ${least(http).toFixed(2)} / ${median(http).toFixed(2)} ms (CPU, client and service, ${least(httpCpu).toFixed(2)} / ${median(httpCpu).toFixed(2)})\n`);
  }
  process.stdout.write(`load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}\n`);
  if (api !== null) await new Promise((resolve) => api.server.close(resolve));
  await session.stop();
} finally {
  if (scratch !== null) rmSync(scratch, { recursive: true, force: true });
}
