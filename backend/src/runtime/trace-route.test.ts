// Lines routed by object (trace-route.ts) and put back in order (mergeParts): every line of a chunk in
// exactly one part with its number, an object's lines all in one part, and the merge giving the lines in
// their order up to the first bad line of any part, as one thread would meet them.

import fc from 'fast-check';
import { dealtOwners, mergeParts, routeChunk, uidBucket, BUCKETS } from './trace-route.ts';
import type { ClusterViewedObservation } from '../nodes/viewed.ts';
import type { ChunkError } from './trace-chunk.ts';

const take = (length: number): Buffer => Buffer.alloc(length);

/** A line of a trace: about an object (its UID), or a line without one (blank, spaced key, not JSON). */
const lineArb = fc.oneof(
  fc.record({ uid: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'ü-1', '0000-1111'), body: fc.string({ maxLength: 20 }) }).map(({ uid, body }) => `{"metadata":{"uid":"${uid}"},"x":${JSON.stringify(body)}}`),
  fc.constantFrom('', ' ', '\r', '{"metadata":{"uid": "spaced"}}', '{"time": "2026-01-01T00:00:00Z"', 'not json — ü'),
);

function uidOf(line: string): string | null {
  return /"uid":"([^"]*)"/.exec(line)?.[1] ?? null;
}

describe('routing a chunk by object', () => {
  it('puts every line in exactly one part, with its number and text, and all of an object’s lines in one part', () => {
    fc.assert(
      fc.property(fc.array(lineArb, { minLength: 1, maxLength: 40 }), fc.nat(3), fc.boolean(), fc.uint8Array({ minLength: BUCKETS, maxLength: BUCKETS }), (lines, workers, ended, raw) => {
        const owners = raw.map((b) => b % (workers + 1));
        const text = lines.join('\n') + (ended ? '\n' : '');
        const routed = routeChunk(Buffer.from(text, 'utf8'), owners, workers, take);
        // An empty last line without its newline is no line.
        const expected = ended || lines[lines.length - 1] !== '' ? lines : lines.slice(0, -1);
        expect(routed.lines).toBe(expected.length);
        const found = new Array<string | undefined>(expected.length);
        const partOfUid = new Map<string, number>();
        const seen = (number: number, line: string, part: number): void => {
          expect(found[number - 1]).toBeUndefined();
          found[number - 1] = line;
          const uid = uidOf(line);
          if (uid !== null) {
            expect(partOfUid.get(uid) ?? part).toBe(part);
            partOfUid.set(uid, part);
          }
        };
        routed.here.texts.forEach((t, i) => seen(routed.here.numbers[i]!, t, 0));
        expect(routed.away).toHaveLength(workers);
        routed.away.forEach((part, w) => {
          const texts = part.bytes.toString('utf8').split('\n');
          // Every line of a part is ended by a newline.
          expect(texts.pop()).toBe('');
          expect(texts).toHaveLength(part.numbers.length);
          texts.forEach((t, i) => seen(part.numbers[i]!, t, w + 1));
        });
        expect(found).toEqual(expected);
        // Numbers rise within each part.
        for (const numbers of [routed.here.numbers, ...routed.away.map((p) => p.numbers)]) for (let i = 1; i < numbers.length; i++) expect(numbers[i]!).toBeGreaterThan(numbers[i - 1]!);
      }),
      { numRuns: 300 },
    );
  });

  it('routes a UID by its bytes alone, wherever it stands', () => {
    const a = Buffer.from('{"metadata":{"uid":"0000-1111"}}');
    const b = Buffer.from('   {"x":1,"metadata":{"name":"n","uid":"0000-1111"}}');
    expect(uidBucket(a, a.indexOf('0000'), a.length)).toBe(uidBucket(b, b.indexOf('0000'), b.length));
    // The table at the start deals the buckets to every thread in turn.
    expect([...dealtOwners(1)].filter((o) => o === 1)).toHaveLength(BUCKETS / 2);
    expect(new Set(dealtOwners(3))).toEqual(new Set([0, 1, 2, 3]));
  });
});

describe('merging the parts of a chunk', () => {
  const observation = (line: number): ClusterViewedObservation => ({ receivedAt: line, type: 'ADDED', route: 'other' });

  it('gives every part’s observations in line order, up to the first bad line of any part', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(2), { maxLength: 60 }), fc.array(fc.option(fc.nat(59), { nil: null }), { minLength: 3, maxLength: 3 }), (ownerOfLine, errorAt) => {
        // Line i + 1 belongs to part ownerOfLine[i]; a part's bad line stops it (its observations end before it).
        const parts = [0, 1, 2].map((k) => {
          const err = errorAt[k] ?? null;
          const bad = err !== null && ownerOfLine[err] === k ? err + 1 : null;
          const lines = ownerOfLine.flatMap((o, i) => (o === k && (bad === null || i + 1 < bad) ? [i + 1] : []));
          const error: ChunkError | null = bad === null ? null : { line: bad, detail: `bad ${bad}` };
          return { lines, observations: lines.map(observation), error };
        });
        const got: number[] = [];
        const error = mergeParts(parts, (o, line) => {
          expect(o.receivedAt).toBe(line);
          got.push(line);
        });
        // One thread: every line in order, stopping at the first bad one.
        const bads = parts.flatMap((p) => (p.error === null ? [] : [p.error.line]));
        const first = bads.length === 0 ? null : Math.min(...bads);
        expect(error?.line ?? null).toBe(first);
        expect(got).toEqual(ownerOfLine.map((_, i) => i + 1).filter((l) => first === null || l < first));
      }),
      { numRuns: 500 },
    );
  });
});
