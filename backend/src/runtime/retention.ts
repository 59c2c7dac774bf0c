// Retention: timelines that ended longer ago than the retention period are dropped.

import { closedAt, type Timeline } from '../timeline/types.ts';

export function expired(timelines: Iterable<Timeline>, now: number, retentionMs: number): string[] {
  const uids: string[] = [];
  for (const tl of timelines) {
    // Infinity (still open) is never before the cutoff.
    if (closedAt(tl) < now - retentionMs) uids.push(tl.uid);
  }
  return uids;
}
