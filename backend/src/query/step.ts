// The points of a range query: a step from Grafana's interval, raised so the range holds at most
// maxDataPoints points, and points aligned to multiples of the step so refreshes line up.

import { QueryError } from './selector.ts';

export const LIMITS = {
  maxRangeMs: 400 * 86_400_000,
  maxPointsPerSeries: 11_000,
  maxSeriesPerQuery: 5_000,
  minStepMs: 1_000,
  defaultMaxDataPoints: 1_000,
  /** A rolling window, and Grafana's interval, at most as long as the longest range. */
  maxDurationMs: 400 * 86_400_000,
  /**
   * Values one query may work out: its points × the series (or, evaluated JobSet by JobSet, the
   * JobSets) it evaluates. A million per-JobSet values is ~15 MB of JSON and seconds of one core.
   */
  maxValuesPerQuery: 1_000_000,
  /** The same, summed over every query of one request. */
  maxValuesPerRequest: 2_000_000,
} as const;

const count = (n: number): string => n.toLocaleString('en-US');

/**
 * What a request may still work out. Each query takes its share before any work or allocation, so a
 * request that would cost too much is refused in microseconds instead of blocking the service.
 */
export class ValueBudget {
  #left: number = LIMITS.maxValuesPerRequest;

  /**
   * `series` evaluated (JobSets, or groups when answered per group) × `points` each; QueryError
   * naming maxDataPoints when too many. `pooledHelps`: whether a pooled aggregate would answer the
   * query per group (the refusal advises one only then).
   */
  take(series: number, points: number, what: 'JobSets' | 'series', pooledHelps = true): void {
    const values = series * points;
    // Worded only for a refusal: toLocaleString costs more than a small query's answer.
    const shape = (): string => (points === 1 ? `${count(series)} ${what}` : `${count(series)} ${what} × ${count(points)} points`);
    const advice = `ask for fewer points (a larger intervalMs or a smaller maxDataPoints), a shorter range${pooledHelps ? ', fewer JobSets, or a pooled aggregate' : ' or fewer JobSets'}`;
    if (values > LIMITS.maxValuesPerQuery) {
      throw new QueryError('maxDataPoints', `the query would work out ${count(values)} values (${shape()}), more than the limit of ${count(LIMITS.maxValuesPerQuery)} per query: ${advice}`);
    }
    if (values > this.#left) {
      throw new QueryError(
        'maxDataPoints',
        `with the queries before it the request would work out more than the limit of ${count(LIMITS.maxValuesPerRequest)} values per request (this one: ${shape()}): ${advice}, or split the request`,
      );
    }
    this.#left -= values;
  }
}

/** How many points the steps make: ⌊(last − first) ÷ step⌋ + 1. */
export function stepCount(steps: Steps): number {
  return Math.floor((steps.last - steps.first) / steps.stepMs) + 1;
}

export interface Steps {
  stepMs: number;
  /** First and last point, multiples of the step inside the range (or `to` alone for a short range). */
  first: number;
  last: number;
}

/** `field`: what a message names: `timeRange` in a query, `to` where from and to are parameters of their own. */
export function checkRange(from: number, to: number, field = 'timeRange'): void {
  if (to < from) throw new QueryError(field, '`to` is before `from`');
  if (to - from > LIMITS.maxRangeMs) throw new QueryError(field, `spans more than the limit of ${LIMITS.maxRangeMs / 86_400_000} days`);
}

export function planSteps(from: number, to: number, intervalMs: number | undefined, maxDataPoints: number | undefined): Steps {
  // maxDataPoints is an upper bound, so a larger one (Grafana alerting sends 43,200) is held to the limit.
  const maxPoints = Math.min(maxDataPoints ?? LIMITS.defaultMaxDataPoints, LIMITS.maxPointsPerSeries);
  const wanted = Math.max(intervalMs ?? 0, LIMITS.minStepMs);
  // Aligned points in [from, to] number at most ⌊(to − from) ÷ step⌋ + 1: size the step for that.
  if (maxPoints === 1) return { stepMs: Math.max(wanted, to - from), first: to, last: to };
  const stepMs = Math.max(wanted, Math.ceil((to - from) / (maxPoints - 1) / 1000) * 1000);
  const first = Math.ceil(from / stepMs) * stepMs;
  const last = Math.floor(to / stepMs) * stepMs;
  // A range shorter than a step still gets one point, at its end.
  return first <= last ? { stepMs, first, last } : { stepMs, first: to, last: to };
}
