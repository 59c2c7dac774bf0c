// `states`: what the State timeline panel draws: per JobSet name, its state at every change inside
// the range. UIDs that bore the name follow one another on one row; a final row closes the range.

import { stateAt } from '../../series/figures.ts';
import { oldestFirst } from '../../timeline/order.ts';
import { transitionCount, transitionState, transitionTime, type Timeline } from '../../timeline/types.ts';
import { withColumnWriters, writeNumbers, writeStrings } from '../answer-bytes.ts';
import type { QueryContext } from '../context.ts';
import { frame, stringField, timeField, type FrameJSON } from '../frame.ts';
import { perJobSet, rangeStart, refuseCauseGroup, refuseSeriesPerJobSetOverLimit, type QueryTypeModule } from './module.ts';

export function statesFrames(ctx: QueryContext): FrameJSON[] {
  const byName = new Map<string, Timeline[]>();
  for (const tl of ctx.timelines) {
    const key = `${tl.namespace}/${tl.name}`;
    const bearers = byName.get(key);
    if (bearers === undefined) byName.set(key, [tl]);
    else bearers.push(tl);
  }
  return [...byName.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([displayName, timelines]) => {
      timelines.sort(oldestFirst);
      const times: number[] = [];
      const states: (string | null)[] = [];
      const put = (t: number, state: string | null): void => {
        // Several states at one instant: only the last lasted any time.
        if (times.length > 0 && times[times.length - 1] === t) states[states.length - 1] = state;
        else if (states.length === 0 || states[states.length - 1] !== state) {
          times.push(t);
          states.push(state);
        }
      };
      let atFrom: string | null = null;
      for (const tl of timelines) atFrom = stateAt(tl, ctx.from) ?? atFrom;
      put(ctx.from, atFrom);
      for (const tl of timelines) {
        for (let i = 0; i < transitionCount(tl); i++) {
          const at = transitionTime(tl, i);
          if (at > ctx.from && at <= ctx.to) put(at, transitionState(tl, i));
        }
      }
      if (times[times.length - 1] !== ctx.to) {
        times.push(ctx.to);
        states.push(null);
      }
      // One JobSet's detail (one name): its columns written by json-text.ts (epoch-ms times and a few
      // states; JSON.stringify's number formatting was most of a detail's JSON). Not a namespace's
      // many frames: written in JavaScript frame by frame, its answer took ~1.5× JSON.stringify's time.
      const answer = frame([timeField('time', times), stringField('state', states, { displayName })], { name: displayName, refId: ctx.query.refId });
      if (byName.size === 1) withColumnWriters(answer.data.values, STATE_COLUMN_WRITERS);
      return answer;
    });
}

/** A state frame's columns' writers: its times, its states. */
const STATE_COLUMN_WRITERS = Object.freeze([writeNumbers, writeStrings]);

export const statesType: QueryTypeModule = {
  queryType: 'states',
  fields: {},
  selectFrom: rangeStart,
  validate(ctx) {
    refuseCauseGroup(ctx.query);
    refuseSeriesPerJobSetOverLimit(ctx);
  },
  cost: perJobSet,
  frames: statesFrames,
};
