// json-text.ts writes exactly what JSON.stringify writes: numbers of every kind (epoch-ms times,
// whole numbers around its split at 1e8 and at 2^53, fractions, -0, what is not finite), strings,
// nulls, and columns of them; and again when its kept texts are warm.

import fc from 'fast-check';
import { numbersText, numberText, stringsText, stringText } from './json-text.ts';

/** Numbers where a formatter goes wrong: around the split at 1e8, its multiples, 2^53, and any double. */
const arbNumber = fc.oneof(
  fc.double(),
  fc.integer({ min: -2_000_000_000, max: 2_000_000_000 }),
  fc.integer({ min: 1_700_000_000_000, max: 1_900_000_000_000 }),
  fc.tuple(fc.integer({ min: 1, max: 90_071_992 }), fc.integer({ min: -3, max: 3 })).map(([k, d]) => k * 1e8 + d),
  fc.integer({ min: -3, max: 3 }).map((d) => 2 ** 53 + d),
  fc.integer({ min: -3, max: 3 }).map((d) => 1e8 + d),
  fc.maxSafeInteger(),
  fc.constantFrom(0, -0, NaN, Infinity, -Infinity, 1e21, 1e-7, 5e-324, Number.MAX_VALUE, 0.1 + 0.2),
);

describe('json-text', () => {
  it('writes a number as JSON.stringify does, cold or warm', () => {
    fc.assert(
      fc.property(arbNumber, (v) => {
        expect(numberText(v)).toBe(JSON.stringify(v));
        expect(numberText(v)).toBe(JSON.stringify(v));
      }),
      { numRuns: 20_000 },
    );
  });

  it('writes every whole number from 1e8 to 2^53 as its digits, at the split and off it', () => {
    for (let k = 1; k <= 90_071_992; k += 7919) {
      for (const d of [-1, 0, 1, 99_999_999]) {
        const v = k * 1e8 + d;
        if (v > Number.MAX_SAFE_INTEGER) continue;
        expect(numberText(v)).toBe(String(v));
      }
    }
  });

  it('writes a column of numbers and nulls, and of strings and nulls, as JSON.stringify does', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(arbNumber, fc.constant(null)), { maxLength: 20 }), fc.array(fc.oneof(fc.string({ unit: 'grapheme' }), fc.string(), fc.constant(null)), { maxLength: 20 }), (numbers, strings) => {
        expect(numbersText(numbers)).toBe(JSON.stringify(numbers));
        expect(stringsText(strings)).toBe(JSON.stringify(strings));
        for (const s of strings) expect(stringText(s)).toBe(JSON.stringify(s));
      }),
      { numRuns: 2_000 },
    );
  });
});
