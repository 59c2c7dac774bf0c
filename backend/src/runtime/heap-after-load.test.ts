import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { BOUND_FROM_BYTES, COMPACT_FROM_BYTES, compactHeapAfterLoad, compactOldGeneration, oldSpaceUsed, settleHeapAfterLoad } from './heap-after-load.ts';

// The test runner has no --expose-gc: V8's gc is reached through its flag, as the service does.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as (options?: { type: 'major'; execution: 'sync' }) => void;
const MiB = 2 ** 20;
const oldCommitted = (): number => getHeapSpaceStatistics().find((s) => s.space_name === 'old_space')!.space_size;

describe('compactHeapAfterLoad', () => {
  it('does nothing after a load that grew the heap by less than its bound', () => {
    expect(compactHeapAfterLoad(oldSpaceUsed())).toBeNull();
  });

  /**
   * A "load": `n` small objects promoted to the old generation, then all but one in `every` dropped
   * and an ordinary full collection run, so that every page keeps that share of what it held.
   */
  function sparseHeap(n: number, every: number): { i: number; twice: number }[] {
    let all: { i: number; twice: number }[] | null = [];
    for (let i = 0; i < n; i++) all.push({ i, twice: 2 * i });
    gc({ type: 'major', execution: 'sync' });
    const kept = all.filter((o) => o.i % every === 0);
    all = null;
    gc({ type: 'major', execution: 'sync' });
    return kept;
  }

  const intact = (kept: { i: number; twice: number }[], every: number): boolean => kept.every((o, k) => o.i === every * k && o.twice === 2 * every * k);

  it('moves the survivors of every sparse page together, however many (an ordinary collection moves 4 MiB)', () => {
    // ~29 MiB live over ~140 MiB of pages.
    const kept = sparseHeap(3_000_000, 5);
    const sparse = oldCommitted();

    compactOldGeneration();

    const after = getHeapSpaceStatistics().find((s) => s.space_name === 'old_space')!;
    expect(sparse - after.space_size).toBeGreaterThan(60 * MiB);
    // Full pages: what is committed is what lives, within a few pages (the test runner's own included).
    expect(after.space_size - after.space_used_size).toBeLessThan(8 * MiB);
    expect(kept).toHaveLength(600_000);
    expect(intact(kept, 5)).toBe(true);
  });

  it('leaves pages that are full as they are, and compacts sparse ones', () => {
    const kept = sparseHeap(1_000_000, 4);
    // ~48 MiB of pages were left a quarter full.
    expect(compactHeapAfterLoad(0, 20 * MiB)).not.toBeNull();
    // Now full: nothing to give back.
    expect(compactHeapAfterLoad(0, 20 * MiB)).toBeNull();
    expect(intact(kept, 4)).toBe(true);
  });

  it('after a load, compacts and says what it gave back, every object that lives kept', () => {
    const kept = sparseHeap(1_000_000, 4);
    const committed = oldCommitted();

    const compaction = compactHeapAfterLoad(0, 0);

    expect(compaction).not.toBeNull();
    // (What it reports is read around its collections: the runner may allocate a page meanwhile.)
    expect(Math.abs(compaction!.committedBefore - committed)).toBeLessThan(MiB);
    expect(compaction!.committedAfter).toBeLessThan(committed - 20 * MiB);
    expect(compaction!.committedAfter).toBeGreaterThanOrEqual(compaction!.usedAfter);
    expect(intact(kept, 4)).toBe(true);
  });
});

describe('settleHeapAfterLoad: the heap growth bounded once loaded', () => {
  afterEach(() => {
    // V8's own policy again for the tests after these (one process runs the file).
    setFlagsFromString('--heap-growing-percent=0');
  });

  /**
   * What the queries do to a loaded service: `kept` lives, and objects that survive a few young
   * collections (so are moved to the old generation) then die are made, ~450 MiB of them. The
   * old generation's largest committed size meanwhile.
   */
  function churn(kept: unknown[]): number {
    const recent = new Array<unknown>(100_000);
    let largest = oldCommitted();
    for (let k = 0; k < 5_000_000; k++) {
      recent[k % recent.length] = { k, pair: [k, k + 1] };
      if (k % 10_000 === 0) largest = Math.max(largest, oldCommitted());
    }
    expect(kept).toHaveLength(1_000_000);
    return largest;
  }

  it('lets the old generation grow by the bound past what lives, where V8 alone let it grow 4×', () => {
    const before = oldSpaceUsed();
    const kept: { i: number }[] = [];
    for (let i = 0; i < 1_000_000; i++) kept.push({ i });
    gc({ type: 'major', execution: 'sync' });

    // Without a compaction to run, after a load of 20 MiB or more it collects once itself so that the bound applies at once.
    const settled = settleHeapAfterLoad(before, { compact: false, growthPercent: 10, fromBytes: 20 * MiB });
    expect(settled.compaction).toBeNull();
    expect(settled.boundMs).toBeGreaterThan(0);
    const live = getHeapSpaceStatistics().find((s) => s.space_name === 'old_space')!.space_used_size;

    const largest = churn(kept);
    // 10% past what lives, plus V8's least step (8 MiB), the young generation's capacity it adds, and
    // what is promoted while a marking runs (61 MiB in all past ~95 MiB live, in the whole unit
    // project at a load average of ~7), with room. V8's own policy: 138 MiB past 42 MiB live alone.
    expect(largest - live).toBeLessThan(0.25 * live + 80 * MiB);
  });

  it('compacts a load whose pages looked full only while its garbage lay uncollected', () => {
    // No free pages left from the tests before (their churn): what is free below is the load's.
    compactOldGeneration();
    gc({ type: 'major', execution: 'sync' });
    const before = oldSpaceUsed();
    // Promoted (~80 MiB), then half dropped without a collection: the pages count all of it as used.
    let all: { i: number; twice: number }[] | null = [];
    for (let i = 0; i < 2_000_000; i++) all.push({ i, twice: 2 * i });
    gc({ type: 'major', execution: 'sync' });
    const kept = all.filter((o) => o.i % 2 === 0);
    all = null;
    const sparse = oldCommitted();
    expect(compactHeapAfterLoad(before, 20 * MiB)).toBeNull();

    const settled = settleHeapAfterLoad(before, { compact: true, growthPercent: 10, fromBytes: 20 * MiB });

    expect(settled.boundMs).toBeGreaterThan(0);
    expect(settled.compaction).not.toBeNull();
    expect(settled.compaction!.committedAfter).toBeLessThan(sparse - 20 * MiB);
    expect(kept.every((o, k) => o.i === 2 * k && o.twice === 4 * k)).toBe(true);
  });

  it('collects once after a load too small to compact (npm start\'s fleet grows the heap by ~40 MiB), so that the bound applies at once', () => {
    gc({ type: 'major', execution: 'sync' });
    const before = oldSpaceUsed();
    // ~20 MiB promoted: at least BOUND_FROM_BYTES, under COMPACT_FROM_BYTES.
    const kept: { i: number }[] = [];
    for (let i = 0; i < 500_000; i++) kept.push({ i });
    gc({ type: 'major', execution: 'sync' });
    const grown = oldSpaceUsed() - before;
    expect([grown >= BOUND_FROM_BYTES, grown < COMPACT_FROM_BYTES]).toEqual([true, true]);

    const settled = settleHeapAfterLoad(before, { compact: true, growthPercent: 25 });
    expect(settled.compaction).toBeNull();
    expect(settled.boundMs).toBeGreaterThan(0);
    expect(kept.every((o, k) => o.i === k)).toBe(true);
  });

  it('collects nothing itself after a small load, or with a bound of 0 (V8 its own policy)', () => {
    expect(settleHeapAfterLoad(oldSpaceUsed(), { compact: false, growthPercent: 10 })).toEqual({ compaction: null, boundMs: 0 });
    expect(settleHeapAfterLoad(0, { compact: false, growthPercent: 0, fromBytes: 0 })).toEqual({ compaction: null, boundMs: 0 });
  });
});
