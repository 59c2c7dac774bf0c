// Retention: timelines that ended longer ago than the retention period are dropped.

import { TERMINAL_STATES, type Timeline } from '../timeline/types.ts';

export function expired(timelines: Iterable<Timeline>, now: number, retentionMs: number): string[] {
  const uids: string[] = [];
  for (const tl of timelines) {
    const last = tl.transitions[tl.transitions.length - 1]!;
    if (TERMINAL_STATES.has(last.state) && last.at < now - retentionMs) uids.push(tl.uid);
  }
  return uids;
}
