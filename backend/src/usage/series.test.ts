// Usage series against hand-computed means. Minutes after T0.

import { min } from '../../../test/support/scenario.ts';
import type { UsageSegments } from './history.ts';
import { sumSeries, usageOverWindows, usageSeries } from './series.ts';

function steps(...s: [number, number, number][]): UsageSegments {
  return {
    starts: Float64Array.from(s.map(([a]) => min(a))),
    ends: Float64Array.from(s.map(([, b]) => min(b))),
    values: Float64Array.from(s.map(([, , v]) => v)),
  };
}

//   usage:   0 ─2─ 4 ─6─ 10        (gap)        20 ─1─ 22
//   points every 5 min, window 5 min: (−5,0] (0,5] (5,10] (10,15] (15,20] (20,25]
describe('usageSeries', () => {
  const cpu = steps([0, 4, 2], [4, 10, 6], [20, 22, 1]);

  it('is the time-weighted mean over each point window, null where there is no usage', () => {
    expect(usageSeries(cpu, [0, 5, 10, 15, 20, 25].map(min), 5 * 60_000)).toEqual([
      null, // nothing before 0
      (4 * 2 + 1 * 6) / 5, // 0─4 at 2, 4─5 at 6
      6,
      null, // the gap
      null, // the step at 20 begins at the window's end
      1, // 20─22 at 1: the mean of what is covered
    ]);
  });

  it('a window longer than the step takes in several steps', () => {
    expect(usageSeries(cpu, [min(10)], 10 * 60_000)).toEqual([(4 * 2 + 6 * 6) / 10]);
  });
});

describe('sumSeries', () => {
  it('sums the members point by point, null only where none has a value', () => {
    expect(sumSeries([[1, null, null], [2, 3, null]], 3)).toEqual([3, 3, null]);
    expect(sumSeries([], 2)).toEqual([null, null]);
  });
});

describe('usageOverWindows', () => {
  const cpu = steps([0, 4, 2], [4, 10, 6], [20, 22, 1]);

  it('takes a window per point: cumulative windows all from the range start', () => {
    // (0, 5]: 4 at 2, 1 at 6; (0, 10]: 4 at 2, 6 at 6; (0, 25]: the same and 2 at 1.
    expect(usageOverWindows(cpu, [0, 0, 0].map(min), [5, 10, 25].map(min))).toEqual([(8 + 6) / 5, (8 + 36) / 10, (8 + 36 + 2) / 12]);
  });
});
