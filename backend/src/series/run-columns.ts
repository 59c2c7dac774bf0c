// Typed columns over a sorted list of timelines (the engine's list, which is shared until a
// timeline is added or dropped), one row per run by its place in the list: when it was created and
// ended, its state, time to first up, goodput constants and whole-life totals (totals.ts
// lifeTotals). A closed run never changes, so its row is filled once per list; a table over a range
// that holds a closed run's whole life (most runs of a range) reads its row, a pass over numbers in
// the order of the list, instead of visiting the run's objects (which, spread over the heap, cost a
// cache miss each: the visit, not the arithmetic, was most of a table's time). Open runs (and a
// closed one whose first transition is not at its creation) are rows of no use here: their readers
// take the timeline itself, as before.
//
// Pure: values in, values out (the rows are a cache of what the timelines say).

import { byNamespaceNameUid, ownerOf } from '../timeline/order.ts';
import { closedAt, lastAt, type Timeline } from '../timeline/types.ts';
import { CLOSED_FROM, codeAt, timeAt, timelineColumns, timeToFirstUpFrom } from './columns.ts';
import { addGoodputWith, BASE_FIELDS, lifeInto } from './totals.ts';

/** `state` of a row that is not (yet) a closed run's. */
export const OPEN = 255;

export interface RunColumns {
  readonly list: readonly Timeline[];
  /** createdAt. */
  readonly created: Float64Array;
  /** A closed run's end (its last transition). */
  readonly end: Float64Array;
  /** Its second transition's time (its first event's), +∞ when it has one transition. */
  readonly second: Float64Array;
  /** Its terminal state's code (columns.ts); OPEN while it is open. */
  readonly state: Uint8Array;
  /** Time to first up, seconds; NaN when it never came up. */
  readonly timeToFirstUp: Float64Array;
  /** Goodput constants: accelerators, and the checkpoint interval (NaN: none). */
  readonly accelerators: Float64Array;
  readonly checkpointMs: Float64Array;
  /** BASE_FIELDS numbers a row: its whole life's totals. */
  readonly life: Float64Array;
}

const byList = new WeakMap<readonly Timeline[], RunColumns>();
/**
 * Per owner of successive lists (an engine: timeline/order.ts markSorted), the columns made last of
 * its lists: its next list (a timeline added or dropped) takes their rows over. Kept by owner, so
 * another list (the node layer's, made again on demand and held weakly) neither evicts the engine's
 * nor stays alive through its own columns (one module-wide "latest" kept a replayed fleet's whole
 * node layer: ~615 bytes a run at 2,000 × 30 d).
 */
const latestOf = new WeakMap<object, RunColumns>();

/**
 * The list's columns, made on first use and kept while the list lives (closed runs filled, open ones
 * marked OPEN). A closed run's row is copied from the columns made last when they have it (the
 * engine's next list is the last one with timelines added or dropped), else worked out.
 */
export function runColumns(list: readonly Timeline[]): RunColumns {
  let rc = byList.get(list);
  if (rc !== undefined) return rc;
  const n = list.length;
  rc = {
    list,
    created: new Float64Array(n),
    end: new Float64Array(n),
    second: new Float64Array(n),
    state: new Uint8Array(n).fill(OPEN),
    timeToFirstUp: new Float64Array(n),
    accelerators: new Float64Array(n),
    checkpointMs: new Float64Array(n),
    life: new Float64Array(n * BASE_FIELDS),
  };
  const owner = ownerOf(list);
  const before = owner === undefined ? null : (latestOf.get(owner) ?? null);
  // Both lists are in one order (namespace, name, UID), so one walk finds each run's earlier row.
  let j = 0;
  for (let i = 0; i < n; i++) {
    const tl = list[i]!;
    rc.created[i] = tl.createdAt;
    if (before !== null) {
      while (j < before.list.length && before.list[j] !== tl && byNamespaceNameUid(before.list[j]!, tl) < 0) j++;
      if (j < before.list.length && before.list[j] === tl && before.state[j] !== OPEN) {
        copyRow(before, j, rc, i);
        continue;
      }
    }
    fill(rc, i);
  }
  byList.set(list, rc);
  if (owner !== undefined) latestOf.set(owner, rc);
  return rc;
}

function copyRow(from: RunColumns, j: number, to: RunColumns, i: number): void {
  to.end[i] = from.end[j]!;
  to.second[i] = from.second[j]!;
  to.timeToFirstUp[i] = from.timeToFirstUp[j]!;
  to.accelerators[i] = from.accelerators[j]!;
  to.checkpointMs[i] = from.checkpointMs[j]!;
  to.life.set(from.life.subarray(j * BASE_FIELDS, (j + 1) * BASE_FIELDS), i * BASE_FIELDS);
  to.state[i] = from.state[j]!;
}

/** Fills row i when its run has closed; false while it is open. */
function fill(rc: RunColumns, i: number): boolean {
  const tl = rc.list[i]!;
  const c = timelineColumns(tl);
  const n = c.length;
  if (n === 0 || (codeAt(c, n - 1) & 7) < CLOSED_FROM || timeAt(c, 0) !== tl.createdAt) return false;
  rc.end[i] = timeAt(c, n - 1);
  rc.second[i] = n > 1 ? timeAt(c, 1) : Infinity;
  rc.timeToFirstUp[i] = timeToFirstUpFrom(c, Infinity) ?? NaN;
  rc.accelerators[i] = tl.accelerators ?? 0;
  rc.checkpointMs[i] = tl.checkpointIntervalMs ?? NaN;
  lifeInto(tl, c, rc.life, i * BASE_FIELDS);
  // Last: a row is read as closed only once the rest of it is there.
  rc.state[i] = codeAt(c, n - 1) & 7;
  return true;
}

/** Whether row i is a closed run's (filling it if its run has closed since the columns were made). */
export function isClosedRow(rc: RunColumns, i: number): boolean {
  return rc.state[i] !== OPEN || fill(rc, i);
}

/**
 * livedIn (summary.ts) of row i: created at or before `to`, and its life not over by `from`. A
 * closed row answers from its columns; an open run from the timeline (its end is the horizon).
 */
export function livedRow(rc: RunColumns, i: number, horizon: number, from: number, to: number): boolean {
  if (rc.created[i]! > to) return false;
  if (isClosedRow(rc, i)) return rc.end[i]! > from;
  const tl = rc.list[i]!;
  const last = lastAt(tl);
  if (closedAt(tl) !== Infinity) return last > from;
  return (horizon > last ? horizon : last) >= from;
}

/** Whether the window (from, to] holds the whole life of closed row i: its totals there are its life's. */
export function holdsLife(rc: RunColumns, i: number, from: number, to: number): boolean {
  return rc.state[i] !== OPEN && rc.end[i]! <= to && rc.created[i]! >= from && rc.second[i]! > from;
}

/** Row i's whole-life totals (FIELDS numbers, goodput included) into `out` at `o`: windowTotals of any window that holds its life. */
export function rowLifeInto(rc: RunColumns, i: number, out: Float64Array, o: number): void {
  const base = i * BASE_FIELDS;
  for (let f = 0; f < BASE_FIELDS; f++) out[o + f] = rc.life[base + f]!;
  const interval = rc.checkpointMs[i]!;
  addGoodputWith(rc.accelerators[i]!, Number.isNaN(interval) ? null : interval, out, o);
}

// Selections of a list: which rows a selected array holds (query/select.ts says so when it selects
// from a list that has columns), so a table over it reads them by row.
const rowsOf = new WeakMap<readonly Timeline[], { columns: RunColumns; rows: Int32Array }>();

export function markRows<T extends readonly Timeline[]>(selected: T, columns: RunColumns, rows: Int32Array): T {
  rowsOf.set(selected, { columns, rows });
  return selected;
}

/** The rows of the list's columns that a selection holds, in its order; undefined when it was not marked. */
export function selectedRows(selected: readonly Timeline[]): { columns: RunColumns; rows: Int32Array } | undefined {
  return rowsOf.get(selected);
}
