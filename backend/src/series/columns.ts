// A timeline's transitions as columns (times, and states as small codes), kept beside it and
// extended as it grows: the sweep over them is the hot loop of every query, and numbers in arrays
// cost a fraction of object fields and string compares.
// Timelines are append-only, so a cached prefix stays true; the cache is keyed by the array.

import type { State, Timeline, Transition } from '../timeline/types.ts';

export const STATE_CODE: Readonly<Record<State, number>> = { up: 0, provisioning: 1, down: 2, suspended: 3, unknown: 4, completed: 5, failed: 6, deleted: 7 };
export const UP_CODE = 0;
export const DOWN_CODE = 2;
export const SUSPENDED_CODE = 3;
export const FAILED_CODE = 6;
/** Codes from here on (completed, failed, deleted) are terminal. */
export const CLOSED_FROM = 5;
/** What leaving state code `from` for `to` counts as (DESIGN.md): up → down or failed interrupts, down → up recovers. */
export const NO_EVENT = 0;
export const INTERRUPTION = 1;
export const RECOVERY = 2;
export function eventOf(from: number, to: number): number {
  if (from === UP_CODE) return to === DOWN_CODE || to === FAILED_CODE ? INTERRUPTION : NO_EVENT;
  return from === DOWN_CODE && to === UP_CODE ? RECOVERY : NO_EVENT;
}

/** Bit set on a transition that carries events proven after a gap (`unobserved`). */
export const UNOBSERVED_BIT = 8;

export interface Columns {
  length: number;
  /** Plain arrays of numbers (V8 keeps them unboxed): a pair of typed arrays costs ~800 bytes per
   *  timeline in buffers and their bookkeeping, more than the handful of transitions they hold. */
  at: number[];
  code: number[];
  /** When the timeline first started (provisioning, up or down); Infinity while it has not. */
  start: number;
  /**
   * A closed timeline's totals over its whole life (totals.ts, the BASE_FIELDS numbers), worked out
   * once and kept: they never change, and every window that holds the whole life reads them instead
   * of sweeping its transitions. Null while open, or until first asked.
   */
  life: number[] | null;
}

const cache = new WeakMap<readonly Transition[], Columns>();

/** A timeline's transitions as columns (what a closed timeline is to be held as: series/closed.ts). */
export function timelineColumns(timeline: Timeline): Columns {
  return columnsOf(timeline.transitions);
}

export function columnsOf(transitions: readonly Transition[]): Columns {
  const n = transitions.length;
  let c = cache.get(transitions);
  if (c !== undefined && c.length === n) return c;
  if (c === undefined) {
    c = { length: 0, at: [], code: [], start: Infinity, life: null };
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

const PROVISIONING_CODE = STATE_CODE.provisioning;

/**
 * timeToFirstUpAt(firstUp(…), to) of the columns: provisioning (after any suspension) then up,
 * seconds; null when it was not up by `to` (summary.ts; run-columns.ts asks with `to` = ∞).
 */
export function timeToFirstUpFrom(c: Columns, to: number): number | null {
  let start = -1;
  for (let i = 0; i < c.length; i++) {
    const code = c.code[i]! & 7;
    if (code === PROVISIONING_CODE) {
      if (start < 0) start = i;
    } else if (code === UP_CODE) {
      return start < 0 || c.at[i]! > to ? null : (c.at[i]! - c.at[start]!) / 1000;
    } else if (code !== SUSPENDED_CODE) return null;
  }
  return null;
}
