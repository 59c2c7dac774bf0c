// A UID in 16 bytes (uids.ts): a canonical UUID round-trips through its words byte for byte, and its
// words compare and hash as its string does; any other string is refused (kept as a string by the
// callers), whatever it looks like: uppercase, braces, another length, a hyphen moved, non-ASCII.

import fc from 'fast-check';
import { arbCanonicalUid, arbOtherUid } from '../../../test/support/arbitraries.ts';
import { compareUidWords, decodeUid, encodeUid, hashUid, hashUidText, hashUidWords, sameUidWords, UID_WORDS } from './uids.ts';

/** A canonical UID made like a simulator's: most digits shared, a counter at the end. */
const arbNearUid = fc.integer({ min: 0, max: 2 ** 24 - 1 }).map((k) => `f6d8cd46-d4c4-4c07-b2ed-00019c${k.toString(16).padStart(6, '0')}`);

const words = (uid: string): Uint32Array => {
  const w = new Uint32Array(UID_WORDS);
  expect(encodeUid(uid, w)).toBe(true);
  return w;
};

test('a canonical UID round-trips through its words, at any place in an array', () => {
  fc.assert(
    fc.property(fc.oneof(arbCanonicalUid, arbNearUid, fc.uuid()), fc.integer({ min: 0, max: 5 }), (uid, place) => {
      const w = new Uint32Array(UID_WORDS * 6);
      expect(encodeUid(uid, w, place * UID_WORDS)).toBe(true);
      expect(decodeUid(w, place * UID_WORDS)).toBe(uid);
    }),
    { numRuns: 3000 },
  );
});

test('any other string is not encoded, and the words are left as they were', () => {
  fc.assert(
    fc.property(arbOtherUid, (uid) => {
      const canonical = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(uid);
      const w = new Uint32Array([1, 2, 3, 4]);
      expect(encodeUid(uid, w)).toBe(canonical);
      if (!canonical) expect(Array.from(w)).toEqual([1, 2, 3, 4]);
      else expect(decodeUid(w)).toBe(uid);
    }),
    { numRuns: 3000 },
  );
});

test('two canonical UIDs compare by their words as their strings compare', () => {
  const pair = fc.oneof(fc.tuple(arbCanonicalUid, arbCanonicalUid), fc.tuple(arbNearUid, arbNearUid), arbCanonicalUid.map((u) => [u, u] as [string, string]));
  fc.assert(
    fc.property(pair, ([a, b]) => {
      const byString = a < b ? -1 : a > b ? 1 : 0;
      expect(Math.sign(compareUidWords(words(a), 0, words(b), 0))).toBe(byString);
      expect(sameUidWords(words(a), 0, words(b), 0)).toBe(a === b);
    }),
    { numRuns: 3000 },
  );
  // Digits against letters, at the first and last place: '9' < 'a'.
  const order = ['00000000-0000-0000-0000-000000000000', '00000000-0000-0000-0000-000000000009', '00000000-0000-0000-0000-00000000000a', '90000000-0000-0000-0000-000000000000', 'a0000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff'];
  for (let i = 1; i < order.length; i++) expect(compareUidWords(words(order[i - 1]!), 0, words(order[i]!), 0)).toBe(-1);
});

test("a UID's hash is the same from its string and from its words; others hash by their characters", () => {
  fc.assert(
    fc.property(fc.oneof(arbCanonicalUid, arbOtherUid), (uid) => {
      const w = new Uint32Array(UID_WORDS);
      expect(hashUid(uid)).toBe(encodeUid(uid, w) ? hashUidWords(w) : hashUidText(uid));
    }),
    { numRuns: 2000 },
  );
  // A simulator's UIDs differ in their last digits only: their hashes spread over the low bits a table uses.
  const low = new Set<number>();
  for (let k = 0; k < 4096; k++) low.add(hashUid(`f6d8cd46-d4c4-4c07-b2ed-00019c${k.toString(16).padStart(6, '0')}`) & 4095);
  expect(low.size).toBeGreaterThan(2400);
});
