// What the node layer finds out, as facts for the log: a cause attached to a transition (of the
// JobSet layer or of the node layer), and a transition of the node layer. A fact is appended after
// what it refers to and never changes it: a store keeps the facts beside the transitions, and a
// timeline is read as its transitions joined with its cause facts (joinCause, the one join that the
// live node layer, a store's recovery and a follower all use), so a restart, a snapshot and a
// follower see the same history.
//
// Pure: values in, values out.

import type { Cause, Timeline, Transition } from '../timeline/types.ts';

export type Layer = 'jobset' | 'nodes';

/** A cause of the transition at index `seq` of the `layer` timeline of JobSet `uid`. */
export interface CauseFact {
  kind: 'cause';
  uid: string;
  layer: Layer;
  seq: number;
  cause: Cause;
}

/** The transition at index `seq` of the node layer of JobSet `uid` (without causes: those are CauseFacts). */
export interface NodeTransitionFact {
  kind: 'node-transition';
  uid: string;
  seq: number;
  transition: Transition;
}

export type LayerFact = CauseFact | NodeTransitionFact;

function sameCause(a: Cause, b: Cause): boolean {
  if (a.kind !== b.kind || a.at !== b.at) return false;
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => a[k as keyof Cause] === b[k as keyof Cause]);
}

/**
 * Joins a cause to the transition at `seq` of `tl`, in time order; false (and nothing changed) when
 * that transition already has it (a fact read twice, or found again after a restart) or does not
 * exist yet.
 */
export function joinCause(tl: Timeline, seq: number, cause: Cause): boolean {
  const t = tl.transitions[seq];
  if (t === undefined) return false;
  if (t.causes?.some((c) => sameCause(c, cause))) return false;
  (t.causes ??= []).push(cause);
  t.causes.sort((a, b) => a.at - b.at);
  return true;
}

/**
 * Puts a node-layer transition at its place: appended when it is the next one, the same one again
 * ignored; false when transitions before it are missing.
 */
export function placeTransition(tl: Timeline, seq: number, transition: Transition): boolean {
  if (seq > tl.transitions.length) return false;
  if (seq === tl.transitions.length) {
    const { causes: _causes, ...t } = transition;
    tl.transitions.push(t);
  }
  return true;
}

/** The fact of a node-layer transition: its time, state and unobserved events, not its causes. */
export function nodeTransitionFact(uid: string, seq: number, t: Transition): NodeTransitionFact {
  const transition: Transition = { at: t.at, state: t.state };
  if (t.unobserved !== undefined) transition.unobserved = { ...t.unobserved };
  return { kind: 'node-transition', uid, seq, transition };
}
