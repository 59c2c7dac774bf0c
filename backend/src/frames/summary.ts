// `summary`: a table, one row per JobSet (state at the end of the range and every figure), or one
// row per group with every figure aggregated.

import { FIGURE_NAMES } from '../series/figures.ts';
import { fleetFigures, type GroupBy } from '../series/fleet.ts';
import { summarize } from '../series/summary.ts';
import { unitOf } from '../query/types.ts';
import type { QueryContext } from './context.ts';
import { frame, numberField, stringField, type Field, type FrameJSON } from './frame.ts';

export function summaryFrames(ctx: QueryContext): FrameJSON[] {
  const { query } = ctx;
  const groupBy = query.groupBy as GroupBy;
  if (groupBy === 'none') {
    const rows = summarize(ctx.timelines, ctx.horizon, ctx.from, ctx.to);
    const clustered = rows.some((r) => r.cluster !== undefined);
    const fields: Field[] = [
      ...(clustered ? [stringField('cluster', rows.map((r) => r.cluster ?? ''))] : []),
      stringField('namespace', rows.map((r) => r.namespace)),
      stringField('name', rows.map((r) => r.name)),
      stringField('uid', rows.map((r) => r.uid)),
      stringField('state', rows.map((r) => r.state)),
      ...FIGURE_NAMES.map((f) => numberField(f, rows.map((r) => r[f]), { unit: unitOf(f) })),
    ];
    return [frame(fields, { name: 'summary', refId: query.refId })];
  }
  const groups = fleetFigures(ctx.timelines, ctx.horizon, ctx.from, ctx.to, groupBy, query.aggregate);
  const dimensions = groups.length > 0 ? Object.keys(groups[0]!.labels) : [];
  const fields: Field[] = [
    ...dimensions.map((d) => stringField(d, groups.map((g) => g.labels[d] ?? ''))),
    numberField('jobsets', groups.map((g) => g.count), { unit: 'none' }),
    ...FIGURE_NAMES.map((f) => numberField(f, groups.map((g) => g.figures[f]), { unit: unitOf(f) })),
  ];
  return [frame(fields, { name: 'summary', refId: query.refId })];
}
