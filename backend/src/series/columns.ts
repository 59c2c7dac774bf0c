// What the series read of a timeline's columns (timeline/columns.ts): the events between state codes,
// the time to first up.

import { CLOSED_FROM, DOWN_CODE, FAILED_CODE, STATE_CODE, SUSPENDED_CODE, UNOBSERVED_BIT, UP_CODE, codeAt, columnsOf, keepLife, startOf, timeAt, type Columns } from '../timeline/columns.ts';
import { timelineColumns } from '../timeline/types.ts';

// The columns themselves are the timeline's memory form (timeline/columns.ts); the series read them.
export { CLOSED_FROM, DOWN_CODE, FAILED_CODE, STATE_CODE, SUSPENDED_CODE, UNOBSERVED_BIT, UP_CODE, codeAt, columnsOf, keepLife, startOf, timeAt, timelineColumns, type Columns };

/** What leaving state code `from` for `to` counts as (DESIGN.md): up → down or failed interrupts, down → up recovers. */
export const NO_EVENT = 0;
export const INTERRUPTION = 1;
export const RECOVERY = 2;
export function eventOf(from: number, to: number): number {
  if (from === UP_CODE) return to === DOWN_CODE || to === FAILED_CODE ? INTERRUPTION : NO_EVENT;
  return from === DOWN_CODE && to === UP_CODE ? RECOVERY : NO_EVENT;
}

const PROVISIONING_CODE = STATE_CODE.provisioning;

/**
 * timeToFirstUpAt(firstUp(…), to) of the columns: provisioning (after any suspension) then up,
 * seconds; null when it was not up by `to` (summary.ts; run-columns.ts asks with `to` = ∞).
 */
export function timeToFirstUpFrom(c: Columns, to: number): number | null {
  let start = -1;
  for (let i = 0; i < c.length; i++) {
    const code = codeAt(c, i) & 7;
    if (code === PROVISIONING_CODE) {
      if (start < 0) start = i;
    } else if (code === UP_CODE) {
      return start < 0 || timeAt(c, i) > to ? null : (timeAt(c, i) - timeAt(c, start)) / 1000;
    } else if (code !== SUSPENDED_CODE) return null;
  }
  return null;
}
