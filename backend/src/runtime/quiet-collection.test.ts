// The memory-reducing collection runs once the answers have gone quiet, never while they come, and
// no more often than its least gap: a hand-run clock and timers decide when.

import { QuietCollection } from './quiet-collection.ts';

/** A clock and timers moved by hand. */
function fakeTime(): { now: () => number; after: (ms: number, run: () => void) => unknown; cancel: (timer: unknown) => void; advance: (ms: number) => void } {
  let t = 0;
  const timers = new Map<number, { at: number; run: () => void }>();
  let next = 0;
  return {
    now: () => t,
    after: (ms, run) => {
      timers.set(++next, { at: t + ms, run });
      return next;
    },
    cancel: (timer) => void timers.delete(timer as number),
    advance: (ms) => {
      const end = t + ms;
      for (;;) {
        const due = [...timers.entries()].filter(([, timer]) => timer.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
        if (due === undefined) break;
        timers.delete(due[0]);
        t = due[1].at;
        due[1].run();
      }
      t = end;
    },
  };
}

describe('QuietCollection', () => {
  // A load done counts as a query answered: its garbage leaves pooled pages too.
  it.each([
    ['a query answered', (quiet: QuietCollection) => quiet.answered()],
    ['a load done', (quiet: QuietCollection) => quiet.loaded()],
  ])('collects once quiet for quietMs after %s, not before, and once a quiet spell', (_what, event) => {
    const time = fakeTime();
    let collected = 0;
    const quiet = new QuietCollection({ quietMs: 2_000, leastGapMs: 0, collect: () => collected++, ...time });
    time.advance(10_000);
    expect(collected).toBe(0);
    event(quiet);
    time.advance(1_999);
    expect(collected).toBe(0);
    time.advance(1);
    expect(collected).toBe(1);
    // Nothing answered since: no other collection, however long the quiet.
    time.advance(600_000);
    expect(collected).toBe(1);
    expect(quiet.collections).toBe(1);
  });

  it('puts the collection after a load off while queries come', () => {
    const time = fakeTime();
    let collected = 0;
    const quiet = new QuietCollection({ quietMs: 2_000, leastGapMs: 0, collect: () => collected++, ...time });
    quiet.loaded();
    time.advance(1_500);
    quiet.answered();
    time.advance(1_999);
    expect(collected).toBe(0);
    time.advance(1);
    expect(collected).toBe(1);
  });

  it('waits while answers keep coming (a steady stream never collects)', () => {
    const time = fakeTime();
    let collected = 0;
    const quiet = new QuietCollection({ quietMs: 2_000, leastGapMs: 0, collect: () => collected++, ...time });
    for (let i = 0; i < 100; i++) {
      quiet.answered();
      time.advance(1_500);
    }
    expect(collected).toBe(0);
    time.advance(500);
    expect(collected).toBe(1);
  });

  it('keeps the least gap between two collections', () => {
    const time = fakeTime();
    const at: number[] = [];
    const quiet = new QuietCollection({ quietMs: 2_000, leastGapMs: 60_000, collect: () => at.push(time.now()), ...time });
    // Bursts every 10 s, each followed by quiet: collections 60 s apart at the most often.
    for (let burst = 0; burst < 13; burst++) {
      quiet.answered();
      time.advance(10_000);
    }
    time.advance(120_000);
    expect(at[0]).toBe(2_000);
    for (let i = 1; i < at.length; i++) expect(at[i]! - at[i - 1]!).toBeGreaterThanOrEqual(60_000);
    expect(at.length).toBe(3);
  });

  it('collects nothing once stopped', () => {
    const time = fakeTime();
    let collected = 0;
    const quiet = new QuietCollection({ quietMs: 2_000, leastGapMs: 0, collect: () => collected++, ...time });
    quiet.answered();
    quiet.stop();
    time.advance(10_000);
    expect(collected).toBe(0);
  });
});
