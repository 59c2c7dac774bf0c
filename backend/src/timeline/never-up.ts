// The node layer of a JobSet that was never up on its nodes (no pod placed on Ready nodes), as its
// JobSet layer makes it: the node layer derives it (nodes/layer.ts keeps no timeline for a closed
// one), and the embedded store writes no line for it in a snapshot (store/records.ts). Here, not in
// nodes/, because both stages need the one definition.

import { TERMINAL_STATES, type State, type Timeline, type Transition } from './types.ts';

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
  for (const t of jobset.transitions) {
    const state = neverUpState(t.state);
    const last = derived[derived.length - 1];
    if (last === undefined) derived.push({ at: jobset.createdAt, state });
    else if (!TERMINAL_STATES.has(last.state) && last.state !== state) derived.push({ at: Math.max(t.at, last.at), state });
  }
  return derived;
}

/** Whether `transitions` are exactly derivedTransitions(jobset), with nothing attached (causes, unobserved events, why suspended). */
export function areDerivedTransitions(transitions: readonly Transition[], jobset: Timeline): boolean {
  const derived = derivedTransitions(jobset);
  return (
    derived.length === transitions.length &&
    transitions.every((t, i) => t.at === derived[i]!.at && t.state === derived[i]!.state && t.causes === undefined && t.unobserved === undefined && t.suspension === undefined)
  );
}
