// One JobSet's small summary table is kept whole when every row is a closed run whose life the
// range holds (query-types/summary.ts keptTableKey): asked again with another range that holds
// them, it must answer exactly what the table worked out afresh answers. Checked against the same
// question of an unsorted copy of the fleet (no list columns: nothing kept, every figure from the
// timelines), over generated fleets (open and closed runs, runs still provisioning, names in two
// namespaces, some in a cluster), ranges often exactly at a transition (cutting runs, holding them,
// holding none), figures and refIds asked at random, each question asked again with a wider range.

import fc from 'fast-check';
import { namedFleet, T0, timesAround } from '../../../test/support/arbitraries.ts';
import { FIGURE_NAMES } from '../series/figures.ts';
import { byNamespaceNameUid, markSorted } from '../timeline/order.ts';
import type { Timeline } from '../timeline/types.ts';
import { answerPieces } from './answer-bytes.ts';
import { runQueries } from './run-request.ts';

const text = (pieces: readonly (string | Uint8Array)[]): string => Buffer.concat(pieces.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : p))).toString('utf8');

const arbCase = namedFleet(12, 4).chain((fleet) => {
  const time = timesAround(fleet);
  const question = fc.record({
    a: time,
    b: time,
    horizon: time,
    wider: fc.tuple(fc.nat({ max: 3_600_000 }), fc.nat({ max: 3_600_000 })),
    name: fc.constantFrom('js0', 'js1', 'js2'),
    namespaces: fc.constantFrom(['ns0'], ['ns1'], ['ns0', 'ns1'], [] as string[]),
    figures: fc.oneof(fc.constant([] as string[]), fc.subarray([...FIGURE_NAMES], { minLength: 1, maxLength: 5 })),
    refId: fc.constantFrom('F', 'A', '"é"'),
  });
  return fc.tuple(fc.constant(fleet), fc.array(question, { minLength: 1, maxLength: 8 }));
});

function summaryBody(from: number, to: number, q: { name: string; namespaces: string[]; figures: string[]; refId: string }) {
  return { from: String(from), to: String(to), queries: [{ refId: q.refId, queryType: 'summary', namespaces: q.namespaces, name: q.name, figures: q.figures }] };
}

describe("one JobSet's summary kept whole while its runs are closed and held by the range", () => {
  it('answers what the table worked out afresh answers, byte for byte, in every range', () => {
    fc.assert(
      fc.property(arbCase, ([fleet, questions]) => {
        // One list for every question, as the engine keeps it: a table kept for one range is asked in the next.
        const sorted = markSorted(fleet.slice().sort(byNamespaceNameUid));
        for (const q of questions) {
          const [from, to] = [Math.min(q.a, q.b), Math.max(q.a, q.b)];
          for (const [f, t] of [
            [from, to],
            [from - q.wider[0], to + q.wider[1]],
          ] as const) {
            const body = summaryBody(f, t, q);
            const kept = runQueries(body, { timelines: sorted, horizon: q.horizon }, q.horizon);
            const afresh = runQueries(body, { timelines: fleet, horizon: q.horizon }, q.horizon);
            const expected = JSON.stringify({ results: afresh.results });
            expect(JSON.stringify({ results: kept.results })).toBe(expected);
            expect(text(answerPieces(kept.results))).toBe(expected);
          }
        }
      }),
      { numRuns: 500 },
    );
  });

  it('is kept for closed runs the range holds, and worked out again when the range cuts one or a run is open', () => {
    const timelineOf = (uid: string, created: number, states: [number, string][]): Timeline =>
      ({ uid, namespace: 'ns', name: 'js', createdAt: T0 + created, transitions: states.map(([at, state]) => ({ at: T0 + at, state })) }) as unknown as Timeline;
    const closed = [timelineOf('u1', 0, [[0, 'provisioning'], [60_000, 'up'], [600_000, 'completed']]), timelineOf('u2', 700_000, [[700_000, 'provisioning'], [760_000, 'failed']])];
    const list = markSorted(closed.slice().sort(byNamespaceNameUid));
    const horizon = T0 + 3_600_000;
    const table = (from: number, to: number) => runQueries(summaryBody(T0 + from, T0 + to, { name: 'js', namespaces: ['ns'], figures: [], refId: 'F' }), { timelines: list, horizon }, horizon).results.F!.frames![0]!;
    const first = table(-1, 3_600_000);
    // Another range that holds both lives: the same frame, frozen (the requests share it).
    expect(table(-5_000, 1_000_000)).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(first.data.values.slice(2, 4)).toEqual([['u1', 'u2'], ['completed', 'failed']]);
    // A range that cuts the first run's life: worked out again.
    const cut = table(30_000, 3_600_000);
    expect(cut).not.toBe(first);
    expect(Object.isFrozen(cut)).toBe(false);
    // An open run among the rows: never kept.
    const open = markSorted([...closed, timelineOf('u3', 800_000, [[800_000, 'provisioning']])].sort(byNamespaceNameUid));
    const withOpen = (): unknown => runQueries(summaryBody(T0 - 1, horizon, { name: 'js', namespaces: ['ns'], figures: [], refId: 'F' }), { timelines: open, horizon }, horizon).results.F!.frames![0]!;
    expect(withOpen()).not.toBe(withOpen());
  });
});
