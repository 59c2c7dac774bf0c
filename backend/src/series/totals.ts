// Additive totals of a timeline, accumulated from its creation up to a given time.
// Every figure over a window (a, b] is derived from C(b) − C(a): durations clipped to the window,
// events counted when a < t ≤ b. One sweep gives C at many times, which serves single windows,
// step buckets, rolling windows and cumulative series alike.

import type { State, Timeline } from '../timeline/types.ts';

// Field offsets in a totals vector (milliseconds for durations, counts for events).
export const UP = 0;
export const PROVISIONING = 1;
export const INTERRUPTION_DOWN = 2;
export const SUSPENDED = 3;
export const QUEUED = 4;
export const UNKNOWN = 5;
export const INTERRUPTIONS = 6;
export const RECOVERIES = 7;
/** Σ whole lengths of the down periods that ended in a recovery (for MTTR). */
export const RECOVERED_DOWN = 8;
/** Σ whole lengths of the up periods that ended in an interruption (for MTBI). */
export const INTERRUPTED_UP = 9;
/** How many periods those sums hold: events seen happen (not ones proven after a gap, whose periods are unknown). */
export const MEASURED_RECOVERIES = 10;
export const MEASURED_INTERRUPTIONS = 11;
export const FIELDS = 12;

/** The totals field a state accrues time in; -1 for terminal states, which accrue nothing. */
function durationField(state: State): number {
  switch (state) {
    case 'up':
      return UP;
    case 'provisioning':
      return PROVISIONING;
    case 'down':
      return INTERRUPTION_DOWN;
    case 'suspended':
      return SUSPENDED;
    case 'unknown':
      return UNKNOWN;
    default:
      return -1;
  }
}

/** When the timeline first left suspension (or was created active): its first start. */
export function startedAt(timeline: Timeline): number | null {
  for (const t of timeline.transitions) {
    if (t.state === 'provisioning' || t.state === 'up' || t.state === 'down') return t.at;
  }
  return null;
}

/** When accrual stops: the terminal transition, or the horizon for a timeline still open. */
export function endOf(timeline: Timeline, horizon: number): number {
  const last = timeline.transitions[timeline.transitions.length - 1]!;
  const closed = last.state === 'completed' || last.state === 'failed' || last.state === 'deleted';
  return closed ? last.at : Math.max(horizon, last.at);
}

/**
 * Writes C(times[k]) for every k into `out` (FIELDS numbers per time, overwritten).
 * `times` must be sorted ascending. `horizon` is the time up to which an open timeline is observed.
 */
export function cumulativeAt(timeline: Timeline, horizon: number, times: ArrayLike<number>, out: Float64Array): void {
  const transitions = timeline.transitions;
  const end = endOf(timeline, horizon);
  const start = startedAt(timeline) ?? Infinity;
  const acc = new Float64Array(FIELDS);
  const n = transitions.length;
  const count = times.length;
  let k = 0;
  // Hot loop (once per transition of every timeline queried): plain loops, no calls into typed-array
  // methods, which cost more than the copy itself at this size.
  for (let i = 0; i < n; i++) {
    const { at: s, state } = transitions[i]!;
    const next = transitions[i + 1];
    const e = next !== undefined ? next.at : end > s ? end : s;
    const field = durationField(state);
    const isQueued = field === SUSPENDED && s < start;
    // Times inside this segment see everything before it plus the part of it that has passed.
    for (; k < count && times[k]! < e; k++) {
      const o = k * FIELDS;
      for (let f = 0; f < FIELDS; f++) out[o + f] = acc[f]!;
      const part = times[k]! - s;
      if (field >= 0 && part > 0) {
        out[o + field]! += part;
        if (isQueued) out[o + QUEUED]! += part;
      }
    }
    if (field >= 0) {
      acc[field]! += e - s;
      if (isQueued) acc[QUEUED]! += e - s;
    }
    if (next === undefined) break;
    // The event of leaving this state happens at e; C(t) includes it when e ≤ t.
    if (field === UP && (next.state === 'down' || next.state === 'failed')) {
      acc[INTERRUPTIONS]! += 1;
      acc[MEASURED_INTERRUPTIONS]! += 1;
      acc[INTERRUPTED_UP]! += e - s;
    } else if (field === INTERRUPTION_DOWN && next.state === 'up') {
      acc[RECOVERIES]! += 1;
      acc[MEASURED_RECOVERIES]! += 1;
      acc[RECOVERED_DOWN]! += e - s;
    }
    if (next.unobserved !== undefined) {
      acc[INTERRUPTIONS]! += next.unobserved.interruptions;
      acc[RECOVERIES]! += next.unobserved.recoveries;
    }
  }
  for (; k < count; k++) {
    const o = k * FIELDS;
    for (let f = 0; f < FIELDS; f++) out[o + f] = acc[f]!;
  }
}

/** Totals over the window (from, to]: C(to) − C(from). */
export function windowTotals(timeline: Timeline, horizon: number, from: number, to: number): Float64Array {
  const c = new Float64Array(2 * FIELDS);
  cumulativeAt(timeline, horizon, [from, to], c);
  const totals = new Float64Array(FIELDS);
  for (let f = 0; f < FIELDS; f++) totals[f] = c[FIELDS + f]! - c[f]!;
  return totals;
}
