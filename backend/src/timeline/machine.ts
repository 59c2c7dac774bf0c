// The per-UID state machine: successive views of one JobSet in, transitions out.
// Pure: the caller supplies the time each view was received.

import { internLabels, internNamespace, internSuspension, internValue, sameLabels } from './intern.ts';
import { joinSuspension } from './facts.ts';
import { RunTimeline } from './run-timeline.ts';
import { isUp, type JobSetView } from './jobset.ts';
import { isPacked, setPackedMemory } from './columns.ts';
import { closedAt, lastState, openTransitions, sealClosed, setLastUnobserved, TERMINAL_STATES, timelineAsRead, timelineColumns, transitionAt, transitionCount, type State, type Suspension, type Timeline, type Transition } from './types.ts';

/** Restart counts and deletion offsets (ms) a closed run's memory holds in its columns: small integers on every V8 build. */
const MEMORY_LIMIT = 2 ** 29;

/**
 * A machine as the engine keeps it: a closed run's as its timeline alone, the machine's memory
 * (restarts, ever up, deletion) held in its packed columns (Columns.memory): ~80 bytes a run less
 * than the machine object and its boxed deletedAt. An open run's, or one whose memory does not fit
 * there, as the machine itself.
 */
export function settledMachine(machine: MachineState): MachineState | Timeline {
  const { timeline, restarts, everUp, deletedAt, resourceVersion } = machine;
  if (resourceVersion !== null || !keepClosedMemory(timeline, everUp, restarts, deletedAt)) return machine;
  return timeline;
}

/**
 * Keeps a closed run's machine memory in its packed columns (settledMachine), for a reader that has
 * the memory's fields without a machine object (a store's snapshot); false, nothing set, when the
 * timeline is not packed or they do not fit: the machine is then kept.
 */
export function keepClosedMemory(timeline: Timeline, everUp: boolean, restarts: number, deletedAt: number | null): boolean {
  if (!isPacked(timeline.transitions)) return false;
  if (!Number.isInteger(restarts) || restarts < 0 || restarts >= MEMORY_LIMIT) return false;
  const deletedAfter = deletedAt === null ? null : deletedAt - closedAt(timeline);
  if (deletedAfter !== null && !(Number.isInteger(deletedAfter) && Math.abs(deletedAfter) < MEMORY_LIMIT)) return false;
  return setPackedMemory(timeline.transitions, restarts * 2 + (everUp ? 1 : 0), deletedAfter);
}

/** The machine of what the engine keeps (settledMachine): a closed run's made afresh from its memory, to read or to advance and settle again. */
export function machineOf(kept: MachineState | Timeline): MachineState {
  if (isMachine(kept)) return kept;
  const { memory, deletedAfter } = timelineColumns(kept);
  if (memory === null) throw new Error(`the closed run ${kept.uid} keeps no machine memory`);
  return { timeline: kept, everUp: memory % 2 === 1, restarts: Math.floor(memory / 2), resourceVersion: null, deletedAt: deletedAfter === null ? null : closedAt(kept) + deletedAfter };
}

/** The timeline of what the engine keeps (settledMachine). */
export function keptTimeline(kept: MachineState | Timeline): Timeline {
  return isMachine(kept) ? kept.timeline : kept;
}

/** The machine with its timeline's transitions as objects (types.ts timelineAsRead): to compare or print one. */
export function machineAsRead<M extends { timeline: Timeline }>(m: M): M {
  return { ...m, timeline: timelineAsRead(m.timeline) };
}

/** Whether the engine keeps it as a machine (an open run, or a closed one whose memory did not fit its columns), not as a settled timeline. */
export function isMachine(kept: MachineState | Timeline): kept is MachineState {
  return 'timeline' in kept;
}

/** What the machine remembers between observations of one UID. */
export interface MachineState {
  timeline: Timeline;
  /** Up at least once since creation or since the last resume: decides provisioning versus down. */
  everUp: boolean;
  restarts: number;
  /**
   * metadata.resourceVersion at the last observation; null once closed (only resumeAfterGap reads
   * it, for an open run: a closed run's string cost ~24 bytes a run for nothing).
   */
  resourceVersion: string | null;
  /** When a DELETED observation (or a deletionTimestamp) was seen, even for a timeline already closed. */
  deletedAt: number | null;
}

export function currentState(machine: MachineState): State {
  return lastState(machine.timeline)!;
}

export function isClosed(machine: MachineState): boolean {
  return TERMINAL_STATES.has(currentState(machine));
}

/** Appends a transition, keeping times non-decreasing and never later than the observation. */
function enter(machine: MachineState, state: State, at: number, receivedAt: number, added: Transition[], suspension: Suspension | null = null): void {
  // Closed, it takes no transition (entering the state it is in returns before the push).
  const last = transitionAt(machine.timeline, transitionCount(machine.timeline) - 1);
  // Object timestamps have whole-second precision and come from other clocks: keep the order we saw.
  const time = Math.min(Math.max(at, last.at), Math.max(receivedAt, last.at));
  // Zero-length states are kept: the log is append-only, and they add no time.
  if (last.state === state) return;
  const transition: Transition = { at: time, state };
  if (suspension !== null) transition.suspension = internSuspension(suspension);
  openTransitions(machine.timeline).push(transition);
  added.push(transition);
  if (TERMINAL_STATES.has(state)) {
    sealClosed(machine.timeline);
    machine.resourceVersion = null;
  }
}

/** The state an active (not closed, not suspended) JobSet is in after a gap or on first sight. */
function activeState(machine: MachineState, view: JobSetView): State {
  if (isUp(view)) return 'up';
  return machine.everUp ? 'down' : 'provisioning';
}

/**
 * Starts a timeline for a UID seen for the first time.
 * `watchedFrom` is when the observer began watching: a JobSet created before it was not seen being
 * created, so its history until the first observation is unknown unless its own timestamps tell.
 */
export function startMachine(view: JobSetView, receivedAt: number, watchedFrom: number, inGap: boolean): MachineState {
  const createdAt = Math.min(view.createdAt ?? receivedAt, receivedAt);
  // creationTimestamp is truncated to the second: allow for that before calling it missed. A JobSet
  // first seen while the watch resyncs after a gap was created while nobody was watching.
  const seenFromCreation = createdAt > watchedFrom - 1000 && !inGap;
  const first: State = seenFromCreation ? (view.suspended ? 'suspended' : 'provisioning') : 'unknown';
  const machine: MachineState = {
    timeline: new RunTimeline({
      uid: view.uid,
      namespace: internNamespace(view.namespace),
      name: internValue(view.name),
      labels: internLabels(view.labels),
      accelerator: internValue(view.accelerator),
      topology: internValue(view.topology),
      accelerators: view.accelerators,
      checkpointIntervalMs: view.checkpointIntervalMs,
      pods: view.expectedNodes,
      createdAt,
      transitions: [first === 'suspended' && view.suspension !== null ? { at: createdAt, state: first, suspension: internSuspension(view.suspension) } : { at: createdAt, state: first }],
    }),
    everUp: false,
    restarts: view.restarts,
    resourceVersion: view.resourceVersion,
    deletedAt: null,
  };
  if (!seenFromCreation && !view.suspended && view.terminal === null && view.restarts > 0) {
    // It has been restarted, so it most likely ran before we looked; a restart is no proof, though,
    // so the time until now stays unknown and only the state from now on is affected.
    machine.everUp = true;
  }
  return machine;
}

/** Feeds one observation of the UID; returns the transitions it added (possibly none). */
export function advance(
  machine: MachineState,
  view: JobSetView,
  receivedAt: number,
  deleted: boolean,
): Transition[] {
  const added: Transition[] = [];
  const deletion = deleted ? (view.deletingAt ?? receivedAt) : view.deletingAt;
  if (deletion !== null) machine.deletedAt ??= deletion;
  if (isClosed(machine)) return added;

  const timeline = machine.timeline;
  // Keep what is kept already when unchanged: each observation brings its own copies.
  if (timeline.namespace !== view.namespace) timeline.namespace = internNamespace(view.namespace);
  if (timeline.name !== view.name) timeline.name = internValue(view.name);
  if (!sameLabels(timeline.labels, view.labels)) timeline.labels = internLabels(view.labels);
  if (timeline.accelerator !== view.accelerator) timeline.accelerator = internValue(view.accelerator);
  if (timeline.topology !== view.topology) timeline.topology = internValue(view.topology);
  timeline.accelerators = view.accelerators;
  timeline.checkpointIntervalMs = view.checkpointIntervalMs;
  timeline.pods = view.expectedNodes;

  const restartsRose = view.restarts > machine.restarts;
  machine.restarts = view.restarts;
  machine.resourceVersion = view.resourceVersion;
  const state = currentState(machine);

  if (view.terminal !== null) {
    enter(machine, view.terminal.outcome, view.terminal.at ?? receivedAt, receivedAt, added);
    return added;
  }
  if (deletion !== null) {
    // Once deletion has begun its pods are torn down on purpose: that is not an interruption.
    enter(machine, 'deleted', deletion, receivedAt, added);
    return added;
  }
  if (view.suspended) {
    enter(machine, 'suspended', view.suspendedSince ?? receivedAt, receivedAt, added, view.suspension);
    return added;
  }
  if (state === 'suspended') {
    // Resumed: it provisions again, and its first up after this is not a recovery.
    machine.everUp = false;
    enter(machine, 'provisioning', view.resumedAt ?? receivedAt, receivedAt, added);
  }

  const next = activeState(machine, view);
  if (next === 'up' && currentState(machine) === 'up' && restartsRose) {
    // Restarted faster than the watch could see it go down: one interruption, one recovery of 0 s.
    enter(machine, 'down', receivedAt, receivedAt, added);
  }
  enter(machine, next, receivedAt, receivedAt, added);
  if (next === 'up') machine.everUp = true;
  return added;
}

/**
 * Why the current suspension happened, learned after its transition was written: the watch saw
 * spec.suspend (set by Kueue's webhook, or a user) before the controller's Suspended condition. The
 * transition keeps it in memory, and the store writes it as a fact of its own. Returns the index
 * of the transition it was given to, or null when there is nothing to learn.
 */
export function learnSuspension(machine: MachineState, view: JobSetView): number | null {
  const last = transitionCount(machine.timeline) - 1;
  if (!view.suspended || view.suspension === null) return null;
  // The same join a store's recovery and a follower apply to the fact (./facts.ts).
  return joinSuspension(machine.timeline, last, view.suspension) ? last : null;
}

/**
 * The first observation of a UID after a gap in the watch that began at `gapStart`. An object whose
 * resourceVersion did not change was not modified at all, so its state held through the gap. Otherwise
 * the gap is unknown, except what the object's own timestamps prove (advance applies them), and the
 * events that the states before and after prove are counted as unobserved on the state after it.
 */
export function resumeAfterGap(machine: MachineState, view: JobSetView, receivedAt: number, deleted: boolean, gapStart: number): Transition[] {
  const unchanged = view.resourceVersion !== null && view.resourceVersion === machine.resourceVersion;
  if (isClosed(machine) || (unchanged && !deleted)) return advance(machine, view, receivedAt, deleted);
  const before = currentState(machine);
  const rose = view.restarts > machine.restarts;
  const added: Transition[] = [];
  enter(machine, 'unknown', gapStart, receivedAt, added);
  // Resumed during the gap: it provisions again, not down. Proven by its Suspended condition, or by
  // its having been suspended when the gap began (the condition's time has whole seconds, so a resume
  // just after the gap began can read as before it).
  if (!view.suspended && (before === 'suspended' || (view.resumedAt !== null && view.resumedAt > gapStart))) machine.everUp = false;
  added.push(...advance(machine, view, receivedAt, deleted));
  const after = currentState(machine);
  // What can be proven, and no more: a restart count that rose while it was up means it went down at
  // least once; several restarts may all belong to one down period.
  const interruptions = before === 'up' && (after === 'down' || after === 'failed' || (after === 'up' && rose)) ? 1 : 0;
  const recoveries = after === 'up' && (before === 'down' || (before === 'up' && rose)) ? 1 : 0;
  if (interruptions + recoveries > 0) setLastUnobserved(machine.timeline, added[added.length - 1]!, { interruptions, recoveries });
  return added;
}
