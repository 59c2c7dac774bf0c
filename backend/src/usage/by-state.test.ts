// Usage split by state against hand-computed means. Timelines and samples in minutes after T0.

import { min } from '../../../test/support/scenario.ts';
import type { State, Timeline } from '../timeline/types.ts';
import { usageByState, stateIntervals } from './by-state.ts';
import type { UsageSegments } from './history.ts';

function timeline(...steps: [number, State][]): Pick<Timeline, 'transitions'> {
  return { transitions: steps.map(([m, state]) => ({ at: min(m), state })) };
}

function steps(...s: [number, number, number][]): UsageSegments {
  return {
    starts: Float64Array.from(s.map(([a]) => min(a))),
    ends: Float64Array.from(s.map(([, b]) => min(b))),
    values: Float64Array.from(s.map(([, , v]) => v)),
  };
}

//   state:  0 ─prov─ 10 ─────up───── 40 ─down─ 50 ───up─── 60 completed
//   cpu:    0 ─0.5── 10 ─8── 30 ─6── 40 ─1──── 50 ─8────── 60
const js = timeline([0, 'provisioning'], [10, 'up'], [40, 'down'], [50, 'up'], [60, 'completed']);
const cpu = steps([0, 10, 0.5], [10, 30, 8], [30, 40, 6], [40, 50, 1], [50, 60, 8]);

describe('usageByState', () => {
  it('weighs each step by its time in each state', () => {
    const split = usageByState(cpu, js, min(100), min(0), min(100));
    // up: 20 min × 8 + 10 × 6 + 10 × 8 = 300 over 40 min → 7.5
    expect(split.up).toEqual({ mean: 7.5, coveredSeconds: 2400, stateSeconds: 2400 });
    expect(split.down).toEqual({ mean: 1, coveredSeconds: 600, stateSeconds: 600 });
    expect(split.provisioning).toEqual({ mean: 0.5, coveredSeconds: 600, stateSeconds: 600 });
    // not up = provisioning + down: (10 × 0.5 + 10 × 1) / 20 = 0.75
    expect(split.notUp).toEqual({ mean: 0.75, coveredSeconds: 1200, stateSeconds: 1200 });
    // Completed at 60: nothing accrues after it, though the window goes on.
    expect(split.suspended).toEqual({ mean: null, coveredSeconds: 0, stateSeconds: 0 });
  });

  //   window [25, 45]: up 25─40 (cpu 8 for 5 min, 6 for 10) = (40 + 60) / 15; down 40─45 at 1
  it('clips to the window', () => {
    const split = usageByState(cpu, js, min(100), min(25), min(45));
    expect(split.up.mean).toBeCloseTo(100 / 15, 12);
    expect(split.up.stateSeconds).toBe(900);
    expect(split.down).toEqual({ mean: 1, coveredSeconds: 300, stateSeconds: 300 });
    expect(split.provisioning.stateSeconds).toBe(0);
  });

  //   state:  0 ─prov─ 10 ─up────────── (now 40)
  //   cpu:         5 ─2─ 12       20 ─4─ 25          (gaps: no samples)
  it('time without a sample is in no mean, and the covered seconds say so', () => {
    const live = timeline([0, 'provisioning'], [10, 'up']);
    const split = usageByState(steps([5, 12, 2], [20, 25, 4]), live, min(40), min(0), min(60));
    // up is 10 → now (40): 30 min of state; covered 12─10 = 2 min at 2 and 5 min at 4 → (4 + 20) / 7
    expect(split.up.stateSeconds).toBe(1800);
    expect(split.up.coveredSeconds).toBe(420);
    expect(split.up.mean).toBeCloseTo(24 / 7, 12);
    expect(split.provisioning).toEqual({ mean: 2, coveredSeconds: 300, stateSeconds: 600 });
    expect(split.down.mean).toBeNull();
  });

  it('reports suspended and unknown time apart, and not in notUp', () => {
    const t = timeline([0, 'suspended'], [10, 'unknown'], [20, 'up']);
    const split = usageByState(steps([0, 30, 3]), t, min(30), min(0), min(30));
    expect(split.suspended).toEqual({ mean: 3, coveredSeconds: 600, stateSeconds: 600 });
    expect(split.unknown).toEqual({ mean: 3, coveredSeconds: 600, stateSeconds: 600 });
    expect(split.notUp).toEqual({ mean: null, coveredSeconds: 0, stateSeconds: 0 });
  });

  it('no steps: every mean is null', () => {
    const split = usageByState(steps(), js, min(100), min(0), min(100));
    expect(split.up).toEqual({ mean: null, coveredSeconds: 0, stateSeconds: 2400 });
  });
});

describe('stateIntervals', () => {
  it('stops at a terminal state and runs the last state until now', () => {
    expect(stateIntervals(js, min(100), min(0), min(100)).map((i) => i.state)).toEqual(['provisioning', 'up', 'down', 'up']);
    const live = timeline([0, 'provisioning'], [10, 'up']);
    expect(stateIntervals(live, min(30), min(0), min(100)).at(-1)).toEqual({ start: min(10), end: min(30), state: 'up' });
  });
});
