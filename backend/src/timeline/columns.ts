// A timeline's transitions as columns (times, and states as small codes, in one array), and a closed
// timeline's memory form (issue 21 §3): its columns and, in a side table, only the extras of the
// transitions that carry some (causes, a suspension's reason, unobserved events), no object per
// transition. As objects the transitions cost ~60 bytes more each (`{at, state}`, `at` a boxed
// double, an array slot).
// An open timeline keeps its array of transitions, and its columns beside it, extended as it grows:
// the sweep over them is the hot loop of every query, and numbers in arrays cost a fraction of
// object fields and string compares. Timelines are append-only, so a cached prefix stays true; the
// cache is keyed by the array. Readers read through the read functions of types.ts.
//
// Pure: values in, values out.

import type { Cause, State, Suspension, Transition } from './types.ts';
import { HAS_EXTRAS, HAS_LIFE, LIVE, MAX_EXTENT, numbersFitArena, runArena, timesFitArena } from './arena.ts';

export const STATE_CODE: Readonly<Record<State, number>> = { up: 0, provisioning: 1, down: 2, suspended: 3, unknown: 4, completed: 5, failed: 6, deleted: 7 };
export const UP_CODE = 0;
export const DOWN_CODE = 2;
export const SUSPENDED_CODE = 3;
export const FAILED_CODE = 6;
/** Codes from here on (completed, failed, deleted) are terminal. */
export const CLOSED_FROM = 5;
/** Bit set on a transition that carries events proven after a gap (`unobserved`). */
export const UNOBSERVED_BIT = 8;

/** The states by code (the low three bits of a code). */
const STATE_OF: readonly State[] = (Object.keys(STATE_CODE) as State[]).sort((a, b) => STATE_CODE[a] - STATE_CODE[b]);

export function stateOfCode(code: number): State {
  return STATE_OF[code & 7]!;
}

export interface Columns {
  length: number;
  /**
   * The times (epoch ms, as they are: exact whatever they are) from `base` on. In the plain form
   * (an open timeline's, base 0) one plain array of numbers a timeline (V8 keeps them unboxed: a
   * pair of typed arrays costs ~800 bytes per timeline in buffers and their bookkeeping, more than
   * the handful of transitions they hold): the `length` times, then their state codes, eight to a
   * number, 4 bits each (codeAt). In the arena form (a closed run of the engine's, arena.ts) the
   * arena's array of every record's times, as offsets from `origin`. Read them with timeAt.
   */
  times: number[] | Int32Array;
  /** Where this timeline's times begin in `times` (0 but in the arena form). */
  base: number;
  /** What its times in `times` are offsets from: the record's origin (ms) in the arena form; −0 in the plain form, which adds nothing to any number (−0 too). */
  origin: number;
  /** The arena form's state codes, one a byte at the times' offsets; null in the plain form (the codes are held in `times`). */
  codes: Uint8Array | null;
  /** The arena form's record (arena.ts); -1 in the plain form. */
  record: number;
  /** The arena form: where its side-table numbers, behind its times, end in `times`; unused in the plain form (the array's end). */
  end: number;
  /** The index of the transition where it first started (provisioning, up or down), -1 while it has not: startOf gives its time (an index, because a time in a field is a boxed double, 16 bytes). */
  startIndex: number;
  /**
   * A closed timeline's totals over its whole life (series/totals.ts, the BASE_FIELDS numbers), worked out
   * once and kept (keepLife): they never change, and every window that holds the whole life reads them instead
   * of sweeping its transitions. Null while open, or until first asked.
   */
  life: number[] | null;
  /**
   * Packed (a closed timeline's memory form): the transitions that carry extras, as index, what
   * is kept of it (Kept: its causes, its suspension, or the transition whole), … in index order;
   * null when none does, or when all that is kept are numbers (RestartCodes): those are held
   * behind the times (tailOf) instead (an array of their own costs ~48 bytes more). Always null for
   * the columns of an open timeline (kept beside its array).
   */
  extras: (number | Transition | Cause[] | Cause | Suspension)[] | null;
  /**
   * A closed run's machine memory (timeline/machine.ts settledMachine), kept here so that a closed
   * run keeps no machine object of its own: its restart count and whether it was ever up as one
   * small integer, and when it was deleted less when it closed (null: not deleted). Null while
   * open. Set through setMemory.
   */
  memory: number | null;
  deletedAfter: number | null;
}

/** Transition i's time. */
export function timeAt(c: Columns, i: number): number {
  return c.times[c.base + i]! + c.origin;
}

/** Transition i's state code (and UNOBSERVED_BIT): 4 bits of the number that holds it, behind the times. */
export function codeAt(c: Columns, i: number): number {
  const codes = c.codes;
  if (codes !== null) return codes[c.base + i]!;
  return (c.times[c.length + (i >> 3)]! >>> ((i & 7) << 2)) & 15;
}

/** When the timeline first started (provisioning, up or down); Infinity while it has not. */
export function startOf(c: Columns): number {
  return c.startIndex < 0 ? Infinity : c.times[c.base + c.startIndex]! + c.origin;
}

/** Sets UNOBSERVED_BIT in transition i's code. */
function markUnobserved(c: Columns, i: number): void {
  if (c.codes !== null) {
    // Written to the arena itself (the view's `codes` is the arena's array until it grows).
    runArena.codes[runArena.base[c.record]! + i]! |= UNOBSERVED_BIT;
    c.codes = runArena.codes;
    c.base = runArena.base[c.record]!;
    return;
  }
  const at = c.times as number[];
  const w = c.length + (i >> 3);
  at[w] = (at[w]! | (UNOBSERVED_BIT << ((i & 7) << 2))) >>> 0;
}

/**
 * A closed timeline's transitions, packed: opaque, so that only the read functions (types.ts) see
 * into it and every reader of `Timeline.transitions` has to say which form it reads.
 */
export interface PackedTransitions {
  readonly packed: unique symbol;
}

/** Whether a timeline's transitions are held packed. */
export function isPacked(transitions: readonly Transition[] | PackedTransitions): transitions is PackedTransitions {
  return !Array.isArray(transitions);
}

/** The columns of packed transitions. */
export function packedColumns(packed: PackedTransitions): Columns {
  return typeof packed === 'number' ? arenaView(packed) : (packed as unknown as Columns);
}

/**
 * The columns of arena record `r` (arena.ts): a view made afresh, to read now (a record placed again
 * later, or the arena grown, leaves it reading the old arrays, which keep what they held).
 */
function arenaView(r: number): Columns {
  const a = runArena;
  const flags = a.flags[r]!;
  if ((flags & LIVE) === 0) throw new Error(`run record ${r} was released`);
  return {
    length: a.count[r]!,
    times: a.times,
    base: a.base[r]!,
    origin: a.originOf(r),
    codes: a.codes,
    record: r,
    end: a.endOf(r),
    startIndex: a.startIndexOf(r),
    life: (flags & HAS_LIFE) !== 0 ? a.life.get(r)! : null,
    extras: (flags & HAS_EXTRAS) !== 0 ? (a.extras.get(r)! as Columns['extras']) : null,
    memory: a.memoryOf(r),
    deletedAfter: a.deletedAfterOf(r),
  };
}

/** How many transitions packed transitions hold (an arena record's read without a view). */
export function packedLength(packed: PackedTransitions): number {
  return typeof packed === 'number' ? runArena.count[packed]! : (packed as unknown as Columns).length;
}

/** Transition i's time of packed transitions. */
export function packedTime(packed: PackedTransitions, i: number): number {
  if (typeof packed !== 'number') return timeAt(packed as unknown as Columns, i);
  return runArena.times[runArena.base[packed]! + i]! + runArena.originOf(packed);
}

/** Transition i's code of packed transitions (codeAt). */
export function packedCode(packed: PackedTransitions, i: number): number {
  if (typeof packed !== 'number') return codeAt(packed as unknown as Columns, i);
  return runArena.codes[runArena.base[packed]! + i]!;
}

/** Whether packed transitions are an arena record (a closed run the engine keeps), not columns of their own. */
export function isArenaRecord(packed: PackedTransitions): boolean {
  return typeof packed === 'number';
}

/**
 * Packed transitions (of a closed timeline) as an arena record: a new one, copied from their own
 * columns (their side table, kept totals and machine memory with them). Arena records as they are,
 * and columns whose numbers a record cannot hold exactly (arena.ts timesFitArena, numbersFitArena) too.
 */
export function intoArena(packed: PackedTransitions): PackedTransitions {
  if (typeof packed === 'number') return packed;
  const c = packed as unknown as Columns;
  const n = c.length;
  const from = tailOf(c);
  const tail = c.extras === null ? c.times.length - from : 0;
  if (n + tail > MAX_EXTENT || !timesFitArena(c.times, 0, n) || !numbersFitArena(c.times, from, tail)) return packed;
  const r = runArena.allocate(n + tail);
  const a = runArena;
  const base = a.base[r]!;
  a.count[r] = n;
  a.setStartIndex(r, c.startIndex);
  a.setTimes(r, c.times, 0, n);
  for (let i = 0; i < n; i++) a.codes[base + i] = codeAt(c, i);
  for (let k = 0; k < tail; k++) a.times[base + n + k] = c.times[from + k]!;
  a.setExtras(r, c.extras);
  a.setLife(r, c.life);
  a.setMemory(r, c.memory, c.deletedAfter);
  return r as unknown as PackedTransitions;
}

/**
 * An arena record's transitions as columns of their own again (the plain packed form), and the
 * record released: for a run the engine drops (retention) that a reader may still hold.
 */
export function outOfArena(packed: PackedTransitions): PackedTransitions {
  if (typeof packed !== 'number') return packed;
  const v = arenaView(packed);
  const n = v.length;
  const times: number[] = [];
  for (let i = 0; i < n; i++) times.push(timeAt(v, i));
  const words: number[] = [];
  for (let i = 0; i < n; i++) words[i >> 3] = ((words[i >> 3] ?? 0) | (codeAt(v, i) << ((i & 7) << 2))) >>> 0;
  for (const w of words) times.push(w);
  const c: Columns = { length: n, times: times.slice(), base: 0, origin: -0, codes: null, record: -1, end: -1, startIndex: v.startIndex, life: v.life, extras: null, memory: v.memory, deletedAfter: v.deletedAfter };
  holdSideTable(c, sideTable(v));
  runArena.release(packed);
  return c as unknown as PackedTransitions;
}

/** Keeps `life` as the closed timeline's whole-life totals (Columns.life), in the arena for a record. */
export function keepLife(c: Columns, life: number[]): void {
  c.life = life;
  if (c.record >= 0) runArena.setLife(c.record, life);
}

/** Sets a closed timeline's machine memory (Columns.memory, deletedAfter); false when an arena record cannot hold them (then nothing is set). */
export function setMemory(c: Columns, memory: number | null, deletedAfter: number | null): boolean {
  if (c.record >= 0 && !runArena.setMemory(c.record, memory, deletedAfter)) return false;
  c.memory = memory;
  c.deletedAfter = deletedAfter;
  return true;
}

const cache = new WeakMap<readonly Transition[], Columns>();

/** An (open, or not yet packed) timeline's transitions as columns, cached and extended as it grows. */
export function columnsOf(transitions: readonly Transition[]): Columns {
  const n = transitions.length;
  let c = cache.get(transitions);
  if (c !== undefined && c.length === n) return c;
  if (c === undefined) {
    c = { length: 0, times: [], base: 0, origin: -0, codes: null, record: -1, end: -1, startIndex: -1, life: null, extras: null, memory: null, deletedAfter: null };
    cache.set(transitions, c);
  }
  const at = c.times as number[];
  // The numbers that hold the codes move behind the new times.
  const words = at.splice(c.length);
  for (let i = c.length; i < n; i++) {
    const t = transitions[i]!;
    const code = STATE_CODE[t.state];
    at.push(t.at);
    const w = i >> 3;
    words[w] = ((words[w] ?? 0) | ((code | (t.unobserved !== undefined ? UNOBSERVED_BIT : 0)) << ((i & 7) << 2))) >>> 0;
    if (c.startIndex < 0 && code <= DOWN_CODE) c.startIndex = i;
  }
  for (const w of words) at.push(w);
  c.length = n;
  // A closed timeline's columns never grow again: an exact-length copy frees the spare slots push left.
  if (n > 0 && (codeAt(c, n - 1) & 7) >= CLOSED_FROM) c.times = at.slice();
  return c;
}

function hasExtras(t: Transition): boolean {
  return t.causes !== undefined || t.suspension !== undefined || t.unobserved !== undefined;
}

/**
 * What the side table keeps of a transition with extras: its causes alone (the array, or its one
 * cause without an array: most have one, and an array of one costs ~56 bytes; a JobSet's own restart
 * as a number, RestartCode), or its suspension's reason alone (the shared object, or a number for
 * it: suspensionNumber; a cause of a kind, time, reason and message alone as a number too:
 * causeNumberFor), without the time
 * and state the columns hold (an object for them costs ~64 bytes, its time a boxed double); a
 * transition with more than one of them, or with unobserved events, whole.
 */
type Kept = Transition | Cause[] | Cause | Suspension | RestartCode;

/**
 * A failure-policy restart's cause (nodes/objects.ts jobsetCauses: `{kind, at, restarts, reason}`,
 * most of a closed fleet's causes) as one small integer: its restart count and its time less the
 * transition's, which the columns hold. An object costs ~72 bytes (its `at` a boxed double). Only
 * one that this form gives back exactly, its keys in the same order, is kept so.
 */
type RestartCode = number;

const RESTART_KIND = 'JobSetRestart';
const RESTART_REASON = 'FailurePolicyRestart';
const RESTART_KEYS = 'kind,at,restarts,reason';
/** Offsets of a cause's time from its transition's that fit, ms: ±2^18 (~4.4 min, beyond the node layer's default cause windows). */
const OFFSET_SPAN = 1 << 19;
const OFFSET_BIAS = 1 << 18;
/** Restart counts that fit (the code stays below 2^29, a small integer on every V8 build). */
const RESTARTS_SPAN = 1 << 10;

/** `cause` of a transition at `at` as a RestartCode; null when it is not a restart this form gives back exactly. */
function restartCode(cause: Cause, at: number): RestartCode | null {
  const { kind, restarts, reason } = cause;
  if (kind !== RESTART_KIND || reason !== RESTART_REASON || restarts === undefined) return null;
  const code = restartCodeFor(restarts, cause.at - at);
  if (code === null || Object.keys(cause).join(',') !== RESTART_KEYS) return null;
  return code;
}

/**
 * The RestartCode of a failure-policy restart (`{kind, at, restarts, reason}` in that order) of
 * `restarts`, its time `offset` ms from its transition's; null when this form cannot hold it exactly.
 */
export function restartCodeFor(restarts: number, offset: number): RestartCode | null {
  if (!Number.isInteger(restarts) || restarts < 0 || restarts >= RESTARTS_SPAN) return null;
  if (!Number.isInteger(offset) || offset < -OFFSET_BIAS || offset >= OFFSET_SPAN - OFFSET_BIAS) return null;
  return restarts * OFFSET_SPAN + offset + OFFSET_BIAS;
}

/** The cause a RestartCode holds, of a transition at `at`. */
function restartCause(code: RestartCode, at: number): Cause {
  return { kind: RESTART_KIND, at: at + (code % OFFSET_SPAN) - OFFSET_BIAS, restarts: Math.floor(code / OFFSET_SPAN), reason: RESTART_REASON };
}

/**
 * A closed timeline's transitions packed: its columns (the cached ones, whose whole-life totals may
 * already be kept) and the side table of the transitions with extras (what Kept says).
 */
export function pack(transitions: readonly Transition[]): PackedTransitions {
  const c = columnsOf(transitions);
  cache.delete(transitions);
  let extras: (number | Kept)[] | null = null;
  for (const [i, t] of transitions.entries()) if (hasExtras(t)) (extras ??= []).push(i, keptOf(t));
  holdSideTable(c, extras);
  return c as unknown as PackedTransitions;
}

/** What the side table keeps of `t` (Kept): unobserved events keep the very object (its writer holds it). */
function keptOf(t: Transition): Kept {
  const { unobserved, causes, suspension } = t;
  if (unobserved !== undefined) return t;
  if (causes !== undefined && suspension === undefined) return causes.length === 1 ? (restartCode(causes[0]!, t.at) ?? causeNumber(causes[0]!, t.at) ?? causes[0]!) : causes;
  if (causes === undefined && suspension !== undefined) return suspensionNumber(suspension) ?? suspension;
  return compactTransition(t);
}

// A suspension's reason that intern.ts shares (frozen: it never changes) is kept in a side table as
// a number, −(its number here + 1) (RestartCodes are ≥ 0), so that a run whose only extras are such
// (most of a fleet's closed runs with extras: Kueue's preemptions, the controller's generic reason)
// holds its side table behind its times, not in an array of objects in the arena's map (~110 bytes
// a run). Read back as the very object. Numbered once and never dropped (a record may hold the
// number): bounded, and past the bound kept as the object, as before.
const SUSPENSIONS_NUMBERED = 1 << 16;
const suspensionNumbers = new Map<Suspension, number>();
const numberedSuspensions: Suspension[] = [];

/** The number a shared suspension is kept as (RestartCodes' opposite sign); null for one not shared, or once the bound is reached. */
export function suspensionNumber(suspension: Suspension): number | null {
  let n = suspensionNumbers.get(suspension);
  if (n === undefined) {
    if (!Object.isFrozen(suspension) || numberedSuspensions.length >= SUSPENSIONS_NUMBERED) return null;
    n = numberedSuspensions.push(suspension) - 1;
    suspensionNumbers.set(suspension, n);
  }
  return -(n + 1);
}

// A cause of a kind, time, reason and message alone (`{kind, at, reason, message}` in that order: the
// engine's JobSetFailed, nodes/objects.ts), whose kind, reason and message a fleet repeats (two or
// three of them), is kept in a side table as a number too, below the numbered suspensions: −(the
// suspensions' bound + 1 + its shape's number × OFFSET_SPAN + its time less the transition's +
// OFFSET_BIAS). As an object it cost ~130 bytes of heap a failed run (the cause, its boxed time, the
// side table's array and the arena map's entry); as a number, 16 bytes behind its times. Read back
// as a cause made afresh, as a RestartCode is. Shapes are numbered once and never dropped (a record
// may hold the number): bounded (the code stays below 2^30), past the bound kept as the object.
type CauseShape = Readonly<{ kind: string; reason: string | null; message: string | null }>;
const CAUSE_SHAPES_NUMBERED = 1 << 10;
const CAUSE_KEYS = 'kind,at,reason,message';
const causeShapeNumbers = new Map<string, Map<string | null, Map<string | null, number>>>();
const numberedCauseShapes: CauseShape[] = [];

/**
 * The number a cause of `kind`, `reason` and `message` at `offset` ms from its transition's time is
 * kept as (a cause `{kind, at, reason, message}` in that order); null when this form cannot hold it.
 */
export function causeNumberFor(kind: string, reason: string | null, message: string | null, offset: number): number | null {
  if (!Number.isInteger(offset) || offset < -OFFSET_BIAS || offset >= OFFSET_SPAN - OFFSET_BIAS) return null;
  let byReason = causeShapeNumbers.get(kind);
  let byMessage = byReason?.get(reason);
  let shape = byMessage?.get(message);
  if (shape === undefined) {
    if (numberedCauseShapes.length >= CAUSE_SHAPES_NUMBERED) return null;
    if (byReason === undefined) causeShapeNumbers.set(kind, (byReason = new Map()));
    if (byMessage === undefined) byReason.set(reason, (byMessage = new Map()));
    shape = numberedCauseShapes.push(Object.freeze({ kind, reason, message })) - 1;
    byMessage.set(message, shape);
  }
  return -(SUSPENSIONS_NUMBERED + 1 + shape * OFFSET_SPAN + offset + OFFSET_BIAS);
}

/** `cause` of a transition at `at` as a number (causeNumberFor); null when it is not of that form. */
function causeNumber(cause: Cause, at: number): number | null {
  const { kind, reason, message } = cause;
  if (typeof kind !== 'string' || (reason !== null && typeof reason !== 'string') || (message !== null && typeof message !== 'string')) return null;
  if (Object.keys(cause).join(',') !== CAUSE_KEYS) return null;
  return causeNumberFor(kind, reason, message, cause.at - at);
}

/** A number in a side table that holds a cause: a RestartCode, or one below the numbered suspensions. */
const holdsCause = (kept: number): boolean => kept >= 0 || kept < -SUSPENSIONS_NUMBERED;

/** The cause a number of a side table holds (holdsCause), of a transition at `at`. */
function numberedCause(kept: number, at: number): Cause {
  if (kept >= 0) return restartCause(kept, at);
  const code = -kept - SUSPENSIONS_NUMBERED - 1;
  const shape = numberedCauseShapes[Math.floor(code / OFFSET_SPAN)]!;
  return { kind: shape.kind, at: at + (code % OFFSET_SPAN) - OFFSET_BIAS, reason: shape.reason, message: shape.message } as Cause;
}

/** What a number in a side table keeps: a cause's number as it is (numberedCause reads it), a numbered suspension as its object. */
function numberedKept(kept: number): Kept {
  return holdsCause(kept) ? kept : numberedSuspensions[-kept - 1]!;
}

/** How many numbers of Columns.times hold the codes of `n` transitions (eight to a number). */
export const codeWords = (n: number): number => (n + 7) >> 3;

/**
 * A closed timeline's transitions packed from columns a reader already laid out as Columns.times lays
 * them (a store's snapshot), so that no object is made per transition: `at` the `n` times, then
 * their STATE_CODEs eight to a number (codeAt; a reader's scratch, read and not kept: it may be
 * longer); `extras` the transitions that carry extras, as index, transition, index, transition, …
 * in index order (compactTransition's form, or a failure-policy restart's RestartCode where the
 * reader made that without the transition: restartCodeFor, or a shared suspension's number:
 * suspensionNumber; null when none does), the first `extrasLength` of it (a reader's scratch may be
 * longer), kept as the side table keeps them (Kept). Placed straight in the arena (arena.ts), as intoArena would place columns of their own:
 * a snapshot's runs are read for the engine, which keeps them so (sealClosed), and columns or a
 * side table of their own for each would only be garbage after the restore.
 */
export function packColumns(at: readonly number[], n: number, extras: readonly (number | Transition)[] | null, extrasLength = extras?.length ?? 0): PackedTransitions {
  let kept: readonly (number | Kept)[] | null = null;
  let keptLength = 0;
  let numbers = true;
  if (extras !== null) {
    for (let k = 1; k < extrasLength && numbers; k += 2) numbers = typeof extras[k] === 'number';
    // A side table already of numbers alone (a reader's restarts and shared suspensions) is read as
    // it is, no array made to hold a copy: it is copied behind the times below.
    if (numbers) kept = extras;
    else {
      const values: (number | Kept)[] = [];
      numbers = true;
      for (let k = 0; k < extrasLength; k += 2) {
        const x = extras[k + 1]!;
        const value = typeof x === 'number' ? x : keptOf(x);
        if (typeof value !== 'number') numbers = false;
        values.push(extras[k] as number, value);
      }
      kept = values;
    }
    keptLength = extrasLength;
  }
  // Times a record cannot hold exactly (arena.ts timesFitArena): columns of their own, as pack makes them.
  if (n > MAX_EXTENT || !timesFitArena(at, 0, n)) return ownColumns(at, n, kept, keptLength);
  // A side table of numbers alone is held behind the times (holdSideTable), when they fit there.
  const tail = kept !== null && numbers && n + keptLength <= MAX_EXTENT && numbersFitArena(kept, 0, keptLength) ? keptLength : 0;
  const a = runArena;
  const r = a.allocate(n + tail);
  const base = a.base[r]!;
  a.count[r] = n;
  a.setTimes(r, at, 0, n);
  let startIndex = -1;
  for (let i = 0; i < n; i++) {
    const code = (at[n + (i >> 3)]! >>> ((i & 7) << 2)) & 15;
    a.codes[base + i] = code;
    if (startIndex < 0 && code <= DOWN_CODE) startIndex = i;
  }
  a.setStartIndex(r, startIndex);
  if (extras !== null) {
    for (let k = 0; k < extrasLength; k += 2) {
      const x = extras[k + 1]!;
      if (typeof x !== 'number' && x.unobserved !== undefined) a.codes[base + (extras[k] as number)]! |= UNOBSERVED_BIT;
    }
  }
  if (tail > 0) for (let k = 0; k < tail; k++) a.times[base + n + k] = kept![k] as number;
  // An exact-length copy (push leaves spare slots), as holdSideTable keeps one.
  else if (kept !== null) a.setExtras(r, kept.slice(0, keptLength));
  return r as unknown as PackedTransitions;
}

/** packColumns' columns of their own (the plain packed form) for a run whose times a record cannot hold. */
function ownColumns(at: readonly number[], n: number, kept: readonly (number | Kept)[] | null, keptLength: number): PackedTransitions {
  const times = at.slice(0, n);
  const words: number[] = [];
  let startIndex = -1;
  for (let i = 0; i < n; i++) {
    const code = (at[n + (i >> 3)]! >>> ((i & 7) << 2)) & 15;
    words[i >> 3] = ((words[i >> 3] ?? 0) | (code << ((i & 7) << 2))) >>> 0;
    if (startIndex < 0 && code <= DOWN_CODE) startIndex = i;
  }
  for (const w of words) times.push(w);
  const c: Columns = { length: n, times, base: 0, origin: -0, codes: null, record: -1, end: -1, startIndex, life: null, extras: null, memory: null, deletedAfter: null };
  const list = kept === null ? null : kept.slice(0, keptLength);
  if (list !== null) {
    for (let k = 0; k < list.length; k += 2) {
      const x = list[k + 1]!;
      if (typeof x !== 'number' && 'unobserved' in x && x.unobserved !== undefined) markUnobserved(c, list[k] as number);
    }
  }
  holdSideTable(c, list);
  return c as unknown as PackedTransitions;
}

/** Keeps a closed run's machine memory (Columns.memory, deletedAfter) with its packed transitions; false when they cannot hold it (then nothing is set). */
export function setPackedMemory(packed: PackedTransitions, memory: number | null, deletedAfter: number | null): boolean {
  // An arena record's set without a view made for it.
  return typeof packed === 'number' ? runArena.setMemory(packed, memory, deletedAfter) : setMemory(packed as unknown as Columns, memory, deletedAfter);
}

/**
 * A transition with extras as an object of its own: one given causes or a suspension's reason
 * after it was made holds it in a property array of its own (~40 bytes more), so such a one is made
 * again with all its fields in place. The others are kept as they are (the very object).
 */
export function compactTransition(t: Transition): Transition {
  const { at, state, unobserved, causes, suspension } = t;
  if (unobserved !== undefined) return t;
  if (causes !== undefined && suspension === undefined) return { at, state, causes };
  if (causes === undefined && suspension !== undefined) return { at, state, suspension };
  return t;
}

/** What the side table keeps for transition `i` (Kept); undefined when it is only a time and a state. */
function keptAt(c: Columns, i: number): Kept | undefined {
  const extras = c.extras;
  if (extras !== null) {
    for (let k = 0; k < extras.length; k += 2) {
      const at = extras[k] as number;
      if (at === i) {
        const kept = extras[k + 1] as Kept;
        return typeof kept === 'number' ? numberedKept(kept) : kept;
      }
      if (at > i) return undefined;
    }
    return undefined;
  }
  // The numbers held behind the codes (Columns.extras), read by a loop of their own: one that read
  // both arrays would let V8's optimizing compiler turn the columns' unboxed doubles into boxed ones
  // to read them alike (an elements-kind transition on a load site that saw both kinds).
  const at = c.times;
  const end = tailEnd(c);
  for (let k = tailOf(c); k < end; k += 2) {
    if (at[k] === i) return numberedKept(at[k + 1]!);
    if (at[k]! > i) return undefined;
  }
  return undefined;
}

/** Where the numbers held behind the codes (plain form) or times (arena form) begin in Columns.times. */
const tailOf = (c: Columns): number => (c.codes !== null ? c.base + c.length : c.length + codeWords(c.length));

/** Where they end. */
const tailEnd = (c: Columns): number => (c.codes !== null ? c.end : c.times.length);

/** The side table as a list (index, Kept, …), wherever it is held; null when empty. */
function sideTable(c: Columns): (number | Kept)[] | null {
  if (c.extras !== null) return c.extras;
  const from = tailOf(c);
  const end = tailEnd(c);
  if (end <= from) return null;
  return c.codes !== null ? Array.from((c.times as Int32Array).subarray(from, end)) : (c.times as number[]).slice(from, end);
}

/** Holds the side table `list` (index, Kept, …; null: empty): behind the codes (times) when it is all numbers, else as Columns.extras; each an exact-length array. */
function holdSideTable(c: Columns, list: (number | Kept)[] | null): void {
  const numbers = list !== null && list.every((x) => typeof x === 'number');
  if (c.codes !== null) {
    // An arena record: placed again with its new tail (or none), its objects in the arena's map;
    // behind its times only numbers its slots hold as they are.
    const behind = numbers && c.length + list.length <= MAX_EXTENT && numbersFitArena(list, 0, list.length);
    const a = runArena;
    const r = c.record;
    a.move(r, c.length + (behind ? list.length : 0), c.length);
    const base = a.base[r]!;
    if (behind) for (let k = 0; k < list.length; k++) a.times[base + c.length + k] = list[k] as number;
    a.setExtras(r, behind || list === null ? null : list.slice());
    Object.assign(c, { times: a.times, codes: a.codes, base, end: a.endOf(r), extras: behind || list === null ? null : a.extras.get(r) });
    return;
  }
  const at = c.times as number[];
  const from = tailOf(c);
  const columns = at.length > from ? at.slice(0, from) : at;
  if (numbers) {
    // Pushed onto a copy of the columns (their unboxed doubles stay so), then copied at its length.
    const held = columns.slice();
    for (const x of list) held.push(x as number);
    c.times = held.slice();
    c.extras = null;
  } else {
    c.times = columns;
    c.extras = list === null ? null : list.slice();
  }
}

/** Transition `i` of packed transitions as an object when it carries extras (made afresh unless kept whole); undefined when it is only a time and a state. */
export function packedExtras(packed: PackedTransitions, i: number): Transition | undefined {
  const c = packedColumns(packed);
  const kept = keptAt(c, i);
  if (kept === undefined) return undefined;
  if (typeof kept === 'number') return { at: timeAt(c, i), state: stateOfCode(codeAt(c, i)), causes: [numberedCause(kept, timeAt(c, i))] };
  if (Array.isArray(kept)) return { at: timeAt(c, i), state: stateOfCode(codeAt(c, i)), causes: kept };
  if ('state' in kept) return kept;
  if ('kind' in kept) return { at: timeAt(c, i), state: stateOfCode(codeAt(c, i)), causes: [kept] };
  return { at: timeAt(c, i), state: stateOfCode(codeAt(c, i)), suspension: kept };
}

/** Transition `i` of packed transitions as an object: the kept one when kept whole, else made afresh. */
export function packedTransition(packed: PackedTransitions, i: number): Transition {
  const c = packedColumns(packed);
  return packedExtras(packed, i) ?? { at: timeAt(c, i), state: stateOfCode(codeAt(c, i)) };
}

/**
 * Transition `i` of packed transitions as an object kept whole in the side table (made and kept when
 * it was not), for a writer that gives it some extras (a suspension's reason joined later).
 */
export function heldPackedTransition(packed: PackedTransitions, i: number): Transition {
  const c = packedColumns(packed);
  const kept = keptAt(c, i);
  if (kept !== undefined && typeof kept !== 'number' && !Array.isArray(kept) && 'state' in kept) return kept;
  const t = packedTransition(packed, i);
  setKept(c, i, t);
  return t;
}

/** Keeps `t` (transition `i`, given extras after it was packed) in the side table (as Kept says), its unobserved bit with it. */
export function keepPacked(packed: PackedTransitions, i: number, t: Transition): void {
  const c = packedColumns(packed);
  if (t.unobserved !== undefined) markUnobserved(c, i);
  setKept(c, i, keptOf(t));
}

function setKept(c: Columns, i: number, kept: Kept): void {
  const extras = sideTable(c) ?? [];
  let k = 0;
  while (k < extras.length && (extras[k] as number) < i) k += 2;
  holdSideTable(c, [...extras.slice(0, k), i, kept, ...extras.slice(extras[k] === i ? k + 2 : k)]);
}

/** All of packed transitions as objects again (for the cold readers that need objects). */
export function unpack(packed: PackedTransitions): Transition[] {
  const c = packedColumns(packed);
  const out: Transition[] = [];
  for (let i = 0; i < c.length; i++) out.push(packedTransition(packed, i));
  return out;
}
