// One compacting collection once a load is done (a trace replayed, a data dir restored, the
// simulator's history made), before the service says it is ready.
//
// A load interleaves what is kept (each run's packed columns, its identity) with what is dropped
// soon after (the observations' views, an open run's transitions and growing arrays, the feed's
// buffers), so V8's old generation ends it as pages that each hold a little of what is kept among
// free space. V8 gives such pages back only by moving what lives on them, and its own collections
// move at most 12 MiB each (4 MiB outside its memory-reducing mode): the process kept the load's
// peak as RSS. At 2,000 JobSets × 30 days (175,137 runs) the old generation committed 213 MiB for
// 118 MiB live after two full collections of V8's own, 572 MiB before them (README "Performance",
// "The heap compacted after a load").
// V8's flag --compact-on-every-full-gc makes one collection move every page; it is on for that one
// collection only, so the service's later collections keep V8's own pace.
//
// Then the heap's growth is bounded for what follows (boundHeapGrowth): answering queries allocates
// fast, and V8 then lets the old generation grow to up to 4× what lives before it collects again.

import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * A load that grew the old generation by less than this, or that left less than this free in its
 * pages, is left to V8: there is little to give back, and the collection takes seconds at scale
 * (6.8 s for the 130 MiB kept at 2,000 × 30 d, load average 11). A start from a data dir reads its
 * runs with little garbage beside them, and its pages may be sparse once that is collected: weighed
 * again after settleHeapAfterLoad's one full collection, it is compacted then if so. (10,000 × 30 d:
 * since a snapshot's closed runs are read as the engine keeps them, with little garbage, the pages
 * are dense after that collection and the ~1.1 s compaction is skipped; RSS once ready ~525 MiB.)
 */
export const COMPACT_FROM_BYTES = 64 * 2 ** 20;

export interface HeapCompaction {
  /** The old generation's committed bytes before and after, and what it holds after. */
  committedBefore: number;
  committedAfter: number;
  usedAfter: number;
  /** How long the collection took (the service is not ready meanwhile). */
  ms: number;
}

type Collect = (options: { type: 'major'; execution: 'sync'; flavor?: 'last-resort' }) => void;

let collect: Collect | null = null;

/** V8's gc, reached through its flag (the service does not run with --expose-gc): a new context sees it. */
function gc(): Collect {
  if (collect === null) {
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as Collect;
  }
  return collect;
}

/** V8's memory-reducing collection (the one it runs under memory pressure): it also gives back the pages V8 pooled for reuse. */
export function reduceMemory(): void {
  gc()({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}

function oldSpace(): { committed: number; used: number } {
  const space = getHeapSpaceStatistics().find((s) => s.space_name === 'old_space');
  return { committed: space?.space_size ?? 0, used: space?.space_used_size ?? 0 };
}

/** The old generation's bytes in use (live or not yet collected): taken before a load, for compactHeapAfterLoad. */
export function oldSpaceUsed(): number {
  return oldSpace().used;
}

/**
 * Compacts the heap once, after a load: a full collection that moves every page's survivors
 * together, then one of V8's memory-reducing kind that gives the emptied pages back. Null (nothing
 * done) when the load grew the old generation's use (live or not) by less than `fromBytes`
 * (COMPACT_FROM_BYTES) from `usedBeforeLoad` (oldSpaceUsed before it), or when less than that lies
 * free in its pages.
 */
export function compactHeapAfterLoad(usedBeforeLoad: number, fromBytes = COMPACT_FROM_BYTES): HeapCompaction | null {
  const before = oldSpace();
  if (before.used - usedBeforeLoad < fromBytes || before.committed - before.used < fromBytes) return null;
  const started = performance.now();
  compactOldGeneration();
  // The emptied pages stay with V8 for reuse until a memory-reducing collection hands them back
  // (one that also compacted would move everything again: twice the time).
  reduceMemory();
  const ms = performance.now() - started;
  const after = oldSpace();
  return { committedBefore: before.committed, committedAfter: after.committed, usedAfter: after.used, ms };
}

/**
 * How far the old generation may grow past what lives before V8's next full collection, once the
 * load is done, in percent (V8's --heap-growing-percent). V8's own policy picks a factor of 1.1–4
 * from how fast it collects against how fast the program allocates, aiming at 97% of the time for
 * the program: a wall of dashboards refreshing allocates fast, so it may pick the high end, and
 * nothing gives the pages back once they are committed (2,000 JobSets × 30 days from a data dir:
 * 115 MiB live, 183–216 MiB committed after 30 s of the dashboards' load, unchanged when idle).
 * 25: the old generation at most 1.25× what lived after the last full collection (145–154 MiB
 * there), for 6–9% more of the service's CPU a request (README "Performance", "The heap's growth
 * bounded under queries"; at 10,000 × 30 d V8 picked a low factor itself: no gain measured). 0: V8's
 * own policy.
 */
export const HEAP_GROWTH_PERCENT = 25;

/**
 * A load that grew the old generation by this or more, and was not compacted, is collected once
 * when done, so that the growth's bound applies to the first queries' garbage. Under it the load
 * is small enough that V8's own limit hardly matters. Not COMPACT_FROM_BYTES: npm start's simulated
 * cluster (2,380 JobSets, 7 days) grows it by ~40 MiB, and left to the limit its load's last
 * collection set (V8's factor, up to 4×), the dashboards' first panels grew the old generation
 * before its next collection in about half the starts: V8's pages then held ~90 MiB more, given back
 * ~15 s after the queries stop, and glibc's heap ~65 MiB more of freed array buffers, never given
 * back (README "Performance", "npm start's fleet after the dashboards' load"). One collection of
 * what that fleet holds takes tens of milliseconds.
 */
export const BOUND_FROM_BYTES = 8 * 2 ** 20;

/** What was done to the heap once a load was done. */
export interface HeapAfterLoad {
  /** The compaction, when the load left enough to give back (compactHeapAfterLoad). */
  compaction: HeapCompaction | null;
  /** ms of the one full collection run so that the growth's bound applies at once (0 when the compaction's collections did it, the load was small, or there is no bound). */
  boundMs: number;
}

/**
 * Once a load is done: the heap compacted (when `compact`, see compactHeapAfterLoad, after a load
 * of `fromBytes` or more), and its growth bounded to `growthPercent` past what lives
 * (HEAP_GROWTH_PERCENT; 0: V8's own policy) from the collections run here on. V8 sets the next
 * collection's limit where a full collection ends, so after a load of `boundFromBytes` or more
 * (BOUND_FROM_BYTES) that was not compacted, one full collection is run, else the limit the load's
 * last collection set by V8's own factor is the one the first queries meet; a smaller load is not
 * worth the pause. Its pages are then weighed again for a compaction: before that collection their
 * garbage counted as used. The load itself keeps V8's pace (collected at the bound's, it would take
 * longer).
 */
export function settleHeapAfterLoad(
  usedBeforeLoad: number,
  { compact, growthPercent, fromBytes = COMPACT_FROM_BYTES, boundFromBytes = BOUND_FROM_BYTES }: { compact: boolean; growthPercent: number; fromBytes?: number; boundFromBytes?: number },
): HeapAfterLoad {
  // 0 is V8's "not set": its own factor.
  setFlagsFromString(`--heap-growing-percent=${growthPercent}`);
  let compaction = compact ? compactHeapAfterLoad(usedBeforeLoad, fromBytes) : null;
  if (compaction !== null || (growthPercent === 0 && !compact) || oldSpaceUsed() - usedBeforeLoad < boundFromBytes) return { compaction, boundMs: 0 };
  const started = performance.now();
  gc()({ type: 'major', execution: 'sync' });
  const boundMs = performance.now() - started;
  // Pages that looked full may have held the load's garbage (a data dir read straight into what the
  // engine keeps leaves little else): collected, they are weighed again.
  if (compact) compaction = compactHeapAfterLoad(usedBeforeLoad, fromBytes);
  return { compaction, boundMs };
}

/** What a compacted old generation may still hold free: the last page each compacting task filled. */
const compactedSlack = (used: number): number => 8 * 2 ** 20 + used / 32;

/** A full collection that moves the survivors of every old generation page together (V8's own move at most a few MiB). */
export function compactOldGeneration(): void {
  const collect = gc();
  setFlagsFromString('--compact-on-every-full-gc');
  try {
    collect({ type: 'major', execution: 'sync' });
    // A marking already under way had chosen the pages to move when it began, without the flag: the
    // collection that finished it moved few. Once more, then, from the start.
    const after = oldSpace();
    if (after.committed - after.used > compactedSlack(after.used)) collect({ type: 'major', execution: 'sync' });
  } finally {
    setFlagsFromString('--no-compact-on-every-full-gc');
  }
}
