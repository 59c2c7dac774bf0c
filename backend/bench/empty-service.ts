// `npm run bench:rss -- --empty`: what the empty service holds, and what its parts cost alone.
//   1. Each large dependency imported alone into a bare Node 22 (a child process each, then two full
//      memory-reducing collections): its RSS, V8 heap used, external memory and code space, beside a
//      bare Node and a Node that has used its type stripper once (one `.ts` file). The costs overlap
//      (Node's own modules, malloc's pages), so they do not add up. Median of --repeat runs.
//   2. The empty service, `upness serve --memory --trace <an empty file>`, its RSS read from outside
//      (/proc) 5 s after it is ready and again --settle seconds after (by then V8's memory reducer
//      has handed back the young generation that starting grew), beside its peer in the same round:
//      the same service started from backend/src/cli/main.ts, whose types Node strips in the
//      service's process as `upness` did before backend/bin/stripped-sources.js; with --before DIR,
//      also the `upness` of another checkout (its node_modules resolving). They start together,
//      which one first turning with each round. With --asked, each `upness` also a second time, asked
//      what Grafana asks first ("Save & test" and a panel's query: askAsGrafanaDoes) once it is ready.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { ready, startServe, UPNESS_BIN, type ServeProcess } from '../../test/support/serve.ts';

const BACKEND = join(import.meta.dirname, '..');
const MAIN_TS = join(BACKEND, 'src', 'cli', 'main.ts');
const MiB = 2 ** 20;
const mib = (bytes: number): string => (bytes / MiB).toFixed(1);

/** The dependencies the service imports, each measured alone. */
export const DEPENDENCIES = ['express', 'zod', 'prom-client', 'pino', 'commander', 'pg', '@kubernetes/client-node', 'apache-arrow'];

interface Footprint {
  rss: number;
  heapUsed: number;
  external: number;
  codeSpace: number;
}

/** Imports `specifier` (nothing: a bare Node) into a fresh Node, collects, and reads what the process holds. */
function footprint(specifier: string | null): Footprint {
  const script = `
    import { getHeapSpaceStatistics } from 'node:v8';
    import { readFileSync } from 'node:fs';
    ${specifier === null ? '' : `await import(${JSON.stringify(specifier)});`}
    for (let i = 0; i < 2; i++) gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    const { heapUsed, external } = process.memoryUsage();
    const codeSpace = getHeapSpaceStatistics().find((s) => s.space_name === 'code_space').space_used_size;
    const rss = Number(/VmRSS:\\s+(\\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))[1]) * 1024;
    process.stdout.write(JSON.stringify({ rss, heapUsed, external, codeSpace }));`;
  // From backend/: the packages resolve as the service's do.
  const run = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], { cwd: BACKEND, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`measuring ${specifier ?? 'a bare Node'} failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as Footprint;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

function medianFootprint(specifier: string | null, repeat: number): Footprint {
  const runs = Array.from({ length: repeat }, () => footprint(specifier));
  return { rss: median(runs.map((r) => r.rss)), heapUsed: median(runs.map((r) => r.heapUsed)), external: median(runs.map((r) => r.external)), codeSpace: median(runs.map((r) => r.codeSpace)) };
}

const rssOf = (pid: number): number => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) * 1024;

async function stop(serve: ServeProcess): Promise<void> {
  if (serve.child.exitCode !== null || serve.child.signalCode !== null) return;
  const exited = new Promise((resolve) => serve.child.once('exit', resolve));
  serve.child.kill('SIGTERM');
  await exited;
}

/**
 * What a user has asked of a service once Grafana knows it: "Save & test" (GET /readyz, then GET
 * /api/v1/values/namespaces: pkg/plugin/health.go) and a panel's first query, as the plugin's backend
 * sends it (`frames=arrow`). Each must answer 200.
 */
async function askAsGrafanaDoes(url: string): Promise<void> {
  const now = Date.now();
  const requests: [string, RequestInit][] = [
    ['/readyz', {}],
    ['/api/v1/values/namespaces', {}],
    [
      '/api/v1/query?frames=arrow',
      { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ queries: [{ refId: 'A', timeRange: { from: String(now - 86_400_000), to: String(now) } }] }) },
    ],
  ];
  for (const [path, init] of requests) {
    const res = await fetch(`${url}${path}`, init);
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
  }
}

/** One empty service per entry, started together (asked as Grafana asks where `asked`); RSS 5 s after each is ready and `settleSeconds` after. */
async function emptyServices(entries: { bin: string; asked: boolean }[], trace: string, settleSeconds: number): Promise<{ early: number; settled: number }[]> {
  const started: ServeProcess[] = [];
  try {
    for (const { bin } of entries) started.push(await startServe(['--memory', '--trace', trace], { bin }));
    await Promise.all(started.map((s) => ready(s)));
    await Promise.all(started.map((s, i) => (entries[i]!.asked ? askAsGrafanaDoes(s.url) : undefined)));
    await sleep(5_000);
    const early = started.map((s) => rssOf(s.child.pid!));
    await sleep(Math.max(0, settleSeconds - 5) * 1000);
    return started.map((s, i) => ({ early: early[i]!, settled: rssOf(s.child.pid!) }));
  } finally {
    await Promise.all(started.map(stop));
  }
}

export async function measureEmptyService(options: { repeat: number; rounds: number; settleSeconds: number; before?: string; asked?: boolean; write: (line: string) => void }): Promise<void> {
  const { repeat, rounds, settleSeconds, before, write } = options;
  const scratch = mkdtempSync(join(tmpdir(), 'upness-empty-'));
  const load = (): string => loadavg().map((l) => l.toFixed(1)).join(' ');
  try {
    const stripped = join(scratch, 'one.ts');
    writeFileSync(stripped, 'export const one: number = 1;\n');
    write(`each imported alone into a bare Node ${process.version} (median of ${repeat}; load average ${load()})\n`);
    write('| imported | RSS | heap used | external | code space |\n|---|---:|---:|---:|---:|\n');
    const bare = medianFootprint(null, repeat);
    const row = (what: string, f: Footprint): void => {
      const over = (n: number, b: number): string => `${mib(n)} (+${mib(n - b)})`;
      write(`| ${what} | ${over(f.rss, bare.rss)} | ${over(f.heapUsed, bare.heapUsed)} | ${over(f.external, bare.external)} | ${mib(f.codeSpace)} |\n`);
    };
    row('nothing (`node -e`)', bare);
    row('one `.ts` file (the type stripper)', medianFootprint(pathToFileURL(stripped).href, repeat));
    for (const dependency of DEPENDENCIES) row(dependency, medianFootprint(dependency, repeat));

    const trace = join(scratch, 'empty.jsonl');
    writeFileSync(trace, '');
    const empty = [{ name: 'stripped ahead (upness)', bin: UPNESS_BIN }, { name: 'Node strips (main.ts)', bin: MAIN_TS }, ...(before === undefined ? [] : [{ name: before, bin: join(before, 'backend', 'bin', 'upness.js') }])].map((s) => ({ ...s, asked: false }));
    // --asked: each upness also started and asked what Grafana asks first (its main.ts peer left out).
    const askedToo = options.asked === true ? empty.filter((s) => s.bin !== MAIN_TS).map((s) => ({ ...s, name: `${s.name}, asked`, asked: true })) : [];
    const services = [...empty, ...askedToo];
    write(`\nthe empty service (upness serve --memory --trace <empty>), RSS in MiB 5 s after ready / ${settleSeconds} s after, ${rounds} round(s)\n`);
    write(`| round | ${services.map((s) => s.name).join(' | ')} | load average |\n|---|${services.map(() => '---:|').join('')}---|\n`);
    const measured: { early: number; settled: number }[][] = services.map(() => []);
    for (let round = 1; round <= rounds; round++) {
      // Which starts first turns with each round.
      const order = services.map((_, i) => (i + round - 1) % services.length);
      const figures = await emptyServices(
        order.map((i) => services[i]!),
        trace,
        settleSeconds,
      );
      order.forEach((i, k) => measured[i]!.push(figures[k]!));
      write(`| ${round} | ${measured.map((m) => `${mib(m.at(-1)!.early)} / ${mib(m.at(-1)!.settled)}`).join(' | ')} | ${load()} |\n`);
    }
    write(`| median | ${measured.map((m) => `${mib(median(m.map((x) => x.early)))} / ${mib(median(m.map((x) => x.settled)))}`).join(' | ')} | |\n`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
