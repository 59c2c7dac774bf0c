// The figures of DESIGN.md, derived from additive totals. Durations in seconds, null where undefined.

import { FIGURES, RATIO_FIGURES } from './figure-names.ts';
import type { State, Timeline } from '../timeline/types.ts';
import {
  ACCELERATOR_LOST,
  ACCELERATOR_UP,
  CHECKPOINT_LOSS,
  CHECKPOINTED_UP,
  CHECKPOINTED_WALL,
  FIELDS,
  INTERRUPTED_UP,
  INTERRUPTION_DOWN,
  INTERRUPTIONS,
  MEASURED_INTERRUPTIONS,
  MEASURED_RECOVERIES,
  PROVISIONING,
  QUEUED,
  RECOVERED_DOWN,
  RECOVERIES,
  SUSPENDED,
  UNKNOWN,
  UP,
  windowTotals,
} from './totals.ts';

export interface Figures {
  upSeconds: number;
  downSeconds: number;
  provisioningSeconds: number;
  interruptionDowntimeSeconds: number;
  suspendedSeconds: number;
  queuedSeconds: number;
  unknownSeconds: number;
  interruptions: number;
  recoveries: number;
  mttrSeconds: number | null;
  mtbiSeconds: number | null;
  uptimeRatio: number | null;
  timeToFirstUpSeconds: number | null;
  // Goodput (issue 13 §3).
  wallSeconds: number;
  schedulingGoodput: number | null;
  suspendedNotQueuedSeconds: number;
  queuedFraction: number | null;
  provisioningFraction: number | null;
  interruptionDowntimeFraction: number | null;
  suspendedNotQueuedFraction: number | null;
  unknownFraction: number | null;
  acceleratorSecondsUp: number;
  acceleratorSecondsLost: number;
  estimatedEffectiveTrainingRatio: number | null;
}

export type FigureName = keyof Figures;

/** In the order tables show them (figure-names.ts). */
export const FIGURE_NAMES: readonly FigureName[] = FIGURES;

/** Figures that are sums over time or counts: they add up across adjacent windows. */
export const ADDITIVE_FIGURES: readonly FigureName[] = FIGURE_NAMES.filter(
  (f) => f !== 'mttrSeconds' && f !== 'mtbiSeconds' && f !== 'uptimeRatio' && f !== 'timeToFirstUpSeconds' && !(RATIO_FIGURES as readonly string[]).includes(f),
);

/** The first up since the first start, when it was seen happen: creation (or first resume) → up. */
export interface FirstUp {
  startedAt: number;
  firstUpAt: number;
  /** Which transition it is. */
  index: number;
}

export function firstUp(timeline: Timeline): FirstUp | null {
  let start: number | null = null;
  const transitions = timeline.transitions;
  for (let i = 0; i < transitions.length; i++) {
    const t = transitions[i]!;
    if (t.state === 'provisioning') start ??= t.at;
    else if (t.state === 'up') return start === null ? null : { startedAt: start, firstUpAt: t.at, index: i };
    // Queued or suspended before the first up: still on the way to it.
    else if (t.state !== 'suspended') return null; // unknown (moment not seen), or ended first
  }
  return null;
}

/** One figure from the totals vector that starts at `o` in `totals` (no allocation: hot path). */
export function figureValue(totals: ArrayLike<number>, o: number, figure: FigureName, timeToFirstUpSeconds: number | null): number | null {
  switch (figure) {
    case 'upSeconds':
      return totals[o + UP]! / 1000;
    case 'downSeconds':
      return (totals[o + PROVISIONING]! + totals[o + INTERRUPTION_DOWN]!) / 1000;
    case 'provisioningSeconds':
      return totals[o + PROVISIONING]! / 1000;
    case 'interruptionDowntimeSeconds':
      return totals[o + INTERRUPTION_DOWN]! / 1000;
    case 'suspendedSeconds':
      return totals[o + SUSPENDED]! / 1000;
    case 'queuedSeconds':
      return totals[o + QUEUED]! / 1000;
    case 'unknownSeconds':
      return totals[o + UNKNOWN]! / 1000;
    case 'interruptions':
      return totals[o + INTERRUPTIONS]!;
    case 'recoveries':
      return totals[o + RECOVERIES]!;
    case 'mttrSeconds': {
      const n = totals[o + MEASURED_RECOVERIES]!;
      return n > 0 ? totals[o + RECOVERED_DOWN]! / n / 1000 : null;
    }
    case 'mtbiSeconds': {
      const n = totals[o + MEASURED_INTERRUPTIONS]!;
      return n > 0 ? totals[o + INTERRUPTED_UP]! / n / 1000 : null;
    }
    case 'uptimeRatio': {
      const up = totals[o + UP]!;
      const total = up + totals[o + PROVISIONING]! + totals[o + INTERRUPTION_DOWN]!;
      return total > 0 ? up / total : null;
    }
    case 'timeToFirstUpSeconds':
      return timeToFirstUpSeconds;
    case 'wallSeconds':
      return wallOf(totals, o) / 1000;
    case 'schedulingGoodput':
      return shareOfWall(totals, o, totals[o + UP]!);
    case 'suspendedNotQueuedSeconds':
      return (totals[o + SUSPENDED]! - totals[o + QUEUED]!) / 1000;
    case 'queuedFraction':
      return shareOfWall(totals, o, totals[o + QUEUED]!);
    case 'provisioningFraction':
      return shareOfWall(totals, o, totals[o + PROVISIONING]!);
    case 'interruptionDowntimeFraction':
      return shareOfWall(totals, o, totals[o + INTERRUPTION_DOWN]!);
    case 'suspendedNotQueuedFraction':
      return shareOfWall(totals, o, totals[o + SUSPENDED]! - totals[o + QUEUED]!);
    case 'unknownFraction':
      return shareOfWall(totals, o, totals[o + UNKNOWN]!);
    case 'acceleratorSecondsUp':
      return totals[o + ACCELERATOR_UP]! / 1000;
    case 'acceleratorSecondsLost':
      return totals[o + ACCELERATOR_LOST]! / 1000;
    case 'estimatedEffectiveTrainingRatio': {
      // Only timelines with a checkpoint interval take part; none of them lived: null.
      const wall = totals[o + CHECKPOINTED_WALL]!;
      return wall > 0 ? Math.max(0, totals[o + CHECKPOINTED_UP]! - totals[o + CHECKPOINT_LOSS]!) / wall : null;
    }
  }
}

/** A run's life inside the window: every state that accrues (suspended holds queued). */
function wallOf(totals: ArrayLike<number>, o: number): number {
  return totals[o + UP]! + totals[o + PROVISIONING]! + totals[o + INTERRUPTION_DOWN]! + totals[o + SUSPENDED]! + totals[o + UNKNOWN]!;
}

function shareOfWall(totals: ArrayLike<number>, o: number, part: number): number | null {
  const wall = wallOf(totals, o);
  return wall > 0 ? part / wall : null;
}

/** Every figure from additive totals (a window's C(to) − C(from), or such totals summed over a fleet). */
export function figuresFromTotals(totals: ArrayLike<number>, timeToFirstUpSeconds: number | null): Figures {
  const result = {} as Record<FigureName, number | null>;
  for (const name of FIGURE_NAMES) result[name] = figureValue(totals, 0, name, timeToFirstUpSeconds);
  return result as unknown as Figures;
}

/** timeToFirstUpSeconds as known at `to`: null while it has not (visibly) come up by then. */
export function timeToFirstUpAt(first: FirstUp | null, to: number): number | null {
  return first !== null && first.firstUpAt <= to ? (first.firstUpAt - first.startedAt) / 1000 : null;
}

const TOTALS = new Float64Array(FIELDS);

/** Every figure of one timeline over the window [from, to] (events: from < t ≤ to). */
export function figures(timeline: Timeline, horizon: number, from: number, to: number): Figures {
  // The totals go to scratch space: figuresFromTotals copies what it needs at once.
  return figuresFromTotals(windowTotals(timeline, horizon, from, to, TOTALS), timeToFirstUpAt(firstUp(timeline), to));
}

/** The state at time t (the last transition at or before t); null before creation. */
export function stateAt(timeline: Timeline, t: number): State | null {
  const transitions = timeline.transitions;
  if (t < transitions[0]!.at) return null;
  let lo = 0;
  let hi = transitions.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (transitions[mid]!.at <= t) lo = mid;
    else hi = mid - 1;
  }
  return transitions[lo]!.state;
}

