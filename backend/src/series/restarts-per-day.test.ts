// restartsPerDay: interruptions ÷ ((upSeconds + downSeconds) ÷ 86400), per JobSet and pooled from
// summed totals. Timelines are written directly (hours after T0).

import { T0 } from '../../../test/support/arbitraries.ts';
import type { State, Timeline, Transition } from '../timeline/types.ts';
import { fleetFigures } from './fleet.ts';
import { FleetIndex } from './fleet-index.ts';
import { figures, figureValue } from './figures.ts';

const h = (hours: number): number => T0 + hours * 3_600_000;

function timeline(uid: string, ...steps: [number, State, Transition['unobserved']?][]): Timeline {
  return {
    uid,
    namespace: 'ns',
    name: uid,
    labels: {},
    accelerator: null,
    topology: null,
    createdAt: h(steps[0]![0]),
    transitions: steps.map(([hours, state, unobserved]) => (unobserved ? { at: h(hours), state, unobserved } : { at: h(hours), state })),
  };
}

//   hours   0 ─prov─ 2 ─up─ 8 ─down─ 9 ─up─ 20 ─down─ 22 ─up─ 24 completed
//   up 6 + 11 + 2 = 19 h, down 2 + 1 + 2 = 5 h: 24 h counted, 2 interruptions → 2 per day
const twice = timeline('twice', [0, 'provisioning'], [2, 'up'], [8, 'down'], [9, 'up'], [20, 'down'], [22, 'up'], [24, 'completed']);

//   hours   0 ─queued─ 4 ─prov─ 5 ─up─ 10 ─up (restarts 0 → 1, faster than the watch)─ 11 ─suspended─ 14 ─up─ 16 (open)
//   queued and suspended time count for neither: up 5 + 1 + 2 = 8 h, down 1 h: 9 h counted;
//   the restart seen at 10 is 1 interruption → 1 ÷ (9/24) = 8/3 per day
const restarted = timeline('restarted', [0, 'suspended'], [4, 'provisioning'], [5, 'up'], [10, 'up', { interruptions: 1, recoveries: 1 }], [11, 'suspended'], [14, 'up']);

describe('restartsPerDay', () => {
  it('is interruptions per day of up + down time', () => {
    expect(figures(twice, h(30), h(0), h(24)).restartsPerDay).toBe(2);
    //   window [6 ─── 12]: up 2 + 3 = 5 h, down 1 h; the interruption at 8 → 1 ÷ (6/24) = 4 per day
    expect(figures(twice, h(30), h(6), h(12)).restartsPerDay).toBe(4);
    //   window [9 ─── 20]: up 11 h, the interruption at 20 is in (from < t ≤ to) → 1 ÷ (11/24)
    expect(figures(twice, h(30), h(9), h(20)).restartsPerDay).toBe(1 / (11 / 24));
  });

  it('counts a restart faster than the watch, and neither queued nor suspended time', () => {
    const f = figures(restarted, h(16), h(0), h(16));
    expect([f.interruptions, f.upSeconds + f.downSeconds]).toEqual([1, 9 * 3600]);
    expect(f.restartsPerDay).toBe(1 / (9 / 24));
  });

  it('is null when the window holds no up or down time, and 0 when it holds no interruption', () => {
    //   window [0 ─── 4]: queued only
    expect(figures(restarted, h(16), h(0), h(4)).restartsPerDay).toBeNull();
    //   window [11 ─── 14]: suspended only
    expect(figures(restarted, h(16), h(11), h(14)).restartsPerDay).toBeNull();
    //   window [0 ─── 6]: provisioning 2 h, up 4 h, no interruption yet
    expect(figures(twice, h(30), h(0), h(6)).restartsPerDay).toBe(0);
  });

  //   pooled over both, [0 ─── 24], observed up to 24 (so restarted is up 14 → 24: up 5 + 1 + 10 = 16 h,
  //   down 1 h): 3 interruptions over 24 + 17 h counted → 3 ÷ (41/24) = 72/41 per day, not the mean
  //   of 2 and 24/17
  it('pools from summed totals: Σ interruptions ÷ Σ counted days', () => {
    const [group] = fleetFigures([twice, restarted], h(24), h(0), h(24), 'all', 'pooled');
    expect(group!.figures.restartsPerDay).toBe(3 / (41 / 24));
    const index = new FleetIndex();
    index.grew(twice);
    index.grew(restarted);
    const w = index.window(index.partitions(), h(24), h(0), h(24));
    expect(figureValue(w.totals, 0, 'restartsPerDay', w.timeToFirstUpSeconds)).toBe(3 / (41 / 24));
    const [mean] = fleetFigures([twice, restarted], h(24), h(0), h(24), 'all', 'mean');
    expect(mean!.figures.restartsPerDay).toBe((2 + 1 / (17 / 24)) / 2);
  });
});
