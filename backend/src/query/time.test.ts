// Times in requests: every form parsed, and every time held to what a Date can hold.

import fc from 'fast-check';
import { QueryError } from './selector.ts';
import { MAX_TIME_MS, parseTimeParam } from './time.ts';

const NOW = Date.UTC(2026, 0, 1);
const DAY = 86_400_000;

describe('parseTimeParam', () => {
  it.each([
    ['1767225600000', Date.UTC(2026, 0, 1)],
    [1767225600000, Date.UTC(2026, 0, 1)],
    ['2026-01-01T00:00:00Z', Date.UTC(2026, 0, 1)],
    ['2026-01-01T01:00:00+01:00', Date.UTC(2026, 0, 1)],
    // 1,970 years of 365 days and 478 leap days before 1970.
    ['0000-01-01T00:00:00Z', -(1970 * 365 + 478) * DAY],
    ['now', NOW],
    ['now-24h', NOW - DAY],
    ['now+1d', NOW + DAY],
    // The very edge of a Date: accepted, and it formats.
    [String(MAX_TIME_MS), MAX_TIME_MS],
    [MAX_TIME_MS, MAX_TIME_MS],
  ])('%j is %d', (value, expected) => {
    expect(parseTimeParam(value, 'from', NOW)).toBe(expected);
  });

  //   −8.64e15 ─────────── 0 (1970) ─────────── now ─────────── +8.64e15
  //      └── what a Date can hold; one ms beyond either end is refused ──┘
  it.each([
    ['8640000000000001', '8640000000000001 is out of range'],
    ['9999999999999999', '9999999999999999 is out of range'],
    // As a JSON number it is already 1e16: past 2^53 not every integer exists.
    [Number('9999999999999999'), '10000000000000000 is out of range'],
    [1e300, '1e+300 is out of range'],
    ['9'.repeat(60), `${'9'.repeat(40)}… is out of range`],
    // now ± a duration the duration parser accepts (a safe integer of ms) but no Date can hold.
    // (8.64e15 ms is 14,285,714 weeks and 2 days.)
    ['now+14285715w', '"now+14285715w" is out of range'],
    ['now-14300000w', '"now-14300000w" is out of range'],
  ])('%j is refused, naming the field and the limit', (value, message) => {
    expect(() => parseTimeParam(value as string | number, 'to', NOW)).toThrow(QueryError);
    expect(() => parseTimeParam(value as string | number, 'to', NOW)).toThrow(`to: ${message}`);
    expect(() => parseTimeParam(value as string | number, 'to', NOW)).toThrow(`±${MAX_TIME_MS} ms`);
  });

  it.each([[-1], [1.5], ['yesterday'], ['now-'], ['now-1y'], ['-5'], [''], ['2026-13-45T99:99:99Z']])('%j is not a time', (value) => {
    expect(() => parseTimeParam(value as string | number, 'from', NOW)).toThrow(/^from: must be epoch milliseconds, an RFC 3339 time or now-<duration>, not /);
  });

  it('whatever it is given, it answers a time a Date can format, or a QueryError naming the field', () => {
    const digits = fc.stringMatching(/^\d{1,20}$/);
    const relative = fc.tuple(fc.constantFrom('now-', 'now+'), fc.bigInt({ min: 0n, max: 10n ** 17n }), fc.constantFrom('ms', 's', 'm', 'h', 'd', 'w')).map(([p, n, u]) => `${p}${n}${u}`);
    const anything = fc.oneof(digits, relative, fc.double(), fc.integer(), fc.string(), fc.maxSafeNat(), fc.anything());
    fc.assert(
      fc.property(anything, (value) => {
        let ms: number;
        try {
          ms = parseTimeParam(value as string | number, 'from', NOW);
        } catch (error) {
          expect(error).toBeInstanceOf(QueryError);
          expect((error as QueryError).field).toBe('from');
          return;
        }
        expect(Number.isFinite(ms)).toBe(true);
        expect(() => new Date(ms).toISOString()).not.toThrow();
        // Past 2^53 a step of 1 ms would not advance: every accepted time is well below.
        expect(ms + 1).not.toBe(ms);
      }),
      { numRuns: 3000 },
    );
  });
});
