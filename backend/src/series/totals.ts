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
export const FIELDS = 10;

const DURATION_FIELD: Partial<Record<State, number>> = {
  up: UP,
  provisioning: PROVISIONING,
  down: INTERRUPTION_DOWN,
  suspended: SUSPENDED,
  unknown: UNKNOWN,
};

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
  let k = 0;
  const n = transitions.length;
  for (let i = 0; i < n; i++) {
    const { at: s, state } = transitions[i]!;
    const next = i + 1 < n ? transitions[i + 1]! : null;
    const e = next !== null ? next.at : Math.max(end, s);
    const field = DURATION_FIELD[state];
    const queued = state === 'suspended' && s < start;
    // Times inside this segment see everything before it plus the part of it that has passed.
    while (k < times.length && times[k]! < e) {
      const base = k * FIELDS;
      out.set(acc, base);
      const part = times[k]! - s;
      if (field !== undefined && part > 0) {
        out[base + field]! += part;
        if (queued) out[base + QUEUED]! += part;
      }
      k++;
    }
    if (field !== undefined) {
      acc[field]! += e - s;
      if (queued) acc[QUEUED]! += e - s;
    }
    if (next === null) break;
    // The event of leaving this state happens at e; C(t) includes it when e ≤ t.
    if (state === 'up' && (next.state === 'down' || next.state === 'failed')) {
      acc[INTERRUPTIONS]! += 1;
      acc[INTERRUPTED_UP]! += e - s;
    } else if (state === 'down' && next.state === 'up') {
      acc[RECOVERIES]! += 1;
      acc[RECOVERED_DOWN]! += e - s;
    }
  }
  for (; k < times.length; k++) out.set(acc, k * FIELDS);
}

/** Totals over the window (from, to]: C(to) − C(from). */
export function windowTotals(timeline: Timeline, horizon: number, from: number, to: number): Float64Array {
  const c = new Float64Array(2 * FIELDS);
  cumulativeAt(timeline, horizon, [from, to], c);
  const totals = new Float64Array(FIELDS);
  for (let f = 0; f < FIELDS; f++) totals[f] = c[FIELDS + f]! - c[f]!;
  return totals;
}
