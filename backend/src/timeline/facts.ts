// What is found out about a timeline after (or beside) its transitions, as facts for the stores: a
// cause attached to a transition (of the JobSet layer or of the node layer), a transition of the node
// layer, a node pool's transitions, causes and JobSets (a timeline of its own), and why a suspension happened when the reason is learned after its transition was written.
// A fact is appended after what it refers to and never changes it: a store keeps the facts beside
// the transitions (the embedded log as records, PostgreSQL as rows of their own), and a timeline is
// read as its transitions joined with its facts. FactJoin is that one join: a store's recovery and a
// follower read through it, and the live paths use the same pieces (joinCause in the node layer,
// joinSuspension in the state machine), so a restart, a snapshot and a follower see the same history.
// Every join is idempotent: a fact written twice around a crash, or read again, is read once.
//
// Pure: values in, values out.

import { internSuspension, internValue } from './intern.ts';
import { heldTransition, timelineFields, openTransitions, setCauses, transitionAt, transitionCount, transitionState, type Cause, type Suspension, type Timeline, type Transition } from './types.ts';

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

/** Why the suspension at index `seq` of JobSet `uid`'s timeline happened, learned after it was written. */
export interface SuspensionFact {
  kind: 'suspension';
  uid: string;
  seq: number;
  suspension: Suspension;
}

/** What the node layer finds out. */
export type LayerFact = CauseFact | NodeTransitionFact;

/** What names a node pool's timeline (backend/src/nodes/pools), written with its first transition. */
export interface PoolIdentity {
  name: string;
  createdAt: number;
  accelerator: string | null;
  topology: string | null;
}

/**
 * What the node-pool layer finds out, about pool timeline `uid` (its own, not a JobSet's): its
 * transition at `seq` (the first one with the pool's identity), the node that caused the
 * interruption at `seq`, or a JobSet whose pods ran on its nodes.
 */
export type PoolFact =
  | { kind: 'pool-transition'; uid: string; seq: number; transition: Transition; pool?: PoolIdentity }
  | { kind: 'pool-cause'; uid: string; seq: number; cause: Cause }
  | { kind: 'pool-jobset'; uid: string; jobset: string };

/** Every fact a store keeps beside the transitions. */
export type Fact = LayerFact | SuspensionFact | PoolFact;

/** A node pool's timeline as its facts make it: named by its pool, labelled with it and its hardware. */
export function poolTimeline(uid: string, pool: PoolIdentity): Timeline {
  const labels: Record<string, string> = { pool: pool.name };
  if (pool.accelerator !== null) labels.accelerator = pool.accelerator;
  if (pool.topology !== null) labels.topology = pool.topology;
  return { uid, namespace: '', name: pool.name, labels, accelerator: pool.accelerator, topology: pool.topology, createdAt: pool.createdAt, transitions: [], jobsets: [] };
}

function sameCause(a: Cause, b: Cause): boolean {
  if (a.kind !== b.kind || a.at !== b.at) return false;
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => a[k as keyof Cause] === b[k as keyof Cause]);
}

/** A cause as kept: its node, container, reason and message interned (a pod's name is its own). */
function internCause(cause: Cause): Cause {
  const kept = { ...cause };
  if (kept.node !== undefined) kept.node = internValue(kept.node);
  if (kept.container !== undefined) kept.container = internValue(kept.container);
  if (kept.reason !== undefined) kept.reason = internValue(kept.reason);
  if (kept.message !== undefined) kept.message = internValue(kept.message);
  return kept;
}

function hasTransition(tl: Timeline, seq: number): boolean {
  return seq >= 0 && seq < transitionCount(tl);
}

/**
 * Joins a cause to the transition at `seq` of `tl`, in time order; false (and nothing changed) when
 * that transition already has it (a fact read twice, or found again after a restart) or does not
 * exist yet.
 */
export function joinCause(tl: Timeline, seq: number, cause: Cause): boolean {
  if (!hasTransition(tl, seq)) return false;
  const t = transitionAt(tl, seq);
  if (t.causes?.some((c) => sameCause(c, cause))) return false;
  const kept = internCause(cause);
  // A new array of exact length (push would leave 16 slots spare: most transitions get one cause).
  setCauses(tl, seq, t.causes === undefined ? [kept] : [...t.causes, kept].sort((a, b) => a.at - b.at));
  return true;
}

/** The reason the JobSet controller gives every suspension (its Suspended condition): it says nothing of why. */
export const GENERIC_SUSPENSION_REASON = 'SuspendedJobs';

/** A reason that says nothing of why: the controller's generic one, or none. */
export function isGenericSuspension(s: Suspension): boolean {
  return s.reason === null || s.reason === GENERIC_SUSPENSION_REASON;
}

/**
 * Gives the suspension at `seq` of `tl` its reason; false (and nothing changed) when it is not there
 * or has one already that is kept: the first one known is kept, except that a generic one (the JobSet
 * controller's `SuspendedJobs`, or no reason) gives way to the first specific one (e.g. Kueue's
 * Workload's `Preempted`). Which one wins so does not depend on the order generic and specific
 * reasons are read in, and a fact read twice changes nothing.
 */
export function joinSuspension(tl: Timeline, seq: number, suspension: Suspension): boolean {
  if (seq < 0 || seq >= transitionCount(tl) || transitionState(tl, seq) !== 'suspended') return false;
  const t = heldTransition(tl, seq)!;
  if (t.suspension !== undefined && !(isGenericSuspension(t.suspension) && !isGenericSuspension(suspension))) return false;
  t.suspension = internSuspension({ reason: suspension.reason ?? null, message: suspension.message ?? null });
  return true;
}

/**
 * Puts a node-layer transition at its place: appended when it is the next one, the same one again
 * ignored; false when transitions before it are missing.
 */
export function placeTransition(tl: Timeline, seq: number, transition: Transition): boolean {
  if (seq > transitionCount(tl)) return false;
  if (seq === transitionCount(tl)) {
    const { causes: _causes, ...t } = transition;
    openTransitions(tl).push(t);
  }
  return true;
}

/** The fact of a node-layer transition: its time, state and unobserved events, not its causes. */
export function nodeTransitionFact(uid: string, seq: number, t: Transition): NodeTransitionFact {
  const transition: Transition = { at: t.at, state: t.state };
  if (t.unobserved !== undefined) transition.unobserved = { ...t.unobserved };
  return { kind: 'node-transition', uid, seq, transition };
}

/** The fact of a suspension's reason learned later (TimelineUpdate.suspension). */
export function suspensionFact(uid: string, learned: { seq: number; suspension: Suspension }): SuspensionFact {
  return { kind: 'suspension', uid, seq: learned.seq, suspension: { reason: learned.suspension.reason, message: learned.suspension.message } };
}

/**
 * The one join of facts to the timelines they refer to, as read back from a store (recovery) or
 * tailed from one (a follower). `jobsets` finds a JobSet's timeline; the node layers are built here
 * (a snapshot's may be given to start from).
 */
export class FactJoin {
  readonly layers: Map<string, Timeline>;
  /** The node pools' timelines, by their own uid. */
  readonly pools: Map<string, Timeline>;
  readonly #jobsets: (uid: string) => Timeline | undefined;

  constructor(jobsets: (uid: string) => Timeline | undefined, layers: Map<string, Timeline> = new Map(), pools: Map<string, Timeline> = new Map()) {
    this.#jobsets = jobsets;
    this.layers = layers;
    this.pools = pools;
  }

  #joinPool(fact: PoolFact): boolean {
    let tl = this.pools.get(fact.uid);
    if (fact.kind === 'pool-transition') {
      if (tl === undefined) {
        if (fact.pool === undefined) return false;
        this.pools.set(fact.uid, (tl = poolTimeline(fact.uid, fact.pool)));
      }
      return placeTransition(tl, fact.seq, fact.transition);
    }
    if (tl === undefined) return false;
    if (fact.kind === 'pool-jobset') {
      if (!tl.jobsets!.includes(fact.jobset)) tl.jobsets = [...tl.jobsets!, fact.jobset].sort();
      return true;
    }
    if (!hasTransition(tl, fact.seq)) return false;
    joinCause(tl, fact.seq, fact.cause);
    return true;
  }

  /**
   * Applies a fact; false when what it refers to is not there (yet): a JobSet or a transition before
   * it. A fact already joined (read twice) changes nothing and is not a failure.
   */
  join(fact: Fact): boolean {
    if (fact.kind === 'pool-transition' || fact.kind === 'pool-cause' || fact.kind === 'pool-jobset') return this.#joinPool(fact);
    if (fact.kind === 'node-transition') {
      let layer = this.layers.get(fact.uid);
      if (layer === undefined) {
        const jobset = this.#jobsets(fact.uid);
        if (jobset === undefined) return false;
        this.layers.set(fact.uid, (layer = { ...timelineFields(jobset), transitions: [] }));
      }
      return placeTransition(layer, fact.seq, fact.transition);
    }
    const tl = fact.kind === 'cause' && fact.layer === 'nodes' ? this.layers.get(fact.uid) : this.#jobsets(fact.uid);
    if (tl === undefined || !hasTransition(tl, fact.seq)) return false;
    if (fact.kind === 'cause') joinCause(tl, fact.seq, fact.cause);
    else joinSuspension(tl, fact.seq, fact.suspension);
    return true;
  }
}
