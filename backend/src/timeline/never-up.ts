// The node layer of a JobSet that was never up on its nodes (no pod placed on Ready nodes), as its
// JobSet layer makes it: the node layer derives it (nodes/layer.ts keeps no timeline for a closed
// one), and the embedded store writes no line for it in a snapshot (store/records.ts). Here, not in
// nodes/, because both stages need the one definition.

import { TERMINAL_STATES, transitionAt, transitionCount, transitionState, transitionTime, type State, type Timeline, type Transition, type Transitions } from './types.ts';

/** The node layer's state for the JobSet layer's, while it has never been up: up and down read as provisioning. */
function neverUpState(state: State): State {
  return state === 'up' || state === 'down' ? 'provisioning' : state;
}

/**
 * The node layer's transitions as a JobSet that was never up on its nodes makes them, seen from its
 * creation without a gap: its JobSet layer's, with up and down read as provisioning.
 */
export function derivedTransitions(jobset: Timeline): Transition[] {
  const derived: Transition[] = [];
  for (let i = 0; i < transitionCount(jobset); i++) {
    const state = neverUpState(transitionState(jobset, i));
    const last = derived[derived.length - 1];
    if (last === undefined) derived.push({ at: jobset.createdAt, state });
    else if (!TERMINAL_STATES.has(last.state) && last.state !== state) derived.push({ at: Math.max(transitionTime(jobset, i), last.at), state });
  }
  return derived;
}

/** Whether `timeline`'s transitions are exactly derivedTransitions(jobset), with nothing attached (causes, unobserved events, why suspended). */
export function areDerivedTransitions(timeline: Transitions, jobset: Timeline): boolean {
  const derived = derivedTransitions(jobset);
  if (derived.length !== transitionCount(timeline)) return false;
  return derived.every((d, i) => {
    const t = transitionAt(timeline, i);
    return t.at === d.at && t.state === d.state && t.causes === undefined && t.unobserved === undefined && t.suspension === undefined;
  });
}
