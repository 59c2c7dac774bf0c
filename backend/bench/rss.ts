// `npm run bench:rss`: what the served engine holds per JobSet run once a trace is loaded, as
// `upness serve --memory --trace FILE` loads it (the trace feed, the in-memory sink, the session's
// retention and indexing; no HTTP server). A simulated trace (realistic profile, JobSets alone) is
// written to a temporary file first unless --trace names one.
//   Measured: RSS once the session is ready (as the service holds it: since 2026-11-27 it compacts
//   its heap after a load, runtime/heap-after-load.ts; --no-compact: the peer without that), then
//   process.memoryUsage() after a full garbage collection (--expose-gc), before the load
//   (every module imported, nothing loaded) and after it, with the session still reachable; bytes
//   per run (JobSet UID) and per transition. --snapshot FILE writes a heap snapshot after the load
//   (backend/bench/heap-breakdown.ts groups it by constructor).
//   Run with glibc's malloc set as `upness` runs the service (backend/bin/malloc.js: MALLOC_ARENA_MAX=1 and
//   MALLOC_MMAP_THRESHOLD_=131072 unless set; `MALLOC_ARENA_MAX=16` for glibc's default arenas on 2 cores,
//   --dynamic-mmap-threshold: glibc's threshold left to move, as the service ran before 2026-11-27's malloc step). --maps: where the RSS is, by kind of mapping.
// Options: --trace FILE | --jobsets N --days D [--profile P] [--seed S]; --parse-threads N (as serve's;
// 0: parse in the main thread, no worker isolate to leave its memory to malloc); --snapshot FILE; --smoke.
// --questions: then asks what tables and per-JobSet figures over all time leave kept (every closed
// run's row of the tables' columns, run-columns.ts, and each run's totals over a window holding its
// whole life, totals.ts windowTotals) and measures the heap and RSS that adds.
// --empty: instead, the empty service and what each of its dependencies costs alone (empty-service.ts;
// --repeat N runs of each import, --rounds N starts of the service and its peer, --settle S seconds,
// --before DIR another checkout's service beside them; --asked each upness also asked what Grafana asks first);
// --smoke measures it too, once each.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getHeapSpaceStatistics, getHeapStatistics, writeHeapSnapshot } from 'node:v8';
import { pino } from 'pino';
import { execWithServiceMalloc, MALLOC_ENV } from '../bin/malloc.js';
import { useStrippedSources } from '../bin/stripped-sources.js';
import { simulateCommand } from '../src/cli/simulate.ts';
import { traceFeed } from '../src/runtime/feeds.ts';
import { transitionCount } from '../src/timeline/types.ts';
import { runColumns } from '../src/series/run-columns.ts';
import { FIELDS, windowTotals } from '../src/series/totals.ts';
import { openSession } from '../src/runtime/session.ts';
import { memorySink } from '../src/runtime/sinks.ts';
import type { ProfileName } from '../src/sources/simulator/index.ts';
import { benchArgs } from './args.ts';

const { values: args } = benchArgs(import.meta.filename, {
  options: {
    trace: { type: 'string' },
    jobsets: { type: 'string', default: '500' },
    days: { type: 'string', default: '7' },
    profile: { type: 'string', default: 'realistic' },
    seed: { type: 'string', default: '1' },
    'parse-threads': { type: 'string' },
    snapshot: { type: 'string' },
    spaces: { type: 'boolean', default: false },
    smoke: { type: 'boolean', default: false },
    maps: { type: 'boolean', default: false },
    questions: { type: 'boolean', default: false },
    'no-compact': { type: 'boolean', default: false },
    empty: { type: 'boolean', default: false },
    repeat: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '3' },
    settle: { type: 'string', default: '60' },
    before: { type: 'string' },
    asked: { type: 'boolean', default: false },
    'node-stripping': { type: 'boolean', default: false },
    'dynamic-mmap-threshold': { type: 'boolean', default: false },
    hold: { type: 'string' },
  },
});

execWithServiceMalloc(args['dynamic-mmap-threshold'] ? { MALLOC_ARENA_MAX: MALLOC_ENV.MALLOC_ARENA_MAX } : MALLOC_ENV);

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) {
  process.stderr.write('run with node --expose-gc (npm run bench:rss does)\n');
  process.exit(2);
}

/**
 * RSS and heap after a full collection (twice: weak references and finalizers settle on the second),
 * of the memory-reducing kind (V8's last-resort flavour: it also shrinks the young generation back),
 * which V8's memory reducer runs on its own in a service left idle for a while.
 */
function settled(): { rss: number; heap: number } {
  const full = gc as unknown as (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;
  full({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  full({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  const { rss, heapUsed } = process.memoryUsage();
  return { rss, heap: heapUsed };
}

/**
 * Resident bytes by kind of mapping (/proc/self/smaps): glibc's main arena ([heap]), its other
 * threads' arenas (anonymous heaps of 64 MiB, aligned to it), other anonymous memory (V8's heap
 * pages, large malloc blocks), files (the node binary's pages, shared libraries).
 */
function residentByMapping(): Map<string, number> {
  const HEAP = 64n << 20n;
  const regions: { start: bigint; end: bigint; name: string; rss: number }[] = [];
  for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    const range = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (range !== null) regions.push({ start: BigInt(`0x${range[1]}`), end: BigInt(`0x${range[2]}`), name: range[3]!, rss: 0 });
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss !== null && regions.length > 0) regions[regions.length - 1]!.rss = Number(rss[1]) * 1024;
  }
  const out = new Map<string, number>([['glibc main arena', 0], ['glibc thread arenas', 0], ['other anonymous', 0], ['files', 0]]);
  for (const [i, r] of regions.entries()) {
    // A thread arena's heap: a 64 MiB-aligned mapping, read-write where used, the rest reserved after it.
    const next = regions[i + 1];
    const arena = r.name === '' && r.start % HEAP === 0n && (next !== undefined && next.name === '' && next.start === r.end ? next.end : r.end) - r.start === HEAP;
    const kind = r.name === '[heap]' ? 'glibc main arena' : arena ? 'glibc thread arenas' : r.name === '' || r.name.startsWith('[') ? 'other anonymous' : 'files';
    out.set(kind, out.get(kind)! + r.rss);
  }
  return out;
}

/** What V8 counts outside its heap (--spaces): memory it holds for the embedder, and its own malloc'd memory. */
function outsideTheHeap(): string {
  const { external, arrayBuffers } = process.memoryUsage();
  const h = getHeapStatistics();
  return `external ${mib(external)}, array buffers ${mib(arrayBuffers)}, malloced ${mib(h.malloced_memory)} (peak ${mib(h.peak_malloced_memory)}), heap committed ${mib(h.total_heap_size)}`;
}

/** --hold S: time to look at the process from outside (gdb's malloc_stats, /proc/PID/smaps) once measured empty and once loaded. */
async function hold(when: string): Promise<void> {
  if (args.hold === undefined) return;
  process.stdout.write(`holding ${args.hold} s ${when}: pid ${process.pid}\n`);
  await new Promise((resolve) => setTimeout(resolve, Number(args.hold) * 1000));
}

/** The empty service's part (--empty, and once each with --smoke). */
async function emptyService(): Promise<void> {
  const { measureEmptyService } = await import('./empty-service.ts');
  const once = args.smoke;
  await measureEmptyService({
    repeat: once ? 1 : Number(args.repeat),
    rounds: once ? 1 : Number(args.rounds),
    settleSeconds: once ? 5 : Number(args.settle),
    ...(args.before !== undefined ? { before: args.before } : {}),
    asked: args.asked,
    write: (line) => process.stdout.write(line),
  });
}

if (args.empty) {
  await emptyService();
  process.exit(0);
}

const MiB = 2 ** 20;
const mib = (bytes: number): string => `${(bytes / MiB).toFixed(1)} MiB`;
const int = (n: number): string => Math.round(n).toLocaleString('en-US');

let scratch: string | null = null;
let trace = args.trace;
if (trace === undefined) {
  scratch = mkdtempSync(join(tmpdir(), 'upness-rss-'));
  trace = join(scratch, 'trace.jsonl');
  const jobsets = args.smoke ? 10 : Number(args.jobsets);
  const days = args.smoke ? 1 : Number(args.days);
  process.stderr.write(`simulating ${jobsets} × ${days} d (${args.profile}) into ${trace}\n`);
  await simulateCommand({ jobsets, days, seed: Number(args.seed), profile: args.profile as ProfileName, out: trace });
}

try {
  // Info on standard error: the session's own lines (the heap compacted after the load, how long it took).
  const logger = pino({ level: 'info' }, pino.destination(2));
  // The parse threads start on the sources stripped ahead, as `upness` starts them (this process
  // itself runs from its TypeScript, stripped by Node, as any bench does); --node-stripping: each
  // worker isolate loads Node's type stripper, as this bench measured before 2026-11-27's tenth session.
  const workersStripped = !args['node-stripping'] && useStrippedSources();
  const empty = settled();
  const emptyMaps = args.maps ? residentByMapping() : null;
  const emptyOutside = outsideTheHeap();
  await hold('empty');
  const session = await openSession(traceFeed(trace, args['parse-threads'] === undefined ? undefined : Number(args['parse-threads'])), memorySink(), {
    logger,
    retentionMs: 90 * 86_400_000,
    snapshotEvery: 100_000,
    compactAfterLoad: !args['no-compact'],
  });
  const started = Date.now();
  const cpu = process.cpuUsage();
  await session.start();
  const seconds = (Date.now() - started) / 1000;
  const { user, system } = process.cpuUsage(cpu);
  // What the service holds once ready, before any collection of the benchmark's own.
  const ready = process.memoryUsage();
  const loaded = settled();
  const loadedMaps = args.maps ? residentByMapping() : null;
  const timelines = session.view.timelines();
  let transitions = 0;
  for (const t of timelines) transitions += transitionCount(t);
  const runs = timelines.length;
  const rss = loaded.rss - empty.rss;
  const heap = loaded.heap - empty.heap;
  const rows: [string, string][] = [
    ['trace', trace],
    ['parse threads', `${args['parse-threads'] ?? 'default'}, ${workersStripped ? 'on the sources stripped ahead (as upness)' : "each stripping its sources with Node's type stripper"}`],
    ['malloc', `arenas ${process.env.MALLOC_ARENA_MAX ?? "glibc's default"}, mmap threshold ${process.env.MALLOC_MMAP_THRESHOLD_ ?? "glibc's, dynamic"}`],
    ['load', `${seconds.toFixed(1)} s, CPU ${((user + system) / 1e6).toFixed(1)} s (every thread)`],
    ['runs (JobSet UIDs)', int(runs)],
    ['transitions', int(transitions)],
    ['compacted after load', args['no-compact'] ? 'no (--no-compact)' : 'yes'],
    ['RSS once ready', `${mib(ready.rss)} (heap ${mib(ready.heapUsed)} used, ${mib(ready.heapTotal)} committed)`],
    ['RSS empty → loaded', `${mib(empty.rss)} → ${mib(loaded.rss)}`],
    ['heap empty → loaded', `${mib(empty.heap)} → ${mib(loaded.heap)}`],
    ['RSS per run', `${int(rss / runs)} B`],
    ['heap per run', `${int(heap / runs)} B`],
    ['RSS per transition', `${int(rss / transitions)} B`],
    ['heap per transition', `${int(heap / transitions)} B`],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  for (const [k, v] of rows) process.stdout.write(`${k.padEnd(width)}  ${v}\n`);
  if (args.spaces) {
    for (const s of getHeapSpaceStatistics()) process.stdout.write(`  ${s.space_name.padEnd(width - 2)}  committed ${mib(s.space_size)}, used ${mib(s.space_used_size)}\n`);
    process.stdout.write(`  empty:  ${emptyOutside}\n  loaded: ${outsideTheHeap()}\n`);
  }
  if (emptyMaps !== null && loadedMaps !== null) {
    for (const [kind, bytes] of loadedMaps) process.stdout.write(`  ${kind}: ${mib(emptyMaps.get(kind) ?? 0)} → ${mib(bytes)}\n`);
  }
  if (args.questions) {
    const before = settled();
    const horizon = Math.max(...timelines.map((t) => t.createdAt)) + 86_400_000;
    runColumns(timelines);
    const out = new Float64Array(FIELDS);
    for (const tl of timelines) windowTotals(tl, horizon, -Infinity, Infinity, out);
    const after = settled();
    process.stdout.write(`after questions  heap ${int((after.heap - before.heap) / runs)} B a run more, RSS ${int((after.rss - before.rss) / runs)} B a run more\n`);
  }
  if (args.snapshot !== undefined) process.stdout.write(`heap snapshot: ${writeHeapSnapshot(args.snapshot)}\n`);
  await hold('loaded');
  await session.stop();
} finally {
  if (scratch !== null) rmSync(scratch, { recursive: true, force: true });
}
if (args.smoke) await emptyService();
