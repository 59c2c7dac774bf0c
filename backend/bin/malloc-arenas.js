// glibc's malloc gives each thread that allocates an arena of its own (up to 8 per core) and keeps
// what is freed in it: the trace's parse threads and V8's helper threads left 8–17 MiB freed in
// their arenas that the process never gave back, 1–3 MiB with two (`npm run bench:rss` at 500 × 7 d:
// medians ~5,400 and ~2,600 bytes of RSS a run, for ~1,720 bytes of heap; README "Performance").
// MALLOC_ARENA_MAX is read when the process starts, so the process runs itself
// again with it, in place (same pid, same stdin, no parent left waiting). A value already set,
// whatever it is, is kept: `MALLOC_ARENA_MAX=16 upness serve` is glibc's default on 2 cores.

/** The arenas the service runs with: the main thread's and one that every other thread shares. */
export const MALLOC_ARENAS = '2';

/** Runs this process again, in place, with MALLOC_ARENA_MAX set, unless it is set already; returns when it cannot (not Linux, a Node without process.execve). */
export function execWithFewMallocArenas() {
  if (process.platform !== 'linux' || process.env.MALLOC_ARENA_MAX !== undefined) return;
  if (typeof process.execve !== 'function') return;
  process.execve(process.execPath, [process.execPath, ...process.execArgv, ...process.argv.slice(1)], {
    ...process.env,
    MALLOC_ARENA_MAX: MALLOC_ARENAS,
  });
}
