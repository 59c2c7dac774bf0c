// A timeline's transitions as columns (times, and states as small codes), and a closed timeline's
// memory form (issue 21 §3): its columns and, in a side table, only the transitions that carry
// extras (causes, a suspension's reason, unobserved events), no object per transition. As objects
// the transitions cost ~60 bytes more each (`{at, state}`, `at` a boxed double, an array slot).
// An open timeline keeps its array of transitions, and its columns beside it, extended as it grows:
// the sweep over them is the hot loop of every query, and numbers in arrays cost a fraction of
// object fields and string compares. Timelines are append-only, so a cached prefix stays true; the
// cache is keyed by the array. Readers read through the read functions of types.ts.
//
// Pure: values in, values out.

import type { State, Transition } from './types.ts';

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
  /** Plain arrays of numbers (V8 keeps them unboxed): a pair of typed arrays costs ~800 bytes per
   *  timeline in buffers and their bookkeeping, more than the handful of transitions they hold. */
  at: number[];
  code: number[];
  /** When the timeline first started (provisioning, up or down); Infinity while it has not. */
  start: number;
  /**
   * A closed timeline's totals over its whole life (series/totals.ts, the BASE_FIELDS numbers), worked out
   * once and kept: they never change, and every window that holds the whole life reads them instead
   * of sweeping its transitions. Null while open, or until first asked.
   */
  life: number[] | null;
  /**
   * Packed (a closed timeline's memory form): the transitions that carry extras, as index,
   * transition, index, transition, … in index order; null when none does. Always null for the
   * columns of an open timeline (kept beside its array).
   */
  extras: (number | Transition)[] | null;
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
  return packed as unknown as Columns;
}

const cache = new WeakMap<readonly Transition[], Columns>();

/** An (open, or not yet packed) timeline's transitions as columns, cached and extended as it grows. */
export function columnsOf(transitions: readonly Transition[]): Columns {
  const n = transitions.length;
  let c = cache.get(transitions);
  if (c !== undefined && c.length === n) return c;
  if (c === undefined) {
    c = { length: 0, at: [], code: [], start: Infinity, life: null, extras: null };
    cache.set(transitions, c);
  }
  for (let i = c.length; i < n; i++) {
    const t = transitions[i]!;
    const code = STATE_CODE[t.state];
    c.at.push(t.at);
    c.code.push(code | (t.unobserved !== undefined ? UNOBSERVED_BIT : 0));
    if (c.start === Infinity && code <= DOWN_CODE) c.start = t.at;
  }
  c.length = n;
  // A closed timeline's columns never grow again: exact-length copies free the spare slots push left.
  if (n > 0 && (c.code[n - 1]! & 7) >= CLOSED_FROM) {
    c.at = c.at.slice();
    c.code = c.code.slice();
  }
  return c;
}

function hasExtras(t: Transition): boolean {
  return t.causes !== undefined || t.suspension !== undefined || t.unobserved !== undefined;
}

/**
 * A closed timeline's transitions packed: its columns (the cached ones, whose whole-life totals may
 * already be kept) and the side table of the transitions with extras (the very objects).
 */
export function pack(transitions: readonly Transition[]): PackedTransitions {
  const c = columnsOf(transitions);
  cache.delete(transitions);
  let extras: (number | Transition)[] | null = null;
  for (const [i, t] of transitions.entries()) if (hasExtras(t)) (extras ??= []).push(i, compactTransition(t));
  // Exact length: push leaves spare slots.
  c.extras = extras === null ? null : extras.slice();
  return c as unknown as PackedTransitions;
}

/**
 * A closed timeline's transitions packed from columns a reader already has (a store's snapshot), so
 * that no object is made per transition: `at` the times and `states` the STATE_CODEs, exact-length
 * arrays that are kept as they are; `extras` the transitions that carry extras, as index, transition,
 * index, transition, … in index order (compactTransition's form; null when none does).
 */
export function packColumns(at: number[], states: number[], extras: (number | Transition)[] | null): PackedTransitions {
  let start = Infinity;
  for (let i = 0; i < states.length; i++) {
    if (states[i]! <= DOWN_CODE) {
      start = at[i]!;
      break;
    }
  }
  if (extras !== null) for (let k = 0; k < extras.length; k += 2) if ((extras[k + 1] as Transition).unobserved !== undefined) states[extras[k] as number]! |= UNOBSERVED_BIT;
  const c: Columns = { length: at.length, at, code: states, start, life: null, extras };
  return c as unknown as PackedTransitions;
}

/**
 * A transition with extras as the side table keeps it: one given causes or a suspension's reason
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

/** Transition `i` of packed transitions as the object it was when it carries extras; undefined when it is only a time and a state. */
export function packedExtras(packed: PackedTransitions, i: number): Transition | undefined {
  const extras = packedColumns(packed).extras;
  if (extras === null) return undefined;
  for (let k = 0; k < extras.length; k += 2) {
    const at = extras[k] as number;
    if (at === i) return extras[k + 1] as Transition;
    if (at > i) return undefined;
  }
  return undefined;
}

/** Transition `i` of packed transitions as an object: the kept one when it carries extras, else made afresh. */
export function packedTransition(packed: PackedTransitions, i: number): Transition {
  const c = packedColumns(packed);
  return packedExtras(packed, i) ?? { at: c.at[i]!, state: stateOfCode(c.code[i]!) };
}

/**
 * Transition `i` of packed transitions as an object kept in the side table (made and kept when it
 * had no extras), for a writer that gives it some (a cause, a suspension's reason joined later).
 */
export function heldPackedTransition(packed: PackedTransitions, i: number): Transition {
  const kept = packedExtras(packed, i);
  if (kept !== undefined) return kept;
  const c = packedColumns(packed);
  const t: Transition = { at: c.at[i]!, state: stateOfCode(c.code[i]!) };
  keepPacked(packed, i, t);
  return t;
}

/** Keeps `t` (transition `i`, given extras after it was packed) in the side table, its unobserved bit with it. */
export function keepPacked(packed: PackedTransitions, i: number, t: Transition): void {
  const c = packedColumns(packed);
  if (t.unobserved !== undefined) c.code[i]! |= UNOBSERVED_BIT;
  const extras = c.extras ?? [];
  let k = 0;
  while (k < extras.length && (extras[k] as number) < i) k += 2;
  c.extras = [...extras.slice(0, k), i, t, ...extras.slice(extras[k] === i ? k + 2 : k)];
}

/** All of packed transitions as objects again (for the cold readers that need objects). */
export function unpack(packed: PackedTransitions): Transition[] {
  const c = packedColumns(packed);
  const out: Transition[] = [];
  for (let i = 0; i < c.length; i++) out.push(packedTransition(packed, i));
  return out;
}
