// The events of a timeline, seen happen: an interruption is up → down or up → failed, a recovery
// is down → up (the same rule the totals count). Each comes with the period it ended.
// Events proven after a gap in the watch (Transition.unobserved) have no time of their own and are
// not listed here; the totals count them.

import { transitionAt, transitionCount, transitionState, transitionTime, type Timeline, type Transition } from '../timeline/types.ts';

export interface TimelineEvent {
  kind: 'interruption' | 'recovery';
  /** Index of the transition that is the event. */
  index: number;
  at: number;
  /** When the up (interruption) or down (recovery) period it ended began. */
  periodStart: number;
  transition: Transition;
}

export function timelineEvents(timeline: Timeline): TimelineEvent[] {
  const events: TimelineEvent[] = [];
  for (let i = 1, n = transitionCount(timeline); i < n; i++) {
    const prev = transitionState(timeline, i - 1);
    const state = transitionState(timeline, i);
    if (prev === 'up' && (state === 'down' || state === 'failed')) {
      events.push({ kind: 'interruption', index: i, at: transitionTime(timeline, i), periodStart: transitionTime(timeline, i - 1), transition: transitionAt(timeline, i) });
    } else if (prev === 'down' && state === 'up') {
      events.push({ kind: 'recovery', index: i, at: transitionTime(timeline, i), periodStart: transitionTime(timeline, i - 1), transition: transitionAt(timeline, i) });
    }
  }
  return events;
}
