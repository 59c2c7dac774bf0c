// Goodput (issue 13 §3): where every second of a run's wall time went, accelerator time and the
// estimated effective training ratio. Timelines drawn in minutes after T0; truth computed by hand.

import { min } from '../../../test/support/scenario.ts';
import type { State, Timeline } from '../timeline/types.ts';
import { figures, figureValue } from './figures.ts';
import { FleetIndex } from './fleet-index.ts';

function timeline(options: { accelerators?: number; checkpointMinutes?: number }, ...steps: [number, State][]): Timeline {
  return {
    uid: 'u',
    namespace: 'ns',
    name: 'js',
    labels: {},
    accelerator: null,
    topology: null,
    accelerators: options.accelerators ?? 0,
    checkpointIntervalMs: options.checkpointMinutes === undefined ? null : min(options.checkpointMinutes) - min(0),
    createdAt: min(steps[0]![0]),
    transitions: steps.map(([m, state]) => ({ at: min(m), state })),
  };
}

const s = (minutes: number): number => minutes * 60;

//   0 ─queued─ 20 ─prov─ 30 ─up─ 90 ─down─ 100 ─up─ 130 ─susp─ 150 ─prov─ 155 ─up─ 175 ─unknown─ 185 ─up─ 200 completed
//   wall 200 = up 60+30+20+15 (125) + queued 20 + provisioning 10+5 (15) + interruption 10 + suspended 20 + unknown 10
const run = timeline(
  { accelerators: 16, checkpointMinutes: 30 },
  [0, 'suspended'],
  [20, 'provisioning'],
  [30, 'up'],
  [90, 'down'],
  [100, 'up'],
  [130, 'suspended'],
  [150, 'provisioning'],
  [155, 'up'],
  [175, 'unknown'],
  [185, 'up'],
  [200, 'completed'],
);

describe('goodput over a window', () => {
  it('breaks the whole life down: up + queued + provisioning + interruption + suspended + unknown = wall', () => {
    const f = figures(run, min(300), min(0), min(300));
    expect(f.wallSeconds).toBe(s(200));
    expect(f.upSeconds).toBe(s(125));
    expect(f.queuedSeconds).toBe(s(20));
    expect(f.provisioningSeconds).toBe(s(15));
    expect(f.interruptionDowntimeSeconds).toBe(s(10));
    expect(f.suspendedNotQueuedSeconds).toBe(s(20));
    expect(f.unknownSeconds).toBe(s(10));
    expect(f.schedulingGoodput).toBe(125 / 200);
    expect(f.queuedFraction).toBe(20 / 200);
    expect(f.provisioningFraction).toBe(15 / 200);
    expect(f.interruptionDowntimeFraction).toBe(10 / 200);
    expect(f.suspendedNotQueuedFraction).toBe(20 / 200);
    expect(f.unknownFraction).toBe(10 / 200);
    // 16 accelerators: up 125 min; lost = provisioning 15 + interruption 10 + unknown 10 (not queued or suspended).
    expect(f.acceleratorSecondsUp).toBe(16 * s(125));
    expect(f.acceleratorSecondsLost).toBe(16 * s(35));
    // One interruption (90), checkpoint every 30 min: 15 min of progress lost. (125 − 15) / 200.
    expect(f.interruptions).toBe(1);
    expect(f.estimatedEffectiveTrainingRatio).toBe(110 / 200);
  });

  //   window:                        [80 ─────────── 140]
  //   ... 30 ─up─ 90 ─down─ 100 ─up─ 130 ─susp─ 150 ...
  it('clips wall time to the window', () => {
    const f = figures(run, min(300), min(80), min(140));
    expect(f.wallSeconds).toBe(s(60));
    expect(f.upSeconds).toBe(s(10 + 30));
    expect(f.interruptionDowntimeSeconds).toBe(s(10));
    expect(f.suspendedNotQueuedSeconds).toBe(s(10));
    expect(f.queuedSeconds).toBe(0);
    expect(f.schedulingGoodput).toBe(40 / 60);
    expect(f.estimatedEffectiveTrainingRatio).toBe((40 - 15) / 60);
    expect(f.acceleratorSecondsLost).toBe(16 * s(10));
  });

  it('has no ratios where the run did not live, and no ETTR without the annotation', () => {
    const before = figures(run, min(300), min(-50), min(0));
    expect(before.wallSeconds).toBe(0);
    expect(before.schedulingGoodput).toBeNull();
    expect(before.queuedFraction).toBeNull();
    expect(before.estimatedEffectiveTrainingRatio).toBeNull();
    const plain = timeline({}, [0, 'provisioning'], [10, 'up'], [40, 'completed']);
    const f = figures(plain, min(100), min(0), min(100));
    expect(f.schedulingGoodput).toBe(30 / 40);
    expect(f.estimatedEffectiveTrainingRatio).toBeNull();
    expect(f.acceleratorSecondsUp).toBe(0);
  });

  //   0 ─prov─ 5 ─up─ 15 ─down─ 20 ─up─ 25 ─down─ 30 ─up─ 40 completed, checkpoint every 60 min
  //   2 interruptions × 30 min lost > 25 min up: floored at 0.
  it('floors ETTR at 0 when interruptions cost more than the time up', () => {
    const t = timeline({ checkpointMinutes: 60 }, [0, 'provisioning'], [5, 'up'], [15, 'down'], [20, 'up'], [25, 'down'], [30, 'up'], [40, 'completed']);
    const f = figures(t, min(100), min(0), min(100));
    expect(f.interruptions).toBe(2);
    expect(f.estimatedEffectiveTrainingRatio).toBe(0);
  });
});

describe('goodput pooled over a fleet', () => {
  //   a (8 accelerators, checkpoint 20m): 0 ─prov─ 10 ─up─ 50 ─down─ 60 ─up─ 100 completed
  //   b (none):                           0 ─prov─ 30 ─up─ 100 completed
  //   c (4 accelerators):                 0 ─susp─ 50 ─prov─ 60 ─up─ 100 completed
  const a = { ...timeline({ accelerators: 8, checkpointMinutes: 20 }, [0, 'provisioning'], [10, 'up'], [50, 'down'], [60, 'up'], [100, 'completed']), uid: 'a' };
  const b = { ...timeline({}, [0, 'provisioning'], [30, 'up'], [100, 'completed']), uid: 'b' };
  const c = { ...timeline({ accelerators: 4 }, [0, 'suspended'], [50, 'provisioning'], [60, 'up'], [100, 'completed']), uid: 'c' };

  it('the fleet index gives the hand-computed sums: accelerator time summed, ETTR over the annotated runs only', () => {
    const index = new FleetIndex();
    for (const tl of [a, b, c]) index.grew(tl);
    const w = index.window(index.partitions(), min(200), min(0), min(100));
    expect(figureValue(w.totals, 0, 'wallSeconds', null)).toBe(s(300));
    expect(figureValue(w.totals, 0, 'schedulingGoodput', null)).toBe((80 + 70 + 40) / 300);
    // a: 8 × 80 up, 8 × (10 + 10) lost; c: 4 × 40 up, 4 × 10 lost (its 50 queued minutes are not lost).
    expect(figureValue(w.totals, 0, 'acceleratorSecondsUp', null)).toBe(8 * s(80) + 4 * s(40));
    expect(figureValue(w.totals, 0, 'acceleratorSecondsLost', null)).toBe(8 * s(20) + 4 * s(10));
    // Only a carries the annotation: (80 − 1 × 10) / 100.
    expect(figureValue(w.totals, 0, 'estimatedEffectiveTrainingRatio', null)).toBe(70 / 100);
    // The same window part-way: (40, 70]: a up 10 + 10, down 10; c prov 10, up 10; b up 30.
    const part = index.window(index.partitions(), min(200), min(40), min(70));
    expect(figureValue(part.totals, 0, 'acceleratorSecondsUp', null)).toBe(8 * s(20) + 4 * s(10));
    expect(figureValue(part.totals, 0, 'acceleratorSecondsLost', null)).toBe(8 * s(10) + 4 * s(10));
    expect(figureValue(part.totals, 0, 'estimatedEffectiveTrainingRatio', null)).toBe((20 - 10) / 30);
  });
});
