// Values that flow from the observation path into the timeline and on to the series stage.
// Times are epoch milliseconds (integers), so sums of durations stay exact.

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
 * Gives a closed timeline's transitions an array of their exact length: it never grows again, and an
 * array grown by push keeps up to half again and 16 slots spare (~100 bytes a timeline). Readers take
 * `timeline.transitions` afresh each time (series/columns.ts keys its cache by the array).
 */
export function packClosed(timeline: Timeline): void {
  const transitions = timeline.transitions;
  if (transitions.length > 0 && TERMINAL_STATES.has(transitions[transitions.length - 1]!.state)) timeline.transitions = transitions.slice();
}

// Readers that need only a timeline's length, its end, or its transitions' times and states read it
// through these, not `transitions` (series/columns.ts timelineColumns for a sweep): a
// closed timeline is to be held packed, without an object per transition (issue 21 §3,
// series/closed.ts), and these are what such a timeline answers without making one.

/** What these read of a timeline (a Timeline is one). */
export type Transitions = Pick<Timeline, 'transitions'>;

/** How many transitions it has. */
export function transitionCount(timeline: Transitions): number {
  return timeline.transitions.length;
}

/** Its last transition's time (a timeline is never empty). */
export function lastAt(timeline: Transitions): number {
  return timeline.transitions[timeline.transitions.length - 1]!.at;
}

/** Transition `i`'s time. */
export function transitionTime(timeline: Transitions, i: number): number {
  return timeline.transitions[i]!.at;
}

/** Transition `i`'s state. */
export function transitionState(timeline: Transitions, i: number): State {
  return timeline.transitions[i]!.state;
}

/** Transition `i` as an object (a packed timeline will make one afresh for a transition without extras). */
export function transitionAt(timeline: Transitions, i: number): Transition {
  return timeline.transitions[i]!;
}

/** The events transition `i` counts that happened unobserved (Transition.unobserved); undefined when none. */
export function unobservedAt(timeline: Transitions, i: number): Transition['unobserved'] {
  return timeline.transitions[i]!.unobserved;
}

/** When it closed (its terminal transition's time); Infinity while it is open. */
export function closedAt(timeline: Transitions): number {
  const last = timeline.transitions[timeline.transitions.length - 1]!;
  return TERMINAL_STATES.has(last.state) ? last.at : Infinity;
}

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
  /** Non-empty, times non-decreasing, the first at `createdAt`; a terminal state, if any, is last. */
  transitions: Transition[];
  /** A node pool's timeline (nodes/pools): the JobSets (namespace/name) whose pods ran on its nodes. */
  jobsets?: string[];
}
