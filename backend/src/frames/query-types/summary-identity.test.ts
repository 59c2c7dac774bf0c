// A whole per-JobSet table's identity columns are kept for the next table of the same rows of the
// same list (summary.ts keptIdentityColumns): each answer's cluster, namespace, name and UID columns
// must still be those of the runs it holds, as summarize (which keeps nothing) lists them, over
// generated fleets asked table after table: the same list over other ranges and namespaces, and the
// engine's next lists (a run dropped, others added) whose rows hold other runs.

import fc from 'fast-check';
import { timelines as arbTimelines, T0 } from '../../../../test/support/arbitraries.ts';
import { summarize } from '../../series/summary.ts';
import { byNamespaceNameUid, markSorted } from '../../timeline/order.ts';
import { transitionsOf, type Timeline } from '../../timeline/types.ts';
import type { FrameJSON } from '../frame.ts';
import { runQueries } from '../run-request.ts';

const arbFleet = fc.array(fc.tuple(arbTimelines(8), fc.boolean()), { minLength: 1, maxLength: 12 }).map((tls) =>
  tls
    .map(([tl, clustered], i): Timeline => ({ ...tl, uid: `u${i}`, name: `js${i % 3}`, namespace: `ns${i % 2}`, ...(clustered && i % 4 === 0 ? { cluster: 'east' } : {}), transitions: transitionsOf(tl).slice() }))
    .sort(byNamespaceNameUid),
);
const arbTime = fc.integer({ min: -1_000_000, max: 90_000_000 }).map((t) => T0 + t);
const arbQuestion = fc.record({ a: arbTime, b: arbTime, horizon: arbTime, namespaces: fc.constantFrom([] as string[], ['ns1'], ['ns0']) });
type Question = { a: number; b: number; horizon: number; namespaces: string[] };

function column(frame: FrameJSON, name: string): unknown[] | undefined {
  const i = frame.schema.fields.findIndex((f) => f.name === name);
  return i < 0 ? undefined : frame.data.values[i];
}

/** Asks a whole table; its identity columns must be those summarize gives the same runs. */
function ask(list: readonly Timeline[], q: Question): void {
  const [from, to] = [Math.min(q.a, q.b), Math.max(q.a, q.b)];
  const body = { from: String(from), to: String(to), queries: [{ refId: 'A', queryType: 'summary', groupBy: 'none', figures: ['interruptions'], namespaces: q.namespaces }] };
  const { results } = runQueries(body, { timelines: list, horizon: q.horizon }, q.horizon);
  expect(results.A!.status).toBe(200);
  const frame = results.A!.frames![0]!;
  const rows = summarize(list, q.horizon, from, to).filter((r) => q.namespaces.length === 0 || q.namespaces.includes(r.namespace));
  expect({ namespace: column(frame, 'namespace'), name: column(frame, 'name'), uid: column(frame, 'uid'), cluster: column(frame, 'cluster') }).toEqual({
    namespace: rows.map((r) => r.namespace),
    name: rows.map((r) => r.name),
    uid: rows.map((r) => r.uid),
    cluster: rows.some((r) => r.cluster !== undefined) ? rows.map((r) => r.cluster ?? '') : undefined,
  });
}

it("gives a whole table's identity columns of the runs it holds, table after table, list after list", () => {
  fc.assert(
    fc.property(arbFleet, fc.array(arbQuestion, { minLength: 1, maxLength: 4 }), fc.array(fc.nat(), { minLength: 1, maxLength: 3 }), (fleet, questions, drops) => {
      let list = markSorted(fleet.slice());
      for (const q of questions) for (let k = 0; k < 2; k++) ask(list, q);
      // The engine's next lists: a run dropped (retention), the rows after it holding other runs; then put back.
      for (const d of drops) {
        const dropped = list[d % list.length]!;
        list = markSorted(list.filter((tl) => tl !== dropped));
        for (const q of questions) ask(list, q);
        list = markSorted([...list, dropped].sort(byNamespaceNameUid));
        for (const q of questions) ask(list, q);
      }
    }),
    { numRuns: 300 },
  );
});
