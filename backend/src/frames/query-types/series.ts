// `series`: a metric over time, one frame per group (per JobSet when not grouped). Each frame
// carries its group's labels on the value field: what multi-dimensional alert rules key on.

import { Aggregator, fleetSeries, groupingOf, groupTimelines, type Aggregate, type GroupBy } from '../../series/fleet.ts';
import { figureValue, stateAt } from '../../series/figures.ts';
import type { PooledWindow } from '../../series/fleet-index.ts';
import { planSeries, type RangeSpec } from '../../series/range.ts';
import type { Timeline } from '../../timeline/types.ts';
import { stepCount } from '../../query/step.ts';
import { QueryError } from '../../query/selector.ts';
import { isUsageMetric, parseDuration, unitOf, type UsageMetric } from '../../query/types.ts';
import type { QueryContext } from '../context.ts';
import { frame, numberField, timeField, type FrameJSON } from '../frame.ts';
import { pooledGroups } from '../pooled.ts';
import { noUsageFrame, usageGroups } from '../usage.ts';
import { pointsOf, refuseCauseGroup, refuseSeriesPerJobSetOverLimit, type Cost, type QueryTypeModule } from './module.ts';

interface Group {
  key: string;
  labels: Record<string, string>;
  points: number[];
  values: (number | null)[];
}

/** 1 up, 0 provisioning or down (counting against uptime), null otherwise (not in either). */
function upValue(tl: Timeline, t: number): number | null {
  const state = stateAt(tl, t);
  if (state === 'up') return 1;
  if (state === 'provisioning' || state === 'down') return 0;
  return null;
}

/**
 * What a series query will work out, known before any of it is: its points per series, times the
 * groups when the fleet index answers per group, else times the JobSets it evaluates one by one.
 */
function seriesCost(ctx: QueryContext): Cost {
  const count = ctx.query.window === 'range' ? 1 : stepCount(ctx.steps);
  // Usage: each selected JobSet's steps at every point; nothing when the service keeps no usage.
  if (isUsageMetric(ctx.query.metric)) return { points: count, evaluated: ctx.usage ? ctx.timelines.length : 0, what: 'JobSets', perJobSetOnly: true };
  if (ctx.query.metric === 'up') return { points: count, evaluated: ctx.timelines.length, what: 'JobSets', perJobSetOnly: true };
  const pooled = pooledGroups(ctx, [ctx.query.metric as Exclude<typeof ctx.query.metric, 'up' | UsageMetric>]);
  if (pooled !== null) return { points: count, evaluated: pooled.length, what: 'series' };
  return { points: count, evaluated: ctx.timelines.length, what: 'JobSets' };
}

function upSeries(ctx: QueryContext, groupBy: GroupBy, how: Aggregate): Group[] {
  const at = pointsOf(ctx);
  return groupTimelines(ctx.timelines, groupBy).map(({ key, labels, members }) => {
      // Pooled for a 0/1 state is the share of members up: the mean.
      const aggregator = new Aggregator(how === 'pooled' ? 'mean' : how, at.length, members.length);
      for (const tl of members) at.forEach((t, k) => aggregator.add(k, upValue(tl, t)));
      return { key, labels, points: at, values: aggregator.result() };
    });
}

/** The points and windows of a series query (`range`: one point at `to` covering the whole range). */
function seriesSpec(query: QueryContext['query'], steps: QueryContext['steps'], from: number, to: number): RangeSpec {
  if (query.window === 'range') return { start: to, end: to, stepMs: 1, mode: 'rolling', rollingMs: to - from };
  if (query.window === 'rolling') return { start: steps.first, end: steps.last, stepMs: steps.stepMs, mode: 'rolling', rollingMs: parseRolling(query.rolling) };
  // `cumulative`: the point at t covers [from, t].
  return { start: steps.first, end: steps.last, stepMs: steps.stepMs, mode: query.window, from };
}

/** Where the earliest window of the series begins: a point's window counts every JobSet that lived in it. */
function seriesWindowStart(spec: RangeSpec): number {
  if (spec.mode === 'cumulative') return spec.from ?? spec.start;
  return spec.mode === 'rolling' ? spec.start - (spec.rollingMs ?? 0) : spec.start - spec.stepMs;
}

function figureSeries(ctx: QueryContext, groupBy: GroupBy, how: Aggregate): Group[] {
  const { query } = ctx;
  const figure = query.metric as Exclude<typeof query.metric, 'up' | UsageMetric>;
  const spec = seriesSpec(query, ctx.steps, ctx.from, ctx.to);
  const pooled = pooledGroups(ctx, [figure]);
  if (pooled !== null) {
    const plan = planSeries(spec);
    // A panel often asks several figures of one selection over the same windows ("where the time
    // went"): the windows' sums are worked out once per request, each figure read from them (the
    // grouping with its size buckets: two bucketings of one selection are other groups).
    const key = JSON.stringify(['pooled windows', query.name, query.labelSelector, groupBy, query.clusters, query.namespaces, spec, ctx.selectFrom, ctx.to, ctx.horizon]);
    let windows = ctx.memo?.get(key) as PooledWindow[][] | undefined;
    if (windows === undefined) {
      windows = pooled.map((g) => g.windows(plan.times, plan.starts, plan.ends));
      ctx.memo?.set(key, windows);
    }
    return pooled.map((g, i) => ({
      key: g.key,
      labels: g.labels,
      points: plan.points,
      values: windows[i]!.map((w) => figureValue(w.totals, 0, figure, w.timeToFirstUpSeconds)),
    }));
  }
  // Over one window (`range`), the selection is of the JobSets that lived in it: their closed runs read by row.
  return fleetSeries(ctx.timelines, ctx.horizon, spec, figure, groupBy, how, query.window === 'range' && ctx.selectFrom === ctx.from);
}

/** A usage metric's groups: each point's value is the mean of the usage over the point's window (the figures' windows). */
function usageSeriesGroups(ctx: QueryContext, metric: UsageMetric, groupBy: GroupBy, how: Aggregate): Group[] {
  const spec = seriesSpec(ctx.query, ctx.steps, ctx.from, ctx.to);
  const points = pointsOf(ctx);
  const starts = points.map((t) => (spec.mode === 'cumulative' ? (spec.from ?? spec.start) : spec.mode === 'rolling' ? t - (spec.rollingMs ?? 0) : t - spec.stepMs));
  return usageGroups(ctx.usage!, ctx.timelines, metric, groupBy, how, starts, points).map((g) => ({ ...g, points }));
}

function parseRolling(rolling: string): number {
  return parseDuration(rolling) ?? 86_400_000;
}

export function seriesFrames(ctx: QueryContext): FrameJSON[] {
  const { query } = ctx;
  const groupBy = groupingOf(query);
  const how = query.aggregate;
  if (isUsageMetric(query.metric) && !ctx.usage) return [noUsageFrame(query.refId)];
  const groups = query.metric === 'up' ? upSeries(ctx, groupBy, how) : isUsageMetric(query.metric) ? usageSeriesGroups(ctx, query.metric, groupBy, how) : figureSeries(ctx, groupBy, how);
  const unit = unitOf(query.metric);
  const names = groups.map((g) =>
    groupBy === 'none' ? `${g.labels.namespace}/${g.labels.jobset}` : groupBy === 'all' ? query.metric : Object.values(g.labels)[0] || '(none)',
  );
  const seen = new Map<string, number>();
  for (const n of names) seen.set(n, (seen.get(n) ?? 0) + 1);
  return groups.map((g, i) => {
    // A JobSet created again under its name is another UID: tell the two apart in the legend.
    const displayName = seen.get(names[i]!)! > 1 && g.labels.uid ? `${names[i]} (${g.labels.uid.slice(0, 8)})` : names[i]!;
    return frame(
      [timeField('time', g.points), numberField(query.metric, g.values, { labels: g.labels, unit, displayName })],
      { name: displayName, refId: query.refId, meta: { type: 'timeseries-multi', typeVersion: [0, 1] } },
    );
  });
}

export const seriesType: QueryTypeModule = {
  queryType: 'series',
  fields: {},
  // A point's window counts every JobSet that lived in it, also before `from`; `up` is a state at
  // each point, not a window.
  selectFrom: (query, steps, from, to) => (query.metric === 'up' ? from : Math.min(from, seriesWindowStart(seriesSpec(query, steps, from, to)))),
  validate(ctx) {
    refuseCauseGroup(ctx.query);
    if (isUsageMetric(ctx.query.metric) && ctx.query.layer !== 'jobset') {
      throw new QueryError('layer', `${ctx.query.metric} is the resource usage of a JobSet's pods: ask it of layer jobset, not ${ctx.query.layer}`);
    }
    refuseSeriesPerJobSetOverLimit(ctx);
  },
  cost: seriesCost,
  frames: seriesFrames,
};
