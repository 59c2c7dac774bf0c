// Every JobSet's usage history, by owner (the JobSet's UID, or `name:namespace/name`), with the
// JobSet's namespace and name as labels. Pure: the caller says when, and what retention keeps.

import type { JobSetUsage } from './jobset-usage.ts';
import { UsageHistory, type HistoryData, type HistoryOptions } from './history.ts';

export interface UsageEntry {
  owner: string;
  namespace: string;
  name: string;
  history: UsageHistory;
}

export class UsageBook {
  readonly #entries = new Map<string, UsageEntry>();
  readonly #options: HistoryOptions;

  constructor(options: HistoryOptions = {}) {
    this.#options = options;
  }

  /** Adds one sampling's sums; returns how many were kept (a sampling not after the last is not). */
  record(usages: Iterable<JobSetUsage>): number {
    let kept = 0;
    for (const usage of usages) {
      let entry = this.#entries.get(usage.owner);
      if (entry === undefined) {
        entry = { owner: usage.owner, namespace: usage.namespace, name: usage.name, history: new UsageHistory(this.#options) };
        this.#entries.set(usage.owner, entry);
      }
      if (entry.history.append(usage)) kept++;
    }
    return kept;
  }

  /** Every JobSet's history as plain data (a store's snapshot). */
  dump(): (Omit<UsageEntry, 'history'> & { history: HistoryData })[] {
    return [...this.#entries.values()].map((e) => ({ owner: e.owner, namespace: e.namespace, name: e.name, history: e.history.dump() }));
  }

  /** Takes back what a dump held (an empty book's start after a restart); an owner already held is left as it is. */
  restore(entries: Iterable<Omit<UsageEntry, 'history'> & { history: HistoryData }>): void {
    for (const e of entries) {
      if (this.#entries.has(e.owner)) continue;
      this.#entries.set(e.owner, { owner: e.owner, namespace: e.namespace, name: e.name, history: UsageHistory.restore(e.history, this.#options) });
    }
  }

  get(owner: string): UsageEntry | undefined {
    return this.#entries.get(owner);
  }

  entries(): IterableIterator<UsageEntry> {
    return this.#entries.values();
  }

  /** Folds what is older than a day and drops what retention no longer keeps; a JobSet left with nothing is forgotten. */
  compact(now: number, retainFrom = -Infinity): void {
    for (const [owner, entry] of this.#entries) {
      entry.history.compact(now, retainFrom);
      const size = entry.history.size;
      if (size.raw === 0 && size.folded === 0) this.#entries.delete(owner);
    }
  }
}
