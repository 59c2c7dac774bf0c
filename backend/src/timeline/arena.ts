// The engine's closed runs in shared typed arrays (issue 21 §3): one record per run, no object or
// array of its own. A closed run's Timeline holds its record's number in place of its transitions
// (a small integer, no allocation); its columns are read through a view made on demand
// (columns.ts packedColumns), which is what readers already read.
//
// Per record: where its times begin in `times`, how many transitions it has, how many slots it
// takes (its times, then its side-table numbers: restart codes, columns.ts Kept), the index of its
// first start (each of these 16 bits: a run of more than MAX_EXTENT slots is not placed here), its
// machine's memory (16 bits) and deletion offset (Columns.memory, deletedAfter), its origin, and flags; and its run's UID, when
// canonical (uids.ts: four words, 16 bytes, in place of a string of ~56 on the heap). A time is held
// as a 4-byte offset in whole milliseconds from its record's origin (a whole second at or before its
// first time, kept as seconds since the epoch: 4 bytes), not as an 8-byte double: exact for every
// run of whole-millisecond times within ~24 days of its first (`timesFitArena`); any other run is not
// placed here (its columns stay its own, exact as they are). State codes (and the unobserved bit) one
// a byte in `codes`, at the same offsets as the times. ~37 bytes a record and 5 a transition,
// against ~180 bytes a run for the Columns object and its array (object headers, a slot per field,
// the array's own header).
//
// Records are placed at the end and never moved by a reader; a record given extras after it was
// placed (a cause, a suspension's reason joined later) is placed again, and what it left is garbage
// until the next compaction (when garbage is more than half of what is used). A released record's
// number is reused: release only a run no reader keeps (the engine's forget, which first copies it
// out: types.ts unsealClosed).

import { UID_WORDS } from './uids.ts';

/** The most slots a record holds (its times and side-table numbers): its count, extent and start index are 16 bits each. */
export const MAX_EXTENT = 0xffff;
/** startIndex of a run that has not started; memory of none. */
const NO_START = 0xffff;
const NULL_MEMORY = 0xffff;
const NULL_DELETED = -(2 ** 31);
/** Flags: the record is live; it keeps whole-life totals (in `life`); it keeps a side table with objects (in `extras`); it holds its run's UID (in `uids`). */
export const LIVE = 1;
export const HAS_LIFE = 2;
export const HAS_EXTRAS = 4;
export const HAS_UID = 8;

/** A record's times are offsets from its origin that fit an Int32Array's slot. */
const OFFSET_MIN = -(2 ** 31);
const OFFSET_MAX = 2 ** 31 - 1;
/** Origins are whole seconds since the epoch that fit a Uint32Array's slot. */
const ORIGIN_SECONDS_MAX = 2 ** 32 - 1;

/** The origin (ms) of a record whose first time is `first`: the whole second at or before it. */
export function originOf(first: number): number {
  return Math.floor(first / 1000) * 1000;
}

/**
 * Whether a run's `n` times (at[from]…) can be a record's: each a whole number of milliseconds whose
 * offset from originOf(the first) fits a slot, so that every one reads back as the very number.
 */
export function timesFitArena(at: ArrayLike<number>, from: number, n: number): boolean {
  if (n === 0) return true;
  const origin = originOf(at[from]!);
  if (!(origin >= 0 && origin / 1000 <= ORIGIN_SECONDS_MAX)) return false;
  for (let i = 0; i < n; i++) {
    const t = at[from + i]!;
    const offset = t - origin;
    // −0 would come back as 0: not the very number.
    if (!Number.isInteger(t) || offset < OFFSET_MIN || offset > OFFSET_MAX || Object.is(t, -0)) return false;
  }
  return true;
}

/** Whether `length` side-table numbers (list[from]…) fit a record's slots as they are: 32-bit integers (restart codes and suspensions' numbers are). */
export function numbersFitArena(list: ArrayLike<unknown>, from: number, length: number): boolean {
  for (let k = 0; k < length; k++) {
    const x = list[from + k];
    if (typeof x !== 'number' || (x | 0) !== x || Object.is(x, -0)) return false;
  }
  return true;
}

function grown<T extends Float64Array | Uint8Array | Uint16Array | Uint32Array | Int32Array>(array: T, size: number): T {
  const bigger = new (array.constructor as new (n: number) => T)(size);
  bigger.set(array);
  return bigger;
}

export class RunArena {
  /** Each record's times as offsets from its origin (ms), then its side-table numbers as they are. */
  times = new Int32Array(1 << 12);
  codes = new Uint8Array(1 << 12);
  /** Slots of times/codes in use (placed, live or garbage), and of those garbage. */
  used = 0;
  garbage = 0;
  base = new Uint32Array(1 << 8);
  count = new Uint16Array(1 << 8);
  /** Slots from base[r] on: its times, then its side-table numbers. */
  extent = new Uint16Array(1 << 8);
  /** Read through startIndexOf (NO_START: none). */
  startIndex = new Uint16Array(1 << 8);
  memory = new Uint16Array(1 << 8);
  deletedAfter = new Int32Array(1 << 8);
  /** Record r's origin, seconds since the epoch: its times are originSeconds[r] · 1000 + times[base[r] + i]. */
  originSeconds = new Uint32Array(1 << 8);
  flags = new Uint8Array(1 << 8);
  /** Record r's run's UID at uids[4r…4r+3] when its flags say HAS_UID (run-timeline.ts). */
  uids = new Uint32Array(UID_WORDS << 8);
  records = 0;
  readonly #free: number[] = [];
  /** Whole-life totals (Columns.life) and side tables holding objects (Columns.extras), of the few records that keep them. */
  readonly life = new Map<number, number[]>();
  readonly extras = new Map<number, unknown[]>();

  /** How many records are live. */
  get live(): number {
    return this.records - this.#free.length;
  }

  /** A new record of `extent` slots (its times, then its side-table numbers); its slots are to be written by the caller. */
  allocate(extent: number): number {
    let r = this.#free.pop();
    if (r === undefined) {
      r = this.records++;
      if (r >= this.base.length) this.#growRecords(this.base.length * 2);
    }
    this.flags[r] = LIVE;
    this.originSeconds[r] = 0;
    this.memory[r] = NULL_MEMORY;
    this.deletedAfter[r] = NULL_DELETED;
    this.count[r] = 0;
    this.startIndex[r] = NO_START;
    this.extent[r] = 0;
    this.#place(r, extent);
    return r;
  }

  /** Gives record `r` a fresh extent of `extent` slots (its old one becomes garbage), its first `n` times and codes copied over. */
  move(r: number, extent: number, n: number): void {
    const from = this.base[r]!;
    const times = this.times.slice(from, from + n);
    const codes = this.codes.slice(from, from + n);
    this.garbage += this.extent[r]!;
    // Empty until placed: a compaction on the way copies nothing of it.
    this.extent[r] = 0;
    this.#place(r, extent);
    this.times.set(times, this.base[r]!);
    this.codes.set(codes, this.base[r]!);
  }

  release(r: number): void {
    if ((this.flags[r]! & LIVE) === 0) throw new Error(`run record ${r} is not live`);
    this.garbage += this.extent[r]!;
    this.flags[r] = 0;
    this.life.delete(r);
    this.extras.delete(r);
    this.#free.push(r);
    this.#compactIfWasteful();
  }

  /** Record r's origin, ms. */
  originOf(r: number): number {
    return this.originSeconds[r]! * 1000;
  }

  /** Writes record r's `n` times from at[from…] (fitsArena said they fit), its origin from the first. */
  setTimes(r: number, at: ArrayLike<number>, from: number, n: number): void {
    const origin = n > 0 ? originOf(at[from]!) : 0;
    this.originSeconds[r] = origin / 1000;
    const times = this.times;
    const base = this.base[r]!;
    for (let i = 0; i < n; i++) times[base + i] = at[from + i]! - origin;
  }

  /** Where record r's slots end (its times', then its side-table numbers'). */
  endOf(r: number): number {
    return this.base[r]! + this.extent[r]!;
  }

  /** The index of record r's first start (Columns.startIndex); -1 when none. */
  startIndexOf(r: number): number {
    const i = this.startIndex[r]!;
    return i === NO_START ? -1 : i;
  }

  setStartIndex(r: number, i: number): void {
    this.startIndex[r] = i < 0 ? NO_START : i;
  }

  memoryOf(r: number): number | null {
    const m = this.memory[r]!;
    return m === NULL_MEMORY ? null : m;
  }

  deletedAfterOf(r: number): number | null {
    const d = this.deletedAfter[r]!;
    return d === NULL_DELETED ? null : d;
  }

  /** Sets the machine memory (a small non-negative integer, below 2^16 − 1, or null) and deletion offset (|d| < 2^30, or null); false when they do not fit. */
  setMemory(r: number, memory: number | null, deletedAfter: number | null): boolean {
    if (memory !== null && !(Number.isInteger(memory) && memory >= 0 && memory < NULL_MEMORY)) return false;
    if (deletedAfter !== null && !(Number.isInteger(deletedAfter) && Math.abs(deletedAfter) < 2 ** 30)) return false;
    this.memory[r] = memory ?? NULL_MEMORY;
    this.deletedAfter[r] = deletedAfter ?? NULL_DELETED;
    return true;
  }

  setLife(r: number, life: number[] | null): void {
    this.#setSide(this.life, HAS_LIFE, r, life);
  }

  setExtras(r: number, extras: unknown[] | null): void {
    this.#setSide(this.extras, HAS_EXTRAS, r, extras);
  }

  /** Keeps `value` for record `r` in `map` (null: none), its flag saying so (a view reads the map only then). */
  #setSide<T>(map: Map<number, T>, flag: number, r: number, value: T | null): void {
    if (value === null) {
      if ((this.flags[r]! & flag) !== 0) map.delete(r);
      this.flags[r]! &= ~flag;
    } else {
      map.set(r, value);
      this.flags[r]! |= flag;
    }
  }

  /** Record `r`'s slots run from base[r] to endOf(r): places them after the last, growing the arrays when full. */
  #place(r: number, extent: number): void {
    if (extent > MAX_EXTENT) throw new Error(`a run record of ${extent} slots: more than ${MAX_EXTENT}`);
    if (this.used + extent > this.times.length) {
      // Before growing, drop the garbage (a compaction moves the records that are live, `r` too).
      this.#compactIfWasteful();
      if (this.used + extent > this.times.length) {
        const size = Math.max(this.times.length * 2, this.used + extent);
        this.times = grown(this.times, size);
        this.codes = grown(this.codes, size);
      }
    }
    this.base[r] = this.used;
    this.extent[r] = extent;
    this.used += extent;
  }

  #growRecords(size: number): void {
    this.base = grown(this.base, size);
    this.count = grown(this.count, size);
    this.extent = grown(this.extent, size);
    this.startIndex = grown(this.startIndex, size);
    this.memory = grown(this.memory, size);
    this.deletedAfter = grown(this.deletedAfter, size);
    this.originSeconds = grown(this.originSeconds, size);
    this.flags = grown(this.flags, size);
    this.uids = grown(this.uids, size * UID_WORDS);
  }

  #compactIfWasteful(): void {
    if (this.garbage < 1 << 12 || this.garbage * 2 < this.used) return;
    this.compact();
  }

  /** Copies the live records' slots together into fresh arrays (in record order), dropping the garbage. */
  compact(): void {
    const size = Math.max(1 << 12, (this.used - this.garbage) * 2);
    const times = new Int32Array(size);
    const codes = new Uint8Array(size);
    let used = 0;
    for (let r = 0; r < this.records; r++) {
      if ((this.flags[r]! & LIVE) === 0) continue;
      const from = this.base[r]!;
      const extent = this.extent[r]!;
      times.set(this.times.subarray(from, from + extent), used);
      codes.set(this.codes.subarray(from, from + extent), used);
      this.base[r] = used;
      used += extent;
    }
    this.times = times;
    this.codes = codes;
    this.used = used;
    this.garbage = 0;
  }
}

/** The one arena of the process: the engine's closed runs (and a test's). */
export const runArena = new RunArena();
