// A chunk's views (trace-chunk.ts) with the specs reused and their spec fields worked out once per kept
// spec give exactly the views of each line parsed alone and viewed from scratch: the same fields, the
// same keys in the same order, also when a JobSet's spec changes between lines or is shared by JobSets.

import fc from 'fast-check';
import { viewClusterObservation } from '../nodes/viewed.ts';
import { simulateFleet } from '../sources/simulator/index.ts';
import { checkedObservation } from '../sources/trace/check.ts';
import { SpecReuse } from '../sources/trace/reuse.ts';
import { viewTraceChunk } from './trace-chunk.ts';

/** The views of `lines` made the naive way: JSON.parse of each line, the view worked out from the whole object. */
function naive(lines: readonly string[]): unknown[] {
  return lines.map((l) => viewClusterObservation(checkedObservation(JSON.parse(l))!, null));
}

const base = [...simulateFleet({ jobsets: 8, days: 1, seed: 11, nodes: true, workloads: true }).traceLines()];

describe('a chunk viewed with the specs reused', () => {
  it('gives the naive views of every line, over edits of the specs (replicas, accelerators, parallelism) anywhere', () => {
    const jobsetAt = base.flatMap((l, i) => (l.includes('"kind":"JobSet"') ? [i] : []));
    const edits = fc.array(fc.tuple(fc.nat(jobsetAt.length - 1), fc.constantFrom('"replicas":', '"nvidia.com/gpu":"', '"parallelism":', '"google.com/tpu":"'), fc.integer({ min: 1, max: 9 })), { maxLength: 12 });
    fc.assert(
      fc.property(edits, fc.boolean(), (changes, reuseAcrossChunks) => {
        const lines = [...base];
        for (const [k, key, digit] of changes) {
          const i = jobsetAt[k]!;
          // A digit written after the key: the spec's text, and so its fields, change from this line on
          // for this line alone (the next line of the JobSet has its old text again).
          lines[i] = lines[i]!.replace(key, `${key}${digit}`);
        }
        const specs = new SpecReuse();
        const viewed: unknown[] = [];
        for (let at = 0; at < lines.length; at += 97) {
          const chunk = viewTraceChunk(lines.slice(at, at + 97).join('\n'), null, reuseAcrossChunks ? specs : new SpecReuse());
          expect(chunk.error).toBeNull();
          viewed.push(...chunk.observations);
        }
        const expected = naive(lines);
        expect(viewed).toStrictEqual(expected);
        expect(JSON.stringify(viewed)).toBe(JSON.stringify(expected));
      }),
      { numRuns: 12 },
    );
  });
});
