// How bench:dashboards times a panel's request against its peer, and how it judges the two: pure,
// so that its tests need no service.
//
// A panel of a few milliseconds timed five times is judged by what a garbage collection or another
// process does to one or two of those runs. So the pairs (the panel, then its peer) go on until the
// timed runs of both sides add up to a time budget, between a least and a most number of pairs:
// with the defaults (5, 60, 600 ms) a panel and peer of 20 ms or less get at least 15 pairs, a pair
// of 120 ms or more the 5 it always had. (Not until the smaller side alone has spent its half: a
// panel of 6 ms against a peer of 300 ms, far from 2×, would then cost 15 s of the peer's runs.)
// Each side keeps its median and its least.

import { stats } from './prometheus/proc.ts';

export interface RunPlan {
  /** Pairs timed whatever their time. */
  leastPairs: number;
  /** Pairs timed at most, however small the panel. */
  mostPairs: number;
  /** Both sides' timed runs add up to at least this, ms, before the pairs stop (within the two counts). */
  budgetMs: number;
}

/** Whether another pair is to be timed after the runs of the panel (`mine`) and of its peer so far. */
export function wantsAnotherPair(plan: RunPlan, mine: readonly number[], peer: readonly number[]): boolean {
  const pairs = Math.min(mine.length, peer.length);
  if (pairs < plan.leastPairs) return true;
  if (pairs >= plan.mostPairs) return false;
  return sum(mine) + sum(peer) < plan.budgetMs;
}

/** A panel's timed runs against its peer's. */
export interface Judged {
  pairs: number;
  medianMs: number;
  leastMs: number;
  peerMedianMs: number;
  peerLeastMs: number;
  /** The panel's median over twice its peer's: the judgement. */
  overTwiceByMedian: boolean;
  /** The panel's least over twice its peer's: what the machine did to neither. */
  overTwiceByLeast: boolean;
}

export function judge(mine: readonly number[], peer: readonly number[]): Judged {
  if (mine.length === 0 || mine.length !== peer.length) throw new Error(`a panel is judged on pairs of runs, not ${mine.length} runs against ${peer.length}`);
  const own = stats(mine);
  const other = stats(peer);
  return {
    pairs: mine.length,
    medianMs: own.median,
    leastMs: own.min,
    peerMedianMs: other.median,
    peerLeastMs: other.min,
    overTwiceByMedian: own.median > 2 * other.median,
    overTwiceByLeast: own.min > 2 * other.min,
  };
}

function sum(values: readonly number[]): number {
  let total = 0;
  for (const v of values) total += v;
  return total;
}

/** How far before a kept fleet's horizon the requests' ranges end, at most. */
export const BEHIND_HORIZON_MS = 3_600_000;

/**
 * The "now" each request is asked at, for a fleet whose history ends at `horizonMs`, long before
 * the wall clock (a data dir, a replayed trace): a range ending at the wall clock would hold no
 * data, and every panel would answer empty frames. So the asks end up to an hour before the
 * horizon and move on with the wall clock from `startedMs` (each refresh asks of a later moment,
 * so no answer is the one before), back by an hour each time they reach the horizon.
 */
export function keptFleetClock(horizonMs: number, startedMs: number): (wallMs: number) => number {
  return (wallMs) => horizonMs - BEHIND_HORIZON_MS + ((((wallMs - startedMs) % BEHIND_HORIZON_MS) + BEHIND_HORIZON_MS) % BEHIND_HORIZON_MS);
}
