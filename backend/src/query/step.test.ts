import fc from 'fast-check';
import { planSteps } from './step.ts';

describe('steps', () => {
  it('never gives more points than maxDataPoints, and at least one', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2e12 }),
        fc.integer({ min: 0, max: 400 * 86_400_000 }),
        fc.option(fc.integer({ min: 1, max: 86_400_000 })),
        fc.integer({ min: 1, max: 11_000 }),
        (from, span, interval, maxPoints) => {
          const { stepMs, first, last } = planSteps(from, from + span, interval ?? undefined, maxPoints);
          const points = Math.floor((last - first) / stepMs) + 1;
          expect(points).toBeGreaterThanOrEqual(1);
          expect(points).toBeLessThanOrEqual(maxPoints);
          expect(first).toBeGreaterThanOrEqual(from);
          expect(last).toBeLessThanOrEqual(from + span);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('keeps the interval Grafana asks for when it fits, aligned to it', () => {
    expect(planSteps(3_600_000, 4 * 3_600_000, 3_600_000, 1000)).toEqual({ stepMs: 3_600_000, first: 3_600_000, last: 4 * 3_600_000 });
    expect(planSteps(0, 86_400_000, 60_000, 5)).toEqual({ stepMs: 21_600_000, first: 0, last: 86_400_000 });
  });
});
