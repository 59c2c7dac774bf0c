// jsonBytes writes the very bytes of Buffer.from(JSON.stringify(value), 'utf8'): over generated
// values (whatever JSON.stringify takes, its odd cases too) and over the answers of generated fleets.

import fc from 'fast-check';
import { timelines as arbTimelines, T0 } from '../../../test/support/arbitraries.ts';
import type { Timeline } from '../timeline/types.ts';
import { jsonBytes } from './json-bytes.ts';
import { runQueries } from '../frames/run-request.ts';

const stringified = (v: unknown): Buffer | undefined => {
  const text = JSON.stringify(v);
  return text === undefined ? undefined : Buffer.from(text, 'utf8');
};

/** Numbers JSON writes in every form: small and large whole ones (times), -0, fractions, NaN and ±Infinity (null). */
const arbNumber = fc.oneof(
  fc.integer(),
  fc.integer({ min: -(2 ** 53) + 1, max: 2 ** 53 - 1 }),
  fc.constantFrom(0, -0, 2 ** 31, -(2 ** 31), 2 ** 31 - 1, 2 ** 53 - 1, 2 ** 53, 1e21, 1.5e300, 5e-324, NaN, Infinity, -Infinity, T0, 1_767_830_400_000),
  fc.double(),
);

/** Strings that need no escape, and those that do: quotes, backslashes, control characters, beyond ASCII, lone surrogates. */
const arbString = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('', '"', '\\', '\u0000', '\u001f', '\u007f', 'é', '€', '\ud800', '\udc00x', '😀', 'team-a'));

const arbLeaf = fc.oneof(arbNumber, arbString, fc.boolean(), fc.constant(null), fc.constant(undefined), fc.constant(() => 1), fc.constant(Symbol('s')));

/** A column of times beginning with a large whole number, whatever follows it. */
const arbTimeColumn = fc.tuple(fc.integer({ min: 2 ** 31, max: 2 ** 53 - 1 }), fc.array(fc.oneof(arbNumber, fc.constant(null), arbString, fc.constant(undefined)))).map(([t, rest]) => [t, ...rest]);

const { value: arbValue } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    arbLeaf,
    arbTimeColumn,
    fc.array(tie('value'), { maxLength: 6 }),
    fc.dictionary(arbString, tie('value'), { maxKeys: 5 }),
    // Objects JSON.stringify writes its own way: toJSON (one that answers undefined too), a Date, a typed array, a Map, a null prototype.
    tie('value').map((v) => ({ toJSON: () => v })),
    fc.constantFrom(new Date(0), new Float64Array([1.5, 2 ** 40]), new Map([[1, 2]]), Object.assign(Object.create(null) as object, { a: 1, b: undefined })),
  ),
}));

describe('jsonBytes', () => {
  it('writes the bytes of JSON.stringify of any value, or undefined where it answers undefined', () => {
    fc.assert(
      fc.property(arbValue, (v) => {
        const ours = jsonBytes(v, 16);
        const theirs = stringified(v);
        if (theirs === undefined) expect(ours).toBeUndefined();
        else expect(ours!.equals(theirs) ? 'equal' : [ours!.toString('utf8'), theirs.toString('utf8')]).toBe('equal');
      }),
      { numRuns: 3000 },
    );
  });

  it('writes a column of times digit by digit, as JSON.stringify does, nulls and fractions among them', () => {
    const times = [1_767_225_600_000, -1_767_225_600_000, 2 ** 31, 2 ** 53 - 1, null, 1_767_225_600_000.5, -0, 0, 7, -1, -10, undefined, 'x'];
    expect(jsonBytes({ values: [times] })!.toString('utf8')).toBe(JSON.stringify({ values: [times] }));
    expect(jsonBytes({ values: [times] })!.toString('utf8')).toBe('{"values":[[1767225600000,-1767225600000,2147483648,9007199254740991,null,1767225600000.5,0,0,7,-1,-10,null,"x"]]}');
  });

  it('refuses what JSON.stringify refuses (a BigInt, a cycle) with its TypeError', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => jsonBytes({ a: [1n] })).toThrow(TypeError);
    expect(() => jsonBytes(cycle)).toThrow(TypeError);
  });

  it("writes the answers of generated fleets as JSON.stringify does (series, tables, states, events, slo)", () => {
    const arbFleet = fc.array(fc.tuple(arbTimelines(8), fc.constantFrom('a', 'b')), { minLength: 1, maxLength: 6 }).map((list) =>
      list.map(([tl, namespace], i): Timeline => ({ ...tl, uid: `u${i}`, name: `js${i % 3}`, namespace })),
    );
    const queries = [
      { refId: 'S', queryType: 'series', metric: 'uptimeRatio', groupBy: 'none', window: 'step' },
      { refId: 'P', queryType: 'series', metric: 'interruptions', groupBy: 'namespace', aggregate: 'sum', window: 'rolling', rolling: '2h' },
      { refId: 'T', queryType: 'summary' },
      { refId: 'X', queryType: 'states' },
      { refId: 'E', queryType: 'events' },
      { refId: 'O', queryType: 'slo', sloAnswer: 'errorBudget', period: '6h', format: 'table' },
      { refId: 'B', queryType: 'slo', sloAnswer: 'burnRate', period: '6h', window: 'step' },
      { refId: 'Q', queryType: 'bogus' },
    ];
    fc.assert(
      fc.property(arbFleet, (fleet) => {
        const { results } = runQueries({ from: String(T0 + 3_600_000), to: String(T0 + 8 * 3_600_000), queries: queries.map((q) => ({ ...q, intervalMs: 1_800_000 })) }, { timelines: fleet, horizon: T0 + 16 * 3_600_000, retentionMs: 30 * 86_400_000 }, T0 + 16 * 3_600_000);
        expect(results.S!.status).toBe(200);
        expect(jsonBytes({ results })!.equals(stringified({ results })!)).toBe(true);
      }),
      { numRuns: 100 },
    );
  });
});
