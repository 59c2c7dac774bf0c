// Usage over a window split by the JobSet's state: the time-weighted mean of a metric while it was
// up, while provisioning, while down after an interruption, while suspended. Only Upness can join
// these, because only it has the exact intervals. Pure.
//
// The weight of a usage step is its overlap with the state's intervals inside [from, to]; time
// with no usage step (before the first sample, a gap longer than the hold, a node that did not
// answer) is in no mean, and `coveredSeconds` says how much time each mean stands on. A state
// with no covered time has a null mean, never 0.

import type { State, Timeline } from '../timeline/types.ts';
import { TERMINAL_STATES, transitionCount, transitionState, transitionTime } from '../timeline/types.ts';
import type { UsageSegments } from './history.ts';

/** The states a split reports: those that accrue time (terminal states accrue none). */
export const SPLIT_STATES = ['provisioning', 'up', 'down', 'suspended', 'unknown'] as const;
export type SplitState = (typeof SPLIT_STATES)[number];

export interface StateMean {
  /** Time-weighted mean over the covered time in this state; null when none is covered. */
  mean: number | null;
  /** Seconds of this state inside the window that have a usage value. */
  coveredSeconds: number;
  /** Seconds of this state inside the window, covered or not. */
  stateSeconds: number;
}

export type UsageByState = Record<SplitState | 'notUp', StateMean>;

/** The timeline's intervals of the states that accrue time, clipped to [from, to]; the last lasts until `now`. */
export function stateIntervals(timeline: Pick<Timeline, 'transitions'>, now: number, from: number, to: number): { start: number; end: number; state: State }[] {
  const out: { start: number; end: number; state: State }[] = [];
  for (let i = 0, n = transitionCount(timeline); i < n; i++) {
    const state = transitionState(timeline, i);
    if (TERMINAL_STATES.has(state)) break;
    const end = Math.min(i + 1 < n ? transitionTime(timeline, i + 1) : now, to);
    const start = Math.max(transitionTime(timeline, i), from);
    if (end > start) out.push({ start, end, state });
  }
  return out;
}

/**
 * The split of one metric's steps by state over [from, to]. `notUp` pools provisioning and down
 * (the DESIGN's downSeconds: provisioning plus interruption downtime), the "while not running" the
 * issue compares with "while up".
 */
export function usageByState(segments: UsageSegments, timeline: Pick<Timeline, 'transitions'>, now: number, from: number, to: number): UsageByState {
  const weighted = new Map<string, { integral: number; covered: number; total: number }>();
  const bucket = (state: string) => {
    let b = weighted.get(state);
    if (b === undefined) weighted.set(state, (b = { integral: 0, covered: 0, total: 0 }));
    return b;
  };
  const intervals = stateIntervals(timeline, now, from, to);
  // Two sorted, non-overlapping lists: walk both once.
  let s = 0;
  for (const interval of intervals) {
    const b = bucket(interval.state);
    const notUp = interval.state === 'provisioning' || interval.state === 'down' ? bucket('notUp') : null;
    const length = interval.end - interval.start;
    b.total += length;
    if (notUp !== null) notUp.total += length;
    while (s < segments.starts.length && segments.ends[s]! <= interval.start) s++;
    for (let k = s; k < segments.starts.length && segments.starts[k]! < interval.end; k++) {
      const overlap = Math.min(segments.ends[k]!, interval.end) - Math.max(segments.starts[k]!, interval.start);
      if (overlap <= 0) continue;
      const area = overlap * segments.values[k]!;
      b.integral += area;
      b.covered += overlap;
      if (notUp !== null) {
        notUp.integral += area;
        notUp.covered += overlap;
      }
    }
  }
  const mean = (state: string): StateMean => {
    const b = weighted.get(state);
    if (b === undefined) return { mean: null, coveredSeconds: 0, stateSeconds: 0 };
    return { mean: b.covered > 0 ? b.integral / b.covered : null, coveredSeconds: b.covered / 1000, stateSeconds: b.total / 1000 };
  };
  return {
    provisioning: mean('provisioning'),
    up: mean('up'),
    down: mean('down'),
    suspended: mean('suspended'),
    unknown: mean('unknown'),
    notUp: mean('notUp'),
  };
}
