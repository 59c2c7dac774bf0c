// The model of an `slo` query (issue 13 section 1): its period and windows, checked against each
// other and against the retention, each refusal naming its field.

import type { SloWindows } from '../series/slo.ts';
import { QueryError } from './selector.ts';
import { LIMITS } from './step.ts';
import { parseDuration } from './types.ts';

/** The least compliance period: shorter ones hold too little time for a budget to mean anything. */
export const LEAST_PERIOD = '1h';
const LEAST_PERIOD_MS = parseDuration(LEAST_PERIOD)!;

export interface SloQueryFields {
  period: string;
  burnWindow: string;
  shortWindow: string;
}

/** The windows of an `slo` query; QueryError naming the field when one is out of bounds. `retentionMs`: how long the service keeps history. */
export function sloWindows(query: SloQueryFields, retentionMs: number | null): SloWindows {
  const periodMs = parseDuration(query.period)!;
  const burnWindowMs = parseDuration(query.burnWindow)!;
  const shortWindowMs = parseDuration(query.shortWindow)!;
  const keeps = Math.min(retentionMs ?? Infinity, LIMITS.maxRangeMs);
  if (periodMs < LEAST_PERIOD_MS) throw new QueryError('period', `${query.period} is shorter than the least period of ${LEAST_PERIOD}`);
  if (periodMs > keeps) {
    throw new QueryError('period', `${query.period} is longer than the ${keeps / 86_400_000} days of history the service keeps (--retention), so part of every period would be missing`);
  }
  if (burnWindowMs > periodMs) throw new QueryError('burnWindow', `${query.burnWindow} is longer than the period (${query.period})`);
  if (shortWindowMs > burnWindowMs) throw new QueryError('shortWindow', `${query.shortWindow} is longer than the burn window (${query.burnWindow})`);
  return { periodMs, burnWindowMs, shortWindowMs };
}
