// Times in requests: epoch ms (a number or a string of digits, as Grafana sends), RFC 3339, or
// `now`, `now-6h`, `now+1d` relative to the caller's clock.

import { parseDuration } from './types.ts';
import { QueryError } from './selector.ts';

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

export function parseTimeParam(value: string | number, field: string, now: number): number {
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value) && value >= 0) return value;
    throw new QueryError(field, `must be epoch milliseconds, an RFC 3339 time or now-<duration>, not ${value}`);
  }
  const text = value.trim();
  if (/^\d{1,16}$/.test(text)) return Number(text);
  if (RFC3339.test(text)) {
    const ms = Date.parse(text);
    if (Number.isFinite(ms)) return ms;
  }
  const relative = /^now(?:([+-])(.+))?$/.exec(text);
  if (relative) {
    if (relative[1] === undefined) return now;
    const ms = parseDuration(relative[2]!);
    if (ms !== null) return relative[1] === '-' ? now - ms : now + ms;
  }
  throw new QueryError(field, `must be epoch milliseconds, an RFC 3339 time or now-<duration>, not "${text}"`);
}
