// bench:dashboards' timing plan and judgement (panel-runs.ts), against hand-computed counts and
// medians. Pure: no service is started (it sits with the other bench tests in the service tier).

import { judge, keptFleetClock, wantsAnotherPair, type RunPlan } from './panel-runs.ts';

const PLAN: RunPlan = { leastPairs: 5, mostPairs: 60, budgetMs: 600 };

/** How many pairs the plan times for a panel and a peer that always take these times. */
function pairsTimed(plan: RunPlan, panelMs: number, peerMs: number): number {
  const mine: number[] = [];
  const peer: number[] = [];
  while (wantsAnotherPair(plan, mine, peer)) {
    mine.push(panelMs);
    peer.push(peerMs);
  }
  return mine.length;
}

describe('wantsAnotherPair', () => {
  it('times a small pair until both sides have spent the budget', () => {
    expect(pairsTimed(PLAN, 20, 20)).toBe(15); // 15 × 40 ms = 600 ms
    expect(pairsTimed(PLAN, 6, 13)).toBe(32); // 31 × 19 = 589 < 600
    expect(pairsTimed(PLAN, 13, 6)).toBe(32);
    expect(pairsTimed(PLAN, 19, 25)).toBe(14); // 13 × 44 = 572 < 600
    expect(pairsTimed(PLAN, 48, 8.6)).toBe(11); // 10 × 56.6 = 566 < 600
  });

  it('times at least the least pairs and at most the most', () => {
    expect(pairsTimed(PLAN, 60, 80)).toBe(5);
    expect(pairsTimed(PLAN, 6, 300)).toBe(5); // far from 2×: no 15 s of the peer's runs
    expect(pairsTimed(PLAN, 0.5, 0.4)).toBe(60);
    expect(pairsTimed({ leastPairs: 1, mostPairs: 60, budgetMs: 0 }, 1, 1)).toBe(1);
    expect(pairsTimed({ leastPairs: 7, mostPairs: 7, budgetMs: 1e9 }, 1, 1)).toBe(7);
  });

  it('goes by the time each run took, not by a median', () => {
    // 4 runs of 5 ms and one of 200 against 5 of 10 ms: 270 ms after 5 pairs, 600 after 27 (medians would need 40).
    const mine = [5, 5, 200, 5, 5];
    const peer = [10, 10, 10, 10, 10];
    expect(wantsAnotherPair(PLAN, mine, peer)).toBe(true);
    while (wantsAnotherPair(PLAN, mine, peer)) {
      mine.push(5);
      peer.push(10);
    }
    expect(mine.length).toBe(27);
  });
});

describe('judge', () => {
  it('gives each side its median and least, and says over 2× by each', () => {
    expect(judge([6, 7, 30, 6.5, 6.2], [3, 3.1, 2.9, 12, 3])).toEqual({
      pairs: 5,
      medianMs: 6.5,
      leastMs: 6,
      peerMedianMs: 3,
      peerLeastMs: 2.9,
      overTwiceByMedian: true, // 6.5 > 6
      overTwiceByLeast: true, // 6 > 5.8
    });
  });

  it('tells a median that one slow stretch raised from a least that stays under 2×', () => {
    // Three of five runs of the panel met something else on the machine: its median is over 2×, its least is not.
    const judged = judge([33, 12, 35, 31, 12.5], [13.2, 13, 13.5, 14, 13.1]);
    expect(judged).toMatchObject({ medianMs: 31, leastMs: 12, peerMedianMs: 13.2, peerLeastMs: 13, overTwiceByMedian: true, overTwiceByLeast: false });
    // The median of an even count is the mean of the middle two; exactly 2× is not over.
    expect(judge([2, 4, 6, 8], [1, 2, 3, 4])).toMatchObject({ medianMs: 5, peerMedianMs: 2.5, overTwiceByMedian: false, leastMs: 2, peerLeastMs: 1, overTwiceByLeast: false });
  });

  it('refuses runs that are not pairs', () => {
    expect(() => judge([1, 2], [1])).toThrow('not 2 runs against 1');
    expect(() => judge([], [])).toThrow('pairs of runs');
  });
});

describe('keptFleetClock', () => {
  const horizon = Date.UTC(2026, 0, 30, 23, 59, 59, 977);
  const started = Date.UTC(2026, 10, 27, 22, 0, 0);
  const clock = keptFleetClock(horizon, started);

  it('asks an hour before the horizon at the start, and moves on with the wall clock', () => {
    expect(clock(started)).toBe(horizon - 3_600_000);
    expect(clock(started + 1)).toBe(horizon - 3_599_999);
    expect(clock(started + 150_000)).toBe(horizon - 3_450_000);
  });

  it('never asks past the horizon: an hour on, it is back an hour', () => {
    expect(clock(started + 3_599_999)).toBe(horizon - 1);
    expect(clock(started + 3_600_000)).toBe(horizon - 3_600_000);
    expect(clock(started + 7_200_001)).toBe(horizon - 3_599_999);
    for (let wall = started - 5_000_000; wall < started + 20_000_000; wall += 123_457) {
      expect(clock(wall)).toBeLessThan(horizon);
      expect(clock(wall)).toBeGreaterThanOrEqual(horizon - 3_600_000);
    }
  });
});
