// `summary`: a table, one row per JobSet (state at the end of the range and every figure), or one
// row per group with every figure aggregated. `figures` narrows the columns to those asked for.

import { z } from 'zod';
import { FIGURE_NAMES, figuresFromTotals, figureValue, type FigureName } from '../../series/figures.ts';
import { fleetFigures, type GroupBy } from '../../series/fleet.ts';
import { summaryColumns } from '../../series/summary.ts';
import { FIELDS } from '../../series/totals.ts';
import { figureName } from '../../query/model.ts';
import { DEFAULT_QUERY, FIGURES, unitOf } from '../../query/types.ts';
import type { QueryContext } from '../context.ts';
import { frame, numberField, stringField, type Field, type FrameJSON } from '../frame.ts';
import { pooledGroups } from '../pooled.ts';
import { perJobSet, rangeStart, refuseCauseGroup, type Cost, type QueryTypeModule } from './module.ts';

/** The figure columns the query asks for, in the table's order (all of them by default). */
function figureColumns(ctx: QueryContext): readonly FigureName[] {
  const asked = ctx.query.figures;
  return asked.length === 0 ? FIGURE_NAMES : FIGURE_NAMES.filter((f) => asked.includes(f));
}

/** What a summary will work out before any of it is: a row per group when the fleet index answers, else a row (or a pass) per JobSet. */
function summaryCost(ctx: QueryContext): Cost {
  if (ctx.query.groupBy !== 'none') {
    const pooled = pooledGroups(ctx, figureColumns(ctx));
    if (pooled !== null) return { evaluated: pooled.length, what: 'series', points: 1 };
  }
  return perJobSet(ctx);
}

export function summaryFrames(ctx: QueryContext): FrameJSON[] {
  const { query } = ctx;
  const groupBy = query.groupBy as GroupBy;
  const columns = figureColumns(ctx);
  if (groupBy === 'none') {
    const c = summaryColumns(ctx.timelines, ctx.horizon, ctx.from, ctx.to);
    const n = c.timelines.length;
    const clustered = c.timelines.some((tl) => tl.cluster !== undefined);
    const figureField = (f: FigureName): Field => {
      const values = new Array<number | null>(n);
      for (let i = 0; i < n; i++) values[i] = figureValue(c.totals, i * FIELDS, f, c.timeToFirstUp[i]!);
      return numberField(f, values, { unit: unitOf(f) });
    };
    const fields: Field[] = [
      ...(clustered ? [stringField('cluster', c.timelines.map((tl) => tl.cluster ?? ''))] : []),
      stringField('namespace', c.timelines.map((tl) => tl.namespace)),
      stringField('name', c.timelines.map((tl) => tl.name)),
      stringField('uid', c.timelines.map((tl) => tl.uid)),
      stringField('state', c.states),
      ...columns.map(figureField),
    ];
    return [frame(fields, { name: 'summary', refId: query.refId })];
  }
  const pooled = pooledGroups(ctx, columns);
  const groups =
    pooled !== null
      ? pooled.map(({ key, labels, count, window }) => {
          const w = window(ctx.from, ctx.to);
          return { key, labels, count, figures: figuresFromTotals(w.totals, w.timeToFirstUpSeconds) };
        })
      : fleetFigures(ctx.timelines, ctx.horizon, ctx.from, ctx.to, groupBy, query.aggregate);
  const dimensions = groups.length > 0 ? Object.keys(groups[0]!.labels) : [];
  const fields: Field[] = [
    ...dimensions.map((d) => stringField(d, groups.map((g) => g.labels[d] ?? ''))),
    numberField('jobsets', groups.map((g) => g.count), { unit: 'none' }),
    ...columns.map((f) => numberField(f, groups.map((g) => g.figures[f]), { unit: unitOf(f) })),
  ];
  return [frame(fields, { name: 'summary', refId: query.refId })];
}

export const summaryType: QueryTypeModule = {
  queryType: 'summary',
  fields: {
    figures: z.array(figureName).max(FIGURES.length).default(DEFAULT_QUERY.figures as (typeof FIGURES)[number][]).describe('summary: only these figure columns (empty: every figure)'),
  },
  selectFrom: rangeStart,
  validate: (ctx) => refuseCauseGroup(ctx.query),
  cost: summaryCost,
  frames: summaryFrames,
};
