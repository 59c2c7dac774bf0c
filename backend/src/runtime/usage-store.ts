// The usage book and a store (the embedded data dir, PostgreSQL): samplings written as they are taken,
// each JobSet's compact history in every snapshot (PostgreSQL: its folded buckets), and the two read
// back into a book after a restart.

import type { UsageRecord, UsageSnapshotEntry } from '../store/store.ts';
import type { UsageBook } from '../usage/book.ts';
import { USAGE_METRICS, type JobSetUsage, type UsageMetric } from '../usage/jobset-usage.ts';

/** How long a sampling holds: twice the interval, so one missed sampling leaves no hole, two do. */
export function usageHoldMs(intervalMs: number): number {
  return 2 * intervalMs;
}

/** Samplings as the store writes them: the values in USAGE_METRICS' order. */
export function usageRecords(usages: readonly JobSetUsage[]): UsageRecord[] {
  return usages.map((u) => ({ k: 'usage', owner: u.owner, ns: u.namespace, name: u.name, at: u.at, v: USAGE_METRICS.map((m) => u.values[m]) }));
}

/** A logged sampling back as the book takes it. */
export function usageOf(record: UsageRecord): JobSetUsage {
  const values = Object.fromEntries(USAGE_METRICS.map((m, i) => [m, record.v[i] ?? null])) as Record<UsageMetric, number | null>;
  return { owner: record.owner, namespace: record.ns, name: record.name, at: record.at, values };
}

/** Fills an empty book with what a store kept: the snapshot's histories, then the samplings logged after it; then drops what retention no longer keeps. */
export function restoreUsage(book: UsageBook, kept: { snapshot: readonly UsageSnapshotEntry[]; log: readonly UsageRecord[] } | undefined, now: number, retentionMs?: number): void {
  if (kept === undefined) return;
  book.restore(kept.snapshot);
  for (const record of kept.log) book.record([usageOf(record)]);
  book.compact(now, retentionMs !== undefined ? now - retentionMs : -Infinity);
}
