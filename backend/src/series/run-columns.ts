// Typed columns over a sorted list of timelines (the engine's list, which is shared until a
// timeline is added or dropped), one row per run by its place in the list: when it was created and
// ended, and its state once closed. A closed run never changes, so its row is filled once per list;
// a selection tests a run's life on them, and a table over a range that holds a closed run's whole
// life reads its figures from its row, a pass over numbers in the order of the list, instead of
// visiting the run's objects (which, spread over the heap, cost a cache miss each: the visit, not the
// arithmetic, was most of a table's time). Open runs (and a closed one whose first transition is not
// at its creation) are rows of no use here: their readers take the timeline itself, as before.
//
// A row's life (its whole-life totals, time to first up, goodput constants: 15 numbers in 4 bytes
// each) is worked out the first time a table reads it, into a store of the rows read so far (issue 21 §3): the
// selection's columns are 14 bytes a run (a closed run's end kept as its life's length in 4 bytes),
// and a dashboard's tables over the last days fill the lives
// of the runs those days hold, not the 60 bytes of every run of the list (~50 MiB at 871,066 runs).
//
// Pure: values in, values out (the rows are a cache of what the timelines say).

import { byNamespaceNameUid, ownerOf } from '../timeline/order.ts';
import { closedAt, lastAt, lastState, TERMINAL_STATES, type Timeline } from '../timeline/types.ts';
import { CLOSED_FROM, codeAt, timeAt, timelineColumns, timeToFirstUpFrom } from './columns.ts';
import { addGoodputWith, BASE_FIELDS, INTERRUPTION_DOWN, lifeInto, PROVISIONING, SUSPENDED, UNKNOWN, UP } from './totals.ts';

/** `state` of a row that is not (yet) a closed run's. */
export const OPEN = 255;

/**
 * `life` of a row whose end is not its creation plus a whole number of milliseconds under this (a
 * run that lived 49.7 days or more, or a time with a fraction of a millisecond): its end is in
 * `longEnds`.
 */
export const LONG_LIFE = 0xffff_ffff;

/** A life's numbers in the store: its BASE_FIELDS totals, then these. */
const TIME_TO_FIRST_UP = BASE_FIELDS;
const ACCELERATORS = BASE_FIELDS + 1;
const CHECKPOINT_MS = BASE_FIELDS + 2;
const LIFE_WIDTH = BASE_FIELDS + 3;

export interface RunColumns {
  readonly list: readonly Timeline[];
  /** createdAt. */
  readonly created: Float64Array;
  /** A closed run's end (its last transition) less its creation, ms (read it with rowEnd); LONG_LIFE: in longEnds. */
  readonly life: Uint32Array;
  /** The ends of the closed rows whose life is LONG_LIFE, by row (few: the columns are 4 bytes a run less than with every end). */
  readonly longEnds: Map<number, number>;
  /** 1 when a closed run's second transition (its first event) is after its creation, or it has one transition; 0 when it is at its creation. */
  readonly laterFirstEvent: Uint8Array;
  /** Its terminal state's code (columns.ts); OPEN while it is open. */
  readonly state: Uint8Array;
  /** The lives worked out so far, by row. */
  readonly lives: LifeStore;
  /** The SLO tables' part of the lives worked out so far, by row (sloLifeAt). */
  readonly sloLives: SloLives;
}

/** A number in a narrow slot that stands for NaN (a run that never came up, one without a checkpoint interval). */
const NAN_CODE = 0xffff_fffe;
/** A narrow slot's first number when its life is in `wide` instead. */
const WIDE = 0xffff_ffff;

/**
 * Field f's number `v` of a life in 4 bytes, -1 when they cannot give it back: a whole number under
 * the codes (not -0, which they give back as 0); NaN as NAN_CODE where a life may hold it (time to
 * first up, checkpoint interval); time to first up in milliseconds when ms / 1000 gives it back.
 */
function narrow(f: number, v: number): number {
  if (f === TIME_TO_FIRST_UP || f === CHECKPOINT_MS) {
    if (Number.isNaN(v)) return NAN_CODE;
    if (f === TIME_TO_FIRST_UP) {
      const ms = Math.round(v * 1000);
      if (!Object.is(ms / 1000, v)) return -1;
      v = ms;
    }
  }
  return Number.isInteger(v) && v >= 0 && v < NAN_CODE && !Object.is(v, -0) ? v : -1;
}

/**
 * The lives of the closed rows read so far: LIFE_WIDTH numbers each, in the order they were first
 * read, each in 4 bytes (issue 21 §3: 60 bytes a life, not 120; at 10,000 × 30 d a month's tables
 * read 861,279 lives, 49 MiB against 99). A closed run's totals are whole milliseconds and counts
 * within its life, so 4 bytes hold them exactly while it lived under 49.7 days with times in whole
 * milliseconds; a life any of whose numbers 4 bytes do not give back (a fraction of a millisecond,
 * a longer life, a fractional accelerator count) is kept whole in `wide`, its slot marked WIDE.
 */
class LifeStore {
  readonly rows: number;
  /** Row i's life is at values[at[i] · LIFE_WIDTH]; -1: not worked out yet. Made with the first life (a list no table reads needs none). */
  at: Int32Array | null = null;
  values = new Uint32Array(0);
  /** The lives that 4 bytes a number do not hold, by slot, as worked out (TIME_TO_FIRST_UP in seconds). */
  readonly wide = new Map<number, Float64Array>();
  count = 0;
  /** How many rows are closed: no more lives than that are ever stored, so the store grows no further. */
  closed = 0;

  constructor(rows: number) {
    this.rows = rows;
  }

  /** How many lives `values` has room for. */
  get slots(): number {
    return this.values.length / LIFE_WIDTH;
  }

  /** Row i's slot; -1 while its life is not worked out. */
  slotOf(i: number): number {
    const at = this.at;
    return at === null ? -1 : at[i]!;
  }

  /** Stores row i's life, `life` (LIFE_WIDTH numbers as worked out), in a new slot (the store grown by half again when full, up to the closed rows): the slot. */
  add(i: number, life: Float64Array): number {
    if ((this.count + 1) * LIFE_WIDTH > this.values.length) {
      const slots = Math.max(this.count + 1, Math.min(this.closed, Math.max(64, Math.ceil(this.count * 1.5))));
      const grown = new Uint32Array(slots * LIFE_WIDTH);
      grown.set(this.values.subarray(0, this.count * LIFE_WIDTH));
      this.values = grown;
    }
    this.at ??= new Int32Array(this.rows).fill(-1);
    this.at[i] = this.count;
    const slot = this.count++;
    this.#put(slot, life);
    return slot;
  }

  /** Writes a life into its slot: each number in 4 bytes when they give it back, else the whole life in `wide`. */
  #put(slot: number, life: Float64Array): void {
    const o = slot * LIFE_WIDTH;
    const values = this.values;
    for (let f = 0; f < LIFE_WIDTH; f++) {
      const code = narrow(f, life[f]!);
      if (code < 0) {
        values[o] = WIDE;
        this.wide.set(slot, Float64Array.from(life));
        return;
      }
      values[o + f] = code;
    }
  }

  /** The lives an earlier list's store has of this list's rows (from[i]: row i's row there, -1: none), in one piece. */
  takeOver(before: LifeStore, from: Int32Array): void {
    let count = 0;
    for (let i = 0; i < from.length; i++) if (from[i]! >= 0) count++;
    this.values = new Uint32Array(count * LIFE_WIDTH);
    for (let i = 0; i < from.length; i++) {
      const j = from[i]!;
      if (j < 0) continue;
      const slot = before.slotOf(j);
      this.values.set(before.values.subarray(slot * LIFE_WIDTH, (slot + 1) * LIFE_WIDTH), this.count * LIFE_WIDTH);
      const wide = before.wide.get(slot);
      if (wide !== undefined) this.wide.set(this.count, wide);
      this.at ??= new Int32Array(this.rows).fill(-1);
      this.at[i] = this.count++;
    }
  }
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
 * marked OPEN). A closed run's row (and its life, when worked out) is copied from the columns made
 * last when they have it (the engine's next list is the last one with timelines added or dropped),
 * else worked out.
 */
export function runColumns(list: readonly Timeline[]): RunColumns {
  let rc = byList.get(list);
  if (rc !== undefined) return rc;
  const n = list.length;
  rc = {
    list,
    created: new Float64Array(n),
    life: new Uint32Array(n),
    longEnds: new Map(),
    laterFirstEvent: new Uint8Array(n),
    state: new Uint8Array(n).fill(OPEN),
    lives: new LifeStore(n),
    sloLives: { values: null },
  };
  const owner = ownerOf(list);
  const before = owner === undefined ? null : (latestOf.get(owner) ?? null);
  // Both lists are in one order (namespace, name, UID), so one walk finds each run's earlier row.
  let j = 0;
  /** Per row, its row in `before` when that has its life worked out. */
  let lifeFrom: Int32Array | null = null;
  for (let i = 0; i < n; i++) {
    const tl = list[i]!;
    rc.created[i] = tl.createdAt;
    if (before !== null) {
      while (j < before.list.length && before.list[j] !== tl && byNamespaceNameUid(before.list[j]!, tl) < 0) j++;
      if (j < before.list.length && before.list[j] === tl && before.state[j] !== OPEN) {
        copyRow(before, j, rc, i);
        if (before.lives.slotOf(j) >= 0) (lifeFrom ??= new Int32Array(n).fill(-1))[i] = j;
        continue;
      }
    }
    fill(rc, i);
  }
  if (lifeFrom !== null) rc.lives.takeOver(before!.lives, lifeFrom);
  byList.set(list, rc);
  if (owner !== undefined) latestOf.set(owner, rc);
  return rc;
}

function copyRow(from: RunColumns, j: number, to: RunColumns, i: number): void {
  const life = from.life[j]!;
  to.life[i] = life;
  if (life === LONG_LIFE) to.longEnds.set(i, from.longEnds.get(j)!);
  to.laterFirstEvent[i] = from.laterFirstEvent[j]!;
  to.lives.closed++;
  to.state[i] = from.state[j]!;
  const slo = from.sloLives.values;
  if (slo !== null && slo[j * SLO_LIFE]! !== NOT_YET) {
    const into = (to.sloLives.values ??= new Uint32Array(to.list.length * SLO_LIFE).fill(NOT_YET));
    // Number by number: a subarray per row would be an object per closed run of the list.
    for (let k = 0; k < SLO_LIFE; k++) into[i * SLO_LIFE + k] = slo[j * SLO_LIFE + k]!;
  }
}

/** Fills row i when its run has closed; false while it is open. */
function fill(rc: RunColumns, i: number): boolean {
  const tl = rc.list[i]!;
  // An open run, asked again by every table: told by its last state alone, without its columns (at
  // 10,000 × 30 d the 9,787 open runs' columns cost a table more than its 861,279 closed rows).
  const last = lastState(tl);
  if (last === null || !TERMINAL_STATES.has(last)) return false;
  const c = timelineColumns(tl);
  const n = c.length;
  if (n === 0 || (codeAt(c, n - 1) & 7) < CLOSED_FROM || timeAt(c, 0) !== tl.createdAt) return false;
  setEnd(rc, i, timeAt(c, n - 1));
  rc.laterFirstEvent[i] = n === 1 || timeAt(c, 1) > tl.createdAt ? 1 : 0;
  rc.lives.closed++;
  // Last: a row is read as closed only once the rest of it is there.
  rc.state[i] = codeAt(c, n - 1) & 7;
  return true;
}

/** Sets closed row i's end: its life's length when that gives it back exactly, else the end itself in longEnds. */
function setEnd(rc: RunColumns, i: number, end: number): void {
  const created = rc.created[i]!;
  const life = end - created;
  // (-0 too is kept apart: created + life gives it back as 0.)
  if (Number.isInteger(life) && life >= 0 && life < LONG_LIFE && Object.is(created + life, end)) rc.life[i] = life;
  else {
    rc.life[i] = LONG_LIFE;
    rc.longEnds.set(i, end);
  }
}

/** Closed row i's end (its last transition's time). */
export function rowEnd(rc: RunColumns, i: number): number {
  const life = rc.life[i]!;
  return life !== LONG_LIFE ? rc.created[i]! + life : rc.longEnds.get(i)!;
}

/** The slot in rc.lives of closed row i's life, worked out on its first read (apart: this stays small enough to inline in a table's loop). */
function lifeOf(rc: RunColumns, i: number): number {
  const at = rc.lives.at;
  const slot = at === null ? -1 : at[i]!;
  return slot >= 0 ? slot : workOutLife(rc, i);
}

function workOutLife(rc: RunColumns, i: number): number {
  const tl = rc.list[i]!;
  const c = timelineColumns(tl);
  const life = LIFE;
  lifeInto(tl, c, life, 0);
  life[TIME_TO_FIRST_UP] = timeToFirstUpFrom(c, Infinity) ?? NaN;
  life[ACCELERATORS] = tl.accelerators ?? 0;
  life[CHECKPOINT_MS] = tl.checkpointIntervalMs ?? NaN;
  return rc.lives.add(i, life);
}
/** One life as worked out, before the store narrows it. */
const LIFE = new Float64Array(LIFE_WIDTH);

// A closed row's time for the SLO tables, apart from its life: a 28-day SLO table reads every
// closed run of the month but only 3 of a life's 15 numbers, so these take 12 bytes a run where the
// lives would take 60 (at 10,000 × 30 d: 10.5 MiB for the 871,066 rows against 52.6 MiB of lives,
// which the tables over the last days then fill only for the runs those days hold).

/** Numbers a row has in SloLives: its up time, uptime's bad time (provisioning + interruption downtime), then the rest of scheduling goodput's (suspended + unknown). */
export const SLO_LIFE = 3;
/** Where a row's SLO numbers are: these parts of its life's totals, each summed in this order. */
export const SLO_LIFE_PARTS = [[UP], [PROVISIONING, INTERRUPTION_DOWN], [SUSPENDED, UNKNOWN]] as const;
/** A row's first SLO number while it is not worked out. */
const NOT_YET = 0xffff_ffff;
/** A row's first SLO number when 4 bytes do not give its numbers back: its life (rowLife) is read instead. */
const APART = 0xffff_fffe;

/** SLO_LIFE numbers a row, each a whole number of milliseconds; made with the first read (a list no SLO table reads needs none). */
interface SloLives {
  values: Uint32Array | null;
}

/**
 * Where closed row i's SLO numbers are in rc.sloLives.values (SLO_LIFE of them from there), worked
 * out on their first read; -1 when 4 bytes do not hold them (a fraction of a millisecond, a life of
 * 49.7 days or more): read rowLife then.
 */
export function sloLifeAt(rc: RunColumns, i: number): number {
  const values = rc.sloLives.values;
  const o = i * SLO_LIFE;
  const first = values === null ? NOT_YET : values[o]!;
  if (first === NOT_YET) return workOutSloLife(rc, i);
  return first === APART ? -1 : o;
}

function workOutSloLife(rc: RunColumns, i: number): number {
  const values = (rc.sloLives.values ??= new Uint32Array(rc.list.length * SLO_LIFE).fill(NOT_YET));
  // From the life when a table has worked it out already, else from the timeline (without storing the life).
  let life: ArrayLike<number>;
  let from = 0;
  if (rc.lives.slotOf(i) >= 0) ({ values: life, offset: from } = rowLife(rc, i));
  else {
    const tl = rc.list[i]!;
    lifeInto(tl, timelineColumns(tl), LIFE, 0);
    life = LIFE;
  }
  const o = i * SLO_LIFE;
  for (let k = 0; k < SLO_LIFE; k++) {
    let sum = 0;
    for (const f of SLO_LIFE_PARTS[k]!) sum += life[from + f]!;
    // The rule of a life's narrow slot: a whole number under the codes (not -0).
    if (!(Number.isInteger(sum) && sum >= 0 && sum < APART && !Object.is(sum, -0))) {
      values[o] = APART;
      return -1;
    }
    values[o + k] = sum;
  }
  return o;
}

/** Closed row i's time to first up, seconds; null when it never came up. */
export function rowTimeToFirstUp(rc: RunColumns, i: number): number | null {
  const slot = lifeOf(rc, i);
  const values = rc.lives.values;
  const o = slot * LIFE_WIDTH;
  if (values[o] === WIDE) {
    const t = rc.lives.wide.get(slot)![TIME_TO_FIRST_UP]!;
    return Number.isNaN(t) ? null : t;
  }
  const ms = values[o + TIME_TO_FIRST_UP]!;
  return ms === NAN_CODE ? null : ms / 1000;
}

/** Closed row i's whole-life totals (BASE_FIELDS numbers): `values` from `offset` on (the store's, or a wide life's own), valid until the next life is worked out. */
export function rowLife(rc: RunColumns, i: number): { values: ArrayLike<number>; offset: number } {
  const slot = lifeOf(rc, i);
  const offset = slot * LIFE_WIDTH;
  if (rc.lives.values[offset] === WIDE) return { values: rc.lives.wide.get(slot)!, offset: 0 };
  return { values: rc.lives.values, offset };
}

/** Whether nothing happened to closed row i at or before `t`: before its creation, or at it when its first event is later. */
export function beforeLife(rc: RunColumns, i: number, t: number): boolean {
  const created = rc.created[i]!;
  return t < created || (t === created && rc.laterFirstEvent[i] === 1);
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
  if (isClosedRow(rc, i)) return rowEnd(rc, i) > from;
  const tl = rc.list[i]!;
  const last = lastAt(tl);
  if (closedAt(tl) !== Infinity) return last > from;
  return (horizon > last ? horizon : last) >= from;
}

/**
 * livedRow of every row in [lo, hi): the rows that lived, in order, into `kept` from `count` on; the
 * new count. A closed row is tested on the columns alone, in this loop (a selection asks it of every
 * row of the list: ~10 % of a whole fleet's selection at 871,066 runs went to the call per row).
 */
export function livedRows(rc: RunColumns, lo: number, hi: number, horizon: number, from: number, to: number, kept: Int32Array, count: number): number {
  const { created, state } = rc;
  for (let i = lo; i < hi; i++) {
    if (created[i]! > to) continue;
    if (state[i] !== OPEN) {
      if (rowEnd(rc, i) > from) kept[count++] = i;
    } else if (livedRow(rc, i, horizon, from, to)) kept[count++] = i;
  }
  return count;
}

/** Whether the window (from, to] holds the whole life of closed row i: its totals there are its life's. */
export function holdsLife(rc: RunColumns, i: number, from: number, to: number): boolean {
  if (rc.state[i] === OPEN || rowEnd(rc, i) > to) return false;
  // beforeLife(rc, i, from), read here once: a whole table asks it of every row and column.
  const created = rc.created[i]!;
  return created > from || (created === from && rc.laterFirstEvent[i] === 1);
}

/** Row i's whole-life totals (FIELDS numbers, goodput included) into `out` at `o`: windowTotals of any window that holds its life. */
export function rowLifeInto(rc: RunColumns, i: number, out: Float64Array, o: number): void {
  const slot = lifeOf(rc, i);
  const values = rc.lives.values;
  const base = slot * LIFE_WIDTH;
  if (values[base] === WIDE) {
    const life = rc.lives.wide.get(slot)!;
    for (let f = 0; f < BASE_FIELDS; f++) out[o + f] = life[f]!;
    const interval = life[CHECKPOINT_MS]!;
    addGoodputWith(life[ACCELERATORS]!, Number.isNaN(interval) ? null : interval, out, o);
    return;
  }
  for (let f = 0; f < BASE_FIELDS; f++) out[o + f] = values[base + f]!;
  const interval = values[base + CHECKPOINT_MS]!;
  addGoodputWith(values[base + ACCELERATORS]!, interval === NAN_CODE ? null : interval, out, o);
}

/**
 * rowLifeInto of the listed fields alone (a figure's columns, figure-definitions.ts), each at its
 * place from `o`; the others in `out` are left as they were. A distribution reads one figure of every
 * run: two or three of its numbers, not all FIELDS. A goodput field (past BASE_FIELDS) is worked out
 * from the life's constants: then the whole life is written.
 */
export function rowFieldsInto(rc: RunColumns, i: number, fields: readonly number[], out: Float64Array, o: number): void {
  const slot = lifeOf(rc, i);
  const values = rc.lives.values;
  const base = slot * LIFE_WIDTH;
  let whole = values[base] === WIDE;
  for (let k = 0; k < fields.length && !whole; k++) whole = fields[k]! >= BASE_FIELDS;
  if (whole) rowLifeInto(rc, i, out, o);
  else for (let k = 0; k < fields.length; k++) out[o + fields[k]!] = values[base + fields[k]!]!;
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
