// Pooled figures of whole namespaces or clusters straight from the fleet index, without visiting each
// JobSet: what fleet dashboards and alert rules ask most. Used only where it gives the very answer
// the per-JobSet path would (series/fleet-index.test.ts checks the two against each other), else null.

import { ADDITIVE_FIGURES, type FigureName } from '../series/figures.ts';
import type { GroupKey } from '../series/fleet.ts';
import type { Partition, PooledWindow } from '../series/fleet-index.ts';
import type { QueryContext } from './context.ts';

export interface PooledGroup extends GroupKey {
  /** The window's sums for each (from, to] asked; its count and time to first up: of the JobSets that lived in it. */
  window(from: number, to: number): PooledWindow;
  /** Many windows (times[starts[k]], times[ends[k]]] at once, each boundary evaluated once. */
  windows(times: ArrayLike<number>, starts: ArrayLike<number>, ends: ArrayLike<number>): PooledWindow[];
  /** JobSets the query selects in the group. */
  count: number;
}

/**
 * The query's groups, each answered from the index; null when the index cannot answer the query.
 * `figures`: what the query shows. A sum of additive figures (durations, counts) is the figure of the
 * summed totals, so `sum` is answered as `pooled` is.
 */
export function pooledGroups(ctx: QueryContext, figures: readonly FigureName[]): PooledGroup[] | null {
  // A query asks twice (its cost, then its frames) with the same figures: build the groups once.
  const key = figures.join();
  const asked = answered.get(ctx);
  if (asked?.key === key) return asked.groups;
  const groups = buildPooledGroups(ctx, figures);
  answered.set(ctx, { key, groups });
  return groups;
}

const answered = new WeakMap<QueryContext, { key: string; groups: PooledGroup[] | null }>();

function buildPooledGroups(ctx: QueryContext, figures: readonly FigureName[]): PooledGroup[] | null {
  const { query, index, horizon, selectFrom, to } = ctx;
  if (index === null || query.layer !== 'jobset') return null;
  const poolable = query.aggregate === 'pooled' || (query.aggregate === 'sum' && figures.every((f) => ADDITIVE_FIGURES.includes(f)));
  if (!poolable) return null;
  // Only what selects whole namespaces or clusters: a name, labels or states pick single JobSets.
  if (query.name !== '' || query.labelSelector !== '' || query.states.length > 0) return null;
  const by = query.groupBy;
  if (by !== 'all' && by !== 'namespace' && by !== 'cluster') return null;
  const partitions = index.partitions(query.clusters, query.namespaces);
  if (!index.covers(partitions, horizon)) return null;
  const groups = new Map<string, { labels: Record<string, string>; partitions: Partition[] }>();
  for (const p of partitions) {
    const key = by === 'all' ? '' : by === 'namespace' ? p.namespace : (p.cluster ?? '');
    const labels: Record<string, string> = by === 'all' ? {} : by === 'namespace' ? { namespace: p.namespace } : { cluster: p.cluster ?? '' };
    let group = groups.get(key);
    if (group === undefined) groups.set(key, (group = { labels, partitions: [] }));
    group.partitions.push(p);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, g]) => ({
      key,
      labels: g.labels,
      window: (from: number, windowTo: number) => index.window(g.partitions, horizon, from, windowTo),
      windows: (times: ArrayLike<number>, starts: ArrayLike<number>, ends: ArrayLike<number>) => index.windows(g.partitions, horizon, times, starts, ends),
      // The JobSets the query selected: those that lived in [selectFrom, to].
      count: index.window(g.partitions, horizon, selectFrom, to).count,
    }))
    // A group none of whose JobSets lived in the range is not in the answer (as when grouping them one by one).
    .filter((g) => g.count > 0);
}
