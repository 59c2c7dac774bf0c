// Fleet indexes of selections: a name pattern, a label selector, a grouping by a label's value.
// Dashboards repeat the same few selections on every refresh, so each distinct selection gets an
// index of its own (fleet-index.ts, restricted to the JobSets it selects and grouped by the label),
// built on first use from the timelines kept so far, then kept current as the service's own index
// is, while it is in use. Its answers are those of the per-JobSet path, summed in another order.
//
// What an index selects reads labels, and labels may change: an index is dropped when any timeline
// is relabeled, and built again when asked. The least recently used beyond `max`, any unused for
// `idleMs`, and the least recently used while all of them together hold more events than the fleet
// has (or `minEvents`), are dropped too: however many selections are asked, they cost at most about
// one more fleet index of memory.

import { transitionCount, type Timeline } from '../timeline/types.ts';
import { FleetIndex, type IndexScope } from './fleet-index.ts';

export interface SelectionIndexOptions {
  /** How many indexes are kept at most. */
  max: number;
  /** An index not asked for this long is dropped. */
  idleMs: number;
  /** The events all of them may hold together when the fleet has fewer. */
  minEvents: number;
}

export const SELECTION_INDEX_DEFAULTS: SelectionIndexOptions = { max: 32, idleMs: 15 * 60_000, minEvents: 1_000_000 };

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
  /** The fleet's transitions when an index was last built. */
  #fleetEvents = 0;

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
      let fleet = 0;
      for (const tl of this.#timelines()) {
        index.grew(tl, 0);
        fleet += transitionCount(tl);
      }
      this.#fleetEvents = fleet;
      index.prepare();
      entry = { index, usedAt: now };
      this.#built++;
    } else {
      this.#entries.delete(key);
    }
    entry.usedAt = now;
    this.#entries.set(key, entry);
    while (this.#entries.size > this.#options.max) this.#entries.delete(this.#entries.keys().next().value!);
    // The one asked for is the most recent: it is kept even when it alone is over the bound.
    const bound = Math.max(this.#fleetEvents, this.#options.minEvents);
    let held = 0;
    for (const e of this.#entries.values()) held += e.index.events();
    for (const [k, e] of this.#entries) {
      if (held <= bound || e === entry) break;
      held -= e.index.events();
      this.#entries.delete(k);
    }
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

  reweighed(tl: Timeline): void {
    for (const { index } of this.#entries.values()) index.reweighed(tl);
  }
}
