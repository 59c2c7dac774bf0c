import fc from 'fast-check';
import { arbTimeline, T0 } from '../../../test/support/arbitraries.ts';
import { min } from '../../../test/support/scenario.ts';
import type { State, Timeline } from '../timeline/types.ts';
import { ADDITIVE_FIGURES, FIGURE_NAMES, figures } from './figures.ts';
import { aggregate, fleetFigure, fleetFigures, fleetSeries, percentile } from './fleet.ts';
import { figureSeries, planSeries, type RangeSpec } from './range.ts';
import { livedIn } from './summary.ts';

function timeline(uid: string, namespace: string, ...steps: [number, State][]): Timeline {
  return {
    uid,
    namespace,
    name: uid,
    labels: { team: namespace === 'a' ? 'x' : 'y' },
    accelerator: 'tpu-v5p-slice',
    topology: null,
    createdAt: min(steps[0]![0]),
    transitions: steps.map(([m, state]) => ({ at: min(m), state })),
  };
}

//   0 ─prov─ 10 ─up─ 70 ─down─ 75 ─up─ 195 ─down─ 210 ─up─ 240 completed
const megamon = timeline('m', 'a', [0, 'provisioning'], [10, 'up'], [70, 'down'], [75, 'up'], [195, 'down'], [210, 'up'], [240, 'completed']);
const hour = 3_600_000;
const horizon = min(300);

describe('series over a range', () => {
  //   points:      60        120        180        240
  //   buckets: (0,60] (60,120] (120,180] (180,240]
  //   up:        50      55        60         45
  it('step: each point is its own bucket', () => {
    const plan = planSeries({ start: min(60), end: min(240), stepMs: hour, mode: 'step' });
    expect(plan.points).toEqual([min(60), min(120), min(180), min(240)]);
    expect(figureSeries(megamon, horizon, plan, 'upSeconds')).toEqual([50 * 60, 55 * 60, 60 * 60, 45 * 60]);
    expect(figureSeries(megamon, horizon, plan, 'interruptions')).toEqual([0, 1, 0, 1]);
    expect(figureSeries(megamon, horizon, plan, 'recoveries')).toEqual([0, 1, 0, 1]);
    expect(figureSeries(megamon, horizon, plan, 'mttrSeconds')).toEqual([null, 5 * 60, null, 15 * 60]);
  });

  it('rolling: the window of the given length ending at each point', () => {
    const plan = planSeries({ start: min(60), end: min(240), stepMs: hour, mode: 'rolling', rollingMs: 2 * hour });
    expect(figureSeries(megamon, horizon, plan, 'upSeconds')).toEqual([50 * 60, 105 * 60, 115 * 60, 105 * 60]);
  });

  //   range from 60:  points 60, 120, 180, 240, the point at t covering [60, t]
  //   up:        0   10+45=55   55+60=115   115+45=160
  it('cumulative: everything from the range`s start, so its first point (at `from`) is empty', () => {
    const plan = planSeries({ start: min(60), end: min(240), stepMs: hour, mode: 'cumulative', from: min(60) });
    expect(figureSeries(megamon, horizon, plan, 'upSeconds')).toEqual([0, 55 * 60, 115 * 60, 160 * 60]);
    expect(figureSeries(megamon, horizon, plan, 'interruptions')).toEqual([0, 1, 1, 2]);
    expect(figureSeries(megamon, horizon, plan, 'mtbiSeconds')).toEqual([null, 60 * 60, 60 * 60, 90 * 60]);
    expect(figureSeries(megamon, horizon, plan, 'uptimeRatio')).toEqual([null, 55 / 60, 115 / 120, 160 / 180]);
  });

  //   0 ─prov─ 10 ─up─ 70 ─down─ 75 ─up─ … :  range from 120, points 120, 180, 240
  //   the interruption at 70, 50 minutes before `from`, is not in [120, t] (it was counted at 120
  //   when the series began one step before `from`)
  it('cumulative: an interruption before `from` is not counted, wherever the first point falls', () => {
    const aligned = planSeries({ start: min(120), end: min(240), stepMs: hour, mode: 'cumulative', from: min(120) });
    expect(figureSeries(megamon, horizon, aligned, 'interruptions')).toEqual([0, 0, 1]);
    expect(figureSeries(megamon, horizon, aligned, 'recoveries')).toEqual([0, 0, 1]);
    // `from` between steps (Grafana's "last 2 h" at 4:10): the first point, at 180, covers [130, 180].
    const between = planSeries({ start: min(180), end: min(240), stepMs: hour, mode: 'cumulative', from: min(130) });
    expect(figureSeries(megamon, horizon, between, 'interruptions')).toEqual([0, 1]);
    expect(figureSeries(megamon, horizon, between, 'upSeconds')).toEqual([50 * 60, 95 * 60]);
    expect(() => planSeries({ start: min(120), end: min(240), stepMs: hour, mode: 'cumulative', from: min(121) })).toThrow(/cumulative/);
  });

  it('refuses a step that is not positive and a range that runs backwards', () => {
    expect(() => planSeries({ start: 0, end: 10, stepMs: 0, mode: 'step' })).toThrow(/step/);
    expect(() => planSeries({ start: 10, end: 0, stepMs: 1, mode: 'step' })).toThrow(/end/);
    expect(() => planSeries({ start: 0, end: 10, stepMs: 1, mode: 'rolling' })).toThrow(/rolling/);
  });

  const arbSpec: fc.Arbitrary<RangeSpec> = fc
    .record({
      start: fc.integer({ min: -1_000_000, max: 100_000_000 }),
      steps: fc.integer({ min: 0, max: 40 }),
      stepMs: fc.integer({ min: 1, max: 10_000_000 }),
      mode: fc.constantFrom<RangeSpec['mode']>('step', 'rolling', 'cumulative'),
      rollingMs: fc.integer({ min: 1, max: 50_000_000 }),
      before: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 10_000_000 })),
    })
    .map(({ start, steps, stepMs, mode, rollingMs, before }) => ({ start: T0 + start, end: T0 + start + steps * stepMs, stepMs, mode, rollingMs, from: T0 + start - before }));

  it('every point equals the single-window figures over its window', () => {
    fc.assert(
      fc.property(arbTimeline, arbSpec, fc.integer({ min: 0, max: 200_000_000 }), (tl, spec, h) => {
        const plan = planSeries(spec);
        for (const name of ['upSeconds', 'interruptions', 'mttrSeconds', 'uptimeRatio', 'queuedSeconds', 'timeToFirstUpSeconds'] as const) {
          const series = figureSeries(tl, T0 + h, plan, name);
          plan.points.forEach((t, k) => {
            const from = spec.mode === 'step' ? t - spec.stepMs : spec.mode === 'rolling' ? t - spec.rollingMs! : spec.from!;
            const expected = figures(tl, T0 + h, from, t)[name];
            if (expected === null) expect(series[k]).toBeNull();
            else expect(series[k]).toBeCloseTo(expected, 6);
          });
        }
      }),
      { numRuns: 500 },
    );
  });

  it('step buckets add up to the figure over the whole range', () => {
    fc.assert(
      fc.property(arbTimeline, arbSpec, fc.integer({ min: 0, max: 200_000_000 }), (tl, spec, h) => {
        const plan = planSeries({ ...spec, mode: 'step' });
        const last = plan.points[plan.points.length - 1]!;
        const whole = figures(tl, T0 + h, spec.start - spec.stepMs, last);
        for (const name of ADDITIVE_FIGURES) {
          const sum = figureSeries(tl, T0 + h, plan, name).reduce((a, b) => a! + b!, 0)!;
          expect(Math.round(sum * 1000)).toBe(Math.round(whole[name]! * 1000));
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('fleet aggregation', () => {
  it('percentiles interpolate between closest ranks, as PromQL quantile() does', () => {
    expect(percentile([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(percentile([1, 2, 3, 4], 0.9)).toBeCloseTo(3.7, 12);
    expect(percentile([1, 2, 3, 4], 0.99)).toBeCloseTo(3.97, 12);
    expect(percentile([7], 0.99)).toBe(7);
    expect(aggregate([null, 4, null, 2], 'mean')).toBe(3);
    expect(aggregate([null, null], 'sum')).toBeNull();
    expect(aggregate([3, 1, 2], 'min')).toBe(1);
    expect(aggregate([3, 1, 2], 'max')).toBe(3);
    expect(aggregate([3, 1, 2, 4], 'p50')).toBe(2.5);
  });

  //   a/m : the MegaMon JobSet above: up 210, down 30 (ratio 0.875)
  //   a/p : 0 ─prov─ 30 ─up─ 60 ─down─ 90          up 30, down 60 (ratio 1/3)
  //   b/q : 0 ─up─ 240 (seen from creation as provisioning for 0 s)  up 240 (ratio 1)
  const p = timeline('p', 'a', [0, 'provisioning'], [30, 'up'], [60, 'down'], [90, 'completed']);
  const q = timeline('q', 'b', [0, 'provisioning'], [0, 'up']);
  const fleet = [megamon, p, q];

  it('groups by namespace and aggregates each group', () => {
    const byNs = (how: Parameters<typeof fleetFigure>[6]) =>
      fleetFigure(fleet, min(240), min(0), min(240), 'uptimeRatio', 'namespace', how).map((g) => [g.key, g.value, g.count]);
    expect(byNs('mean')).toEqual([
      ['a', (0.875 + 1 / 3) / 2, 2],
      ['b', 1, 1],
    ]);
    expect(byNs('pooled')).toEqual([
      ['a', 240 / 330, 2],
      ['b', 1, 1],
    ]);
    expect(byNs('min')[0]![1]).toBeCloseTo(1 / 3, 12);
    const up = fleetFigure(fleet, min(240), min(0), min(240), 'upSeconds', 'all', 'sum');
    expect(up).toEqual([{ key: '', labels: {}, value: (210 + 30 + 240) * 60, count: 3 }]);
  });

  it('groups by label, accelerator and JobSet', () => {
    expect(fleetFigure(fleet, min(240), min(0), min(240), 'interruptions', 'label:team', 'sum').map((g) => [g.labels, g.value])).toEqual([
      [{ team: 'x' }, 3],
      [{ team: 'y' }, 0],
    ]);
    expect(fleetFigure(fleet, min(240), min(0), min(240), 'interruptions', 'accelerator', 'sum')[0]!.value).toBe(3);
    expect(fleetFigure(fleet, min(240), min(0), min(240), 'interruptions', 'none', 'sum').map((g) => g.labels.uid)).toEqual(['m', 'p', 'q']);
  });

  it('a fleet series is the aggregate, point by point, of the JobSets in each group', () => {
    fc.assert(
      fc.property(fc.array(arbTimeline, { minLength: 1, maxLength: 6 }), fc.constantFrom('sum', 'mean', 'p90', 'max') , (tls, how) => {
        const fleetTl = tls.map((tl, i) => ({ ...tl, uid: `u${i}`, namespace: i % 2 ? 'odd' : 'even' }));
        const spec: RangeSpec = { start: T0 + 1_000_000, end: T0 + 40_000_000, stepMs: 3_000_000, mode: 'step' };
        const series = fleetSeries(fleetTl, T0 + 30_000_000, spec, 'upSeconds', 'namespace', how);
        const plan = planSeries(spec);
        for (const g of series) {
          const members = fleetTl.filter((tl) => tl.namespace === g.key);
          g.values.forEach((v, k) => {
            // Over the members that lived in the point's window (t − step, t].
            const t = plan.points[k]!;
            const lived = members.filter((tl) => livedIn(tl, T0 + 30_000_000, t - spec.stepMs, t));
            const expected = lived.length === 0 && how === 'sum' ? 0 : aggregate(lived.map((tl) => figureSeries(tl, T0 + 30_000_000, plan, 'upSeconds')[k]!), how);
            if (expected === null) expect(v).toBeNull();
            else expect(v).toBeCloseTo(expected, 6);
          });
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('a single window through the fleet path', () => {
  //   an interruption exactly at `to`, and a window of no length there
  it('is empty when from equals to, and counts an event at `to` otherwise', () => {
    expect(fleetFigure([megamon], horizon, min(70), min(70), 'interruptions', 'all', 'sum')[0]!.value).toBe(0);
    expect(fleetFigure([megamon], horizon, min(69), min(70), 'interruptions', 'all', 'sum')[0]!.value).toBe(1);
    expect(fleetFigure([megamon], horizon, min(70), min(71), 'interruptions', 'all', 'sum')[0]!.value).toBe(0);
  });
});

describe('every figure of every group in one pass', () => {
  it('equals the figure-by-figure answer for any fleet, grouping and aggregate', () => {
    fc.assert(
      fc.property(
        fc.array(arbTimeline, { minLength: 1, maxLength: 6 }),
        fc.constantFrom<Parameters<typeof fleetFigures>[5]>('sum', 'mean', 'min', 'p90', 'pooled'),
        fc.constantFrom<Parameters<typeof fleetFigures>[4]>('all', 'namespace', 'none'),
        (tls, how, groupBy) => {
          const fleetTl = tls.map((tl, i) => ({ ...tl, uid: `u${i}`, namespace: i % 2 ? 'odd' : 'even' }));
          const [from, to] = [T0, T0 + 50_000_000];
          const together = fleetFigures(fleetTl, T0 + 30_000_000, from, to, groupBy, how);
          for (const name of FIGURE_NAMES) {
            const alone = fleetFigure(fleetTl, T0 + 30_000_000, from, to, name, groupBy, how);
            alone.forEach((g, i) => {
              const v = together[i]!.figures[name];
              if (g.value === null) expect(v).toBeNull();
              else expect(v).toBeCloseTo(g.value, 6);
            });
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
