// summaryColumns reads each row's state at `to` and time to first up from the transitions' columns:
// they must be what stateAt and firstUp (which read the transitions themselves) say.

import fc from 'fast-check';
import { arbTimeline, arbTimes, T0 } from '../../../test/support/arbitraries.ts';
import { firstUp, stateAt, timeToFirstUpAt } from './figures.ts';
import { summaryColumns } from './summary.ts';

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
