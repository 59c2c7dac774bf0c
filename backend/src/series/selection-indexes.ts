// Fleet indexes of selections: a name pattern, a label selector, a grouping by a label's value.
// Dashboards repeat the same few selections on every refresh, so each distinct selection gets an
// index of its own (fleet-index.ts, restricted to the JobSets it selects and grouped by the label),
// built on first use from the timelines kept so far, then kept current as the service's own index
// is, while it is in use. Its answers are those of the per-JobSet path, summed in another order.
//
// What an index selects reads labels, and labels may change: an index is dropped when any timeline
// is relabeled, and built again when asked. The least recently used beyond `max`, and any unused for
// `idleMs`, are dropped too.

import type { Timeline } from '../timeline/types.ts';
import { FleetIndex, type IndexScope } from './fleet-index.ts';

export interface SelectionIndexOptions {
  /** How many indexes are kept at most. */
  max: number;
  /** An index not asked for this long is dropped. */
  idleMs: number;
}

export const SELECTION_INDEX_DEFAULTS: SelectionIndexOptions = { max: 32, idleMs: 15 * 60_000 };

interface Entry {
  index: FleetIndex;
  usedAt: number;
}

export class SelectionIndexes {
  readonly #timelines: () => Iterable<Timeline>;
  readonly #options: SelectionIndexOptions;
  /** In the order of use, least recent first (a Map keeps insertion order). */
  readonly #entries = new Map<string, Entry>();
  #built = 0;

  /** `timelines`: every timeline kept, to build a new index from. */
  constructor(timelines: () => Iterable<Timeline>, options: Partial<SelectionIndexOptions> = {}) {
    this.#timelines = timelines;
    this.#options = { ...SELECTION_INDEX_DEFAULTS, ...options };
  }

  /** The index of the selection `key` (built from `scope` when there is none), as of `now`. */
  get(key: string, scope: () => IndexScope, now: number): FleetIndex {
    for (const [k, e] of this.#entries) {
      if (now - e.usedAt > this.#options.idleMs) this.#entries.delete(k);
    }
    let entry = this.#entries.get(key);
    if (entry === undefined) {
      const index = new FleetIndex(scope());
      for (const tl of this.#timelines()) index.grew(tl, 0);
      index.prepare();
      entry = { index, usedAt: now };
      this.#built++;
    } else {
      this.#entries.delete(key);
    }
    entry.usedAt = now;
    this.#entries.set(key, entry);
    while (this.#entries.size > this.#options.max) this.#entries.delete(this.#entries.keys().next().value!);
    return entry.index;
  }

  /** How many are kept, and how many were built so far (for tests and /metrics). */
  counts(): { kept: number; built: number } {
    return { kept: this.#entries.size, built: this.#built };
  }

  grew(tl: Timeline, from: number): void {
    for (const { index } of this.#entries.values()) index.grew(tl, from);
  }

  forgot(timelines: readonly Timeline[]): void {
    for (const { index } of this.#entries.values()) index.forgot(timelines);
  }

  relabeled(): void {
    this.#entries.clear();
  }
}
