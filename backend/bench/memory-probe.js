// Preloaded into a benchmarked `upness serve` (`node --import …/memory-probe.js`) by bench:dashboards:
// on SIGUSR2 it appends one JSON line to the file named by UPNESS_BENCH_MEMORY_PROBE with the
// process's memoryUsage() and V8's heap spaces (used and committed). Not /metrics: its per-JobSet
// families make an answer of 62 MB at 2,000 JobSets × 30 days, and asking it grew the service by
// ~600 MiB, more than what is measured. Plain JavaScript: the service runs stripped sources and
// never loads the type stripper.
import { appendFileSync, readFileSync } from 'node:fs';
import { getHeapSpaceStatistics, writeHeapSnapshot } from 'node:v8';

const file = process.env.UPNESS_BENCH_MEMORY_PROBE;
if (file) {
  process.on('SIGUSR2', () => {
    const usage = process.memoryUsage();
    const spaces = Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, { used: s.space_used_size, committed: s.space_size }]));
    // With --expose-gc given to the service (bench:dashboards --service-flags=--expose-gc): also what lives, after a full collection.
    const gc = globalThis.gc;
    const settled = typeof gc === 'function' ? (gc(), process.memoryUsage()) : null;
    // With UPNESS_BENCH_LAST_RESORT=1 too: V8's memory-reducing collection after it (the one it runs under
    // memory pressure, which also gives back the pages its allocator pooled), and the RSS after.
    const reducing = typeof gc === 'function' && process.env.UPNESS_BENCH_LAST_RESORT === '1';
    const reduceStart = performance.now();
    if (reducing) gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    const reducedRss = reducing ? process.memoryUsage().rss : null;
    const reducedMs = reducing ? performance.now() - reduceStart : null;
    // With UPNESS_BENCH_HEAP_SNAPSHOTS=DIR: a heap snapshot each time too (what lives; heap-breakdown.ts reads it).
    const dir = process.env.UPNESS_BENCH_HEAP_SNAPSHOTS;
    const snapshot = dir ? writeHeapSnapshot(`${dir}/upness-${process.pid}-${Date.now()}.heapsnapshot`) : null;
    // With buffer-owners.js preloaded too (bench:dashboards --owners): the live typed arrays by maker,
    // read once the collection's finalizers have run (a task after it).
    const owners = globalThis[Symbol.for('upness.bench.bufferOwners')];
    const write = () => appendFileSync(file, `${JSON.stringify({ at: Date.now(), usage, spaces, settled, reducedRss, reducedMs, snapshot, mallocHeap: mallocHeapRss(), owners: owners === undefined ? null : owners() })}\n`);
    if (owners === undefined || typeof gc !== 'function') write();
    else setTimeout(() => (gc(), setTimeout(write, 100)), 100);
  });
}

/**
 * The resident bytes of the process's [heap] mapping (glibc's main arena, grown by brk: with the
 * service's one arena, what malloc holds below its mmap threshold), read from /proc/self/smaps;
 * null where there is none.
 */
function mallocHeapRss() {
  try {
    const smaps = readFileSync('/proc/self/smaps', 'utf8');
    const at = smaps.indexOf('[heap]');
    if (at === -1) return null;
    const rss = /\nRss:\s+(\d+) kB/.exec(smaps.slice(at));
    return rss === null ? null : Number(rss[1]) * 1024;
  } catch {
    return null;
  }
}
