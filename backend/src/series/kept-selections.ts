// Selections kept from one request to the next (issue 21 §1), beside the selections' fleet indexes
// (selection-indexes.ts). A dashboard's refresh asks every panel of one range, and its panels select
// alike (All, or the namespace picked): at 10,000 JobSets × 30 days a selection of the whole fleet
// costs ~20 ms, a refresh of the fleet overview made 14 where 4 differed, and a fifth of the
// service's CPU under sixteen screens went to selecting.
//
// Kept for one list only (the engine's: a run added or dropped makes a new list, which keeps none),
// dropped whole on any change the engine tells of (a timeline grew, was relabeled, reweighed,
// regrouped or forgotten: a run's life, state at the range's end, labels or groups may have
// changed), bounded by the runs they hold (the least recently used dropped first), and dropped by
// the service once its queries go quiet (cli/compose.ts), so that they are not what it holds
// between refreshes.
//
// A selection reads the horizon only for an open run, as its end: an open run lived in (from, to]
// when created by `to` and its last transition or the horizon is at or after `from` (query/select.ts,
// run-columns.ts livedRow). Every horizon at or after `from` selects alike, so kept selections are
// matched on the horizon only when it is before `from`.

import type { TimelineListener } from '../timeline/engine.ts';
import type { Timeline } from '../timeline/types.ts';

/** What a selection is made of: the query's selection fields, its layer and the window it selects in. */
export interface SelectedBy {
  layer: string;
  clusters: readonly string[];
  namespaces: readonly string[];
  name: string;
  labelSelector: string;
  states: readonly string[];
  selectFrom: number;
  to: number;
}

const sameStrings = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((s, i) => s === b[i]);

export function sameSelection(a: SelectedBy, b: SelectedBy): boolean {
  return (
    a.layer === b.layer &&
    a.name === b.name &&
    a.labelSelector === b.labelSelector &&
    a.selectFrom === b.selectFrom &&
    a.to === b.to &&
    sameStrings(a.clusters, b.clusters) &&
    sameStrings(a.namespaces, b.namespaces) &&
    sameStrings(a.states, b.states)
  );
}

interface Kept {
  by: SelectedBy;
  /** The horizon it was made at, or Infinity when that was at or after its `from` (any such selects alike). */
  horizon: number;
  timelines: readonly Timeline[];
}

/**
 * What queries worked out from a selection while it is kept (its groups, its names, its swept runs'
 * totals over a window), dropped with it: a kept selection is handed out again only while the
 * timelines it holds are as they were, so what was worked out from them stays right. Keyed by the
 * selection itself; a selection that is not kept has none.
 */
const workedOut = new WeakMap<readonly Timeline[], Map<string, unknown>>();

/** What is kept with a selection while it is kept (by what it is); undefined for one that is not kept. */
export function workedOutWith(selection: readonly Timeline[]): Map<string, unknown> | undefined {
  return workedOut.get(selection);
}

/**
 * `make()` for a selection, worked out once while it is kept (series/kept-selections.ts) and given
 * again to the next query of the same selection; made afresh for one that is not kept. `key` names
 * what is made and everything besides the selection it reads.
 */
export function keptWithSelection<T>(selection: readonly Timeline[], key: string, make: () => T): T {
  const kept = workedOutWith(selection);
  if (kept === undefined) return make();
  if (kept.has(key)) return kept.get(key) as T;
  const made = make();
  kept.set(key, made);
  return made;
}

/** The default bound: the runs of this many whole lists (at 10,000 × 30 d, 871,066 runs each: ~7 MB a list, a reference and a row number a run). */
export const KEPT_LISTS = 4;

export class KeptSelections implements TimelineListener {
  readonly #lists: number;
  #list: readonly Timeline[] | null = null;
  /** Least recently used first. */
  #kept: Kept[] = [];
  #held = 0;
  #hits = 0;
  #made = 0;

  /** `lists`: the runs held are at most this many times the list's length (the one asked last is kept even when alone over it). */
  constructor(lists = KEPT_LISTS) {
    this.#lists = lists;
  }

  /** The selection `by` of `list` at `horizon`: a kept one when it is the same, else `make`'s, kept. */
  get(list: readonly Timeline[], by: SelectedBy, horizon: number, make: () => readonly Timeline[]): readonly Timeline[] {
    if (list !== this.#list) {
      this.clear();
      this.#list = list;
    }
    const h = horizon >= by.selectFrom ? Infinity : horizon;
    const kept = this.#kept;
    for (let i = kept.length - 1; i >= 0; i--) {
      const k = kept[i]!;
      if (k.horizon !== h || !sameSelection(k.by, by)) continue;
      kept.splice(i, 1);
      kept.push(k);
      this.#hits++;
      return k.timelines;
    }
    const timelines = make();
    this.#made++;
    kept.push({ by, horizon: h, timelines });
    if (!workedOut.has(timelines)) workedOut.set(timelines, new Map());
    this.#held += timelines.length;
    const bound = this.#lists * list.length;
    while (this.#held > bound && kept.length > 1) {
      const dropped = kept.shift()!;
      this.#held -= dropped.timelines.length;
      workedOut.delete(dropped.timelines);
    }
    return timelines;
  }

  /** Drops every kept selection, and what was worked out from them. */
  clear(): void {
    // Told of every transition the engine takes in (a replay's millions): nothing to drop, nothing made.
    if (this.#list === null) return;
    for (const k of this.#kept) workedOut.delete(k.timelines);
    this.#kept = [];
    this.#held = 0;
    this.#list = null;
  }

  /** Selections asked and found kept, and made. */
  get counts(): { hits: number; made: number; kept: number; held: number } {
    return { hits: this.#hits, made: this.#made, kept: this.#kept.length, held: this.#held };
  }

  grew(): void {
    this.clear();
  }
  forgot(): void {
    this.clear();
  }
  relabeled(): void {
    this.clear();
  }
  reweighed(): void {
    this.clear();
  }
  /** Its groups by accelerator, topology or size, kept with a selection (fleet.ts groupRows), are stale. */
  regrouped(): void {
    this.clear();
  }
}
