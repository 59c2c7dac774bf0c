// The events of a timeline, seen happen: an interruption is up → down or up → failed, a recovery
// is down → up (the same rule the totals count). Each comes with the period it ended.
// Events proven after a gap in the watch (Transition.unobserved) have no time of their own and are
// not listed here; the totals count them.

import type { Timeline, Transition } from '../timeline/types.ts';

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
  const tr = timeline.transitions;
  for (let i = 1; i < tr.length; i++) {
    const prev = tr[i - 1]!;
    const t = tr[i]!;
    if (prev.state === 'up' && (t.state === 'down' || t.state === 'failed')) {
      events.push({ kind: 'interruption', index: i, at: t.at, periodStart: prev.at, transition: t });
    } else if (prev.state === 'down' && t.state === 'up') {
      events.push({ kind: 'recovery', index: i, at: t.at, periodStart: prev.at, transition: t });
    }
  }
  return events;
}
