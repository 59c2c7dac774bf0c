// Times in requests: epoch ms (a number or a string of digits, as Grafana sends), RFC 3339, or
// `now`, `now-6h`, `now+1d` relative to the caller's clock. Every time is held to what a Date can
// represent (±8.64e15 ms, about ±275,000 years), so it can always be formatted and stepped through:
// past 2^53 ms, adding 1 to a time no longer changes it.

import { parseDuration } from './types.ts';
import { QueryError } from './selector.ts';

/** The latest (and, negated, the earliest) time a Date can hold: 8.64e15 ms, +275760-09-13T00:00:00Z. */
export const MAX_TIME_MS = 8_640_000_000_000_000;

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;
const FORMS = 'must be epoch milliseconds, an RFC 3339 time or now-<duration>';

function bounded(ms: number, field: string, shown: string): number {
  if (Math.abs(ms) > MAX_TIME_MS) {
    throw new QueryError(field, `${shown} is out of range: a time must lie within ±${MAX_TIME_MS} ms of 1970 (the range of a date, years −271821 to 275760)`);
  }
  return ms;
}

export function parseTimeParam(value: string | number, field: string, now: number): number {
  if (typeof value === 'number') {
    if (Number.isInteger(value) && value >= 0) return bounded(value, field, String(value));
    throw new QueryError(field, `${FORMS}, not ${value}`);
  }
  if (typeof value !== 'string') throw new QueryError(field, `${FORMS}, not ${JSON.stringify(value) ?? typeof value}`);
  const text = value.trim();
  if (/^\d+$/.test(text)) return bounded(Number(text), field, text.length > 40 ? `${text.slice(0, 40)}…` : text);
  if (RFC3339.test(text)) {
    const ms = Date.parse(text);
    if (Number.isFinite(ms)) return ms;
  }
  const relative = /^now(?:([+-])(.+))?$/.exec(text);
  if (relative) {
    if (relative[1] === undefined) return now;
    const ms = parseDuration(relative[2]!);
    if (ms !== null) return bounded(relative[1] === '-' ? now - ms : now + ms, field, `"${text}"`);
  }
  throw new QueryError(field, `${FORMS}, not "${text.length > 80 ? `${text.slice(0, 80)}…` : text}"`);
}
