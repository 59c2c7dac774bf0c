// The fleet index's compact columns against plain arrays: whatever is written (times close, far
// apart, a block spanning just under or just over 2^32 ms, fractions of a millisecond; indices past
// 2 bytes), what is read back is exactly what was put in, and a count of the times at or before t is
// the naive count.

import fc from 'fast-check';
import { EventTimes, NearNumbers, SmallNumbers } from './event-columns.ts';

const T0 = Date.UTC(2026, 0, 1);
const SPAN = 2 ** 32;

/** Gaps between ascending times: mostly small, now and then one that a 4-byte offset just holds or just does not, or a fraction. */
const arbGap = fc.oneof(
  { weight: 20, arbitrary: fc.integer({ min: 0, max: 120_000 }) },
  { weight: 1, arbitrary: fc.constantFrom(SPAN - 1, SPAN, SPAN + 1, 40 * 86_400_000) },
  { weight: 1, arbitrary: fc.constantFrom(0.5, 0.25, 1e-3) },
);

/** Ascending times from a start, by the gaps given. */
function ascending(start: number, gaps: readonly number[]): number[] {
  const out: number[] = [];
  let t = start;
  for (const g of gaps) out.push((t += g));
  return out;
}

function naiveCount(times: readonly number[], t: number): number {
  return times.filter((x) => x <= t).length;
}

describe('a partition’s event times', () => {
  it('gives back every time written, and counts as the naive count, over many rewrites from a position', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.constant(T0), fc.constant(0), fc.nat(4_000).map((k) => k * 1e9 - 1e12 + 0.75 * (k % 2))),
        fc.array(fc.tuple(fc.nat(), fc.array(arbGap, { maxLength: 400 })), { minLength: 1, maxLength: 6 }),
        fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 1, maxLength: 10 }),
        (start, writes, probes) => {
          const column = new EventTimes();
          let expected: number[] = [];
          for (const [at, gaps] of writes) {
            // Keep a prefix, write ascending times after it (none before the last one kept).
            const from = expected.length === 0 ? 0 : at % (expected.length + 1);
            const kept = expected.slice(0, from);
            const after = ascending(kept.length > 0 ? kept[kept.length - 1]! : start, gaps);
            column.replaceFrom(from, after);
            expected = [...kept, ...after];
            expect(column.length).toBe(expected.length);
            expect(Array.from(column.toFloat64())).toEqual(expected);
          }
          for (let e = 0; e < expected.length; e++) expect(column.at(e)).toBe(expected[e]);
          const first = expected[0] ?? start;
          const last = expected[expected.length - 1] ?? start;
          // Each time, its neighbours, and times between and around them.
          const asked = [...expected, ...expected.map((t) => t - 0.5), ...expected.map((t) => t + 1), ...probes.map((p) => first + p * (last - first + 10)), -Infinity, Infinity];
          for (const t of asked) expect(column.count(t)).toBe(naiveCount(expected, t));
          const before = column.toFloat64();
          column.trim();
          expect(Array.from(column.toFloat64())).toEqual(Array.from(before));
          // What a fraction or a long gap forces: every time kept as it is (and none else).
          const fits = expected.every((t, e) => Number.isInteger(t - expected[e - (e % 128)]!) && t - expected[e - (e % 128)]! < SPAN);
          if (!fits) expect(column.wide).toBe(true);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('takes 4 bytes a time (and a base a block) while the times are whole milliseconds within 2^32 of their block’s first', () => {
    const column = new EventTimes();
    const times = ascending(T0, Array.from({ length: 1000 }, (_, k) => (k % 7) * 60_000));
    column.replaceFrom(0, times);
    column.trim();
    expect(column.wide).toBe(false);
    expect(column.bytes).toBe(4 * 1000 + 8 * Math.ceil(1000 / 128));
    // One block spanning exactly 2^32 − 1 ms still fits; one more millisecond does not.
    const edge = new EventTimes();
    edge.replaceFrom(0, [T0, T0 + SPAN - 1]);
    expect(edge.wide).toBe(false);
    edge.replaceFrom(2, [T0 + SPAN]);
    expect(edge.wide).toBe(true);
    expect(Array.from(edge.toFloat64())).toEqual([T0, T0 + SPAN - 1, T0 + SPAN]);
  });

  it('holds one time, and none', () => {
    const column = new EventTimes();
    expect(column.count(T0)).toBe(0);
    column.trim();
    column.replaceFrom(0, [T0]);
    expect([column.at(0), column.count(T0 - 1), column.count(T0), column.length]).toEqual([T0, 0, 1, 1]);
    column.replaceFrom(0, []);
    expect([column.length, column.count(T0)]).toEqual([0, 0]);
  });
});

describe('a partition’s transition indices', () => {
  it('gives back every index written, in 2 bytes each until one is past 65,535', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(), fc.array(fc.oneof({ weight: 30, arbitrary: fc.nat(70_000) }, { weight: 1, arbitrary: fc.constantFrom(65_535, 65_536, 2 ** 32 - 1) }), { maxLength: 300 })), { minLength: 1, maxLength: 6 }), (writes) => {
        const column = new SmallNumbers();
        let expected: number[] = [];
        for (const [at, values] of writes) {
          const from = expected.length === 0 ? 0 : at % (expected.length + 1);
          column.replaceFrom(from, values);
          expected = [...expected.slice(0, from), ...values];
          expect(Array.from(column.toUint32())).toEqual(expected);
        }
        column.trim();
        for (let e = 0; e < expected.length; e++) expect(column.at(e)).toBe(expected[e]);
        const everWide = writes.some(([, values]) => values.some((v) => v > 0xffff));
        expect(column.bytes).toBe((everWide ? 4 : 2) * expected.length);
      }),
      { numRuns: 300 },
    );
  });
});

describe('a partition’s places of timelines', () => {
  it('gives back every number written, over many rewrites from a position: 2 bytes each within 65,534 of their block’s largest, the rest kept apart', () => {
    // Mostly close together and rising (places in the order of first events), now and then one far below or far above.
    const arbNumber = fc.oneof({ weight: 30, arbitrary: fc.nat(300) }, { weight: 1, arbitrary: fc.constantFrom(0, 65_534, 65_535, 65_536, 200_000, 2 ** 32 - 1) });
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(), fc.nat(100_000), fc.array(arbNumber, { maxLength: 400 })), { minLength: 1, maxLength: 6 }), (writes) => {
        const column = new NearNumbers();
        let expected: number[] = [];
        for (const [at, base, values] of writes) {
          const from = expected.length === 0 ? 0 : at % (expected.length + 1);
          const written = values.map((v) => (v <= 300 ? base + v : v));
          column.replaceFrom(from, written);
          expected = [...expected.slice(0, from), ...written];
          expect(column.length).toBe(expected.length);
          expect(Array.from(column.toUint32())).toEqual(expected);
        }
        column.trim();
        for (let e = 0; e < expected.length; e++) expect(column.at(e)).toBe(expected[e]);
        // Kept apart: exactly those 65,535 or more below the largest of their block of 128.
        const apart = expected.filter((v, e) => Math.max(...expected.slice(e - (e % 128), e - (e % 128) + 128)) - v >= 65_535).length;
        expect(column.apart).toBe(apart);
        expect(column.bytes).toBe(2 * expected.length + 4 * Math.ceil(expected.length / 128) + 16 * apart);
      }),
      { numRuns: 300 },
    );
  });
});
