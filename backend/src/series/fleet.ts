// Figures across many timelines: grouped (by namespace, a label, accelerator, topology, the whole
// fleet, or each JobSet alone) and aggregated (sum, mean, min, max, percentiles, or pooled).

import type { Timeline } from '../timeline/types.ts';
import { definitionOf } from './figure-definitions.ts';
import { ADDITIVE_FIGURES, FIGURE_NAMES, figureValue, firstUp, timeToFirstUpAt, type FigureName } from './figures.ts';
import { planSeries, scratchFor, seriesTotals, type RangeSpec } from './range.ts';
import { lifeOf, lived, WindowRows } from './summary.ts';
import { OrderStatistics } from './order-statistics.ts';
import { FIELDS } from './totals.ts';
import { keptWithSelection } from './kept-selections.ts';
import { DEFAULT_SIZE_BUCKETS, sizeBucketIndex, sizeBucketKey, sizeBucketLabels, sizeBucketOf, sizeOf, UNKNOWN_SIZE_KEY } from './sizes.ts';

/** The label Kueue reads the queue a JobSet is submitted to from (query/types.ts names it for the frontend). */
export const QUEUE_LABEL = 'kueue.x-k8s.io/queue-name';

/** `none`: each JobSet alone; `all`: the whole fleet as one group; `size:<bounds>`: by job size
 *  (series/sizes.ts), the buckets' upper bounds comma-separated (sizeGrouping makes it from a query). */
export type GroupBy = 'none' | 'all' | 'cluster' | 'namespace' | 'accelerator' | 'topology' | 'queue' | 'pool' | `label:${string}` | `size:${string}`;

/** A query's grouping: its groupBy, and for `size` its buckets (checked by the query schema). */
export function groupingOf(query: { groupBy: string; sizeBuckets?: readonly number[] }): GroupBy {
  if (query.groupBy === 'size') return `size:${(query.sizeBuckets ?? DEFAULT_SIZE_BUCKETS).join(',')}`;
  return query.groupBy as GroupBy;
}

/** The buckets of a `size:<bounds>` grouping, parsed once per grouping (groupOf runs per JobSet). */
const sizeGroupings = new Map<string, { bounds: number[]; labels: string[]; keys: string[] }>();
function sizeBucketsOf(groupBy: `size:${string}`): { bounds: number[]; labels: string[]; keys: string[] } {
  let parsed = sizeGroupings.get(groupBy);
  if (parsed === undefined) {
    const bounds = groupBy.slice('size:'.length).split(',').map(Number);
    const labels = sizeBucketLabels(bounds);
    parsed = { bounds, labels, keys: labels.map((_, at) => sizeBucketKey(at)) };
    // Few distinct groupings are ever asked; a bound keeps a stream of odd ones from growing it.
    if (sizeGroupings.size >= 256) sizeGroupings.clear();
    sizeGroupings.set(groupBy, parsed);
  }
  return parsed;
}

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

/** The key of the timeline's group (groupOf's key), without its labels: asked of every JobSet of a grouping. */
export function groupKeyOf(timeline: Timeline, groupBy: GroupBy): string {
  switch (groupBy) {
    case 'none':
      // Sorted by namespace and name; the UID tells apart JobSets created again under a name.
      return `${timeline.cluster ?? ''}\u0000${timeline.namespace}\u0000${timeline.name}\u0000${timeline.createdAt}\u0000${timeline.uid}`;
    case 'all':
      return '';
    case 'cluster':
      return timeline.cluster ?? '';
    case 'namespace':
      return timeline.namespace;
    case 'accelerator':
      return timeline.accelerator ?? '';
    case 'topology':
      return timeline.topology ?? '';
    case 'pool':
      return timeline.labels.pool ?? '';
    case 'queue':
      // The Kueue queue it was submitted to; '' when no queue manages it.
      return timeline.labels[QUEUE_LABEL] ?? '';
    default:
      if (groupBy.startsWith('size:')) {
        // sizeBucketOf's key, without a bucket made per JobSet.
        const { bounds, keys } = sizeBucketsOf(groupBy as `size:${string}`);
        const at = sizeBucketIndex(sizeOf(timeline), bounds);
        return at < 0 ? UNKNOWN_SIZE_KEY : keys[at]!;
      }
      return timeline.labels[groupBy.slice('label:'.length)] ?? '';
  }
}

export function groupOf(timeline: Timeline, groupBy: GroupBy): GroupKey {
  const key = groupKeyOf(timeline, groupBy);
  switch (groupBy) {
    case 'none':
      return {
        key,
        labels: {
          ...(timeline.cluster !== undefined ? { cluster: timeline.cluster } : {}),
          namespace: timeline.namespace,
          jobset: timeline.name,
          uid: timeline.uid,
        },
      };
    case 'all':
      return { key, labels: {} };
    case 'cluster':
    case 'namespace':
    case 'accelerator':
    case 'topology':
    case 'pool':
    case 'queue':
      return { key, labels: { [groupBy]: key } };
    default: {
      if (groupBy.startsWith('size:')) {
        const { bounds, labels } = sizeBucketsOf(groupBy as `size:${string}`);
        return { key, labels: { size: sizeBucketOf(sizeOf(timeline), bounds, labels).label } };
      }
      return { key, labels: { [groupBy.slice('label:'.length)]: key } };
    }
  }
}

/**
 * Percentile by linear interpolation between closest ranks, rank = φ·(n − 1) over sorted values:
 * the definition PromQL's quantile() uses, so the numbers line up with a Prometheus panel.
 */
export function percentile(sorted: ArrayLike<number>, phi: number): number {
  return percentileOf(sorted.length, (k) => sorted[k]!, phi);
}

/** percentile() of values whose k-th smallest is `at(k)` (n of them). */
function percentileOf(n: number, at: (k: number) => number, phi: number): number {
  const rank = phi * (n - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  const low = at(lo);
  return low + (at(hi) - low) * (rank - lo);
}

/**
 * Aggregates a value per point across many timelines as they stream by, skipping nulls (undefined
 * figures): a point with no value left is null. Percentiles keep the values; the rest keep a running total.
 */
export class Aggregator {
  readonly #how: Exclude<Aggregate, 'pooled'>;
  readonly #points: number;
  readonly #capacity: number;
  readonly #counts: Int32Array;
  readonly #values: Float64Array;

  constructor(how: Exclude<Aggregate, 'pooled'>, points: number, members: number) {
    this.#how = how;
    this.#points = points;
    this.#capacity = how.startsWith('p') ? members : 1;
    this.#counts = new Int32Array(points);
    this.#values = new Float64Array(points * this.#capacity);
  }

  add(point: number, value: number | null): void {
    if (value === null) return;
    const n = this.#counts[point]!++;
    const i = point * this.#capacity;
    switch (this.#how) {
      case 'sum':
      case 'mean':
        this.#values[i]! += value;
        break;
      case 'min':
        if (n === 0 || value < this.#values[i]!) this.#values[i] = value;
        break;
      case 'max':
        if (n === 0 || value > this.#values[i]!) this.#values[i] = value;
        break;
      default:
        this.#values[i + n] = value;
    }
  }

  result(): (number | null)[] {
    const out: (number | null)[] = [];
    const phi = this.#how.startsWith('p') ? Number(this.#how.slice(1)) / 100 : 0;
    for (let k = 0; k < this.#points; k++) {
      const n = this.#counts[k]!;
      const i = k * this.#capacity;
      if (n === 0) out.push(null);
      else if (this.#how === 'mean') out.push(this.#values[i]! / n);
      else if (phi > 0) out.push(percentile(this.#values.subarray(i, i + n).sort(), phi));
      else out.push(this.#values[i]!);
    }
    return out;
  }
}

/** Aggregates values, skipping nulls (undefined figures); null when nothing is left. */
export function aggregate(values: readonly (number | null)[], how: Exclude<Aggregate, 'pooled'>): number | null {
  const aggregator = new Aggregator(how, 1, values.length);
  for (const v of values) aggregator.add(0, v);
  return aggregator.result()[0]!;
}

export interface GroupValue extends GroupKey {
  value: number | null;
  /** How many timelines the group holds. */
  count: number;
}

export interface Group extends GroupKey {
  members: Timeline[];
}

/** The timelines by group (groupOf), in key order; each group's members in the order given. */
export function groupTimelines(timelines: readonly Timeline[], groupBy: GroupBy): Group[] {
  return groupRows(timelines, groupBy).map(({ members, ...g }) => ({ ...g, members: Array.from(members, (k) => timelines[k]!) }));
}

/**
 * groupTimelines with each member told by its place in `timelines`, in an array of numbers: each
 * timeline's key asked once (none for `all`), a key's group looked up only where the key changes (a
 * sorted list's namespace, or its name's size, changes seldom), its labels made once a group.
 */
export function groupRows(timelines: readonly Timeline[], groupBy: GroupBy): readonly (GroupKey & { members: Int32Array })[] {
  // A refresh groups one selection alike in several panels (by namespace, by size): kept with it while it is kept.
  return keptWithSelection(timelines, `groups\u0000${groupBy}`, () => {
    const groups = groupRowsOf(timelines, groupBy);
    // Handed to every later reader: none may change them.
    for (const g of groups) Object.freeze(Object.freeze(g).labels);
    return groups;
  });
}

function groupRowsOf(timelines: readonly Timeline[], groupBy: GroupBy): (GroupKey & { members: Int32Array })[] {
  const n = timelines.length;
  if (groupBy === 'all') return n === 0 ? [] : [{ key: '', labels: {}, members: Int32Array.from({ length: n }, (_, k) => k) }];
  const codeOf = new Int32Array(n);
  const codes = new Map<string, number>();
  const firsts: number[] = [];
  const counts: number[] = [];
  let lastKey: string | null = null;
  let code = -1;
  for (let k = 0; k < n; k++) {
    const key = groupKeyOf(timelines[k]!, groupBy);
    if (key !== lastKey) {
      lastKey = key;
      code = codes.get(key) ?? -1;
      if (code < 0) {
        code = firsts.length;
        codes.set(key, code);
        firsts.push(k);
        counts.push(0);
      }
    }
    codeOf[k] = code;
    counts[code]!++;
  }
  // Each group's members in one array, one after the other in the order of the groups' codes.
  const starts = new Int32Array(firsts.length + 1);
  for (let c = 0; c < firsts.length; c++) starts[c + 1] = starts[c]! + counts[c]!;
  const members = new Int32Array(n);
  const next = starts.slice(0, firsts.length);
  for (let k = 0; k < n; k++) members[next[codeOf[k]!]!++] = k;
  return [...codes.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, c]) => ({ key, labels: groupOf(timelines[firsts[c]!]!, groupBy).labels, members: members.subarray(starts[c]!, starts[c + 1]!) }));
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
  // One point at `to` whose window reaches back to `from` (an empty window when they are equal).
  const spec: RangeSpec = { start: to, end: to, stepMs: 1, mode: 'rolling', rollingMs: to - from };
  return fleetSeries(timelines, horizon, spec, figure, groupBy, how).map(
    ({ points: _, values, ...g }) => ({ ...g, value: values[0]! }),
  );
}

/**
 * Several aggregates of one figure over [from, to] for each group (a distribution's min, mean,
 * percentiles, max), each JobSet's figure worked out once for all of them, and sorted once for all
 * the percentiles: per aggregate, the value fleetFigure gives (fleet.test.ts checks the two agree).
 * `selected`: the timelines are a query's selection of those that lived in [from, to], whose closed
 * runs' figures are read from the run columns (summary.ts WindowRows).
 */
export function fleetFigureAggregates(
  timelines: readonly Timeline[],
  horizon: number,
  from: number,
  to: number,
  figure: FigureName,
  groupBy: GroupBy,
  hows: readonly Exclude<Aggregate, 'pooled'>[],
  selected = false,
): (GroupKey & { count: number; values: (number | null)[] })[] {
  const rows = new WindowRows(timelines, horizon, from, to, selected);
  const totals = new Float64Array(FIELDS);
  const needsFirstUp = definitionOf(figure).firstUp === true;
  const additive = ADDITIVE_FIGURES.includes(figure);
  // The figure's columns alone are read of a closed run's life (the others in `totals` go unread).
  const fields = definitionOf(figure).columns;
  return groupRows(timelines, groupBy).map(({ members, ...g }) => {
    // As in a series: the aggregate is over the JobSets that lived in the window, and their figures that are defined.
    const values = new Float64Array(members.length);
    let n = 0;
    for (const k of members) {
      if (!rows.lived(k)) continue;
      const value = figureValue(totals, 0, figure, rows.fieldsInto(k, fields, totals, 0, needsFirstUp));
      if (value !== null) values[n++] = value;
    }
    const statistics = new Statistics(values.subarray(0, n));
    // A sum of durations or counts over no JobSet is 0, as in a series.
    return { ...g, count: members.length, values: hows.map((how) => statistics.of(how) ?? (how === 'sum' && additive ? 0 : null)) };
  });
}

/** Aggregates of values (Aggregator's, the same arithmetic in the same order), each percentile's ranks selected, not sorted (order-statistics.ts). */
class Statistics {
  readonly #values: Float64Array;
  #order: OrderStatistics | null = null;

  constructor(values: Float64Array) {
    this.#values = values;
  }

  of(how: Exclude<Aggregate, 'pooled'>): number | null {
    const values = this.#values;
    if (values.length === 0) return null;
    if (how.startsWith('p')) {
      const order = (this.#order ??= new OrderStatistics(values));
      return percentileOf(values.length, (k) => order.at(k), Number(how.slice(1)) / 100);
    }
    let at = values[0]!;
    if (how === 'sum' || how === 'mean') {
      at = 0;
      for (let i = 0; i < values.length; i++) at += values[i]!;
      return how === 'mean' ? at / values.length : at;
    }
    for (let i = 1; i < values.length; i++) if (how === 'min' ? values[i]! < at : values[i]! > at) at = values[i]!;
    return at;
  }
}

export interface GroupSeries extends GroupKey {
  points: number[];
  values: (number | null)[];
  count: number;
}

/**
 * One figure at every point of a range, for each group. `selected`: the timelines are a query's
 * selection of those that lived in its windows; over one window (a `range` panel), a closed run
 * whose whole life lies in it is read from its row of the run columns (summary.ts WindowRows).
 */
export function fleetSeries(timelines: readonly Timeline[], horizon: number, spec: RangeSpec, figure: FigureName, groupBy: GroupBy, how: Aggregate, selected = false): GroupSeries[] {
  const plan = planSeries(spec);
  const n = plan.points.length;
  const scratch = scratchFor(plan);
  const totals = new Float64Array(n * FIELDS);
  const windowFrom = Float64Array.from(plan.starts, (i) => plan.times[i]!);
  // A sum of durations or counts over no JobSet is 0 (the figure of summed totals, as `pooled`).
  const emptySum = how === 'sum' && ADDITIVE_FIGURES.includes(figure) ? 0 : null;
  const rows = selected && n === 1 ? new WindowRows(timelines, horizon, windowFrom[0]!, plan.points[0]!, true) : null;
  return groupRows(timelines, groupBy).map(({ members, ...g }) => {
    // Pooled: sum the totals and take the figure of the sums; time to first up, which is not a
    // total, is pooled as the mean.
    const aggregator = new Aggregator(how === 'pooled' ? 'mean' : how, n, members.length);
    const pooled = how === 'pooled' ? new Float64Array(n * FIELDS) : null;
    // Time to first up is not a total: only worked out point by point when it is the figure asked.
    const needsFirstUp = definitionOf(figure).firstUp === true;
    for (const k of members) {
      const tl = timelines[k]!;
      // Read from its row (life null: it lived in the one window), its time to first up its life's. Else swept.
      const fromRow = rows !== null && rows.lifeInto(k, totals, 0);
      const life = fromRow ? null : lifeOf(tl, horizon);
      if (!fromRow) seriesTotals(tl, horizon, plan, totals, scratch);
      const first = needsFirstUp && !fromRow ? firstUp(tl) : null;
      const rowFirstUp = needsFirstUp && fromRow ? rows!.lifeTimeToFirstUp(k) : null;
      // A point's aggregate is over the JobSets that lived in its window: one created after it or
      // gone before it is not a zero there (its totals are all 0, which only a pooled sum may add).
      if (pooled !== null) {
        for (let i = 0; i < pooled.length; i++) pooled[i]! += totals[i]!;
        if (needsFirstUp) for (let p = 0; p < n; p++) if (life === null || lived(life, windowFrom[p]!, plan.points[p]!)) aggregator.add(p, fromRow ? rowFirstUp : timeToFirstUpAt(first, plan.points[p]!));
        continue;
      }
      for (let p = 0; p < n; p++) {
        if (life !== null && !lived(life, windowFrom[p]!, plan.points[p]!)) continue;
        const ttfu = !needsFirstUp ? null : fromRow ? rowFirstUp : timeToFirstUpAt(first, plan.points[p]!);
        aggregator.add(p, figureValue(totals, p * FIELDS, figure, ttfu));
      }
    }
    const perPoint = aggregator.result();
    const values =
      pooled === null ? perPoint.map((v) => v ?? emptySum) : perPoint.map((ttfu, p) => figureValue(pooled, p * FIELDS, figure, needsFirstUp ? ttfu : null));
    return { ...g, points: plan.points, values, count: members.length };
  });
}

/**
 * Every figure over [from, to] for each group, in one pass over the fleet (a grouped table); with
 * `names`, only those (a table of one column need not work out the others for every JobSet).
 * `selected`: as fleetFigureAggregates'.
 */
export function fleetFigures(
  timelines: readonly Timeline[],
  horizon: number,
  from: number,
  to: number,
  groupBy: GroupBy,
  how: Aggregate,
  names: readonly FigureName[] = FIGURE_NAMES,
  selected = false,
): (GroupKey & { count: number; figures: Partial<Record<FigureName, number | null>> })[] {
  const rows = new WindowRows(timelines, horizon, from, to, selected);
  const totals = new Float64Array(FIELDS);
  const needsFirstUp = names.map((name) => definitionOf(name).firstUp === true);
  const anyFirstUp = needsFirstUp.includes(true);
  const valueOf = names.map((name) => definitionOf(name).value);
  return groupRows(timelines, groupBy).map(({ members, ...g }) => {
    // One aggregate a figure: the aggregator's points are the figures.
    const byFigure = new Aggregator(how === 'pooled' ? 'mean' : how, names.length, members.length);
    const pooled = new Float64Array(FIELDS);
    for (const k of members) {
      // As in a series: the aggregate is over the JobSets that lived in the window.
      if (!rows.lived(k)) continue;
      // Time to first up is not a total: only worked out when a figure asked needs it.
      const ttfu = rows.totalsInto(k, totals, 0, anyFirstUp);
      if (how === 'pooled') {
        for (let f = 0; f < FIELDS; f++) pooled[f]! += totals[f]!;
        // Time to first up, not a total, is pooled as the mean.
        for (let i = 0; i < names.length; i++) if (needsFirstUp[i]) byFigure.add(i, ttfu);
      } else {
        for (let i = 0; i < names.length; i++) byFigure.add(i, valueOf[i]!(totals, 0, ttfu));
      }
    }
    const results = byFigure.result();
    const figures: Partial<Record<FigureName, number | null>> = {};
    names.forEach((name, i) => {
      const value = results[i]!;
      const emptySum = how === 'sum' && ADDITIVE_FIGURES.includes(name) ? 0 : null;
      figures[name] = how === 'pooled' ? figureValue(pooled, 0, name, needsFirstUp[i] ? value : null) : (value ?? emptySum);
    });
    return { ...g, count: members.length, figures };
  });
}
