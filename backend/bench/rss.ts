// `npm run bench:rss`: what the served engine holds per JobSet run once a trace is loaded, as
// `upness serve --memory --trace FILE` loads it (the trace feed, the in-memory sink, the session's
// retention and indexing; no HTTP server). A simulated trace (realistic profile, JobSets alone) is
// written to a temporary file first unless --trace names one.
//   Measured: process.memoryUsage() after a full garbage collection (--expose-gc), before the load
//   (every module imported, nothing loaded) and after it, with the session still reachable; bytes
//   per run (JobSet UID) and per transition. --snapshot FILE writes a heap snapshot after the load
//   (backend/bench/heap-breakdown.ts groups it by constructor).
// Options: --trace FILE | --jobsets N --days D [--profile P] [--seed S]; --snapshot FILE; --smoke.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { getHeapSpaceStatistics, getHeapStatistics, writeHeapSnapshot } from 'node:v8';
import { pino } from 'pino';
import { simulateCommand } from '../src/cli/simulate.ts';
import { traceFeed } from '../src/runtime/feeds.ts';
import { openSession } from '../src/runtime/session.ts';
import { memorySink } from '../src/runtime/sinks.ts';
import type { ProfileName } from '../src/sources/simulator/index.ts';

const { values: args } = parseArgs({
  options: {
    trace: { type: 'string' },
    jobsets: { type: 'string', default: '500' },
    days: { type: 'string', default: '7' },
    profile: { type: 'string', default: 'realistic' },
    seed: { type: 'string', default: '1' },
    snapshot: { type: 'string' },
    spaces: { type: 'boolean', default: false },
    smoke: { type: 'boolean', default: false },
  },
});

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
  const logger = pino({ level: 'warn' });
  const empty = settled();
  const session = await openSession(traceFeed(trace), memorySink(), { logger, retentionMs: 90 * 86_400_000, snapshotEvery: 100_000 });
  const started = Date.now();
  await session.start();
  const seconds = (Date.now() - started) / 1000;
  const loaded = settled();
  const timelines = session.view.timelines();
  let transitions = 0;
  for (const t of timelines) transitions += t.transitions.length;
  const runs = timelines.length;
  const rss = loaded.rss - empty.rss;
  const heap = loaded.heap - empty.heap;
  const rows: [string, string][] = [
    ['trace', trace],
    ['load', `${seconds.toFixed(1)} s`],
    ['runs (JobSet UIDs)', int(runs)],
    ['transitions', int(transitions)],
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
    const { external, arrayBuffers } = process.memoryUsage();
    const h = getHeapStatistics();
    process.stdout.write(`  external ${mib(external)}, array buffers ${mib(arrayBuffers)}, malloced ${mib(h.malloced_memory)} (peak ${mib(h.peak_malloced_memory)}), heap committed ${mib(h.total_heap_size)}\n`);
  }
  if (args.snapshot !== undefined) process.stdout.write(`heap snapshot: ${writeHeapSnapshot(args.snapshot)}\n`);
  await session.stop();
} finally {
  if (scratch !== null) rmSync(scratch, { recursive: true, force: true });
}
