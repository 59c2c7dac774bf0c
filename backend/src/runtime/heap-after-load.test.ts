import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { compactHeapAfterLoad, compactOldGeneration, oldSpaceUsed } from './heap-after-load.ts';

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
