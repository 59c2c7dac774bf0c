// upness_timelines' counts by state: the engine's sorted list read on its run columns (a run that
// ended by then in its last state, from its row) counts as every timeline asked its state does.

import fc from 'fast-check';
import { namedFleet, timesAround } from '../../../test/support/arbitraries.ts';
import { stateAt } from '../series/figures.ts';
import { byNamespaceNameUid, markSorted } from '../timeline/order.ts';
import type { State } from '../timeline/types.ts';
import { statesAt } from './metrics.ts';

describe('statesAt', () => {
  it('counts each state as asking every timeline its state at t does, over 500 generated fleets (sorted and not)', () => {
    let ended = 0;
    fc.assert(
      fc.property(
        namedFleet(40, 3).chain((fleet) => fc.tuple(fc.constant(fleet), timesAround(fleet), fc.constantFrom(-1, 0, 0, 1))),
        // Times on a transition, or a millisecond either side of one.
        ([fleet, at, nudge]) => {
          const t = at + nudge;
          const sorted = markSorted([...fleet].sort(byNamespaceNameUid));
          const naive = new Map<State, number>();
          for (const tl of sorted) {
            const s = stateAt(tl, t);
            if (s !== null) naive.set(s, (naive.get(s) ?? 0) + 1);
          }
          const counted = statesAt(sorted, t);
          expect(new Map([...counted].sort())).toEqual(new Map([...naive].sort()));
          expect(new Map([...statesAt([...fleet], t)].sort())).toEqual(new Map([...naive].sort()));
          if (['completed', 'failed', 'deleted'].some((s) => naive.has(s as State))) ended++;
        },
      ),
      { numRuns: 500, seed: 5 },
    );
    expect(ended).toBeGreaterThan(100);
  });
});
