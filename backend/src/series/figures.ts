// The figures of DESIGN.md, derived from additive totals. Durations in seconds, null where undefined.

import { definitionOf, FIGURE_DEFINITIONS, FIGURES, type FigureName, type Figures } from './figure-definitions.ts';
import { transitionCount, transitionState, transitionTime, type State, type Timeline } from '../timeline/types.ts';
import { FIELDS, windowTotals } from './totals.ts';

export type { FigureName, Figures };

/** In the order tables show them (figure-definitions.ts). */
export const FIGURE_NAMES: readonly FigureName[] = FIGURES;

/** Figures that are sums over time or counts: they add up across adjacent windows. */
export const ADDITIVE_FIGURES: readonly FigureName[] = FIGURE_NAMES.filter((f) => FIGURE_DEFINITIONS[f].additive);

/** The first up since the first start, when it was seen happen: creation (or first resume) → up. */
export interface FirstUp {
  startedAt: number;
  firstUpAt: number;
  /** Which transition it is. */
  index: number;
}

export function firstUp(timeline: Timeline): FirstUp | null {
  let start: number | null = null;
  for (let i = 0, n = transitionCount(timeline); i < n; i++) {
    const state = transitionState(timeline, i);
    if (state === 'provisioning') start ??= transitionTime(timeline, i);
    else if (state === 'up') return start === null ? null : { startedAt: start, firstUpAt: transitionTime(timeline, i), index: i };
    // Queued or suspended before the first up: still on the way to it.
    else if (state !== 'suspended') return null; // unknown (moment not seen), or ended first
  }
  return null;
}

/** One figure from the totals vector that starts at `o` in `totals` (no allocation: hot path). */
export function figureValue(totals: ArrayLike<number>, o: number, figure: FigureName, timeToFirstUpSeconds: number | null): number | null {
  return definitionOf(figure).value(totals, o, timeToFirstUpSeconds);
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
  if (t < transitionTime(timeline, 0)) return null;
  let lo = 0;
  let hi = transitionCount(timeline) - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (transitionTime(timeline, mid) <= t) lo = mid;
    else hi = mid - 1;
  }
  return transitionState(timeline, lo);
}

