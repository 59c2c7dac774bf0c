// Values that flow from the observation path into the timeline and on to the series stage.
// Times are epoch milliseconds (integers), so sums of durations stay exact.

import { RunTimeline } from './run-timeline.ts';
import { columnsOf, compactTransition, heldPackedTransition, intoArena, isPacked, keepPacked, outOfArena, pack, packedCode, packedColumns, packedExtras, packedLength, packedTime, packedTransition, stateOfCode, unpack, type Columns, type PackedTransitions } from './columns.ts';

/** The states of DESIGN.md. The last three are terminal: nothing accrues after them. */
export type State = 'provisioning' | 'up' | 'down' | 'suspended' | 'unknown' | 'completed' | 'failed' | 'deleted';

export const TERMINAL_STATES: ReadonlySet<State> = new Set<State>(['completed', 'failed', 'deleted']);

/** Entering `state` at `at`. A timeline is the ordered list of these; each state lasts until the next. */
export interface Transition {
  at: number;
  state: State;
  /**
   * Events that happened while nobody was watching (a gap in the watch), proven by comparing the
   * object before and after, and counted at this transition. Their periods' lengths are unknown,
   * so they count in interruptions and recoveries but not in MTTR or MTBI.
   */
  unobserved?: { interruptions: number; recoveries: number };
  /**
   * What was observed around the moment a JobSet (or its node layer) went down or failed: nodes that
   * went NotReady, pods that failed and why, the JobSet's own restart. Set by the node layer
   * (backend/src/nodes) on transitions into `down` or `failed`, and on transitions that carry
   * unobserved interruptions. Informational: no figure depends on it.
   */
  causes?: Cause[];
  /**
   * Why it was suspended: the JobSet's Suspended condition (reason and message), from the observation
   * that began the suspension, or (spec.suspend seen before the condition) from the first later one
   * whose condition says it: then it is reported as a fact of its own (TimelineUpdate.suspension).
   * Only on transitions into `suspended`. Informational: no figure depends on it.
   */
  suspension?: Suspension;
}

/** The Suspended condition's reason and message (at least one of them is set). */
export interface Suspension {
  reason: string | null;
  message: string | null;
}

export type CauseKind = 'NodeNotReady' | 'NodeDeleted' | 'PodFailed' | 'PodDisruption' | 'JobSetRestart' | 'JobSetFailed';

/** One observed reason for an interruption. Times are epoch ms, from the objects where they say. */
export interface Cause {
  kind: CauseKind;
  at: number;
  /** The node that went NotReady/Unknown or vanished, or the node a failed pod ran on. */
  node?: string;
  pod?: string;
  container?: string;
  /** OOMKilled, Error, Evicted, PreemptionByScheduler, NodeStatusUnknown, FailedJobs, ... */
  reason?: string;
  exitCode?: number;
  message?: string;
  /** JobSetRestart: status.restarts after the restart. */
  restarts?: number;
}

/**
 * Seals a closed timeline: it never grows again, so its transitions are held packed (columns.ts: its
 * columns and a side table of the transitions with extras, no object per transition). Readers read
 * it through the functions below, never `transitions` directly.
 */
export function packClosed(timeline: Timeline): void {
  const transitions = timeline.transitions;
  if (!isPacked(transitions) && transitions.length > 0 && TERMINAL_STATES.has(transitions[transitions.length - 1]!.state)) timeline.transitions = pack(transitions);
}

/**
 * Seals a closed timeline that the engine keeps (packClosed), as a record of the shared arena
 * (arena.ts): no object or array of its own. Released only through unsealClosed.
 */
export function sealClosed(timeline: Timeline): void {
  packClosed(timeline);
  if (!isPacked(timeline.transitions)) return;
  timeline.transitions = intoArena(timeline.transitions);
  // Its UID held in its record too (run-timeline.ts).
  if (timeline instanceof RunTimeline) timeline.sealedUid();
}

/** A sealed timeline the engine no longer keeps: its transitions packed in columns of their own again, its arena record released (its UID a string again). */
export function unsealClosed(timeline: Timeline): void {
  if (!isPacked(timeline.transitions)) return;
  if (timeline instanceof RunTimeline) timeline.keepUidText();
  timeline.transitions = outOfArena(timeline.transitions);
}

// Readers read a timeline's transitions through these, not `transitions` (timelineColumns for a
// sweep): a closed timeline is held packed, without an object per transition (issue 21 §3,
// columns.ts), and these are what it answers without making one.

/** What these read of a timeline (a Timeline is one). */
export type Transitions = Pick<Timeline, 'transitions'>;

/** Its transitions as columns (cached for an open timeline, the packed form itself for a closed one). */
export function timelineColumns(timeline: Transitions): Columns {
  const t = timeline.transitions;
  return isPacked(t) ? packedColumns(t) : columnsOf(t);
}

/** Whether it is held packed (closed and sealed: packClosed). */
export function isPackedTimeline(timeline: Transitions): boolean {
  return isPacked(timeline.transitions);
}

/** How many transitions it has. */
export function transitionCount(timeline: Transitions): number {
  const t = timeline.transitions;
  return isPacked(t) ? packedLength(t) : t.length;
}

/** Its last transition's time (a timeline is never empty). */
export function lastAt(timeline: Transitions): number {
  return transitionTime(timeline, transitionCount(timeline) - 1);
}

/** Its last transition's state; null when it has none (a node layer or pool before its first). */
export function lastState(timeline: Transitions): State | null {
  const n = transitionCount(timeline);
  return n === 0 ? null : transitionState(timeline, n - 1);
}

/** Transition `i`'s time. */
export function transitionTime(timeline: Transitions, i: number): number {
  const t = timeline.transitions;
  return isPacked(t) ? packedTime(t, i) : t[i]!.at;
}

/** Transition `i`'s state. */
export function transitionState(timeline: Transitions, i: number): State {
  const t = timeline.transitions;
  return isPacked(t) ? stateOfCode(packedCode(t, i)) : t[i]!.state;
}

/** Transition `i` as an object (a packed timeline makes one afresh for a transition without extras): to read, not to change. */
export function transitionAt(timeline: Transitions, i: number): Transition {
  const t = timeline.transitions;
  return isPacked(t) ? packedTransition(t, i) : t[i]!;
}

/**
 * Transition `i` as the object the timeline keeps (a packed timeline keeps it in its side table
 * from now on), for a writer that gives it extras: a cause, a suspension's reason. Undefined when
 * there is no transition `i`.
 */
export function heldTransition(timeline: Transitions, i: number): Transition | undefined {
  const t = timeline.transitions;
  if (!isPacked(t)) return t[i];
  return i >= 0 && i < packedLength(t) ? heldPackedTransition(t, i) : undefined;
}

/**
 * Gives `t`, the last transition (the very object added), the events it counts that happened
 * unobserved: a timeline closed (packed) by it keeps it in its side table from now on.
 */
export function setLastUnobserved(timeline: Transitions, t: Transition, unobserved: NonNullable<Transition['unobserved']>): void {
  t.unobserved = unobserved;
  const transitions = timeline.transitions;
  if (isPacked(transitions)) keepPacked(transitions, packedColumns(transitions).length - 1, t);
}

/** Gives transition `i` its causes (a new array): a packed timeline keeps a new object for it, its fields in place. */
export function setCauses(timeline: Transitions, i: number, causes: Cause[]): void {
  const transitions = timeline.transitions;
  if (!isPacked(transitions)) transitions[i]!.causes = causes;
  else keepPacked(transitions, i, compactTransition({ ...packedTransition(transitions, i), causes }));
}

/** The events transition `i` counts that happened unobserved (Transition.unobserved); undefined when none. */
export function unobservedAt(timeline: Transitions, i: number): Transition['unobserved'] {
  const t = timeline.transitions;
  return isPacked(t) ? packedExtras(t, i)?.unobserved : t[i]!.unobserved;
}

/** When it closed (its terminal transition's time); Infinity while it is open. */
export function closedAt(timeline: Transitions): number {
  const n = transitionCount(timeline);
  return TERMINAL_STATES.has(transitionState(timeline, n - 1)) ? transitionTime(timeline, n - 1) : Infinity;
}

/**
 * Its transitions as objects, for the few cold readers that need them whole (writing a store
 * record, a JSON view): the array of an open timeline (not to be changed through this), made afresh
 * for a packed one.
 */
export function transitionsOf(timeline: Transitions): readonly Transition[] {
  const t = timeline.transitions;
  return isPacked(t) ? unpack(t) : t;
}

/**
 * The timeline with its transitions as objects: to compare or print one. A closed run's are packed,
 * or a record of the engine's arena whose number differs from engine to engine (arena.ts).
 */
export function timelineAsRead<T extends Timeline>(timeline: T): T {
  return { ...timelineFields(timeline), transitions: [...transitionsOf(timeline)] } as T;
}

/**
 * Every field of the timeline as a plain object's own, for code that copies one (`{ ...timelineFields(tl), transitions }`):
 * a spread of the engine's own (run-timeline.ts) would copy only the fields a run does not share.
 */
export function timelineFields<T extends Timeline>(timeline: T): T {
  return (timeline instanceof RunTimeline ? timeline.fields() : { ...timeline }) as T;
}

/** The array of an open timeline, for its writers; a closed (packed) timeline takes no transition. */
export function openTransitions(timeline: Transitions): Transition[] {
  const t = timeline.transitions;
  if (isPacked(t)) throw new Error('a closed timeline takes no transition');
  return t;
}

/** A timeline that is never packed (the simulator's truth, a test's): its transitions are an array. */
export type OpenTimeline = Omit<Timeline, 'transitions'> & { transitions: Transition[] };

/** One JobSet UID's whole history. Name, namespace and the rest are labels of the UID. */
export interface Timeline {
  /** Which cluster it belongs to, when several write to one store (`--cluster-name`). */
  cluster?: string;
  uid: string;
  namespace: string;
  name: string;
  labels: Record<string, string>;
  /** TPU/GPU accelerator and topology from the pod templates' nodeSelectors, when they say. */
  accelerator: string | null;
  topology: string | null;
  createdAt: number;
  // Goodput inputs (issue 13 §3), from the object → state function (jobset.ts); absent: none known.
  /** Σ over replicated jobs of accelerators per pod (nvidia.com/gpu, google.com/tpu limits) × replicas × parallelism. */
  accelerators?: number;
  /** Σ over replicated jobs of replicas × parallelism: its pods (job size without accelerators, series/sizes.ts); absent or 0: not known. */
  pods?: number;
  /** The `upness.dev/checkpoint-interval` annotation, ms; null or absent without it. */
  checkpointIntervalMs?: number | null;
  /**
   * Non-empty, times non-decreasing, the first at `createdAt`; a terminal state, if any, is last.
   * Packed once closed (packClosed): read it through the read functions above.
   */
  transitions: Transition[] | PackedTransitions;
  /** A node pool's timeline (nodes/pools): the JobSets (namespace/name) whose pods ran on its nodes. */
  jobsets?: string[];
}
