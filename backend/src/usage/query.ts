// What the query layer asks of the usage book for the JobSets a query selected: a metric's series
// per JobSet or summed per group, and its means split by state over a window. A JobSet's usage is
// found by its UID, else (pods without the UID label) by its namespace/name. Pure.

import type { Timeline } from '../timeline/types.ts';
import type { UsageBook, UsageEntry } from './book.ts';
import { usageByState, type UsageByState } from './by-state.ts';
import type { UsageMetric } from './jobset-usage.ts';
import { sumSeries, usageOverWindows } from './series.ts';

type Identity = Pick<Timeline, 'uid' | 'namespace' | 'name'>;

/** The usage kept for a JobSet timeline, if any. */
export function usageOf(book: Pick<UsageBook, 'get'>, timeline: Identity): UsageEntry | undefined {
  return book.get(timeline.uid) ?? book.get(`name:${timeline.namespace}/${timeline.name}`);
}

/** A JobSet's series of `metric` at `points` (each the mean over the window ending there); all null without usage. */
export function jobsetUsageSeries(book: Pick<UsageBook, 'get'>, timeline: Identity, metric: UsageMetric, points: readonly number[], windowMs: number): (number | null)[] {
  return jobsetUsageOverWindows(
    book,
    timeline,
    metric,
    points.map((t) => t - windowMs),
    points,
  );
}

/** A JobSet's mean of `metric` over each window (starts[k], ends[k]], both ascending; all null without usage. */
export function jobsetUsageOverWindows(book: Pick<UsageBook, 'get'>, timeline: Identity, metric: UsageMetric, starts: readonly number[], ends: readonly number[]): (number | null)[] {
  const entry = usageOf(book, timeline);
  if (entry === undefined || ends.length === 0) return ends.map(() => null);
  return usageOverWindows(entry.history.segments(metric, starts[0]!, ends[ends.length - 1]!), starts, ends);
}

/** The group's members' series summed (the usage of a namespace is its JobSets' together). */
export function groupUsageSeries(book: Pick<UsageBook, 'get'>, members: readonly Identity[], metric: UsageMetric, points: readonly number[], windowMs: number): (number | null)[] {
  return sumSeries(
    members.map((tl) => jobsetUsageSeries(book, tl, metric, points, windowMs)),
    points.length,
  );
}

/** A JobSet's means of `metric` split by its states over [from, to]; every mean null without usage. */
export function jobsetUsageByState(book: Pick<UsageBook, 'get'>, timeline: Identity & Pick<Timeline, 'transitions'>, metric: UsageMetric, now: number, from: number, to: number): UsageByState {
  const entry = usageOf(book, timeline);
  const segments = entry?.history.segments(metric, from, to) ?? { starts: new Float64Array(), ends: new Float64Array(), values: new Float64Array() };
  return usageByState(segments, timeline, now, from, to);
}
