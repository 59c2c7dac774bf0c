// `npm run bench:plugin`: the whole path Grafana takes to a panel's frames (the SDK's real gRPC
// harness, the plugin backend, HTTP, the service), against the service's own time for the same
// request, on a simulated fleet:
//   table   a summary of 10,000 rows (every figure of 10,000 JobSet runs)
//   detail  one JobSet's detail: every target of the provisioned JobSet detail dashboard, in one request
// Each through the plugin with the frames as Arrow IPC files (how the plugin asks since issue 21 §4)
// and as frame JSON (how it asked before), and straight from the service the same two ways.
// Options: --rows N (the table's rows, default 10,000), --runs R (default 20), --smoke.

import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createReadStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { panelTime } from '../../test/provisioning/panel-time.ts';
import { fmt, int, ms, sleep, stats, timedFetch } from './prometheus/proc.ts';
import { UpnessServer } from './prometheus/upness.ts';
import { benchArgs } from './args.ts';

const { values: args } = benchArgs(import.meta.filename, {
  options: { rows: { type: 'string' }, runs: { type: 'string' }, smoke: { type: 'boolean', default: false } },
});
const ROWS = Number(args.rows ?? (args.smoke ? 500 : 10_000));
const RUNS = Number(args.runs ?? (args.smoke ? 3 : 20));
for (const [name, value] of [['rows', ROWS], ['runs', RUNS]] as const) {
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a whole number of at least 1, not ${String(args[name])}`);
}
// About 6.5 runs per JobSet name in 2 days on the simulator's default profile: enough for the table.
const JOBSETS = Math.ceil(ROWS / 5);
const DAYS = 2;

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'backend', 'bin', 'upness.js');
const log = (line = ''): void => void process.stdout.write(`${line}\n`);

/* eslint-disable @typescript-eslint/no-explicit-any -- dashboards and answers are JSON documents */
type Json = any;

interface BenchRequest {
  name: string;
  from: number;
  to: number;
  intervalMs: number;
  maxDataPoints: number;
  queries: Json[];
}

/** The service's own time for a request, its frames as JSON and as Arrow: medians over RUNS. */
async function serviceTimes(url: string, r: BenchRequest): Promise<{ json: number; arrow: number; jsonBytes: number; arrowBytes: number }> {
  const body = JSON.stringify({
    from: String(r.from),
    to: String(r.to),
    queries: r.queries.map((q) => ({ ...q, intervalMs: r.intervalMs, maxDataPoints: r.maxDataPoints })),
  });
  const time = async (query: string): Promise<{ median: number; bytes: number }> => {
    const times: number[] = [];
    let bytes = 0;
    for (let i = 0; i < RUNS + 1; i++) {
      const t = performance.now();
      const res = await fetch(`${url}/api/v1/query${query}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      const answer = Buffer.from(await res.arrayBuffer()); // to the last byte, as the plugin reads it
      if (res.status !== 200) throw new Error(`${r.name}: the service answered ${res.status}: ${answer.toString('utf8', 0, 500)}`);
      if (i > 0) times.push(performance.now() - t); // the first warms the service up
      bytes = answer.length;
    }
    return { median: stats(times).median, bytes };
  };
  const json = await time('');
  const arrow = await time('?frames=arrow');
  return { json: json.median, arrow: arrow.median, jsonBytes: json.bytes, arrowBytes: arrow.bytes };
}

/** Runs BenchmarkQueryData (pkg/plugin/bench_test.go): ms per request and rows, by request and encoding. */
function pluginTimes(url: string, requests: BenchRequest[]): Map<string, { ms: number; rows: number }> {
  // The settings of test/support/plugin.sh (and of the build), so the packages come from Go's build cache.
  const env = {
    ...process.env,
    PATH: `${process.env.PATH ?? ''}:/usr/local/go/bin`,
    GOTOOLCHAIN: 'local',
    CGO_ENABLED: '0',
    GOOS: 'linux',
    GOARCH: 'amd64',
    GOFLAGS: `${process.env.GOFLAGS ?? ''} -trimpath`,
    UPNESS_BENCH: JSON.stringify({ url, requests }),
  };
  const go = spawnSync('go', ['test', '-tags', 'arrow_json_stdlib', './pkg/plugin', '-run', '^$', '-bench', '^BenchmarkQueryData$', '-benchtime', `${RUNS}x`, '-count', '1'], {
    cwd: ROOT,
    encoding: 'utf8',
    env,
    maxBuffer: 64 << 20,
  });
  if (go.status !== 0) throw new Error(`go test -bench failed (${go.status ?? go.signal}):\n${go.stdout}\n${go.stderr}`);
  const out = new Map<string, { ms: number; rows: number }>();
  // BenchmarkQueryData/table/arrow-2   20   12345678 ns/op   10000 rows
  for (const m of go.stdout.matchAll(/^BenchmarkQueryData\/(\S+?)(?:-\d+)?\s+\d+\s+([\d.]+) ns\/op\s+([\d.]+) rows/gm)) {
    out.set(m[1]!, { ms: Number(m[2]) / 1e6, rows: Number(m[3]) });
  }
  if (out.size !== requests.length * 2) throw new Error(`go test -bench printed ${out.size} results, not ${requests.length * 2}:\n${go.stdout}`);
  return out;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'upness-bench-plugin-'));
  let server: UpnessServer | null = null;
  try {
    const trace = join(dir, 'trace.jsonl');
    log(`simulating ${int(JOBSETS)} JobSet names × ${DAYS} days…`);
    const sim = spawnSync(process.execPath, [BIN, 'simulate', '--jobsets', String(JOBSETS), '--days', String(DAYS), '--seed', '7', '--out', trace], { stdio: ['ignore', 'ignore', 'inherit'] });
    if (sim.status !== 0) throw new Error(`upness simulate failed (${sim.status ?? sim.signal})`);
    const input = createReadStream(trace);
    await once(input, 'open'); // spawn hands the server the file's descriptor
    server = await UpnessServer.start(input);
    const started = Date.now();
    let ready: Json = null;
    while (ready === null) {
      const res = await timedFetch(`${server.url}/readyz`);
      if (res.status === 200) ready = JSON.parse(res.body);
      else if (Date.now() - started > 600_000) throw new Error('upness serve was not ready after 600 s');
      else await sleep(100);
    }
    const now = Date.parse(ready.horizon);
    log(`service ready: ${int(ready.jobsets)} JobSet runs, horizon ${ready.horizon}`);

    const from = now - DAYS * 86_400_000;
    const top = await timedFetch(`${server.url}/api/v1/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ from: String(from), to: String(now), queries: [{ refId: 'A', queryType: 'summary', sort: { by: 'upSeconds' }, limit: 1 }] }),
    });
    const frame = JSON.parse(top.body).results.A.frames[0];
    const column = (name: string): string => frame.data.values[frame.schema.fields.findIndex((f: Json) => f.name === name)][0];
    const [namespace, jobset] = [column('namespace'), column('name')];

    const dashboard = JSON.parse(readFileSync(join(ROOT, 'provisioning', 'dashboards', 'upness', 'jobset-detail.json'), 'utf8'));
    const t = panelTime(dashboard, null, now);
    const substitute = (value: Json): Json =>
      JSON.parse(JSON.stringify(value).replaceAll('$namespace', namespace).replaceAll('$jobset', jobset));
    const detail: Json[] = dashboard.panels.flatMap((p: Json, i: number) =>
      (p.targets ?? []).map((target: Json) => {
        const { datasource: _datasource, ...q } = substitute(target);
        return { ...q, refId: `${i}${q.refId}` };
      }),
    );
    const requests: BenchRequest[] = [
      { name: 'table', from, to: now, intervalMs: 60_000, maxDataPoints: 1_000, queries: [{ refId: 'A', queryType: 'summary', sort: { by: 'upSeconds' }, limit: ROWS }] },
      { name: 'detail', from: t.from, to: t.to, intervalMs: t.intervalMs, maxDataPoints: t.maxDataPoints, queries: detail },
    ];

    log(`timing each request ${RUNS} times, straight from the service and through the plugin (go test -bench)…`);
    const service = new Map<string, Awaited<ReturnType<typeof serviceTimes>>>();
    for (const r of requests) service.set(r.name, await serviceTimes(server.url, r));
    const plugin = pluginTimes(server.url, requests);

    log();
    log(`| request | rows | service, JSON | service, Arrow | plugin, JSON (before) | plugin, Arrow (after) | after ÷ before | after ÷ service JSON | answer JSON → Arrow |`);
    log(`|---|--:|--:|--:|--:|--:|--:|--:|--:|`);
    for (const r of requests) {
      const s = service.get(r.name)!;
      const before = plugin.get(`${r.name}/json`)!;
      const after = plugin.get(`${r.name}/arrow`)!;
      if (before.rows !== after.rows) throw new Error(`${r.name}: ${before.rows} rows through JSON, ${after.rows} through Arrow`);
      if (r.name === 'table' && after.rows !== ROWS) throw new Error(`the table has ${after.rows} rows, not ${ROWS}: the fleet has too few JobSet runs`);
      log(
        `| ${r.name} | ${int(after.rows)} | ${ms(s.json)} | ${ms(s.arrow)} | ${ms(before.ms)} | ${ms(after.ms)} | ${fmt(after.ms / before.ms, 2)}× | ${fmt(after.ms / s.json, 2)}× | ${int(s.jsonBytes / 1024)} → ${int(s.arrowBytes / 1024)} KiB |`,
      );
    }
    log();
    log(`service: median of ${RUNS} (after one to warm up); plugin: mean of ${RUNS} (go test -benchtime ${RUNS}x), QueryData over the SDK's gRPC harness.`);
  } finally {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
