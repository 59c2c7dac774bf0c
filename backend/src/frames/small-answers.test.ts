// One JobSet's detail (a states query and a summary of one name, as its dashboard asks) is written
// by json-text.ts and its summary's schema from a kept text (query-types/states.ts, summary.ts): the
// answer's bytes must be, byte for byte, JSON.stringify of the same results, over generated fleets
// (runs of a name in several namespaces, some in a cluster, open and closed), ranges (often exactly
// at a transition), figures asked, refIds (quotes, non-ASCII), with the kept texts warm from the
// earlier questions, from the engine's sorted list and from an unsorted one.

import fc from 'fast-check';
import { namedFleet, T0, timesAround } from '../../../test/support/arbitraries.ts';
import { FIGURE_NAMES } from '../series/figures.ts';
import { byNamespaceNameUid, markSorted } from '../timeline/order.ts';
import type { Timeline } from '../timeline/types.ts';
import { answerPieces } from './answer-bytes.ts';
import { runQueries } from './run-request.ts';

const joined = (pieces: readonly (string | Uint8Array)[]): Buffer => Buffer.concat(pieces.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : p)));

const arbFleet = namedFleet(12, 4);

const arbCase = arbFleet.chain((fleet) => {
  const time = timesAround(fleet);
  const question = fc.record({
    a: time,
    b: time,
    horizon: time,
    name: fc.constantFrom('js0', 'js1', 'js2'),
    namespaces: fc.constantFrom(['ns0'], ['ns1'], ['ns0', 'ns1'], [] as string[]),
    figures: fc.oneof(fc.constant([] as string[]), fc.subarray([...FIGURE_NAMES], { minLength: 1, maxLength: 5 })),
    refIds: fc.tuple(fc.constantFrom('S', 'A', '"é"', 'F\\u', 'x'), fc.constantFrom('F', 'B', 'ü"', 'y')),
    sorted: fc.boolean(),
  });
  return fc.tuple(fc.constant(fleet), fc.array(question, { minLength: 1, maxLength: 6 }));
});

describe("one JobSet's detail, written by json-text.ts", () => {
  it('is byte for byte JSON.stringify of its results, the kept texts warm or cold', () => {
    fc.assert(
      fc.property(arbCase, ([fleet, questions]) => {
        const sorted = markSorted(fleet.slice().sort(byNamespaceNameUid));
        for (const q of questions) {
          const [from, to] = [Math.min(q.a, q.b), Math.max(q.a, q.b)];
          const [states, summary] = q.refIds;
          const body = {
            from: String(from),
            to: String(to),
            queries: [
              { refId: states, queryType: 'states', namespaces: q.namespaces, name: q.name },
              { refId: summary, queryType: 'summary', namespaces: q.namespaces, name: q.name, figures: q.figures },
            ],
          };
          const { results } = runQueries(body, { timelines: q.sorted ? sorted : fleet, horizon: q.horizon }, q.horizon);
          expect([results[states]!.status, results[summary]!.status]).toEqual([200, 200]);
          expect(joined(answerPieces(results)).toString('utf8')).toBe(JSON.stringify({ results }));
        }
      }),
      { numRuns: 400 },
    );
  });

  it('writes a detail with its columns and schema marked (the path this file checks is the one taken)', () => {
    const tl: Timeline = { uid: 'u1', namespace: 'ns', name: 'js', createdAt: T0, transitions: [{ at: T0, state: 'provisioning' }, { at: T0 + 60_000, state: 'up' }] } as unknown as Timeline;
    const body = {
      from: String(T0),
      to: String(T0 + 3_600_000),
      queries: [
        { refId: 'S', queryType: 'states', namespaces: ['ns'], name: 'js' },
        { refId: 'F', queryType: 'summary', namespaces: ['ns'], name: 'js' },
      ],
    };
    const { results } = runQueries(body, { timelines: [tl], horizon: T0 + 3_600_000 }, T0 + 3_600_000);
    const marks = (o: object): number => Object.getOwnPropertySymbols(o).length;
    const [states, summary] = [results.S!.frames![0]!, results.F!.frames![0]!];
    // The columns marked by their frame's one mark (answer-bytes.ts withColumnWriters), not each by its own.
    expect(marks(states.data.values)).toBe(1);
    expect(states.data.values.map(marks)).toEqual([0, 0]);
    expect(marks(summary.schema)).toBe(1);
    expect(marks(summary.data.values)).toBe(1);
  });
});
