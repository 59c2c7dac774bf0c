// glibc's malloc as the service runs with it, set in the environment, which glibc reads once when
// the process starts: so the process runs itself again with it, in place (same pid, same stdin, no
// parent left waiting). A variable already set, whatever its value, is kept, and so is a tunable
// that GLIBC_TUNABLES names (`MALLOC_ARENA_MAX=16 upness serve` is glibc's default on 2 cores).
//
// MALLOC_ARENA_MAX=1: one arena for every thread. glibc gives each thread that allocates an arena of
// its own (up to 8 per core) and keeps what is freed in it: the trace's parse threads and V8's helper
// threads left 8–17 MiB freed in their arenas that the process never gave back (`npm run bench:rss`
// at 500 × 7 d: ~5,400 bytes of RSS a run). With two, V8's helper threads (compiling, marking) took
// turns between both, and what they freed at start, 3–12 MiB of the second arena's pages with ~0.1
// MiB in use, lay where the main thread's load could not use it, while the load's own 3.5 MB of
// malloc (small array buffers, V8's tables) grew the main arena by 0–4.5 MiB (gdb's malloc_stats);
// one arena reuses the start's free pages: ~940 bytes a run against ~1,250, and steadier (README
// "Performance", "Parse threads' memory, steady").
//
// MALLOC_MMAP_THRESHOLD_=131072: glibc's own default threshold, made fixed. Left dynamic, glibc raises
// it to the size of any mmapped block freed (and the top it keeps untrimmed to twice that): V8's
// string table and 1 MiB array buffers (a trace's reads, the run arena's arrays, which double) free
// blocks of 1–4 MiB while a trace loads, after which every block under 4 MiB came from the main
// arena and up to 8 MiB free at its top was kept: the main arena grew 4–17 MiB during a 500 × 7 d
// load against none with it fixed (README "Performance", "glibc's malloc thresholds"). Fixed, blocks
// of 128 KiB and more are mapped and unmapped on their own, given back when freed.

/** The environment glibc's malloc reads, as the service runs with it. */
export const MALLOC_ENV = { MALLOC_ARENA_MAX: '1', MALLOC_MMAP_THRESHOLD_: '131072' };

/** The tunable of GLIBC_TUNABLES that each variable is another name for. */
const TUNABLE = { MALLOC_ARENA_MAX: 'glibc.malloc.arena_max', MALLOC_MMAP_THRESHOLD_: 'glibc.malloc.mmap_threshold' };

/** The part of `wanted` (a part of MALLOC_ENV) that `env` does not set yet, neither by name nor in GLIBC_TUNABLES. */
export function missingMallocEnv(env, wanted = MALLOC_ENV) {
  const tunables = new Set((env.GLIBC_TUNABLES ?? '').split(':').map((entry) => entry.split('=')[0]));
  return Object.fromEntries(Object.entries(wanted).filter(([name]) => env[name] === undefined && !tunables.has(TUNABLE[name])));
}

/**
 * Runs this process again, in place, with what it lacks of `wanted` (a benchmark's peer may want
 * less); returns when it lacks none or cannot (not Linux, a Node without process.execve).
 */
export function execWithServiceMalloc(wanted = MALLOC_ENV) {
  if (process.platform !== 'linux' || typeof process.execve !== 'function') return;
  const missing = missingMallocEnv(process.env, wanted);
  if (Object.keys(missing).length === 0) return;
  process.execve(process.execPath, [process.execPath, ...process.execArgv, ...process.argv.slice(1)], { ...process.env, ...missing });
}
