// A fleet index partition's columns of events (fleet-index.ts), in fewer bytes than a number each:
// its times, sorted, as 4-byte offsets from the first time of their block of 128 (8 bytes a time
// otherwise), and its transitions' indices in 2 bytes while every one is below 65,536. Both give
// back exactly the numbers put in: a time that an offset cannot carry exactly (a fraction of a
// millisecond, or a block spanning more than 2^32 ms, about 49 days) turns the partition's times
// into 8-byte numbers, an index past 2 bytes its indices into 4-byte ones. Its events' timelines,
// places in the partition's table of them (fleet-index.ts), are 2-byte distances below the largest
// place of their block of 128, the rare farther one kept apart.

const SHIFT = 7;
const BLOCK = 1 << SHIFT;
const MAX_OFFSET = 0xffff_ffff;

/** A new array of `length` of the same kind, its first `keep` copied from `array` (a column's growth). */
function regrown<T extends Uint16Array | Uint32Array | Float64Array>(array: T, length: number, keep: number): T {
  const grown = new (array.constructor as new (n: number) => T)(length);
  grown.set(array.subarray(0, keep) as ArrayLike<number>);
  return grown;
}

/** Ascending times, read by position; written from a position to the end (what a merge of sorted events rewrites). */
export class EventTimes {
  length = 0;
  /** The first time of each block of BLOCK events. */
  #bases = new Float64Array(1);
  #offsets = new Uint32Array(BLOCK);
  /** Every time as it is, once one did not fit an offset (null until then). */
  #wide: Float64Array | null = null;

  at(e: number): number {
    const wide = this.#wide;
    return wide !== null ? wide[e]! : this.#bases[e >>> SHIFT]! + this.#offsets[e]!;
  }

  /** How many times are at or before t. */
  count(t: number): number {
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.at(mid) <= t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Keeps the first `from` times and puts `times` (ascending, none before the time at from − 1) after them. */
  replaceFrom(from: number, times: ArrayLike<number>): void {
    const need = from + times.length;
    this.#reserve(need);
    let k = 0;
    if (this.#wide === null) {
      // Locals, not fields, in the loop: a start takes in millions of times in one call.
      const bases = this.#bases;
      const offsets = this.#offsets;
      for (; k < times.length; k++) {
        const e = from + k;
        const t = times[k]!;
        const b = e >>> SHIFT;
        if ((e & (BLOCK - 1)) === 0) bases[b] = t;
        const base = bases[b]!;
        const offset = t - base;
        if (!(offset >= 0 && offset <= MAX_OFFSET && offset === Math.floor(offset) && base + offset === t)) break;
        offsets[e] = offset;
      }
      if (k < times.length) this.#widen(from + k);
    }
    const wide = this.#wide;
    if (wide !== null) for (; k < times.length; k++) wide[from + k] = times[k]!;
    this.length = need;
  }

  /** Every time, as numbers (a copy). */
  toFloat64(): Float64Array {
    const out = new Float64Array(this.length);
    if (this.#wide !== null) out.set(this.#wide.subarray(0, this.length));
    else for (let e = 0; e < this.length; e++) out[e] = this.at(e);
    return out;
  }

  /** Gives back the room beyond the length (once built: an index that only grows live gains a little at a time). */
  trim(): void {
    if (this.#wide !== null) {
      if (this.#wide.length > this.length) this.#wide = this.#wide.slice(0, this.length);
      return;
    }
    if (this.#offsets.length > this.length) this.#offsets = this.#offsets.slice(0, this.length);
    const blocks = Math.ceil(this.length / BLOCK);
    if (this.#bases.length > blocks) this.#bases = this.#bases.slice(0, blocks);
  }

  /** The bytes its arrays take. */
  get bytes(): number {
    return this.#wide !== null ? this.#wide.byteLength : this.#offsets.byteLength + this.#bases.byteLength;
  }

  /** Whether the times are kept as they are (8 bytes each): one did not fit an offset. */
  get wide(): boolean {
    return this.#wide !== null;
  }

  #reserve(need: number): void {
    const capacity = this.#wide !== null ? this.#wide.length : this.#offsets.length;
    if (need <= capacity) return;
    const grown = Math.max(need, capacity + (capacity >> 3) + 64);
    if (this.#wide !== null) {
      this.#wide = regrown(this.#wide, grown, this.length);
      return;
    }
    this.#offsets = regrown(this.#offsets, grown, this.length);
    this.#bases = regrown(this.#bases, Math.ceil(grown / BLOCK), Math.ceil(this.length / BLOCK));
  }

  /** Turns the first `upTo` times into numbers as they are, and every later one with them. */
  #widen(upTo: number): void {
    const wide = new Float64Array(Math.max(this.#offsets.length, upTo + 1));
    for (let e = 0; e < upTo; e++) wide[e] = this.at(e);
    this.#wide = wide;
    this.#offsets = new Uint32Array(0);
    this.#bases = new Float64Array(0);
  }
}

/** Whole numbers ≥ 0 (transitions' indices, timelines' places), read by position; written from a position to the end. */
export class SmallNumbers {
  length = 0;
  #values: Uint16Array | Uint32Array = new Uint16Array(BLOCK);

  at(e: number): number {
    return this.#values[e]!;
  }

  /** Keeps the first `from` and puts `values` after them. */
  replaceFrom(from: number, values: ArrayLike<number>): void {
    const need = from + values.length;
    let widest = 0;
    for (let k = 0; k < values.length; k++) if (values[k]! > widest) widest = values[k]!;
    const wide = widest > 0xffff && this.#values instanceof Uint16Array;
    if (need > this.#values.length || wide) {
      const Kind = wide || this.#values instanceof Uint32Array ? Uint32Array : Uint16Array;
      const grown = new Kind(Math.max(need, this.#values.length + (this.#values.length >> 3) + 64));
      grown.set(this.#values.subarray(0, from));
      this.#values = grown;
    }
    this.#values.set(values, from);
    this.length = need;
  }

  /** Every number, 4 bytes each (a copy). */
  toUint32(): Uint32Array {
    return Uint32Array.from(this.#values.subarray(0, this.length));
  }

  trim(): void {
    if (this.#values.length > this.length) this.#values = this.#values.slice(0, this.length);
  }

  get bytes(): number {
    return this.#values.byteLength;
  }
}

/** A distance too far for 2 bytes: the number is kept apart (NearNumbers). */
const FAR = 0xffff;

/**
 * Whole numbers ≥ 0 that lie close to one another within a block of BLOCK positions (the places of a
 * partition's timelines in the order of their first events: a block's events are of timelines begun
 * near that time), read by position; written from a position to the end. Each is kept as its
 * distance below the largest of its block, 2 bytes, and the largest once a block; the rare one
 * 65,535 or more below it (a timeline that began long before) is kept apart with its position.
 */
export class NearNumbers {
  length = 0;
  /** The largest number of each block. */
  #tops = new Uint32Array(1);
  /** Each number's distance below its block's top, or FAR: kept apart. */
  #below = new Uint16Array(BLOCK);
  /** The positions (ascending) and numbers of those kept apart. */
  #farAt: number[] = [];
  #far: number[] = [];

  at(e: number): number {
    const d = this.#below[e]!;
    return d !== FAR ? this.#tops[e >>> SHIFT]! - d : this.#farOf(e);
  }

  /** Keeps the first `from` and puts `values` after them (the block holding `from` is written again whole: its top may change). */
  replaceFrom(from: number, values: ArrayLike<number>): void {
    const need = from + values.length;
    this.#reserve(need);
    const start = from - (from & (BLOCK - 1));
    const head: number[] = [];
    for (let e = start; e < from; e++) head.push(this.at(e));
    const kept = this.#farBefore(start);
    this.#farAt.length = kept;
    this.#far.length = kept;
    const tops = this.#tops;
    const below = this.#below;
    for (let b = start; b < need; b += BLOCK) {
      const end = Math.min(need, b + BLOCK);
      let top = 0;
      for (let e = b; e < end; e++) {
        const v = e < from ? head[e - start]! : values[e - from]!;
        if (v > top) top = v;
      }
      tops[b >>> SHIFT] = top;
      for (let e = b; e < end; e++) {
        const v = e < from ? head[e - start]! : values[e - from]!;
        const d = top - v;
        if (d < FAR) below[e] = d;
        else {
          below[e] = FAR;
          this.#farAt.push(e);
          this.#far.push(v);
        }
      }
    }
    this.length = need;
  }

  /** Every number, 4 bytes each (a copy). */
  toUint32(): Uint32Array {
    const out = new Uint32Array(this.length);
    for (let e = 0; e < this.length; e++) out[e] = this.at(e);
    return out;
  }

  trim(): void {
    if (this.#below.length > this.length) this.#below = this.#below.slice(0, this.length);
    const blocks = Math.ceil(this.length / BLOCK);
    if (this.#tops.length > blocks) this.#tops = this.#tops.slice(0, blocks);
  }

  /** The bytes its arrays take (those kept apart: two numbers of 8 bytes each). */
  get bytes(): number {
    return this.#below.byteLength + this.#tops.byteLength + 16 * this.#far.length;
  }

  /** How many are kept apart (65,535 or more below their block's top). */
  get apart(): number {
    return this.#far.length;
  }

  /** How many kept apart lie before position e. */
  #farBefore(e: number): number {
    const at = this.#farAt;
    let lo = 0;
    let hi = at.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (at[mid]! < e) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  #farOf(e: number): number {
    return this.#far[this.#farBefore(e)]!;
  }

  #reserve(need: number): void {
    const capacity = this.#below.length;
    if (need <= capacity) return;
    const grown = Math.max(need, capacity + (capacity >> 3) + 64);
    this.#below = regrown(this.#below, grown, this.length);
    this.#tops = regrown(this.#tops, Math.ceil(grown / BLOCK), Math.ceil(this.length / BLOCK));
  }
}
