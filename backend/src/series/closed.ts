// A closed timeline's transitions without an object per transition (issue 21 §3, a measured
// prototype: `npm run bench:rss -- --packed` measures it; no reader uses it yet). Its columns
// (columns.ts: times unboxed, states as codes) already hold every transition's time and state; as
// objects the transitions cost ~60 bytes more each (`{at, state}`, `at` a boxed double, an array
// slot). Closed, a timeline keeps its columns and, in a side table, only the transitions that carry
// extras (causes, a suspension's reason, unobserved events). Readers read through countOf, atOf,
// stateOf and extrasOf, which make no object per read.
//
// Pure: values in, values out.

import type { State, Transition } from '../timeline/types.ts';
import { columnsOf, STATE_CODE, type Columns } from './columns.ts';

/** The states by code (columns.ts STATE_CODE; the low three bits of a code). */
const STATE_OF: readonly State[] = (Object.keys(STATE_CODE) as State[]).sort((a, b) => STATE_CODE[a] - STATE_CODE[b]);

export interface ClosedTransitions {
  readonly columns: Columns;
  /** The transitions that carry extras, as index, transition, index, transition, … in index order; null when none does. */
  readonly extras: readonly (number | Transition)[] | null;
}

/** A closed timeline's transitions as its columns and the side table of those with extras. */
export function closedTransitions(transitions: readonly Transition[]): ClosedTransitions {
  let extras: (number | Transition)[] | null = null;
  for (const [i, t] of transitions.entries()) {
    if (t.causes !== undefined || t.suspension !== undefined || t.unobserved !== undefined) (extras ??= []).push(i, t);
  }
  // Exact length: push leaves spare slots.
  return { columns: columnsOf(transitions), extras: extras === null ? null : extras.slice() };
}

export function countOf(c: ClosedTransitions): number {
  return c.columns.length;
}

export function atOf(c: ClosedTransitions, i: number): number {
  return c.columns.at[i]!;
}

export function stateOf(c: ClosedTransitions, i: number): State {
  return STATE_OF[c.columns.code[i]! & 7]!;
}

/** Transition `i` as an object when it carries extras (the one it was); undefined when it is only a time and a state. */
export function extrasOf(c: ClosedTransitions, i: number): Transition | undefined {
  const extras = c.extras;
  if (extras === null) return undefined;
  for (let k = 0; k < extras.length; k += 2) if (extras[k] === i) return extras[k + 1] as Transition;
  return undefined;
}

/** The transitions as objects again (for a reader not yet moved to the read functions). */
export function transitionsOf(c: ClosedTransitions): Transition[] {
  const out: Transition[] = [];
  for (let i = 0; i < countOf(c); i++) out.push(extrasOf(c, i) ?? { at: atOf(c, i), state: stateOf(c, i) });
  return out;
}
