// A closed run's whole-life totals, kept once (totals.ts lifeTotals), must answer exactly what the
// sweep over its transitions answers, value for value, for every window and time they serve.

import fc from 'fast-check';
import { arbTimeline, T0, timelines } from '../../../test/support/arbitraries.ts';
import { transitionsOf, type Timeline } from '../timeline/types.ts';
import { columnsOf } from './columns.ts';
import { cumulativeAt, cumulativeSwept, FIELDS, sweptWindowTotals, windowTotals } from './totals.ts';

/** Short and long (checkpointed) timelines, open and closed, each with its own copy of the transitions (the kept totals hang on the array). */
const arbAnyTimeline = fc.oneof(arbTimeline, timelines(120, 70)).map((tl): Timeline => ({ ...tl, transitions: transitionsOf(tl).slice() }));

/** A time around a timeline's life: often exactly at one of its transitions (the edges' rules are where a shortcut would go wrong). */
function arbTimeAround(tl: Timeline): fc.Arbitrary<number> {
  const times = transitionsOf(tl).map((t) => t.at);
  const first = times[0]!;
  const last = times[times.length - 1]!;
  return fc.oneof(fc.constantFrom(...times), fc.integer({ min: first - 5_000_000, max: last + 5_000_000 }), fc.constantFrom(first - 1, last + 1));
}

const withTimes = arbAnyTimeline.chain((tl) => fc.tuple(fc.constant(tl), fc.array(arbTimeAround(tl), { minLength: 2, maxLength: 6 }), fc.integer({ min: 0, max: 300_000_000 })));

describe('whole-life totals kept for closed runs', () => {
  it('give windowTotals exactly what the sweep gives, for every window', () => {
    fc.assert(
      fc.property(withTimes, ([tl, times, h]) => {
        const [from, to] = [Math.min(times[0]!, times[1]!), Math.max(times[0]!, times[1]!)];
        const horizon = T0 + h;
        const swept = sweptWindowTotals(tl, horizon, from, to);
        // Twice: the first may work the life out, the second reads it as kept.
        expect(windowTotals(tl, horizon, from, to)).toEqual(swept);
        expect(windowTotals(tl, horizon, from, to)).toEqual(swept);
      }),
      { numRuns: 3000 },
    );
  });

  it('give cumulativeAt exactly what the sweep gives, at every time', () => {
    fc.assert(
      fc.property(withTimes, ([tl, times, h]) => {
        const sorted = Float64Array.from(times).sort();
        const horizon = T0 + h;
        const swept = new Float64Array(sorted.length * FIELDS);
        cumulativeSwept(tl, horizon, sorted, swept);
        const kept = new Float64Array(sorted.length * FIELDS).fill(NaN);
        cumulativeAt(tl, horizon, sorted, kept);
        expect(kept).toEqual(swept);
      }),
      { numRuns: 3000 },
    );
  });

  it('are what a window holding the whole life of a closed run reads (and only then kept, for a long run)', () => {
    fc.assert(
      fc.property(arbAnyTimeline, fc.integer({ min: 0, max: 5_000_000 }), fc.integer({ min: 0, max: 5_000_000 }), (tl, before, after) => {
        const last = transitionsOf(tl)[transitionsOf(tl).length - 1]!;
        const closed = ['completed', 'failed', 'deleted'].includes(last.state);
        // From before its creation (no event can lie at `from`) to after its end.
        const from = tl.createdAt - 1 - before;
        const to = last.at + after;
        const swept = sweptWindowTotals(tl, to, from, to);
        expect(columnsOf(transitionsOf(tl)).life).toBeNull();
        expect(windowTotals(tl, to, from, to)).toEqual(swept);
        // Kept only by a long closed run (more than DIRECT = 64 transitions); a short one's are worked out each time.
        expect(columnsOf(transitionsOf(tl)).life !== null).toBe(closed && transitionsOf(tl).length > 64);
      }),
      { numRuns: 1000 },
    );
  });
});
