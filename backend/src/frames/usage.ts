// Resource usage in the query types (README "Resource usage"): a `series` of a usage metric, per
// JobSet or per group, and a `summary`'s columns of a usage metric's means split by state. The
// usage book is the service's (the sampler's, or the simulator's); without one, the answer is
// empty and says why, never an error: the query is right, the source has no usage.

import { Aggregator, groupTimelines, type Aggregate, type GroupBy } from '../series/fleet.ts';
import type { Timeline } from '../timeline/types.ts';
import { unitOf, USAGE_SPLITS, usageColumn, type UsageMetric } from '../query/types.ts';
import type { UsageBook } from '../usage/book.ts';
import type { StateMean, UsageByState } from '../usage/by-state.ts';
import { jobsetUsageByState, jobsetUsageOverWindows } from '../usage/query.ts';
import type { QueryContext } from './context.ts';
import { noticeFrame, numberField, type Field, type FrameJSON } from './frame.ts';

export const NO_USAGE =
  'No resource usage here: it is sampled from the kubelets of a Kubernetes cluster (upness serve --watch-usage) or made by the simulator, and this source has none.';

/** The notice a panel shows when the service keeps no usage. */
export const NO_USAGE_NOTICE = { severity: 'info', text: NO_USAGE } as const;

/** An answer without usage. */
export function noUsageFrame(refId: string): FrameJSON {
  return noticeFrame(refId, 'usage', NO_USAGE);
}

export interface UsageGroup {
  key: string;
  labels: Record<string, string>;
  values: (number | null)[];
}

/**
 * A usage metric's series, per group, over each window (starts[k], ends[k]]. A JobSet's value is
 * the time-weighted mean of its usage in the window; a group's combines its members' by
 * `aggregate`: `sum` and `pooled` (the group as one) add them up, the others (mean, min, max,
 * percentiles) are taken across the members that have a value. A JobSet with no usage in a window
 * is in no aggregate; a point where no member has any is null.
 */
export function usageGroups(book: Pick<UsageBook, 'get'>, timelines: readonly Timeline[], metric: UsageMetric, groupBy: GroupBy, how: Aggregate, starts: readonly number[], ends: readonly number[]): UsageGroup[] {
  return groupTimelines(timelines, groupBy).map(({ key, labels, members }) => {
      const aggregator = new Aggregator(how === 'pooled' ? 'sum' : how, ends.length, members.length);
      for (const tl of members) jobsetUsageOverWindows(book, tl, metric, starts, ends).forEach((v, k) => aggregator.add(k, v));
      return { key, labels, values: aggregator.result() };
    });
}

/** The split of a group's members pooled: Σ(mean × covered) ÷ Σ covered, so each JobSet weighs by the time it stands on. */
export function pooledSplit(splits: readonly UsageByState[]): Record<(typeof USAGE_SPLITS)[number], StateMean> {
  // One JobSet: its own means, as they are.
  if (splits.length === 1) return splits[0]!;
  const out = {} as Record<(typeof USAGE_SPLITS)[number], StateMean>;
  for (const split of USAGE_SPLITS) {
    let area = 0;
    let covered = 0;
    let total = 0;
    for (const s of splits) {
      const m = s[split];
      if (m.mean !== null) area += m.mean * m.coveredSeconds;
      covered += m.coveredSeconds;
      total += m.stateSeconds;
    }
    out[split] = { mean: covered > 0 ? area / covered : null, coveredSeconds: covered, stateSeconds: total };
  }
  return out;
}

/**
 * A summary's usage columns (`<metric>While<State>`), one value per row: a JobSet's own split over
 * [from, to], or a group's members pooled. Null where a row has no usage covering that state.
 */
export function usageByStateFields(ctx: QueryContext, rows: readonly (readonly Timeline[])[]): Field[] {
  const book = ctx.usage ?? null;
  const fields: Field[] = [];
  for (const metric of ctx.query.usageByState) {
    const splits = rows.map((members) =>
      pooledSplit(book === null ? [] : members.map((tl) => jobsetUsageByState(book, tl, metric, ctx.horizon, ctx.from, ctx.to))),
    );
    const unit = unitOf(metric);
    for (const split of USAGE_SPLITS) fields.push(numberField(usageColumn(metric, split), splits.map((s) => s[split].mean), { unit }));
  }
  return fields;
}
