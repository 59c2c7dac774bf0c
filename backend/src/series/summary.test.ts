// summaryColumns reads each row's state at `to` and time to first up from the transitions' columns:
// they must be what stateAt and firstUp (which read the transitions themselves) say.

import fc from 'fast-check';
import { arbTimeline, arbTimes, T0 } from '../../../test/support/arbitraries.ts';
import { firstUp, stateAt, timeToFirstUpAt } from './figures.ts';
import { LentTotals, summaryColumns } from './summary.ts';

describe('summaryColumns', () => {
  it('gives each row the state at `to` and the time to first up that stateAt and firstUp give', () => {
    fc.assert(
      fc.property(fc.array(arbTimeline, { minLength: 1, maxLength: 5 }), arbTimes, (timelines, [a, b, h]) => {
        const [from, to] = [T0 + Math.min(a, b), T0 + Math.max(a, b)];
        const c = summaryColumns(timelines, T0 + h, from, to);
        c.timelines.forEach((tl, i) => {
          expect(c.states[i]).toBe(stateAt(tl, to));
          expect(c.timeToFirstUp[i]).toBe(timeToFirstUpAt(firstUp(tl), to));
        });
      }),
      { numRuns: 2000 },
    );
  });
});

describe('LentTotals', () => {
  it('lends a zeroed array of the length asked, whatever the last borrower wrote; longer than its bound, a new one each time', () => {
    const lent = new LentTotals(100);
    const a = lent.of(40);
    expect(a.length).toBe(40);
    a.fill(7);
    const b = lent.of(60);
    expect([b.length, b.every((x) => x === 0)]).toEqual([60, true]);
    b.fill(Number.NaN);
    const c = lent.of(10);
    expect([c.length, c.every((x) => x === 0), c.buffer]).toEqual([10, true, b.buffer]);
    const big = lent.of(101);
    expect([big.length, big.buffer === c.buffer, lent.of(101).buffer === big.buffer]).toEqual([101, false, false]);
  });

  it('leaves summaryColumns as it is without one, table after table of other sizes, its array dirtied between them', () => {
    const lent = new LentTotals(30 * 17);
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.array(arbTimeline, { minLength: 0, maxLength: 30 }), arbTimes, fc.boolean()), { minLength: 1, maxLength: 4 }), (tables) => {
        for (const [timelines, [a, b, h], ttfu] of tables) {
          const [from, to] = [T0 + Math.min(a, b), T0 + Math.max(a, b)];
          const fresh = summaryColumns(timelines, T0 + h, from, to, { timeToFirstUp: ttfu });
          const borrowed = summaryColumns(timelines, T0 + h, from, to, { timeToFirstUp: ttfu, totalsOf: lent.of });
          expect(borrowed).toEqual(fresh);
          // What a borrower may leave behind: the next table must not see it.
          borrowed.totals.fill(Number.NaN);
        }
      }),
      { numRuns: 500 },
    );
  });
});
