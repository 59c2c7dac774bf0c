// One row per timeline: who it is, its state at the window's end, and every figure over the window.

import type { State, Timeline } from '../timeline/types.ts';
import { figures, stateAt, type Figures } from './figures.ts';
import { endOf } from './totals.ts';

export interface JobSetSummary extends Figures {
  /** Present when the timeline belongs to a named cluster. */
  cluster?: string;
  namespace: string;
  name: string;
  uid: string;
  state: State;
}

/** Did the timeline exist at some moment of [from, to]? */
export function livedIn(timeline: Timeline, horizon: number, from: number, to: number): boolean {
  return timeline.createdAt <= to && endOf(timeline, horizon) >= from;
}

export function summarize(timelines: readonly Timeline[], horizon: number, from: number, to: number): JobSetSummary[] {
  const rows: JobSetSummary[] = [];
  for (const tl of timelines) {
    if (!livedIn(tl, horizon, from, to)) continue;
    rows.push({
      ...(tl.cluster !== undefined ? { cluster: tl.cluster } : {}),
      namespace: tl.namespace,
      name: tl.name,
      uid: tl.uid,
      state: stateAt(tl, to)!,
      ...figures(tl, horizon, from, to),
    });
  }
  return rows.sort(
    (a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name) || a.uid.localeCompare(b.uid),
  );
}

/** The earliest creation among timelines: the default start of a replay's window. */
export function earliestCreation(timelines: readonly Timeline[]): number | null {
  let earliest: number | null = null;
  for (const tl of timelines) if (earliest === null || tl.createdAt < earliest) earliest = tl.createdAt;
  return earliest;
}
