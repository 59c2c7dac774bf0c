// A kept check is the check zod would make (checked-queries.ts): over generated sequences of queries
// parsed from JSON text (many sent again with another range, as a dashboard's refreshes send them;
// good and bad fields, unknown keys, `__proto__` at the top and inside, -0 beside 0), each query's
// result is zod's: success, every value (Object.is) and every key in order, or the same first issue.

import fc from 'fast-check';
import { describeZodError } from '../query/model.ts';
import { checkQuery, forgetCheckedQueries, KEPT_QUERIES_MAX, sameJson } from './checked-queries.ts';
import { querySchema } from './query-types/index.ts';

/** A value's keys in order, all the way down, and its numbers by Object.is: what toStrictEqual leaves out (key order). */
function shape(v: unknown): unknown {
  if (typeof v === 'number') return Object.is(v, -0) ? '-0' : v;
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) return v.map(shape);
  return Object.keys(v).map((k) => [k, shape((v as Record<string, unknown>)[k])]);
}

/** JSON texts of a field's values, good and bad. */
const values: Record<string, string[]> = {
  refId: ['"A"', '"S"', '""', '1', '"é\\"x"'],
  queryType: ['"states"', '"summary"', '"series"', '"slo"', '"nope"', 'null'],
  namespaces: ['["ns0"]', '[]', '["a","b"]', '[1]', '"ns0"'],
  name: ['"js0"', '"*"', '"train-*"', '"/^a/"', '"/(/"', '7'],
  figures: ['[]', '["uptimeRatio"]', '["nope"]', '["uptimeRatio","interruptions"]'],
  intervalMs: ['3600000', '0', '-0', '-5', '1e300', '0.5'],
  maxDataPoints: ['168', '0', '-0', '1.5', '11000'],
  objective: ['0.95', '0', '-0', '1', '2'],
  datasource: ['{"type":"upness","uid":"u"}', '{"__proto__":{"x":1},"uid":"u"}', '{"uid":-0}', '{"uid":0}', 'null'],
  __proto__: ['{"a":1}', '1', 'null'],
  constructor: ['"x"', '{}'],
  hide: ['false', 'true'],
};
const keys = Object.keys(values);
const ranges = ['{"from":"1700000000000","to":"1700003600000"}', '{"from":"now-7d","to":"now"}', '{"from":1,"to":2}', '{"from":"1"}', '[]', '{"from":"x","to":"now","extra":-0}'];

/** A query's JSON text without its range: its fields in a generated order, each value one of its field's texts. */
const arbRest = fc.uniqueArray(fc.tuple(fc.constantFrom(...keys), fc.nat()), { selector: ([k]) => k, maxLength: 8 }).map((fields) => fields.map(([k, i]) => `${JSON.stringify(k)}:${values[k]![i % values[k]!.length]}`));

/** A query sent: one of a few rests (so that they come again), with a range or none, the range's place among the fields. */
const arbSequence = fc.tuple(
  fc.array(arbRest, { minLength: 1, maxLength: 4 }),
  fc.array(fc.tuple(fc.nat(), fc.option(fc.constantFrom(...ranges), { nil: undefined }), fc.nat()), { minLength: 1, maxLength: 12 }),
);

function queryText(rest: string[], range: string | undefined, at: number): string {
  const fields = rest.slice();
  if (range !== undefined) fields.splice(at % (fields.length + 1), 0, `"timeRange":${range}`);
  return `{${fields.join(',')}}`;
}

describe('checkQuery', () => {
  beforeEach(() => forgetCheckedQueries());

  it("answers as zod's check of the same query, kept or not", () => {
    fc.assert(
      fc.property(arbSequence, ([rests, sent]) => {
        forgetCheckedQueries();
        for (const [which, range, at] of sent) {
          const text = queryText(rests[which % rests.length]!, range, at);
          const raw = JSON.parse(text) as unknown;
          const expected = querySchema.safeParse(JSON.parse(text));
          const got = checkQuery(raw, true);
          expect(got.success).toBe(expected.success);
          if (expected.success && got.success) {
            // (Not toStrictEqual: it compares two objects' own `constructor` keys, sent as JSON, by identity.)
            expect(got.data).toEqual(expected.data);
            expect(shape(got.data)).toEqual(shape(expected.data));
          } else if (!expected.success && !got.success) {
            expect(describeZodError(got.error, 'queries[0]')).toBe(describeZodError(expected.error, 'queries[0]'));
          }
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps a query checked once, and gives it again with another range', () => {
    const raw = (range: string): unknown => JSON.parse(`{"refId":"A","queryType":"states","name":"js0","timeRange":${range}}`);
    const first = checkQuery(raw('{"from":"1","to":"2"}'), true);
    const second = checkQuery(raw('{"from":"3","to":"4"}'), true);
    expect(first.success && second.success).toBe(true);
    // The same kept arrays (frozen, shared), the range each request's own.
    expect(second.data!.namespaces).toBe(first.data!.namespaces);
    expect(Object.isFrozen(second.data!.namespaces)).toBe(true);
    expect(second.data!.timeRange).toEqual({ from: '3', to: '4' });
  });

  it('keeps nothing for a body not parsed from JSON text, nor for a query that fails', () => {
    const q = { refId: 'A', name: 'js0' };
    expect(checkQuery(q, false).data).not.toBe(checkQuery(q, false).data);
    const bad = { refId: '', name: 'js0' };
    expect(checkQuery(bad, true).success).toBe(false);
    expect(checkQuery(bad, true).success).toBe(false);
  });

  it('does not take the check of a query of the same text that differs (-0 and 0)', () => {
    checkQuery(JSON.parse('{"refId":"A","datasource":{"uid":0}}'), true);
    const negative = checkQuery(JSON.parse('{"refId":"A","datasource":{"uid":-0}}'), true);
    expect(Object.is((negative.data as unknown as { datasource: { uid: number } }).datasource.uid, -0)).toBe(true);
  });

  it('tells -0 from 0, and a value of another kind from JSON', () => {
    expect(sameJson(JSON.parse('{"a":[0]}'), JSON.parse('{"a":[-0]}'))).toBe(false);
    expect(sameJson({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(false);
    expect(sameJson({ a: new Date(0) }, { a: new Date(0) })).toBe(false);
    // A hole (no JSON array has one) is not undefined.
    const holed = [1, 2, 3];
    delete holed[1];
    expect(sameJson({ a: holed }, { a: [1, undefined, 3] })).toBe(false);
    expect(sameJson(JSON.parse('{"__proto__":{"x":1}}'), JSON.parse('{"__proto__":{"x":1}}'))).toBe(true);
  });

  it('is bounded', () => {
    for (let i = 0; i <= KEPT_QUERIES_MAX; i++) checkQuery({ refId: `q${i}` }, true);
    const again = checkQuery({ refId: 'q0' }, true);
    expect(again.success).toBe(true);
  });
});
