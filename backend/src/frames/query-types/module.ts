// What a query type is: one module per type (series.ts, summary.ts, … beside this file), each
// holding its own fields of the query schema, what it refuses, which JobSets it selects, what it
// costs and the frames it answers. The request runner (../run-request.ts) only dispatches to them.

import type { z } from 'zod';
import { QueryError } from '../../query/selector.ts';
import { LIMITS, stepCount, type Steps } from '../../query/step.ts';
import type { QueryType } from '../../query/types.ts';
import type { QueryContext, ResolvedQuery } from '../context.ts';
import type { FrameJSON } from '../frame.ts';

/** What a query will evaluate, before it does: `evaluated` JobSets or series, `points` each. */
export interface Cost {
  evaluated: number;
  what: 'JobSets' | 'series';
  points: number;
  /** No aggregate makes it cheaper (usage, the up state: JobSet by JobSet whatever the grouping), so a refusal does not advise one. */
  perJobSetOnly?: boolean;
}

export interface QueryTypeModule {
  queryType: QueryType;
  /** Its own fields of the query schema, beyond those every type shares (query/model.ts); their defaults are DEFAULT_QUERY's, which the editor shares. */
  fields: z.ZodRawShape;
  /** Where its selection begins: the JobSets that lived in [selectFrom, to] count. */
  selectFrom(query: ResolvedQuery, steps: Steps, from: number, to: number): number;
  /** Throws a QueryError for what the query cannot answer, before its cost is taken. */
  validate(ctx: QueryContext): void;
  cost(ctx: QueryContext): Cost;
  frames(ctx: QueryContext): FrameJSON[];
}

/** The points of a query that has points (series, slo): `to` alone for window `range`, else every step. */
export function pointsOf(ctx: Pick<QueryContext, 'query' | 'steps' | 'to'>): number[] {
  if (ctx.query.window === 'range') return [ctx.to];
  return Array.from({ length: stepCount(ctx.steps) }, (_, k) => ctx.steps.first + k * ctx.steps.stepMs);
}

/** The selection of most types: the JobSets that lived in the range itself. */
export const rangeStart = (_query: ResolvedQuery, _steps: Steps, from: number): number => from;

/** The cost of a type that works out one value (a row, a pass) per selected JobSet. */
export const perJobSet = (ctx: QueryContext): Cost => ({ evaluated: ctx.timelines.length, what: 'JobSets', points: 1 });

/** `groupBy: cause` counts an `events` query's interruptions: every other type refuses it. */
export function refuseCauseGroup(query: ResolvedQuery): void {
  if (query.groupBy === 'cause') throw new QueryError('groupBy', 'cause counts the interruptions of an events query: use it with queryType events');
}

/** A type that answers a series per JobSet when not grouped refuses, before any work, a selection larger than the series limit. */
export function refuseSeriesPerJobSetOverLimit(ctx: QueryContext): void {
  if (ctx.query.groupBy === 'none' && ctx.timelines.length > LIMITS.maxSeriesPerQuery) {
    throw new QueryError(
      'groupBy',
      `the query selects ${ctx.timelines.length} JobSets, more series than the limit of ${LIMITS.maxSeriesPerQuery}: narrow it with namespaces, name or labelSelector, or group it`,
    );
  }
}
