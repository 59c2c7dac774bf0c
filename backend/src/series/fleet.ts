// Figures across many timelines: grouped (by namespace, a label, accelerator, topology, the whole
// fleet, or each JobSet alone) and aggregated (sum, mean, min, max, percentiles, or pooled).

import type { Timeline } from '../timeline/types.ts';
import { figures, figureValue, firstUp, timeToFirstUpAt, type FigureName } from './figures.ts';
import { planSeries, scratchFor, seriesTotals, type RangeSpec } from './range.ts';
import { FIELDS, windowTotals } from './totals.ts';

/** `none`: each JobSet alone; `all`: the whole fleet as one group. */
export type GroupBy = 'none' | 'all' | 'namespace' | 'accelerator' | 'topology' | `label:${string}`;

/**
 * `pooled` computes the figure from the group's summed totals (Σup / Σ(up+down) for the uptime
 * ratio, Σ recovered down time / Σ recoveries for MTTR): the fleet's own figure, not a mean of ratios.
 */
export type Aggregate = 'sum' | 'mean' | 'min' | 'max' | 'p50' | 'p90' | 'p99' | 'pooled';

export const AGGREGATES: readonly Aggregate[] = ['sum', 'mean', 'min', 'max', 'p50', 'p90', 'p99', 'pooled'];

/** What a group is called, and the labels that identify it on a series. */
export interface GroupKey {
  key: string;
  labels: Record<string, string>;
}

export function groupOf(timeline: Timeline, groupBy: GroupBy): GroupKey {
  switch (groupBy) {
    case 'none':
      return {
        key: timeline.uid,
        labels: { namespace: timeline.namespace, jobset: timeline.name, uid: timeline.uid },
      };
    case 'all':
      return { key: '', labels: {} };
    case 'namespace':
      return { key: timeline.namespace, labels: { namespace: timeline.namespace } };
    case 'accelerator':
      return { key: timeline.accelerator ?? '', labels: { accelerator: timeline.accelerator ?? '' } };
    case 'topology':
      return { key: timeline.topology ?? '', labels: { topology: timeline.topology ?? '' } };
    default: {
      const label = groupBy.slice('label:'.length);
      const value = timeline.labels[label] ?? '';
      return { key: value, labels: { [label]: value } };
    }
  }
}

/**
 * Percentile by linear interpolation between closest ranks, rank = φ·(n − 1) over sorted values:
 * the definition PromQL's quantile() uses, so the numbers line up with a Prometheus panel.
 */
export function percentile(sorted: readonly number[], phi: number): number {
  const rank = phi * (sorted.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (rank - lo);
}

/** Aggregates values, skipping nulls (undefined figures); null when nothing is left. */
export function aggregate(values: readonly (number | null)[], how: Exclude<Aggregate, 'pooled'>): number | null {
  const xs = values.filter((v): v is number => v !== null);
  if (xs.length === 0) return null;
  switch (how) {
    case 'sum':
      return xs.reduce((a, b) => a + b, 0);
    case 'mean':
      return xs.reduce((a, b) => a + b, 0) / xs.length;
    case 'min':
      return xs.reduce((a, b) => (b < a ? b : a));
    case 'max':
      return xs.reduce((a, b) => (b > a ? b : a));
    default:
      return percentile(
        xs.sort((a, b) => a - b),
        Number(how.slice(1)) / 100,
      );
  }
}

export interface GroupValue extends GroupKey {
  value: number | null;
  /** How many timelines the group holds. */
  count: number;
}

interface Group extends GroupKey {
  members: Timeline[];
}

function groupTimelines(timelines: readonly Timeline[], groupBy: GroupBy): Group[] {
  const groups = new Map<string, Group>();
  for (const tl of timelines) {
    const g = groupOf(tl, groupBy);
    let group = groups.get(g.key);
    if (group === undefined) groups.set(g.key, (group = { ...g, members: [] }));
    group.members.push(tl);
  }
  return [...groups.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** One figure over [from, to] for each group. */
export function fleetFigure(
  timelines: readonly Timeline[],
  horizon: number,
  from: number,
  to: number,
  figure: FigureName,
  groupBy: GroupBy,
  how: Aggregate,
): GroupValue[] {
  return groupTimelines(timelines, groupBy).map(({ members, ...g }) => {
    let value: number | null;
    if (how === 'pooled') {
      const sum = new Float64Array(FIELDS);
      const ttfu: (number | null)[] = [];
      for (const tl of members) {
        const t = windowTotals(tl, horizon, from, to);
        for (let f = 0; f < FIELDS; f++) sum[f]! += t[f]!;
        ttfu.push(timeToFirstUpAt(firstUp(tl), to));
      }
      value = figureValue(sum, 0, figure, aggregate(ttfu, 'mean'));
    } else {
      value = aggregate(
        members.map((tl) => figures(tl, horizon, from, to)[figure]),
        how,
      );
    }
    return { ...g, value, count: members.length };
  });
}

export interface GroupSeries extends GroupKey {
  points: number[];
  values: (number | null)[];
  count: number;
}

/** One figure at every point of a range, for each group. */
export function fleetSeries(
  timelines: readonly Timeline[],
  horizon: number,
  spec: RangeSpec,
  figure: FigureName,
  groupBy: GroupBy,
  how: Aggregate,
): GroupSeries[] {
  const plan = planSeries(spec);
  const n = plan.points.length;
  const scratch = scratchFor(plan);
  const totals = new Float64Array(n * FIELDS);
  return groupTimelines(timelines, groupBy).map(({ members, ...g }) => {
    const perPoint: (number | null)[][] = Array.from({ length: n }, () => []);
    const pooled = new Float64Array(n * FIELDS);
    for (const tl of members) {
      seriesTotals(tl, horizon, plan, totals, scratch);
      const first = firstUp(tl);
      for (let k = 0; k < n; k++) {
        const ttfu = timeToFirstUpAt(first, plan.points[k]!);
        if (how === 'pooled') {
          for (let f = 0; f < FIELDS; f++) pooled[k * FIELDS + f]! += totals[k * FIELDS + f]!;
          perPoint[k]!.push(ttfu);
        } else {
          perPoint[k]!.push(figureValue(totals, k * FIELDS, figure, ttfu));
        }
      }
    }
    const values = perPoint.map((vs, k) =>
      how === 'pooled'
        ? figureValue(pooled, k * FIELDS, figure, aggregate(vs, 'mean'))
        : aggregate(vs, how),
    );
    return { ...g, points: plan.points, values, count: members.length };
  });
}
