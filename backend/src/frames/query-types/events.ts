// `events`: interruptions as annotation regions, from the interruption to the end of the down
// period it began (a recovery, a failure, a suspension…) or the end of the range; and suspensions,
// from the transition into `suspended` to its end (a resume, a deletion…) or the end of the range,
// with why (the Suspended condition's reason and message, or Kueue's Workload's where it told a
// specific one: timeline/workload.ts).

import { transitionAt, transitionCount, transitionState, transitionTime, type Cause, type Suspension, type Timeline } from '../../timeline/types.ts';
import type { QueryContext } from '../context.ts';
import { frame, numberField, stringField, timeField, type FrameJSON } from '../frame.ts';
import { CAUSE_CATEGORIES, interruptionCategory, type CauseCategory } from '../../nodes/causes.ts';
import { timelineEvents } from '../../series/events.ts';
import { startedAt } from '../../series/totals.ts';
import { humanDuration } from '../text.ts';
import { perJobSet, rangeStart, type QueryTypeModule } from './module.ts';

interface Event {
  time: number;
  timeEnd: number;
  kind: 'interruption' | 'suspension';
  title: string;
  text: string;
  tags: string;
  reason: string | null;
  message: string | null;
}

/** A cause in a few words: "NodeNotReady node-7", "PodFailed train-0 (OOMKilled, exit 137)". */
export function describeCause(c: Cause): string {
  const who = c.node ?? c.pod ?? '';
  const details = [c.reason, c.exitCode !== undefined ? `exit ${c.exitCode}` : undefined].filter((d) => d !== undefined && d !== '');
  return [c.kind, who, details.length > 0 ? `(${details.join(', ')})` : ''].filter((p) => p !== '').join(' ');
}

function interruptions(tl: Timeline, from: number, to: number, horizon: number): Event[] {
  const events: Event[] = [];
  const n = transitionCount(tl);
  for (const { kind, index: i, at, transition } of timelineEvents(tl)) {
    if (kind !== 'interruption' || at <= from || at > to) continue;
    const state = transition.state;
    const j = state === 'failed' ? i : i + 1;
    const end = j < n ? { at: transitionTime(tl, j), state: transitionState(tl, j) } : undefined;
    const timeEnd = end === undefined ? Math.min(to, horizon) : Math.min(end.at, to);
    let text: string;
    if (state === 'failed') text = 'Failed while up.';
    else if (end === undefined) text = `Down for ${humanDuration((timeEnd - at) / 1000)} so far.`;
    else if (end.state === 'up') text = end.at === at ? 'Restarted faster than the watch could see it go down (0 s).' : `Down for ${humanDuration((end.at - at) / 1000)}, then recovered.`;
    else text = `Down for ${humanDuration((end.at - at) / 1000)}, then ${end.state}.`;
    if (transition.causes !== undefined && transition.causes.length > 0) text += ` Causes: ${transition.causes.map(describeCause).join('; ')}.`;
    events.push({
      time: at,
      timeEnd,
      kind: 'interruption',
      title: `Interruption: ${tl.namespace}/${tl.name}`,
      text,
      tags: ['interruption', tl.namespace, tl.name].join(','),
      reason: null,
      message: null,
    });
  }
  return events;
}

/** Why, in words: "Reason: Preempted (Preempted to accommodate a higher priority Workload)." */
export function describeSuspension(s: Suspension | undefined): string {
  if (s === undefined) return 'Reason: not reported.';
  if (s.reason === null) return `Reason: not reported (${s.message}).`;
  return s.message === null ? `Reason: ${s.reason}.` : `Reason: ${s.reason} (${s.message}).`;
}

/** Each transition into `suspended` inside (from, to], until the state after it (or the end of what is known). */
function suspensions(tl: Timeline, from: number, to: number, horizon: number): Event[] {
  const events: Event[] = [];
  const n = transitionCount(tl);
  // Queued as queuedSeconds counts it: suspended before the first start.
  const start = startedAt(tl);
  for (let i = 0; i < n; i++) {
    if (transitionState(tl, i) !== 'suspended') continue;
    const t = transitionAt(tl, i);
    if (t.at <= from || t.at > to) continue;
    const end = i + 1 < n ? { at: transitionTime(tl, i + 1), state: transitionState(tl, i + 1) } : undefined;
    const timeEnd = end === undefined ? Math.max(t.at, Math.min(to, horizon)) : Math.min(end.at, to);
    const queued = start === null || t.at < start;
    const how = end === undefined ? `Suspended for ${humanDuration((timeEnd - t.at) / 1000)} so far` : `Suspended for ${humanDuration((end.at - t.at) / 1000)}, then ${end.state}`;
    events.push({
      time: t.at,
      timeEnd,
      kind: 'suspension',
      title: `${queued ? 'Queued' : 'Suspended'}: ${tl.namespace}/${tl.name}`,
      text: `${how}. ${describeSuspension(t.suspension)}`,
      tags: ['suspension', tl.namespace, tl.name, ...(t.suspension?.reason ? [t.suspension.reason] : [])].join(','),
      reason: t.suspension?.reason ?? null,
      message: t.suspension?.message ?? null,
    });
  }
  return events;
}

/** The suspensions that began in the range (from < t ≤ to), counted by reason (Kueue's, e.g. Preempted, where its Workload told it), most first. */
function suspensionReasonFrame(ctx: QueryContext): FrameJSON {
  const counts = new Map<string, number>();
  for (const tl of ctx.timelines) {
    for (let i = 0; i < transitionCount(tl); i++) {
      if (transitionState(tl, i) !== 'suspended') continue;
      const t = transitionAt(tl, i);
      if (t.at <= ctx.from || t.at > ctx.to) continue;
      const reason = t.suspension?.reason ?? 'not reported';
      counts.set(reason, (counts.get(reason) ?? 0) + 1);
    }
  }
  const rows = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return frame([stringField('reason', rows.map((r) => r[0])), numberField('suspensions', rows.map((r) => r[1]), { unit: 'none' })], {
    name: 'suspensions by reason',
    refId: ctx.query.refId,
  });
}

/**
 * `groupBy: cause`: the interruptions seen in the range, counted by cause category, every category a
 * row; and a second frame, the suspensions that began in the range counted by reason.
 */
function causeFrames(ctx: QueryContext): FrameJSON[] {
  const counts = new Map<CauseCategory, number>(CAUSE_CATEGORIES.map((c) => [c, 0]));
  for (const tl of ctx.timelines) {
    for (const { kind, at, transition } of timelineEvents(tl)) {
      if (kind !== 'interruption' || at <= ctx.from || at > ctx.to) continue;
      const category = interruptionCategory(transition.causes);
      counts.set(category, counts.get(category)! + 1);
    }
  }
  return [
    frame([stringField('cause', [...CAUSE_CATEGORIES]), numberField('interruptions', CAUSE_CATEGORIES.map((c) => counts.get(c)!), { unit: 'none' })], {
      name: 'interruptions by cause',
      refId: ctx.query.refId,
    }),
    suspensionReasonFrame(ctx),
  ];
}

export function eventsFrames(ctx: QueryContext): FrameJSON[] {
  if (ctx.query.groupBy === 'cause') return causeFrames(ctx);
  const events = ctx.timelines
    .flatMap((tl) => [...interruptions(tl, ctx.from, ctx.to, ctx.horizon), ...suspensions(tl, ctx.from, ctx.to, ctx.horizon)])
    .sort((a, b) => a.time - b.time);
  return [
    frame(
      [
        timeField('time', events.map((e) => e.time)),
        timeField('timeEnd', events.map((e) => e.timeEnd), { nullable: true }),
        stringField('title', events.map((e) => e.title)),
        stringField('text', events.map((e) => e.text)),
        stringField('tags', events.map((e) => e.tags)),
        stringField('kind', events.map((e) => e.kind)),
        stringField('reason', events.map((e) => e.reason)),
        stringField('message', events.map((e) => e.message)),
      ],
      { name: 'events', refId: ctx.query.refId },
    ),
  ];
}

export const eventsType: QueryTypeModule = {
  queryType: 'events',
  fields: {},
  selectFrom: rangeStart,
  // The one type that answers `groupBy: cause`.
  validate: () => {},
  cost: perJobSet,
  frames: eventsFrames,
};
