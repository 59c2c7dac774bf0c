// Properties over many generated timelines: the series stage agrees with a naive oracle, state
// durations add up to the observed part of the window, and windows add up.

import fc from 'fast-check';
import { arbTimeline, arbTimes, oracle, T0 } from '../../../test/support/arbitraries.ts';
import { ADDITIVE_FIGURES, figures } from './figures.ts';
import { endOf } from './totals.ts';

/** A mean in seconds against the oracle's mean in ms: both undefined, or equal to rounding. */
function expectMean(seconds: number | null, oracleMs: number | null): void {
  if (oracleMs === null) expect(seconds).toBeNull();
  else expect(seconds! * 1000).toBeCloseTo(oracleMs, 3);
}

const RUNS = { numRuns: 2000 };
/** Seconds back to whole milliseconds (the unit the timelines are exact in). */
const ms = (seconds: number): number => Math.round(seconds * 1000);
const mean = (xs: number[]): number | null => (xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length);

describe('figures over generated timelines', () => {
  it('equal the naive oracle', () => {
    fc.assert(
      fc.property(arbTimeline, arbTimes, (tl, [a, b, h]) => {
        const [from, to] = [T0 + Math.min(a, b), T0 + Math.max(a, b)];
        const horizon = T0 + h;
        const f = figures(tl, horizon, from, to);
        const o = oracle(tl, horizon, from, to);
        expect(ms(f.upSeconds)).toBe(o.durations.up);
        expect(ms(f.provisioningSeconds)).toBe(o.durations.provisioning);
        expect(ms(f.interruptionDowntimeSeconds)).toBe(o.durations.down);
        expect(ms(f.suspendedSeconds)).toBe(o.durations.suspended);
        expect(ms(f.unknownSeconds)).toBe(o.durations.unknown);
        expect(ms(f.queuedSeconds)).toBe(o.queued);
        expect(f.interruptions).toBe(o.interruptions);
        expect(f.recoveries).toBe(o.recoveries);
        const mttr = mean(o.recoveredDown);
        const mtbi = mean(o.interruptedUp);
        expectMean(f.mttrSeconds, mttr);
        expectMean(f.mtbiSeconds, mtbi);
      }),
      RUNS,
    );
  });

  it('state durations add up to the part of the window the timeline lived and was observed', () => {
    fc.assert(
      fc.property(arbTimeline, arbTimes, (tl, [a, b, h]) => {
        const [from, to] = [T0 + Math.min(a, b), T0 + Math.max(a, b)];
        const horizon = T0 + h;
        const f = figures(tl, horizon, from, to);
        const lived = Math.max(0, Math.min(to, endOf(tl, horizon)) - Math.max(from, tl.createdAt));
        const sum = f.upSeconds + f.downSeconds + f.suspendedSeconds + f.unknownSeconds;
        expect(Math.round(sum * 1000)).toBe(lived);
        expect(Math.round(f.downSeconds * 1000)).toBe(Math.round((f.provisioningSeconds + f.interruptionDowntimeSeconds) * 1000));
        for (const name of ADDITIVE_FIGURES) expect(f[name]!).toBeGreaterThanOrEqual(0);
        expect(f.queuedSeconds).toBeLessThanOrEqual(f.suspendedSeconds);
        if (f.uptimeRatio !== null) {
          expect(f.uptimeRatio).toBeGreaterThanOrEqual(0);
          expect(f.uptimeRatio).toBeLessThanOrEqual(1);
        }
      }),
      RUNS,
    );
  });

  it('goodput: the breakdown adds up to wall time exactly, and every goodput figure equals the oracle', () => {
    fc.assert(
      fc.property(arbTimeline, arbTimes, (tl, [a, b, h]) => {
        const [from, to] = [T0 + Math.min(a, b), T0 + Math.max(a, b)];
        const horizon = T0 + h;
        const f = figures(tl, horizon, from, to);
        const o = oracle(tl, horizon, from, to);
        const lived = Math.max(0, Math.min(to, endOf(tl, horizon)) - Math.max(from, tl.createdAt));
        const d = o.durations;
        const wall = d.up + d.provisioning + d.down + d.suspended + d.unknown;
        expect(ms(f.wallSeconds)).toBe(wall);
        expect(wall).toBe(lived);
        // The six parts, each in whole ms, add up to the wall exactly.
        const parts = [f.upSeconds, f.queuedSeconds, f.provisioningSeconds, f.interruptionDowntimeSeconds, f.suspendedNotQueuedSeconds, f.unknownSeconds].map(ms);
        expect(parts.reduce((x, y) => x + y, 0)).toBe(ms(f.wallSeconds));
        expect(ms(f.suspendedNotQueuedSeconds)).toBe(d.suspended - o.queued);
        if (wall === 0) {
          expect(f.schedulingGoodput).toBeNull();
          expect(f.estimatedEffectiveTrainingRatio).toBeNull();
        } else {
          expect(f.schedulingGoodput).toBe(d.up / wall);
          const shares = [f.schedulingGoodput, f.queuedFraction, f.provisioningFraction, f.interruptionDowntimeFraction, f.suspendedNotQueuedFraction, f.unknownFraction];
          expect(shares.reduce((x, y) => x! + y!, 0)).toBeCloseTo(1, 12);
          const interval = tl.checkpointIntervalMs ?? null;
          if (interval === null) expect(f.estimatedEffectiveTrainingRatio).toBeNull();
          else expect(f.estimatedEffectiveTrainingRatio).toBeCloseTo(Math.max(0, d.up - (o.interruptions * interval) / 2) / wall, 12);
        }
        const accelerators = tl.accelerators ?? 0;
        expect(ms(f.acceleratorSecondsUp)).toBe(accelerators * d.up);
        expect(ms(f.acceleratorSecondsLost)).toBe(accelerators * (d.provisioning + d.down + d.unknown));
      }),
      RUNS,
    );
  });

  it('sums and counts over two adjacent windows add up to their union', () => {
    fc.assert(
      fc.property(arbTimeline, arbTimes, (tl, [a, b, c, h]) => {
        const [t0, t1, t2] = [a, b, c].sort((x, y) => x - y).map((x) => T0 + x) as [number, number, number];
        const horizon = T0 + h;
        const left = figures(tl, horizon, t0, t1);
        const right = figures(tl, horizon, t1, t2);
        const whole = figures(tl, horizon, t0, t2);
        for (const name of ADDITIVE_FIGURES) {
          expect(Math.round((left[name]! + right[name]!) * 1000)).toBe(Math.round(whole[name]! * 1000));
        }
      }),
      RUNS,
    );
  });
});
