// Pooled figures of whole namespaces or clusters straight from the fleet index, and of any name
// pattern, label selector or grouping by a label from the index of that selection, without visiting
// each JobSet: what fleet dashboards and alert rules ask most. Used only where it gives the very answer
// the per-JobSet path would (series/fleet-index.test.ts checks the two against each other), else null.

import { literalName, parseLabelSelector, parseNamePattern } from '../query/selector.ts';
import { ADDITIVE_FIGURES, type FigureName } from '../series/figures.ts';
import { QUEUE_LABEL, type GroupKey } from '../series/fleet.ts';
import type { FleetIndex, IndexScope, Partition, PooledWindow } from '../series/fleet-index.ts';
import type { Timeline } from '../timeline/types.ts';
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

/** The label a grouping reads (the queue is a label too); null when it groups by no label. */
function labelOf(groupBy: string): string | null {
  if (groupBy === 'queue') return QUEUE_LABEL;
  return groupBy.startsWith('label:') ? groupBy.slice('label:'.length) : null;
}

/**
 * The index that answers the query's selection: the service's own for whole namespaces and
 * clusters; for a name pattern, a label selector or a grouping by a label, the index of that
 * selection (series/selection-indexes.ts). Null when neither can.
 */
function indexFor(ctx: QueryContext): { index: FleetIndex; label: string | null } | null {
  const { query } = ctx;
  const label = labelOf(query.groupBy);
  const whole = query.groupBy === 'all' || query.groupBy === 'namespace' || query.groupBy === 'cluster';
  if (!whole && label === null) return null;
  if (query.name === '' && query.labelSelector === '' && label === null) return ctx.index === null ? null : { index: ctx.index, label };
  // One JobSet name (a detail dashboard) selects a few JobSets by bisection: cheaper JobSet by
  // JobSet than an index of its own, which would push out the ones dashboards share.
  if (literalName(query.name) !== null) return null;
  const selections = ctx.selections ?? null;
  if (selections === null) return null;
  const key = JSON.stringify([query.name, query.labelSelector, label]);
  const scope = (): IndexScope => {
    const nameMatches = parseNamePattern(query.name);
    const labelsMatch = parseLabelSelector(query.labelSelector);
    return {
      accepts: (tl) => nameMatches(tl.name) && labelsMatch(tl.labels),
      ...(label === null ? {} : { groupOf: (tl: Timeline) => tl.labels[label] ?? '' }),
    };
  };
  return { index: selections.get(key, scope, ctx.now), label };
}

function buildPooledGroups(ctx: QueryContext, figures: readonly FigureName[]): PooledGroup[] | null {
  const { query, horizon, selectFrom, to } = ctx;
  // The node layer keeps no index (a JobSet's nodes are asked one JobSet at a time); the pools' has one.
  if (query.layer === 'nodes') return null;
  const poolable = query.aggregate === 'pooled' || (query.aggregate === 'sum' && figures.every((f) => ADDITIVE_FIGURES.includes(f)));
  if (!poolable) return null;
  // The state at the end of the range picks single JobSets: only the per-JobSet path answers it.
  if (query.states.length > 0) return null;
  const chosen = indexFor(ctx);
  if (chosen === null) return null;
  const { index, label } = chosen;
  const by = query.groupBy;
  const partitions = index.partitions(query.clusters, query.namespaces);
  if (!index.covers(partitions, horizon)) return null;
  const groups = new Map<string, { labels: Record<string, string>; partitions: Partition[] }>();
  for (const p of partitions) {
    const key = label !== null ? p.group : by === 'all' ? '' : by === 'namespace' ? p.namespace : (p.cluster ?? '');
    const labels: Record<string, string> =
      label !== null ? { [by === 'queue' ? 'queue' : label]: p.group } : by === 'all' ? {} : by === 'namespace' ? { namespace: p.namespace } : { cluster: p.cluster ?? '' };
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
