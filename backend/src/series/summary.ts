// One row per timeline: who it is, its state at the window's end, and every figure over the window.

import { byNamespaceNameUid, isMarkedSorted } from '../timeline/order.ts';
import { closedAt, lastAt, type State, type Timeline } from '../timeline/types.ts';
import { codeAt, STATE_CODE, timeAt, timelineColumns, timeToFirstUpFrom, type Columns } from './columns.ts';
import { figuresFromTotals, type Figures } from './figures.ts';
import { holdsLife, rowFieldsInto, rowLifeInto, rowTimeToFirstUp, selectedRows, type RunColumns } from './run-columns.ts';
import { endOf, FIELDS, windowTotals } from './totals.ts';
import { workedOutWith } from './kept-selections.ts';

export interface JobSetSummary extends Figures {
  /** Present when the timeline belongs to a named cluster. */
  cluster?: string;
  namespace: string;
  name: string;
  uid: string;
  state: State;
}

/**
 * Did the timeline live in the window [from, to]? Created at or before `to`, and its life not over
 * by `from`: the window's edges follow the rule for events (from < t ≤ to), so a JobSet created
 * exactly at `to` lived in it (it has a state at `to`), and one whose life ended (completed, failed,
 * deleted) exactly at `from` did not: its end, as any event at `from`, belongs to the window before.
 * An open timeline is alive up to the horizon, inclusive; past it, it is not known to live.
 * A window of no length (from = to) holds the JobSets alive at that instant.
 */
export function livedIn(timeline: Timeline, horizon: number, from: number, to: number): boolean {
  // lived(lifeOf(…)) without the object: selections ask it of every timeline of the fleet.
  if (timeline.createdAt > to) return false;
  const last = lastAt(timeline);
  if (closedAt(timeline) !== Infinity) return last > from;
  return (horizon > last ? horizon : last) >= from;
}

/** A timeline's life as livedIn reads it: worked out once, then tested against many windows. */
export interface Life {
  created: number;
  /** When it ended, or for an open timeline the horizon (or its last transition, if later). */
  end: number;
  closed: boolean;
}

export function lifeOf(timeline: Timeline, horizon: number): Life {
  return { created: timeline.createdAt, end: endOf(timeline, horizon), closed: closedAt(timeline) !== Infinity };
}

export function lived(life: Life, from: number, to: number): boolean {
  return life.created <= to && (life.closed ? life.end > from : life.end >= from);
}

/**
 * The summary as columns: the timelines that lived in [from, to], sorted by namespace, name and UID,
 * with their window totals (FIELDS numbers each), time to first up and state at `to`. Tables are
 * built column by column from it: row objects cost more than the figures themselves over large fleets.
 */
export interface SummaryColumns {
  /** Read only: a query's sorted selection comes back as it is (not copied). */
  timelines: readonly Timeline[];
  totals: Float64Array;
  timeToFirstUp: (number | null)[];
  states: State[];
}

function isSorted(timelines: readonly Timeline[]): boolean {
  for (let i = 1; i < timelines.length; i++) if (byNamespaceNameUid(timelines[i - 1]!, timelines[i]!) > 0) return false;
  return true;
}

/** The timelines that lived in [from, to] (all of them when `selected`), sorted by namespace, name and UID, in a new array. */
function sortedLived(timelines: readonly Timeline[], selected: boolean, horizon: number, from: number, to: number): Timeline[] {
  const lived = selected ? timelines.slice() : timelines.filter((tl) => livedIn(tl, horizon, from, to));
  if (!isMarkedSorted(timelines) && !isSorted(lived)) lived.sort(byNamespaceNameUid);
  return lived;
}

export interface SummaryOptions {
  /** The timelines are already those that lived in [from, to] (a query's selection): not tested again. */
  selected?: boolean;
  /** Work out each row's time to first up (default); without it the column is null (a table that does not show it). */
  timeToFirstUp?: boolean;
  /**
   * The totals' array (zeroed, of the length asked), when the caller lends one it reuses: a
   * 10,000-row table's totals are 1.4 MB, and a new array buffer per request brought V8's full
   * collections every few requests. The result's `totals` is then the lent array.
   */
  totalsOf?: (length: number) => Float64Array;
}

export function summaryColumns(timelines: readonly Timeline[], horizon: number, from: number, to: number, options: SummaryOptions = {}): SummaryColumns {
  // The engine keeps its timelines sorted (and a selection of them stays so): sort only what comes
  // unsorted (another source's). A sorted selection is its own rows (a 10,000-row table's copy of it
  // was garbage every request).
  const lived = options.selected === true && isMarkedSorted(timelines) ? timelines : sortedLived(timelines, options.selected === true, horizon, from, to);
  const withTimeToFirstUp = options.timeToFirstUp !== false;
  const totals = options.totalsOf?.(lived.length * FIELDS) ?? new Float64Array(lived.length * FIELDS);
  const timeToFirstUp: (number | null)[] = new Array<number | null>(lived.length).fill(null);
  const states: State[] = new Array<State>(lived.length);
  // A selection of the engine's list says which rows of its columns it holds (query/select.ts): a
  // closed run whose whole life lies in the window is then read from its row (run-columns.ts).
  const marked = options.selected === true && isMarkedSorted(timelines) ? selectedRows(timelines) : undefined;
  const columns = marked?.columns;
  const rows = marked?.rows;
  for (let i = 0; i < lived.length; i++) {
    if (columns !== undefined) {
      const row = rows![i]!;
      if (holdsLife(columns, row, from, to)) {
        rowLifeInto(columns, row, totals, i * FIELDS);
        if (withTimeToFirstUp) timeToFirstUp[i] = rowTimeToFirstUp(columns, row);
        states[i] = STATE_OF[columns.state[row]!]!;
        continue;
      }
    }
    const tl = lived[i]!;
    windowTotals(tl, horizon, from, to, totals, i * FIELDS);
    // From the columns windowTotals just read: numbers, not the transitions' fields.
    const c = timelineColumns(tl);
    if (withTimeToFirstUp) timeToFirstUp[i] = timeToFirstUpFrom(c, to);
    states[i] = stateFrom(c, to)!;
  }
  return { timelines: lived, totals, timeToFirstUp, states };
}

/**
 * A totals array lent from one table to the next (summaryColumns' `totalsOf`), zeroed as a new one
 * is: a caller that reads the totals only while it builds its answer, synchronously, keeping none of
 * them, reuses one array instead of making 1.4 MB for each 10,000-row table. Longer than
 * `maxNumbers`, a new array each time, as before (the kept one stays bounded).
 */
export class LentTotals {
  readonly maxNumbers: number;
  #kept = new Float64Array(0);

  constructor(maxNumbers: number) {
    this.maxNumbers = maxNumbers;
  }

  readonly of = (length: number): Float64Array => {
    if (length > this.maxNumbers) return new Float64Array(length);
    if (this.#kept.length < length) this.#kept = new Float64Array(Math.min(this.maxNumbers, Math.max(length, 2 * this.#kept.length)));
    const totals = this.#kept.subarray(0, length);
    totals.fill(0);
    return totals;
  };
}

/**
 * A query's JobSets row by row, each with its totals over [from, to] and its time to first up: a
 * closed run whose whole life lies in the window from its row of the run columns (run-columns.ts, a
 * pass over numbers: most rows of a range at 10,000 × 30 d), any other swept (windowTotals). What the
 * fleet's grouped figures and distributions (fleet.ts) read, instead of visiting every timeline.
 */
export class WindowRows {
  readonly timelines: readonly Timeline[];
  readonly #horizon: number;
  readonly #from: number;
  readonly #to: number;
  readonly #selected: boolean;
  readonly #columns: RunColumns | undefined;
  readonly #rows: Int32Array | undefined;
  readonly #swept: SweptTotals | null;

  /** `selected`: the timelines are a query's selection of those that lived in [from, to] (not tested again). */
  constructor(timelines: readonly Timeline[], horizon: number, from: number, to: number, selected: boolean) {
    this.timelines = timelines;
    this.#horizon = horizon;
    this.#from = from;
    this.#to = to;
    this.#selected = selected;
    // Only a selection of the engine's list says which of its rows it holds (query/select.ts).
    const marked = selected && isMarkedSorted(timelines) ? selectedRows(timelines) : undefined;
    this.#columns = marked?.columns;
    this.#rows = marked?.rows;
    // Kept only for a selection that says which runs its rows hold: then only its open and cut runs are swept.
    this.#swept = marked === undefined ? null : sweptTotalsOf(timelines, horizon, from, to);
  }

  /** Whether the k-th timeline lived in [from, to] (livedIn). */
  lived(k: number): boolean {
    return this.#selected || livedIn(this.timelines[k]!, this.#horizon, this.#from, this.#to);
  }

  /** The k-th timeline's totals over [from, to] into `out` at `o` (FIELDS numbers); its time to first up at `to` when `firstUp`, else null. */
  totalsInto(k: number, out: Float64Array, o: number, firstUp: boolean): number | null {
    if (this.lifeInto(k, out, o)) return firstUp ? this.lifeTimeToFirstUp(k) : null;
    return this.sweptInto(k, out, o, firstUp);
  }

  /**
   * totalsInto for a reader of the `fields` alone (one figure's columns): a closed run whose life the
   * window holds writes those of its life's (rowFieldsInto), any other run all of its totals.
   */
  fieldsInto(k: number, fields: readonly number[], out: Float64Array, o: number, firstUp: boolean): number | null {
    const columns = this.#columns;
    if (columns === undefined || !holdsLife(columns, this.#rows![k]!, this.#from, this.#to)) return this.sweptInto(k, out, o, firstUp);
    rowFieldsInto(columns, this.#rows![k]!, fields, out, o);
    return firstUp ? this.lifeTimeToFirstUp(k) : null;
  }

  /** The k-th timeline's totals over [from, to] from its transitions (windowTotals), and its time to first up at `to` when `firstUp`. */
  sweptInto(k: number, out: Float64Array, o: number, firstUp: boolean): number | null {
    const tl = this.timelines[k]!;
    const swept = this.#swept;
    if (swept === null) {
      windowTotals(tl, this.#horizon, this.#from, this.#to, out, o);
      return firstUp ? timeToFirstUpFrom(timelineColumns(tl), this.#to) : null;
    }
    let slot = swept.slotOf[k]!;
    if (slot < 0) slot = swept.add(k, tl, this.#horizon, this.#from, this.#to);
    const totals = swept.totals;
    for (let f = 0; f < FIELDS; f++) out[o + f] = totals[slot * FIELDS + f]!;
    if (!firstUp) return null;
    const t = swept.timeToFirstUp[slot]!;
    return Number.isNaN(t) ? null : t;
  }

  /**
   * When the k-th timeline is a closed run whose whole life lies in the window and has a row: its
   * life's totals (FIELDS numbers, its totals over any window that holds its life) into `out` at
   * `o`, and true. Else false, nothing written.
   */
  lifeInto(k: number, out: Float64Array, o: number): boolean {
    const columns = this.#columns;
    if (columns === undefined || !holdsLife(columns, this.#rows![k]!, this.#from, this.#to)) return false;
    rowLifeInto(columns, this.#rows![k]!, out, o);
    return true;
  }

  /** The time to first up of a run lifeInto read (its life's, whatever the window's end). */
  lifeTimeToFirstUp(k: number): number | null {
    return rowTimeToFirstUp(this.#columns!, this.#rows![k]!);
  }
}

/**
 * The totals over one window of the runs a kept selection's readers swept (its open runs, and those
 * the window cuts): a dashboard's refresh asks many panels of one selection and window (the fleet
 * overview's distributions by namespace and by size, its worst JobSets), and each swept the same
 * runs (at 10,000 × 30 d a seven-day window of the whole fleet sweeps ~20,000; a fifth of the
 * service's CPU under sixteen screens). Worked out as first read, kept with the selection while it
 * is kept (kept-selections.ts), for the last window asked of it.
 */
class SweptTotals {
  readonly key: string;
  /** The k-th timeline's slot, -1 until swept. */
  readonly slotOf: Int32Array;
  totals = new Float64Array(0);
  /** Its time to first up at the window's end, NaN for none. */
  timeToFirstUp = new Float64Array(0);
  #count = 0;

  constructor(key: string, length: number) {
    this.key = key;
    this.slotOf = new Int32Array(length).fill(-1);
  }

  add(k: number, tl: Timeline, horizon: number, from: number, to: number): number {
    const slot = this.#count++;
    if (slot >= this.timeToFirstUp.length) {
      const room = Math.max(64, 2 * slot);
      const totals = new Float64Array(room * FIELDS);
      totals.set(this.totals);
      this.totals = totals;
      const firstUps = new Float64Array(room);
      firstUps.set(this.timeToFirstUp);
      this.timeToFirstUp = firstUps;
    }
    windowTotals(tl, horizon, from, to, this.totals, slot * FIELDS);
    this.timeToFirstUp[slot] = timeToFirstUpFrom(timelineColumns(tl), to) ?? NaN;
    this.slotOf[k] = slot;
    return slot;
  }
}

/** What a selection's swept totals are kept under (kept-selections.ts). */
const SWEPT = 'swept totals';

/**
 * The swept totals kept with a kept selection for the window (from, to]; null for a selection not
 * kept. An open run accrues up to the horizon, so the horizon is part of the window's key while it
 * is before `to` (a live source's horizon is the wall clock; past `to` every horizon sweeps alike).
 */
function sweptTotalsOf(timelines: readonly Timeline[], horizon: number, from: number, to: number): SweptTotals | null {
  const key = `${from}\u0000${to}\u0000${horizon < to ? horizon : 'past'}`;
  const kept = workedOutWith(timelines);
  if (kept === undefined) return null;
  let swept = kept.get(SWEPT) as SweptTotals | undefined;
  if (swept === undefined || swept.key !== key) kept.set(SWEPT, (swept = new SweptTotals(key, timelines.length)));
  return swept;
}

/** The states by code (columns.ts). */
const STATE_OF: readonly State[] = (Object.keys(STATE_CODE) as State[]).sort((a, b) => STATE_CODE[a] - STATE_CODE[b]);

/** stateAt of the columns: the state of the last transition at or before `to`; null before the first. */
function stateFrom(c: Columns, to: number): State | null {
  if (c.length === 0 || to < timeAt(c, 0)) return null;
  let lo = 0;
  let hi = c.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (timeAt(c, mid) <= to) lo = mid;
    else hi = mid - 1;
  }
  return STATE_OF[codeAt(c, lo) & 7]!;
}


/** One row per timeline (the CLI's and /api/v1/jobsets' shape). */
export function summarize(timelines: readonly Timeline[], horizon: number, from: number, to: number): JobSetSummary[] {
  const c = summaryColumns(timelines, horizon, from, to);
  return c.timelines.map((tl, i) => ({
    ...(tl.cluster !== undefined ? { cluster: tl.cluster } : {}),
    namespace: tl.namespace,
    name: tl.name,
    uid: tl.uid,
    state: c.states[i]!,
    ...figuresFromTotals(c.totals.subarray(i * FIELDS, (i + 1) * FIELDS), c.timeToFirstUp[i]!),
  }));
}

/** The earliest creation among timelines: the default start of a replay's window. */
export function earliestCreation(timelines: readonly Timeline[]): number | null {
  let earliest: number | null = null;
  for (const tl of timelines) if (earliest === null || tl.createdAt < earliest) earliest = tl.createdAt;
  return earliest;
}
