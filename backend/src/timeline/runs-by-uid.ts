// The engine's runs by UID (issue 21 §3): what a Map<string, run> was, without a string or a map entry
// a run. A month of a large fleet is ~870,000 runs; a Map of them held each run's UID string (~56
// bytes) and an entry (~28–42 bytes). Here a run is a number (its place, in the order runs were added),
// its UID is read from its timeline (where a sealed run holds it, in its arena record as 16 bytes:
// run-timeline.ts), and an open-addressed table of those numbers finds it: ~16 bytes a run beside the
// UID's own 16.
//
// Iterated in the order runs were added, as a Map is (a run deleted and added again comes last). A
// run's key is its own timeline's UID, which never changes; its hash is the same whether the UID is
// held as words or as a string (uids.ts hashUid), so sealing a run does not move it.

import { runArena } from './arena.ts';
import { keptTimeline, type MachineState } from './machine.ts';
import { RunTimeline } from './run-timeline.ts';
import type { Timeline } from './types.ts';
import { encodeUid, hashUidText, hashUidWords, sameUidWords, UID_WORDS } from './uids.ts';

/** A run as the engine keeps it: an open run's machine; a closed run's timeline alone (machine.ts settledMachine). */
export type KeptRun = MachineState | Timeline;

/** Places in the table's slots are run numbers + 1; 0: empty. */
const EMPTY = 0;
const MIN_SLOTS = 16;

/** The arena record holding a timeline's UID, or -1 (it holds a string). */
const recordOf = (tl: Timeline): number => (tl instanceof RunTimeline ? tl.uidRecord : -1);

export class RunsByUid {
  /** The runs by number; undefined where one was deleted (a hole, until the next compaction). */
  #runs: (KeptRun | undefined)[] = [];
  /** Each run's UID's hash, by number. */
  #hashes = new Int32Array(MIN_SLOTS);
  /** Open addressing, linear probing, at most half full: run number + 1, or EMPTY. */
  #slots = new Int32Array(MIN_SLOTS * 2);
  #size = 0;

  // The UID being looked for (#probe…): its string (null when it came as words), its words when canonical, its hash.
  #text: string | null = null;
  readonly #words = new Uint32Array(UID_WORDS);
  #canonical = false;
  #hash = 0;
  /** A run's string UID's words, to compare with a probe that came as words. */
  readonly #other = new Uint32Array(UID_WORDS);

  constructor(runs: Iterable<KeptRun> = []) {
    for (const run of runs) this.add(run);
  }

  get size(): number {
    return this.#size;
  }

  get(uid: string): KeptRun | undefined {
    this.#probeText(uid);
    const n = this.#find();
    return n < 0 ? undefined : this.#runs[n];
  }

  has(uid: string): boolean {
    this.#probeText(uid);
    return this.#find() >= 0;
  }

  /** The run whose UID is `timeline`'s (without a string made of a UID held as words). */
  getOf(timeline: Timeline): KeptRun | undefined {
    this.#probeTimeline(timeline);
    const n = this.#find();
    return n < 0 ? undefined : this.#runs[n];
  }

  /** Keeps `run` under `uid`, its own timeline's UID (a Map's set: one already kept under it is replaced in its place). */
  set(uid: string, run: KeptRun): this {
    this.#probeText(uid);
    if (!this.#matches(run)) throw new Error(`a run is kept under its own UID, not ${uid}`);
    this.#put(run);
    return this;
  }

  /** Keeps `run` under its own timeline's UID (set, without its UID read as a string). */
  add(run: KeptRun): this {
    this.#probeTimeline(keptTimeline(run));
    this.#put(run);
    return this;
  }

  delete(uid: string): boolean {
    this.#probeText(uid);
    const slot = this.#findSlot();
    if (slot < 0) return false;
    const n = this.#slots[slot]! - 1;
    this.#runs[n] = undefined;
    this.#size--;
    this.#unslot(slot);
    if (this.#runs.length > 1024 && this.#size * 2 < this.#runs.length) this.#compact();
    return true;
  }

  /** The runs, in the order they were added. */
  *values(): IterableIterator<KeptRun> {
    const runs = this.#runs;
    for (let n = 0; n < runs.length; n++) {
      const run = runs[n];
      if (run !== undefined) yield run;
    }
  }

  /** Replaces each run, in order, by what `f` makes of it (the same run's: its UID unchanged). */
  replaceEach(f: (run: KeptRun) => KeptRun): void {
    const runs = this.#runs;
    for (let n = 0; n < runs.length; n++) {
      const run = runs[n];
      if (run !== undefined) runs[n] = f(run);
    }
  }

  #probeText(uid: string): void {
    this.#text = uid;
    this.#canonical = encodeUid(uid, this.#words);
    this.#hash = (this.#canonical ? hashUidWords(this.#words) : hashUidText(uid)) | 0;
  }

  #probeTimeline(timeline: Timeline): void {
    const r = recordOf(timeline);
    if (r < 0) {
      this.#probeText(timeline.uid);
      return;
    }
    this.#words.set(runArena.uids.subarray(r * UID_WORDS, (r + 1) * UID_WORDS));
    this.#text = null;
    this.#canonical = true;
    this.#hash = hashUidWords(this.#words) | 0;
  }

  /** Whether `run` bears the probe's UID. */
  #matches(run: KeptRun): boolean {
    const tl = keptTimeline(run);
    const r = recordOf(tl);
    if (r >= 0) return this.#canonical && sameUidWords(runArena.uids, r * UID_WORDS, this.#words, 0);
    const uid = tl.uid;
    if (this.#text !== null) return uid === this.#text;
    return encodeUid(uid, this.#other) && sameUidWords(this.#other, 0, this.#words, 0);
  }

  /** The slot of the run bearing the probe's UID, or -1. */
  #findSlot(): number {
    const slots = this.#slots;
    const mask = slots.length - 1;
    const hash = this.#hash;
    for (let s = hash & mask; ; s = (s + 1) & mask) {
      const held = slots[s]!;
      if (held === EMPTY) return -1;
      const n = held - 1;
      if (this.#hashes[n] === hash && this.#matches(this.#runs[n]!)) return s;
    }
  }

  #find(): number {
    const slot = this.#findSlot();
    return slot < 0 ? -1 : this.#slots[slot]! - 1;
  }

  /** Keeps `run` under the probe's UID: in the place of the run bearing it, else as a new number. */
  #put(run: KeptRun): void {
    const slot = this.#findSlot();
    if (slot >= 0) {
      this.#runs[this.#slots[slot]! - 1] = run;
      return;
    }
    const n = this.#runs.length;
    this.#runs.push(run);
    if (n >= this.#hashes.length) {
      const hashes = new Int32Array(this.#hashes.length * 2);
      hashes.set(this.#hashes);
      this.#hashes = hashes;
    }
    this.#hashes[n] = this.#hash;
    this.#size++;
    if (this.#size * 2 > this.#slots.length) this.#reslot(this.#slots.length * 2);
    else this.#slot(n);
  }

  /** Places run number n in the first empty slot from its hash on. */
  #slot(n: number): void {
    const slots = this.#slots;
    const mask = slots.length - 1;
    let s = this.#hashes[n]! & mask;
    while (slots[s] !== EMPTY) s = (s + 1) & mask;
    slots[s] = n + 1;
  }

  /** Empties slot `s`, moving back the runs after it that probing would no longer reach (no tombstones). */
  #unslot(s: number): void {
    const slots = this.#slots;
    const mask = slots.length - 1;
    let hole = s;
    slots[hole] = EMPTY;
    for (let k = (hole + 1) & mask; slots[k] !== EMPTY; k = (k + 1) & mask) {
      const home = this.#hashes[slots[k]! - 1]! & mask;
      // The run at k may fill the hole when its home is not in (hole, k], cyclically.
      const reachable = hole <= k ? home > hole && home <= k : home > hole || home <= k;
      if (reachable) continue;
      slots[hole] = slots[k]!;
      slots[k] = EMPTY;
      hole = k;
    }
  }

  /** The slots made again, `size` of them, for every run kept. */
  #reslot(size: number): void {
    this.#slots = new Int32Array(Math.max(MIN_SLOTS * 2, size));
    const runs = this.#runs;
    for (let n = 0; n < runs.length; n++) if (runs[n] !== undefined) this.#slot(n);
  }

  /** Numbers the runs again without the holes deleted runs left (their order kept), then the slots. */
  #compact(): void {
    const runs: KeptRun[] = [];
    const hashes = new Int32Array(Math.max(MIN_SLOTS, this.#size * 2));
    for (let n = 0; n < this.#runs.length; n++) {
      const run = this.#runs[n];
      if (run === undefined) continue;
      hashes[runs.length] = this.#hashes[n]!;
      runs.push(run);
    }
    this.#runs = runs;
    this.#hashes = hashes;
    let size = MIN_SLOTS * 2;
    while (size < runs.length * 2) size *= 2;
    this.#reslot(size);
  }
}
