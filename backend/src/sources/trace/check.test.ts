// The hand checks of trace lines (check.ts) against parse.ts's schema (zod): they accept exactly the
// same lines, with the same observation, and a line they refuse gets the schema's error.

import fc from 'fast-check';
import { z } from 'zod';
import { checkedObservation, isRfc3339Time } from './check.ts';
import { parseTraceLine, refusalOf, schemaAccepts } from './parse.ts';

const zodTime = z.iso.datetime({ offset: true });

const two = (lo: number, hi: number): fc.Arbitrary<string> => fc.integer({ min: lo, max: hi }).map((n) => String(n).padStart(2, '0'));
/** Times near and past every edge of the format: days past a month's end, 29 February of leap and common years, hours 24, offsets. */
const timeText = fc
  .tuple(
    fc.oneof(fc.constantFrom('2024', '2023', '1900', '2000', '2100', '2400', '0000', '0004', '9996', '1600', '1700'), fc.integer({ min: 0, max: 9999 }).map((y) => String(y).padStart(4, '0'))),
    two(0, 13),
    two(0, 32),
    fc.constantFrom('T', 't', ' ', 'TT'),
    two(0, 25),
    two(0, 61),
    fc.oneof(two(0, 61), fc.constant('')),
    fc.constantFrom('', '.5', '.123456789', '.', '.0000000000001', ',5'),
    fc.constantFrom('Z', 'z', '', '+01:00', '-23:59', '+24:00', '+23:60', '+0100', '+01', '-00:00', 'Z ', '\n'),
  )
  .map(([y, mo, d, t, h, mi, s, f, off]) => `${y}-${mo}-${d}${t}${h}:${mi}${s === '' ? '' : `:${s}`}${f}${off}`);
/** A good time with one character changed, removed or added. */
const mutatedTime = fc
  .tuple(fc.constantFrom('2026-01-01T00:00:00Z', '2024-02-29T23:59:59.999+05:30', '2026-12-31T12:00:00.5-08:00'), fc.nat(40), fc.constantFrom('', '0', '9', '-', ':', 'T', 'Z', '+', '.', ' ', 'x', '٣', '\u0000'), fc.constantFrom('replace', 'insert'))
  .map(([t, at, c, how]) => {
    const i = at % (t.length + 1);
    return how === 'insert' ? t.slice(0, i) + c + t.slice(i) : t.slice(0, i) + c + t.slice(i + 1);
  });

describe('the checks of a trace line', () => {
  it('read a time as the schema does', () => {
    fc.assert(
      fc.property(fc.oneof(timeText, mutatedTime, fc.string()), (text) => {
        expect(isRfc3339Time(text)).toBe(zodTime.safeParse(text).success);
      }),
      { numRuns: 20_000 },
    );
    for (const [text, ok] of [
      ['2024-02-29T00:00:00Z', true],
      ['2023-02-29T00:00:00Z', false],
      ['1900-02-29T00:00:00Z', false],
      ['2000-02-29T00:00:00Z', true],
      ['2026-04-31T00:00:00Z', false],
      ['2026-01-01T00:00Z', false],
      ['2026-01-01T00:00:00.123456789+23:59', true],
    ] as const) {
      expect([text, isRfc3339Time(text)]).toEqual([text, ok]);
      expect(zodTime.safeParse(text).success).toBe(ok);
    }
  });

  /** Any value, and the values near what a line must hold, for each field the checks read. */
  const anything = fc.oneof(fc.constant(undefined), fc.constant(null), fc.string(), fc.integer(), fc.boolean(), fc.constant([]), fc.constant({}), fc.constant(['x']));
  const field = <T>(good: fc.Arbitrary<T>): fc.Arbitrary<unknown> => fc.oneof({ weight: 4, arbitrary: good }, { weight: 1, arbitrary: anything });
  const metadata = fc.record(
    { uid: field(fc.constantFrom('u-1', '', 'x')), name: field(fc.constantFrom('n', '')), namespace: field(fc.constantFrom('ns', '')), labels: field(fc.constant({ a: 'b' })) },
    { requiredKeys: [] },
  );
  const object = fc.record(
    { kind: field(fc.constantFrom('JobSet', 'Pod', '')), apiVersion: field(fc.constantFrom('jobset.x-k8s.io/v1alpha2', 'v1')), metadata: field(metadata), spec: anything },
    { requiredKeys: [] },
  );
  const line = fc.record(
    { time: field(fc.oneof(timeText, fc.constant('2026-01-01T00:00:00Z'))), type: field(fc.constantFrom('ADDED', 'MODIFIED', 'DELETED', 'UPDATED', 'added', '')), object: field(object), extra: anything },
    { requiredKeys: [] },
  );
  const parsedLine = fc.oneof({ weight: 10, arbitrary: line }, { weight: 1, arbitrary: anything });

  it('accept exactly the lines the schema and the type check accept, with the same observation', () => {
    let accepted = 0;
    fc.assert(
      fc.property(parsedLine, (value) => {
        const text = JSON.stringify(value) ?? 'null';
        const json: unknown = JSON.parse(text);
        const checked = checkedObservation(json);
        expect(checked !== null).toBe(schemaAccepts(json));
        if (checked === null) {
          // Refused: the schema names what is wrong, as parseTraceLine reports it.
          expect(() => parseTraceLine(text, 3)).toThrow(`line 3: ${refusalOf(text)}`);
          return;
        }
        accepted++;
        const { time, type, object: o } = json as { time: string; type: string; object: unknown };
        expect(checked).toStrictEqual({ receivedAt: Date.parse(time), type, object: o });
        expect(parseTraceLine(text, 3)).toStrictEqual(checked);
      }),
      { numRuns: 20_000 },
    );
    expect(accepted).toBeGreaterThan(100);
  });
});
