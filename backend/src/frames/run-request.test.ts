// resolvedQuery (a query with its defaults) against what the runner made before: DEFAULT_QUERY,
// then the query's fields copied into an object without prototype, leaving out the undefined ones,
// then its refId, all spread into one object. Over generated queries: any key (a default's or not,
// `__proto__` and `constructor` too), any value, undefined among them.

import fc from 'fast-check';
import { DEFAULT_QUERY } from '../query/types.ts';
import { resolvedQuery } from './run-request.ts';

/** The runner's way before: a copy without the undefined fields, then spread over the defaults. */
function naive(q: { refId: string }): Record<string, unknown> {
  const given: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(q)) {
    const v = (q as Record<string, unknown>)[key];
    if (v !== undefined) given[key] = v;
  }
  return { ...DEFAULT_QUERY, ...given, refId: q.refId };
}

const KEYS = [...Object.keys(DEFAULT_QUERY), 'refId', 'sort', 'limit', 'datasource', 'intervalMs', '__proto__', 'constructor', 'toString', 'hasOwnProperty'];

describe('resolvedQuery', () => {
  it('is the defaults, then the fields given but undefined ones, then the refId: the same keys in the same order, the same values', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.oneof(fc.constantFrom(...KEYS), fc.string()), fc.oneof(fc.constant(undefined), fc.anything())), { maxLength: 12 }),
        fc.string(),
        (entries, refId) => {
          // As JSON.parse and a loose schema make it: each key an own field, `__proto__` too.
          const q = Object.fromEntries([['refId', refId], ...entries.filter(([key]) => key !== 'refId')]) as { refId: string };
          const made = resolvedQuery(q) as unknown as Record<string, unknown>;
          const before = naive(q);
          expect(Object.getPrototypeOf(made)).toBe(Object.prototype);
          expect(Reflect.ownKeys(made)).toEqual(Reflect.ownKeys(before));
          for (const key of Reflect.ownKeys(before) as string[]) expect(Object.is(made[key], before[key])).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('a query of defaults alone, and one with `__proto__` given: its own field, not the prototype', () => {
    expect(resolvedQuery({ refId: 'A' })).toEqual({ ...DEFAULT_QUERY, refId: 'A' });
    const odd = resolvedQuery(JSON.parse('{"refId": "B", "__proto__": {"polluted": true}, "metric": "interruptions", "name": null}'));
    expect(Object.getPrototypeOf(odd)).toBe(Object.prototype);
    expect(Object.hasOwn(odd, '__proto__')).toBe(true);
    expect((odd as unknown as { polluted?: boolean }).polluted).toBeUndefined();
    expect(odd.metric).toBe('interruptions');
    expect(odd.name).toBeNull();
  });
});
