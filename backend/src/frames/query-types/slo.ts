// `slo`: an objective over a period per group (issue 13 section 1). One frame per group: a time
// field (one point at `to` for window `range`, else one per step) and the answer's number fields,
// each labelled with the group, for stat, gauge, time series, table panels and alert rules. `sort`
// and `limit` pick the groups a panel shows (../table.ts), by an answer's column at `to`. `format:
// table` answers the same as one table frame instead, a row per group and point: a table of
// thousands of JobSet names is then one schema, not one per name. `columns` narrows the answer's
// columns to those a panel shows (a budget table's remainingFraction), and only those are worked out.

import { z } from 'zod';
import { groupingOf, groupOf, type GroupBy, type GroupKey } from '../../series/fleet.ts';
import { nameBounds } from '../../series/names.ts';
import { selectedRows, type RunColumns } from '../../series/run-columns.ts';
import { lifeOf, lived } from '../../series/summary.ts';
import { maxBurnFactor, type MemberRows, SLO_SUMS, sloAlert, sloFigureInto, sloPlan, sloSumsByGroup, sloTotalsOf, type SloWindows } from '../../series/slo.ts';
import { objectiveOf } from '../../timeline/jobset.ts';
import type { Timeline } from '../../timeline/types.ts';
import { MAX_DAYS } from '../../query/model.ts';
import { QueryError } from '../../query/selector.ts';
import { LIMITS } from '../../query/step.ts';
import { DEFAULT_QUERY, parseDuration, type TableSort, SLO_ANSWER_COLUMNS, SLO_ANSWERS, SLO_COLUMNS, SLO_FORMATS, SLO_INDICATORS, type SloAnswer, type SloColumn } from '../../query/types.ts';
import type { QueryContext } from '../context.ts';
import { withColumnWriters, type ColumnWriter } from '../answer-bytes.ts';
import { frame, numberField, stringField, timeField, type Field, type FrameJSON } from '../frame.ts';
import { pooledGroups, type PooledGroup } from '../pooled.ts';
import { rowCells, RUN_IDENTITY_KEYS } from '../row-cells.ts';
import { isShaped, pickRows, pickRowsOfValues, refuseUnknownSortColumn, TABLE_FIELDS, tableMeta } from '../table.ts';
import { pointsOf, refuseCauseGroup, type Cost, type QueryTypeModule } from './module.ts';

/** The least compliance period: shorter ones hold too little time for a budget to mean anything. */
export const LEAST_PERIOD = '1h';
const LEAST_PERIOD_MS = parseDuration(LEAST_PERIOD)!;

/** The windows of an `slo` query; QueryError naming the field when one is out of bounds. `retentionMs`: how long the service keeps history. */
function sloWindows(query: { period: string; burnWindow: string; shortWindow: string }, retentionMs: number | null): SloWindows {
  const periodMs = parseDuration(query.period)!;
  const burnWindowMs = parseDuration(query.burnWindow)!;
  const shortWindowMs = parseDuration(query.shortWindow)!;
  const keeps = Math.min(retentionMs ?? Infinity, LIMITS.maxRangeMs);
  if (periodMs < LEAST_PERIOD_MS) throw new QueryError('period', `${query.period} is shorter than the least period of ${LEAST_PERIOD}`);
  if (periodMs > keeps) {
    throw new QueryError('period', `${query.period} is longer than the ${keeps / 86_400_000} days of history the service keeps (--retention), so part of every period would be missing`);
  }
  if (burnWindowMs > periodMs) throw new QueryError('burnWindow', `${query.burnWindow} is longer than the period (${query.period})`);
  if (shortWindowMs > burnWindowMs) throw new QueryError('shortWindow', `${query.shortWindow} is longer than the burn window (${query.burnWindow})`);
  return { periodMs, burnWindowMs, shortWindowMs };
}

/** `none`: one group per JobSet *name* (cluster, namespace, name), across its recreations. */
function sloGroupOf(tl: Timeline, groupBy: GroupBy): GroupKey {
  if (groupBy !== 'none') return groupOf(tl, groupBy);
  return {
    key: `${tl.cluster ?? ''}\u0000${tl.namespace}\u0000${tl.name}`,
    labels: { ...(tl.cluster !== undefined ? { cluster: tl.cluster } : {}), namespace: tl.namespace, jobset: tl.name },
  };
}

/**
 * A JobSet name's objective at each point t: the `upness.dev/objective` label of its newest
 * recreation that lived in that point's own period (t − P, t], else the query's objective.
 */
function nameObjectives(members: readonly Timeline[], horizon: number, fallback: number, points: readonly number[], windows: SloWindows): number[] {
  if (members.length === 1) {
    // Most names have one run in a period: its label, where it lived (without one, the query's objective wherever it lived).
    const objective = objectiveOf(members[0]!.labels) ?? fallback;
    if (objective === fallback) return new Array<number>(points.length).fill(fallback);
    const life = lifeOf(members[0]!, horizon);
    return points.map((t) => (lived(life, t - windows.periodMs, t) ? objective : fallback));
  }
  // No recreation has a label: the query's objective at every point, whichever lived.
  if (members.every((tl) => objectiveOf(tl.labels) === null)) return new Array<number>(points.length).fill(fallback);
  const newestFirst = [...members].sort((a, b) => b.createdAt - a.createdAt).map((tl) => ({ life: lifeOf(tl, horizon), objective: objectiveOf(tl.labels) }));
  return points.map((t) => {
    const newest = newestFirst.find((m) => lived(m.life, t - windows.periodMs, t));
    return newest?.objective ?? fallback;
  });
}

/**
 * Whole namespaces, clusters or the fleet, answered by the fleet index without visiting each JobSet
 * (the per-JobSet path is the reference: slo.test.ts checks they agree); null when it cannot answer.
 * Pooled sums are what an SLO is, so the index answers whatever the query's aggregate.
 */
const fromIndex = new WeakMap<QueryContext, PooledGroup[] | null>();
function sloPooledGroups(ctx: QueryContext): PooledGroup[] | null {
  if (!fromIndex.has(ctx)) {
    const pooled: QueryContext = Object.create(ctx, { query: { value: { ...ctx.query, aggregate: 'pooled' } } });
    // The figure the indicator is (both are pooled ratios of additive totals).
    fromIndex.set(ctx, pooledGroups(pooled, [ctx.query.indicator === 'schedulingGoodput' ? 'schedulingGoodput' : 'uptimeRatio']));
  }
  return fromIndex.get(ctx)!;
}

/**
 * Every group's answer as columns of numbers, no object per group (a table per JobSet name has
 * thousands): group g's point k is at g × points + k, its totals at that × SLO_SUMS (sloSumsByGroup).
 */
interface SloAnswers {
  /** Groups, in key order. */
  count: number;
  /** Group g's labels: made when a frame is written for it. */
  labels(g: number): Record<string, string>;
  /** Group g's label `key` ('' when it has none): a table's cell. */
  label(g: number, key: string): string;
  /** The label keys of the groups shown, a table's first columns (a cluster first, where any group has one). */
  dimensions(shown: readonly number[]): string[];
  /** The objective in force at each group's points. */
  objectives: Float64Array;
  /** SLO_SUMS numbers at each group's points. */
  totals: Float64Array;
  /** Per JobSet name from a selection of the engine's list: the list's run columns, and the row of each name's first run (its labels' cells are that row's). */
  firstRows?: { columns: RunColumns; rows: Int32Array };
  /** The groups are those a sort and limit picked, in the order shown, of `of` groups whose sums at `to` add up to `sumAtTo` (pickedNames). */
  picked?: { of: number; sumAtTo: Float64Array };
}

function sloAnswers(ctx: QueryContext, points: readonly number[], windows: SloWindows): SloAnswers {
  const p = points.length;
  const fallback = ctx.query.objective;
  const pooled = sloPooledGroups(ctx);
  if (pooled !== null) {
    const plan = sloPlan(points, windows);
    const totals = new Float64Array(pooled.length * p * SLO_SUMS);
    pooled.forEach((g, i) => {
      const at = sloTotalsOf(
        g.windows(plan.times, plan.starts, plan.ends).map((w) => w.totals),
        ctx.query.indicator,
      );
      at.forEach((t, k) => totals.set([t.periodUp, t.periodDown, t.burnUp, t.burnDown, t.shortUp, t.shortDown], (i * p + k) * SLO_SUMS));
    });
    return labelled(pooled, new Float64Array(pooled.length * p).fill(fallback), totals);
  }
  const groupBy = groupingOf(ctx.query);
  const timelines = ctx.timelines;
  const bounds = groupBy === 'none' ? nameBounds(timelines) : null;
  if (bounds !== null) {
    // Names in runs of the sorted selection: closed runs summed from the list's rows where it says which it holds.
    const marked = selectedRows(timelines);
    const names: Names = { timelines, bounds, rows: marked === undefined ? undefined : { ...marked, first: 0 } };
    const count = bounds.length - 1;
    const { sort, limit } = ctx.query;
    if (sort !== undefined && limit !== undefined && limit < count) return pickedNames(ctx, names, points, windows, sort, limit);
    const { totals, objectives } = nameSums(ctx, names, 0, count, points, windows);
    const first = (g: number): Timeline => timelines[bounds[g]!]!;
    return {
      count,
      labels: (g) => ({ namespace: first(g).namespace, jobset: first(g).name }),
      label: (g, key) => (key === 'namespace' ? first(g).namespace : key === 'jobset' ? first(g).name : ''),
      dimensions: () => ['namespace', 'jobset'],
      objectives,
      totals,
      ...(marked !== undefined ? { firstRows: { columns: marked.columns, rows: firstRowsOf(marked.rows, bounds) } } : {}),
    };
  }
  const groups = groupsByKey(timelines, groupBy);
  const members = groups.flatMap((g) => g.members);
  const starts = [0];
  for (const g of groups) starts.push(starts.at(-1)! + g.members.length);
  const totals = sloSumsByGroup(members, starts, ctx.horizon, points, windows, ctx.query.indicator);
  const objectives = new Float64Array(groups.length * p).fill(fallback);
  if (groupBy === 'none') groups.forEach((g, i) => objectives.set(nameObjectives(g.members, ctx.horizon, fallback, points, windows), i * p));
  return labelled(groups, objectives, totals);
}

/** SloAnswers of groups that carry their labels. */
function labelled(groups: readonly GroupKey[], objectives: Float64Array, totals: Float64Array): SloAnswers {
  return {
    count: groups.length,
    labels: (g) => groups[g]!.labels,
    label: (g, key) => groups[g]!.labels[key] ?? '',
    dimensions: (shown) => dimensionsOf(shown.map((g) => groups[g]!)),
    objectives,
    totals,
  };
}

/** The JobSet names of a sorted selection: name g's runs are timelines[bounds[g]] up to timelines[bounds[g + 1]]. */
interface Names {
  timelines: readonly Timeline[];
  bounds: Int32Array;
  rows: MemberRows | undefined;
}

/** The sums (sloSumsByGroup's layout) and objectives of names [from, to), numbered from 0; written into `into` (from its start) when given. */
function nameSums(
  ctx: QueryContext,
  names: Names,
  from: number,
  to: number,
  points: readonly number[],
  windows: SloWindows,
  into?: { totals: Float64Array; objectives: Float64Array },
): { totals: Float64Array; objectives: Float64Array } {
  const { timelines, bounds } = names;
  const p = points.length;
  const fallback = ctx.query.objective;
  // bounds' entries are indices into the whole selection, so a slice of them is the names it spans.
  const totals = sloSumsByGroup(timelines, bounds.subarray(from, to + 1), ctx.horizon, points, windows, ctx.query.indicator, names.rows, into?.totals);
  const objectives = into === undefined ? new Float64Array((to - from) * p).fill(fallback) : into.objectives.fill(fallback, 0, (to - from) * p);
  for (let g = from; g < to; g++) {
    if (!anyObjectiveLabel(timelines, bounds[g]!, bounds[g + 1]!)) continue;
    objectives.set(nameObjectives(timelines.slice(bounds[g], bounds[g + 1]), ctx.horizon, fallback, points, windows), (g - from) * p);
  }
  return { totals, objectives };
}

/** Numbers (names × points) a name table that picks a few names works out at a time. */
const PICK_CHUNK = 4096;

/**
 * The answers of the `limit` names a sort picks of many (a dashboard's "20 names with least left" of
 * ~560,000 at 10,000 JobSets × 30 d), a chunk of names at a time, each keeping only its sort value
 * and its part of the totals at `to`, then the names picked worked out again in full,
 * without a column of SLO_SUMS numbers per name and point left to the garbage collector. The same
 * rows, order, values and meta as working every name out at once.
 */
function pickedNames(ctx: QueryContext, names: Names, points: readonly number[], windows: SloWindows, sort: TableSort, limit: number): SloAnswers {
  const { timelines, bounds } = names;
  const p = points.length;
  const count = bounds.length - 1;
  const sortValues = new Float64Array(count);
  const sumAtTo = new Float64Array(SLO_SUMS);
  const chunk = Math.max(1, Math.floor(PICK_CHUNK / p));
  // One chunk's numbers, written over by each chunk in turn.
  const scratch = { totals: new Float64Array(Math.min(chunk, count) * p * SLO_SUMS), objectives: new Float64Array(Math.min(chunk, count) * p) };
  for (let from = 0; from < count; from += chunk) {
    const to = Math.min(count, from + chunk);
    const part = nameSums(ctx, names, from, to, points, windows, scratch);
    const answers = { objectives: part.objectives, totals: part.totals };
    for (let g = 0; g < to - from; g++) {
      const at = g * p + p - 1;
      // As sloTotalsAtTo adds them: name after name, in order.
      for (let j = 0; j < SLO_SUMS; j++) sumAtTo[j]! += part.totals[at * SLO_SUMS + j]!;
      valueInto(sort.by as SloColumn, answers, at, windows, ctx.query.budgetThreshold, sortValues, from + g);
    }
  }
  const shown = pickRowsOfValues(sortValues, sort, limit);
  const totals = new Float64Array(shown.length * p * SLO_SUMS);
  const objectives = new Float64Array(shown.length * p);
  shown.forEach((g, i) => {
    const one = nameSums(ctx, names, g, g + 1, points, windows);
    totals.set(one.totals, i * p * SLO_SUMS);
    objectives.set(one.objectives, i * p);
  });
  const first = (i: number): Timeline => timelines[bounds[shown[i]!]!]!;
  return {
    count: shown.length,
    labels: (i) => ({ namespace: first(i).namespace, jobset: first(i).name }),
    label: (i, key) => (key === 'namespace' ? first(i).namespace : key === 'jobset' ? first(i).name : ''),
    dimensions: () => ['namespace', 'jobset'],
    objectives,
    totals,
    picked: { of: count, sumAtTo },
  };
}

/** The list's row of each name's first run: the row of the selection's index where each name begins (bounds' last entry is the end). */
function firstRowsOf(rows: Int32Array, bounds: Int32Array): Int32Array {
  const firsts = new Int32Array(bounds.length - 1);
  for (let g = 0; g < firsts.length; g++) firsts[g] = rows[bounds[g]!]!;
  return firsts;
}

function anyObjectiveLabel(timelines: readonly Timeline[], from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (objectiveOf(timelines[i]!.labels) !== null) return true;
  return false;
}

type Members = GroupKey & { members: Timeline[] };

/** The groups of the selected JobSets, in key order. */
function groupsByKey(timelines: readonly Timeline[], groupBy: GroupBy): Members[] {
  const byKey = new Map<string, Members>();
  for (const tl of timelines) {
    const g = sloGroupOf(tl, groupBy);
    let group = byKey.get(g.key);
    if (group === undefined) byKey.set(g.key, (group = { ...g, members: [] }));
    group.members.push(tl);
  }
  return [...byKey.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

const PERCENT = 'percentunit';

const UNIT: Record<SloColumn, string> = {
  sli: PERCENT,
  objective: PERCENT,
  allowedSeconds: 's',
  consumedSeconds: 's',
  remainingSeconds: 's',
  remainingFraction: PERCENT,
  burnRate: 'none',
  timeToExhaustionSeconds: 's',
  budgetConsumed: PERCENT,
  alert: 'none',
};

/** The answer's columns a query returns: those `columns` asks for, in the answer's order; all of them when it asks none. */
function returnedColumns(query: { sloAnswer: SloAnswer; columns?: readonly SloColumn[] }): readonly SloColumn[] {
  const all = SLO_ANSWER_COLUMNS[query.sloAnswer] as readonly SloColumn[];
  const asked = query.columns;
  return asked === undefined || asked.length === 0 ? all : all.filter((c) => asked.includes(c));
}

/** Refuses a column the query's answer has not: a 400 naming it and the answer's columns. */
function refuseUnknownColumns(query: { sloAnswer: SloAnswer; columns?: readonly SloColumn[] }): void {
  const all = SLO_ANSWER_COLUMNS[query.sloAnswer] as readonly SloColumn[];
  const unknown = (query.columns ?? []).find((c) => !all.includes(c));
  if (unknown !== undefined) throw new QueryError('columns', `"${unknown}" is not a column of the ${query.sloAnswer} answer: ask for any of ${all.join(', ')}`);
}

/** One column's value at group g's point k (at g × points + k): a figure, or the alert (1 firing, 0 not). */
function valueAt(name: SloColumn, answers: Pick<SloAnswers, 'objectives' | 'totals'>, at: number, windows: SloWindows, threshold: number): number | null {
  const value = valueOrNaN(name, answers, at, windows, threshold);
  return Number.isNaN(value) ? null : value;
}

/** valueAt with NaN for null (sloFigureOrNaN). */
function valueOrNaN(name: SloColumn, answers: Pick<SloAnswers, 'objectives' | 'totals'>, at: number, windows: SloWindows, threshold: number): number {
  valueInto(name, answers, at, windows, threshold, one, 0);
  return one[0]!;
}

/** valueOrNaN's answer. */
const one = new Float64Array(1);

/** valueOrNaN written into out[i] (sloFigureInto: a double stored, not a number made on the heap). */
function valueInto(name: SloColumn, answers: Pick<SloAnswers, 'objectives' | 'totals'>, at: number, windows: SloWindows, threshold: number, out: Float64Array, i: number): void {
  const o = at * SLO_SUMS;
  const objective = answers.objectives[at]!;
  if (name === 'alert') out[i] = sloAlert(answers.totals, o, objective, threshold, windows) ? 1 : 0;
  else sloFigureInto(name, answers.totals, o, objective, windows, out, i);
}

/** The notice for a burn-rate factor that can never fire at an objective. */
function factorNotice(factor: number, objective: number, what: string): { severity: 'warning'; text: string } | null {
  const max = maxBurnFactor(objective);
  if (!(factor > max)) return null;
  return {
    severity: 'warning',
    text: `A burn-rate factor of ${factor} can never fire at an objective of ${objective}${what}: the burn rate is at most 1 / (1 − objective) = ${+max.toFixed(4)} (all the counted time down). The largest factor that can fire is ${+max.toFixed(4)}; or alert on budgetConsumed, which can fire at any objective.`,
  };
}

function sloFrames(ctx: QueryContext): FrameJSON[] {
  const { query } = ctx;
  const windows = sloWindows(query, ctx.retentionMs ?? null);
  const points = pointsOf(ctx);
  const p = points.length;
  const groupBy = groupingOf(query);
  const answers = sloAnswers(ctx, points, windows);
  if (answers.count === 0) {
    // Nothing selected: still say when the factor asked can never fire.
    const notice = query.burnFactor > 0 ? factorNotice(query.burnFactor, query.objective, '') : null;
    return notice === null ? [] : [frame([], { name: 'slo', refId: query.refId, meta: { notices: [notice] } })];
  }
  // Every group's answer is worked out (a sort needs them all); frames are made for those shown.
  const sortBy = query.sort?.by as SloColumn | undefined;
  const picked = answers.picked;
  const rows =
    picked !== undefined
      ? everyGroup(answers.count)
      : isShaped(query)
        ? pickRows(answers.count, sortBy !== undefined ? (g) => valueAt(sortBy, answers, g * p + p - 1, windows, query.budgetThreshold) : null, query.sort, query.limit)
        : null;
  const shown = rows ?? everyGroup(answers.count);
  const meta =
    rows === null ? null : picked !== undefined ? tableMeta(picked.of, rows.length, sloTotalsOfSum(ctx, picked.sumAtTo, windows)) : tableMeta(answers.count, rows.length, sloTotalsAtTo(ctx, answers, p, windows));
  if (query.format === 'table') return [sloTable(ctx, answers, shown, points, windows, meta)];
  const columns = returnedColumns(query);
  return shown.map((g, i) => {
    const labels = answers.labels(g);
    const name = groupBy === 'none' ? `${labels.namespace}/${labels.jobset}` : groupBy === 'all' ? 'all' : Object.values(labels)[0] || '(none)';
    // The notice checks the objective alert rules evaluate: the one in force at the last point (`to`).
    const notice = query.burnFactor > 0 ? factorNotice(query.burnFactor, answers.objectives[g * p + p - 1]!, groupBy === 'none' ? ` (${name})` : '') : null;
    // A shaped answer's first frame says what the whole table had.
    const table = i === 0 ? meta : null;
    const notices = [...(notice !== null ? [notice] : []), ...(table?.notices ?? [])];
    const fields = columns.map((column) => {
      const values = new Array<number | null>(p);
      for (let k = 0; k < p; k++) values[k] = valueAt(column, answers, g * p + k, windows, query.budgetThreshold);
      return numberField(column, values, { labels, unit: UNIT[column] });
    });
    return frame([timeField('time', points), ...fields], {
      name,
      refId: query.refId,
      meta: { type: 'timeseries-wide', ...(notices.length > 0 ? { notices } : {}), ...(table !== null ? { custom: table.custom } : {}) },
    });
  });
}

/** 0, 1, …, count − 1: the groups shown when the answer is not shaped (a loop: Array.from of an array-like is slower). */
function everyGroup(count: number): number[] {
  const all: number[] = [];
  for (let g = 0; g < count; g++) all.push(g);
  return all;
}

/** Whether `shown` is every group, in the answer's order (not shaped: 0, 1, …, count − 1). */
function everyInOrder(shown: readonly number[], count: number): boolean {
  if (shown.length !== count) return false;
  for (let i = 0; i < count; i++) if (shown[i] !== i) return false;
  return true;
}

/** A group's label keys as the table's first columns, in the order its labels list them (a cluster first, where any group has one). */
function dimensionsOf(groups: readonly { labels: Record<string, string> }[]): string[] {
  const keys = new Set<string>();
  for (const g of groups) for (const key in g.labels) keys.add(key);
  return keys.has('cluster') ? ['cluster', ...[...keys].filter((k) => k !== 'cluster')] : [...keys];
}

/**
 * `format: table`: the answers shown as one table frame, a row per group and point (groups in the
 * answer's order, points in time order): the group's labels as string columns, `time`, then the
 * answer's columns, the same values as the frames per group carry. The notices of the frames per
 * group (a burn factor that cannot fire) and a shaped answer's meta go on the one frame.
 */
function sloTable(
  ctx: QueryContext,
  answers: SloAnswers,
  shown: readonly number[],
  points: readonly number[],
  windows: SloWindows,
  table: ReturnType<typeof tableMeta> | null,
): FrameJSON {
  const { query } = ctx;
  const groupBy = groupingOf(query);
  const p = points.length;
  // Columns grown by push: a table per JobSet name has thousands of rows of one point each, and a
  // call of Array.prototype.fill per row was most of the table's own time (a profile of the bench's).
  const times: number[] = [];
  for (let i = 0; i < shown.length; i++) for (let k = 0; k < p; k++) times.push(points[k]!);
  // A row per name at one point, every name shown: the names' label cells are their first runs' (row-cells.ts).
  const firstRows = p === 1 && everyInOrder(shown, answers.count) ? answers.firstRows : undefined;
  // Columns whose bytes are written by a writer of their own (answer-bytes.ts), by index.
  const writers: (ColumnWriter | undefined)[] = [];
  const fields: Field[] = answers.dimensions(shown).map((d, column) => {
    const values: string[] = [];
    for (let i = 0; i < shown.length; i++) {
      const label = answers.label(shown[i]!, d);
      for (let k = 0; k < p; k++) values.push(label);
    }
    // The label's cell is the first run's namespace or name: the summary table's cell of that row.
    const key = d === 'jobset' ? 'name' : d;
    if (firstRows !== undefined) writers[column] = (sink, cells) => rowCells.writeColumn(sink, key, firstRows.columns, firstRows.rows, cells, ctx.from, ctx.to, RUN_IDENTITY_KEYS.has(key));
    return stringField(d, values, { nullable: false });
  });
  // One point: every row's time is it, written once and repeated.
  if (p === 1 && times.length > 0) {
    const cell = JSON.stringify(points[0]!);
    writers[fields.length] = (sink) => sink.text(`[${`${cell},`.repeat(times.length - 1)}${cell}]`);
  }
  fields.push(timeField('time', times, { nullable: false }));
  for (const name of returnedColumns(query)) {
    const values: (number | null)[] = [];
    for (let i = 0; i < shown.length; i++) {
      const g = shown[i]!;
      for (let k = 0; k < p; k++) values.push(valueAt(name, answers, g * p + k, windows, query.budgetThreshold));
    }
    fields.push(numberField(name, values, { unit: UNIT[name] }));
  }
  const notices: { severity: 'warning' | 'info'; text: string }[] = [];
  if (query.burnFactor > 0) {
    const seen = new Set<string>();
    for (const g of shown) {
      const notice = factorNotice(query.burnFactor, answers.objectives[g * p + p - 1]!, groupBy === 'none' ? ` (${answers.label(g, 'namespace')}/${answers.label(g, 'jobset')})` : '');
      if (notice !== null && !seen.has(notice.text)) {
        seen.add(notice.text);
        notices.push(notice);
      }
    }
  }
  notices.push(...(table?.notices ?? []));
  // No meta.type, as a summary table has none: its rows go by group, not by time.
  const meta: Record<string, unknown> = {};
  if (notices.length > 0) meta.notices = notices;
  if (table !== null) meta.custom = table.custom;
  const answer = frame(fields, { name: 'slo', refId: query.refId, ...(notices.length > 0 || table !== null ? { meta } : {}) });
  if (writers.length > 0) withColumnWriters(answer.data.values, writers);
  return answer;
}

/**
 * The totals of a shaped answer, over every group (not only those shown): the answer's columns at
 * `to` for all their JobSets as one, at the query's objective, as `groupBy: all` answers them
 * (the groups part the selection, so their pooled totals add up).
 */
function sloTotalsAtTo(ctx: QueryContext, answers: SloAnswers, p: number, windows: SloWindows): Record<string, number | null> {
  const sum = new Float64Array(SLO_SUMS);
  for (let g = 0; g < answers.count; g++) {
    const o = (g * p + p - 1) * SLO_SUMS;
    for (let j = 0; j < SLO_SUMS; j++) sum[j]! += answers.totals[o + j]!;
  }
  return sloTotalsOfSum(ctx, sum, windows);
}

/** sloTotalsAtTo of the groups' sums at `to` added up (SLO_SUMS numbers). */
function sloTotalsOfSum(ctx: QueryContext, sum: Float64Array, windows: SloWindows): Record<string, number | null> {
  const all = { objectives: Float64Array.of(ctx.query.objective), totals: sum };
  return Object.fromEntries(
    SLO_ANSWER_COLUMNS[ctx.query.sloAnswer].map((name: SloColumn) => {
      const v = valueAt(name, all, 0, windows, ctx.query.budgetThreshold);
      return [name, v !== null && Number.isFinite(v) ? v : null];
    }),
  );
}

/** A duration field of an `slo` query; `what` says what it is and its bounds (checked by sloWindows). */
function sloDuration(what: string): z.ZodString {
  return z
    .string()
    .max(100)
    .refine((s) => parseDuration(s) !== null, 'must be a duration such as 1h, 7d or 28d')
    .describe(`${what}; units ms, s, m, h, d, w`);
}

/** What an `slo` query will evaluate: its points per group when the fleet index answers, else per JobSet. */
function sloCost(ctx: QueryContext): Cost {
  const pooled = sloPooledGroups(ctx);
  const points = pointsOf(ctx).length;
  return pooled !== null ? { evaluated: pooled.length, what: 'series', points } : { evaluated: ctx.timelines.length, what: 'JobSets', points };
}

export const sloType: QueryTypeModule = {
  queryType: 'slo',
  // The period and windows against each other and the retention are checked by sloWindows.
  fields: {
    objective: z
      .number({ error: 'must be a number strictly between 0 and 1, such as 0.95' })
      .gt(0, 'must be strictly between 0 and 1, such as 0.95')
      .lt(1, 'must be strictly between 0 and 1, such as 0.95')
      .default(DEFAULT_QUERY.objective)
      .describe("slo: the objective, strictly between 0 and 1; grouped by name, a JobSet's upness.dev/objective label overrides it"),
    period: sloDuration(`slo: the compliance period, a duration from ${LEAST_PERIOD} up to the service's --retention (at most ${MAX_DAYS} days)`).default(DEFAULT_QUERY.period),
    sloAnswer: z.enum(SLO_ANSWERS).default(DEFAULT_QUERY.sloAnswer).describe('slo: which answer'),
    indicator: z
      .enum(SLO_INDICATORS)
      .default(DEFAULT_QUERY.indicator)
      .describe('slo: what the SLI measures: uptime, up ÷ (up + down); or schedulingGoodput, up ÷ wall (queued, provisioning, interruption downtime, suspended and unknown time all bad)'),
    burnWindow: sloDuration('slo: the burn window (burn rate, budget consumed lately), at most the period').default(DEFAULT_QUERY.burnWindow),
    shortWindow: sloDuration('slo: the short window of an alert (still burning), at most the burn window').default(DEFAULT_QUERY.shortWindow),
    burnFactor: z
      .number()
      .min(0, 'must be 0 (none) or a positive burn-rate factor')
      .max(1e6)
      .default(DEFAULT_QUERY.burnFactor)
      .describe('slo: a burn-rate factor meant for an alert (0: none); one the objective cannot reach gets a notice'),
    budgetThreshold: z
      .number()
      .gt(0, 'must be a fraction of the budget above 0')
      .max(1, 'must be a fraction of the budget, at most 1')
      .default(DEFAULT_QUERY.budgetThreshold)
      .describe("slo alert: the share of the period's budget consumed in the burn window that fires"),
    ...TABLE_FIELDS,
    format: z
      .enum(SLO_FORMATS, { error: 'must be series (a frame per group, the default) or table (one table frame, a row per group and point)' })
      .describe(
        'slo: how the answer is laid out: series (the default), a frame per group whose fields carry its labels; table, one table frame with the groups\' labels as columns, `time` and the answer\'s columns, a row per group and point (groups in the order sort and limit leave, meta.custom on it)',
      )
      .optional(),
    columns: z
      .array(
        z.enum(SLO_COLUMNS, {
          error: (issue) => `${typeof issue.input === 'string' ? `"${issue.input}" is not a column of an slo answer` : 'must be the name of a column of an slo answer'}: one of ${SLO_COLUMNS.join(', ')}`,
        }),
        { error: 'must be a list of the answer\'s columns, such as ["remainingFraction"]' },
      )
      .max(SLO_COLUMNS.length)
      .describe(
        'slo: only these of the answer\'s number columns (absent or empty: all of them; each must be a column of the sloAnswer asked), in the answer\'s order; the labels (or a table\'s label columns) and `time` always. Only these are worked out; the sort may name any of the answer\'s columns, returned or not, and meta.custom (rows, totals of every column) is the same whatever they are',
      )
      .optional(),
  },
  // A point covers the period ending at it: every JobSet that lived in it counts.
  selectFrom: (query, steps, from, to) => Math.min(from, pointsOf({ query, steps, to })[0]! - (parseDuration(query.period) ?? 0)),
  // The period and windows are checked, and what the query costs taken from the request's budget,
  // before any work or allocation.
  validate(ctx) {
    refuseCauseGroup(ctx.query);
    sloWindows(ctx.query, ctx.retentionMs ?? null);
    refuseUnknownColumns(ctx.query);
    refuseUnknownSortColumn(ctx.query);
  },
  cost: sloCost,
  frames: sloFrames,
};
