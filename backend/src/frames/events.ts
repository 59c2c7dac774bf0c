// `events`: interruptions as annotation regions, from the interruption to the end of the down
// period it began (a recovery, a failure, a suspension…) or the end of the range.

import type { Timeline } from '../timeline/types.ts';
import type { QueryContext } from './context.ts';
import { frame, stringField, timeField, type FrameJSON } from './frame.ts';
import { humanDuration } from './text.ts';

interface Event {
  time: number;
  timeEnd: number;
  title: string;
  text: string;
  tags: string;
}

function interruptions(tl: Timeline, from: number, to: number, horizon: number): Event[] {
  const events: Event[] = [];
  const tr = tl.transitions;
  for (let i = 1; i < tr.length; i++) {
    const { at, state } = tr[i]!;
    if (tr[i - 1]!.state !== 'up' || (state !== 'down' && state !== 'failed') || at <= from || at > to) continue;
    const end = state === 'failed' ? tr[i] : tr[i + 1];
    const timeEnd = end === undefined ? Math.min(to, horizon) : Math.min(end.at, to);
    let text: string;
    if (state === 'failed') text = 'Failed while up.';
    else if (end === undefined) text = `Down for ${humanDuration((timeEnd - at) / 1000)} so far.`;
    else if (end.state === 'up') text = end.at === at ? 'Restarted faster than the watch could see it go down (0 s).' : `Down for ${humanDuration((end.at - at) / 1000)}, then recovered.`;
    else text = `Down for ${humanDuration((end.at - at) / 1000)}, then ${end.state}.`;
    events.push({
      time: at,
      timeEnd,
      title: `Interruption: ${tl.namespace}/${tl.name}`,
      text,
      tags: ['interruption', tl.namespace, tl.name].join(','),
    });
  }
  return events;
}

export function eventsFrames(ctx: QueryContext): FrameJSON[] {
  const events = ctx.timelines.flatMap((tl) => interruptions(tl, ctx.from, ctx.to, ctx.horizon)).sort((a, b) => a.time - b.time);
  return [
    frame(
      [
        timeField('time', events.map((e) => e.time)),
        timeField('timeEnd', events.map((e) => e.timeEnd), { nullable: true }),
        stringField('title', events.map((e) => e.title)),
        stringField('text', events.map((e) => e.text)),
        stringField('tags', events.map((e) => e.tags)),
      ],
      { name: 'interruptions', refId: ctx.query.refId },
    ),
  ];
}
