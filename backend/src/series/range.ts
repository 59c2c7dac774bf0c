// Figures over a range, one point per step. Every point t_k is a window (a_k, t_k]:
//   step        a_k = t_k − step      (each step's own bucket; buckets tile the range)
//   rolling     a_k = t_k − length    (e.g. the last 24 h at every step)
//   cumulative  a_k = from            (everything from the range's start: a point at `from` is empty)
// so one sweep per timeline computing C at the sorted union of all a_k and t_k serves them all.

import type { Timeline } from '../timeline/types.ts';
import { figureValue, firstUp, timeToFirstUpAt, type FigureName } from './figures.ts';
import { cumulativeAt, FIELDS } from './totals.ts';

export type WindowMode = 'step' | 'rolling' | 'cumulative';

export interface RangeSpec {
  /** First point, epoch ms. */
  start: number;
  /** Last point at or before this, epoch ms. */
  end: number;
  stepMs: number;
  mode: WindowMode;
  /** The window length for `rolling`. */
  rollingMs?: number;
  /** Where a `cumulative` series begins: the range's start, at or before `start` (default: `start`). */
  from?: number;
}

/** Precomputed once per query and shared by every timeline. */
export interface SeriesPlan {
  /** The points t_k. */
  points: number[];
  /** Sorted unique times at which C is evaluated. */
  times: Float64Array;
  /** For point k: index into `times` of t_k and of a_k (the window of point k is times[starts[k]] → times[ends[k]]). */
  ends: Int32Array;
  starts: Int32Array;
}

/**
 * The plan of a range. Dashboards ask the same step-aligned ranges on every refresh, so the last
 * plans made of many points are given again while their range is the same: a plan is read, never
 * written.
 */
export function planSeries(spec: RangeSpec): SeriesPlan {
  const key = `${spec.start} ${spec.end} ${spec.stepMs} ${spec.mode} ${spec.rollingMs} ${spec.from}`;
  const known = plans.get(key);
  if (known !== undefined) return known;
  const plan = makePlan(spec);
  // A plan of a point or two (a range's one window, ending at its own "now") is not asked again.
  if (plan.points.length <= 2) return plan;
  if (plans.size >= KEPT_PLANS) plans.delete(plans.keys().next().value!);
  plans.set(key, plan);
  return plan;
}

const KEPT_PLANS = 64;
const plans = new Map<string, SeriesPlan>();

function makePlan(spec: RangeSpec): SeriesPlan {
  const { start, end, stepMs, mode } = spec;
  if (!(stepMs > 0) || !Number.isFinite(stepMs)) throw new RangeError('step must be a positive number of milliseconds');
  if (end < start) throw new RangeError('end must not be before start');
  const windowMs = mode === 'rolling' ? (spec.rollingMs ?? NaN) : stepMs;
  if (!(windowMs >= 0) || !Number.isFinite(windowMs)) throw new RangeError('a rolling window needs a length of zero or more');
  const from = spec.from ?? start;
  if (mode === 'cumulative' && !(from <= start)) throw new RangeError('a cumulative series must begin at or before its first point');
  // By index, not by adding the step: past 2^53 ms a sum stops changing and such a loop never ends.
  const count = Math.floor((end - start) / stepMs) + 1;
  if (!Number.isSafeInteger(count) || start + stepMs === start) throw new RangeError('the range holds more points than can be counted');
  const points = Array.from({ length: count }, (_, k) => start + k * stepMs);
  const windowStart = (t: number): number => (mode === 'cumulative' ? from : t - windowMs);
  const all = Float64Array.from(new Set([...points, ...points.map(windowStart)])).sort();
  const index = new Map<number, number>();
  all.forEach((t, i) => index.set(t, i));
  return {
    points,
    times: all,
    ends: Int32Array.from(points, (t) => index.get(t)!),
    starts: Int32Array.from(points, (t) => index.get(windowStart(t))!),
  };
}

/** Scratch space for one timeline's sweep, reused across timelines. */
export function scratchFor(plan: SeriesPlan): Float64Array {
  return new Float64Array(plan.times.length * FIELDS);
}

/** Writes each point's window totals (FIELDS numbers per point) of one timeline into `out`. */
export function seriesTotals(timeline: Timeline, horizon: number, plan: SeriesPlan, out: Float64Array, scratch: Float64Array): void {
  cumulativeAt(timeline, horizon, plan.times, scratch);
  for (let k = 0; k < plan.points.length; k++) {
    const e = plan.ends[k]! * FIELDS;
    const s = plan.starts[k]! * FIELDS;
    const o = k * FIELDS;
    for (let f = 0; f < FIELDS; f++) out[o + f] = scratch[e + f]! - scratch[s + f]!;
  }
}

/** One figure of one timeline at every point. */
export function figureSeries(timeline: Timeline, horizon: number, plan: SeriesPlan, figure: FigureName): (number | null)[] {
  const totals = new Float64Array(plan.points.length * FIELDS);
  seriesTotals(timeline, horizon, plan, totals, scratchFor(plan));
  const first = firstUp(timeline);
  return plan.points.map((t, k) => figureValue(totals, k * FIELDS, figure, timeToFirstUpAt(first, t)));
}
