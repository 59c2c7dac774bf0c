// Usage as a series: a value per point, the time-weighted mean of the usage steps over the point's
// window (t − stepMs, t], as the other series' windows end at their point. A point whose window
// has no usage has no value (null), never 0. Grouped, the members' values are summed (the usage of
// a namespace is the sum of its JobSets'); a group point is null only when no member has a value.
// Pure.

import type { UsageSegments } from './history.ts';

/** The mean of the steps over each window (points[k] − windowMs, points[k]]; points ascending. */
export function usageSeries(segments: UsageSegments, points: readonly number[], windowMs: number): (number | null)[] {
  return usageOverWindows(
    segments,
    points.map((t) => t - windowMs),
    points,
  );
}

/**
 * The mean of the steps over each window (starts[k], ends[k]]: windows whose starts and ends both
 * ascend (a step's, a rolling window's, or a cumulative one's from the range start).
 */
export function usageOverWindows(segments: UsageSegments, starts: readonly number[], ends: readonly number[]): (number | null)[] {
  const out: (number | null)[] = [];
  let first = 0;
  for (let w = 0; w < ends.length; w++) {
    const from = starts[w]!;
    const t = ends[w]!;
    // Steps ending at or before this window's start end before every later window's too.
    while (first < segments.starts.length && segments.ends[first]! <= from) first++;
    let area = 0;
    let covered = 0;
    for (let k = first; k < segments.starts.length && segments.starts[k]! < t; k++) {
      const overlap = Math.min(segments.ends[k]!, t) - Math.max(segments.starts[k]!, from);
      if (overlap <= 0) continue;
      area += overlap * segments.values[k]!;
      covered += overlap;
    }
    out.push(covered > 0 ? area / covered : null);
  }
  return out;
}

/** The members' series summed point by point; null where no member has a value. */
export function sumSeries(members: readonly (number | null)[][], length: number): (number | null)[] {
  const out: (number | null)[] = new Array<number | null>(length).fill(null);
  for (const values of members) {
    for (let k = 0; k < length; k++) {
      const v = values[k];
      if (v === null || v === undefined) continue;
      out[k] = (out[k] ?? 0) + v;
    }
  }
  return out;
}
