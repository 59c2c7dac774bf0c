// `fleet`: how a metric is distributed across the JobSets of each group, as a table.

import { fleetFigureAggregates, groupingOf } from '../../series/fleet.ts';
import { QueryError } from '../../query/selector.ts';
import { isUsageMetric, unitOf, type Metric, type UsageMetric } from '../../query/types.ts';
import type { FigureName } from '../../series/figures.ts';
import type { QueryContext } from '../context.ts';
import { frame, numberField, stringField, type FrameJSON } from '../frame.ts';
import { perJobSet, rangeStart, refuseCauseGroup, type QueryTypeModule } from './module.ts';

const STATISTICS = ['min', 'mean', 'p50', 'p90', 'p99', 'max'] as const;

export function fleetFrames(ctx: QueryContext): FrameJSON[] {
  const { query } = ctx;
  // `none` would make each JobSet its own distribution of one: the fleet as a whole is meant.
  const groupBy = query.groupBy === 'none' ? 'all' : groupingOf(query);
  const metric: FigureName = query.metric === 'up' ? 'uptimeRatio' : (query.metric as Exclude<Metric, 'up' | UsageMetric>);
  // Each JobSet's figure once, every statistic of it.
  // The selection is of the JobSets that lived in [from, to] (selectFrom is `from`): not tested again.
  const groups = fleetFigureAggregates(ctx.timelines, ctx.horizon, ctx.from, ctx.to, metric, groupBy, STATISTICS, ctx.selectFrom === ctx.from);
  const dimensions = groups.length > 0 ? Object.keys(groups[0]!.labels) : [];
  const unit = unitOf(metric);
  return [
    frame(
      [
        ...dimensions.map((d) => stringField(d, groups.map((g) => g.labels[d] ?? ''))),
        numberField('jobsets', groups.map((g) => g.count), { unit: 'none' }),
        ...STATISTICS.map((s, i) => numberField(s, groups.map((g) => g.values[i]!), { unit, displayName: `${metric} ${s}` })),
      ],
      { name: `${metric} across JobSets`, refId: query.refId },
    ),
  ];
}

export const fleetType: QueryTypeModule = {
  queryType: 'fleet',
  fields: {},
  selectFrom: rangeStart,
  validate(ctx) {
    refuseCauseGroup(ctx.query);
    if (isUsageMetric(ctx.query.metric)) throw new QueryError('metric', `${ctx.query.metric} is resource usage: ask it of a series query (over time), or of a summary's usageByState (split by state)`);
  },
  cost: perJobSet,
  frames: fleetFrames,
};
