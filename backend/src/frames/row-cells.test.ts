// The closed runs' kept cells (row-cells.ts) are invisible in the answers: a whole per-JobSet table
// (and an SLO table per JobSet name, its labels its names' first runs' cells) written from them is,
// byte for byte, JSON.stringify of the table the uncached path builds, over
// generated fleets and ranges (often exactly at a transition), while runs close, the horizon ("now")
// moves, runs are dropped (retention) and added (the engine's next list), with the cache warm from
// the earlier questions and under budgets that evict.

import fc from 'fast-check';
import { arbFirstDayTime as arbTime, namedFleet, timesAround } from '../../../test/support/arbitraries.ts';
import { FIGURE_NAMES } from '../series/figures.ts';
import { runColumns } from '../series/run-columns.ts';
import { byNamespaceNameUid, markSorted } from '../timeline/order.ts';
import { openTransitions, transitionsOf, type Timeline } from '../timeline/types.ts';
import { answerPieces, AnswerSink } from './answer-bytes.ts';
import { RowCells, rowCells } from './row-cells.ts';
import { runQueries } from './run-request.ts';

/** The pieces' bytes in one buffer, as the HTTP stage joins them (http/json-answer.ts piecesBody). */
const joined = (pieces: readonly (string | Uint8Array)[]): Buffer => Buffer.concat(pieces.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : p)));

/** A small fleet sorted as the engine lists it: runs of a few names in two namespaces, some named alike. */
const arbFleet = namedFleet(14, 5).map((tls) => tls.sort(byNamespaceNameUid));

/** A fleet, and times around it: often exactly one of its transitions' (where a run's life begins or ends at a range's edge). */
const arbCase = arbFleet.chain((fleet) => {
  const time = timesAround(fleet);
  const question = fc.record({
    a: time,
    b: time,
    horizon: time,
    figures: fc.oneof(fc.constant([] as string[]), fc.subarray([...FIGURE_NAMES], { minLength: 1, maxLength: 4 })),
    namespaces: fc.constantFrom([] as string[], ['ns1'], ['ns0', 'ns1']),
  });
  return fc.tuple(fc.constant(fleet), fc.array(question, { minLength: 1, maxLength: 4 }), fc.array(fc.nat(), { maxLength: 4 }), fc.array(question, { minLength: 1, maxLength: 3 }));
});

type Question = { a: number; b: number; horizon: number; figures: string[]; namespaces: string[] };

/** Asks a whole per-JobSet table as the API does; its answer's bytes must be the uncached path's (JSON.stringify of the same frames). */
function ask(list: readonly Timeline[], q: Question): void {
  const [from, to] = [Math.min(q.a, q.b), Math.max(q.a, q.b)];
  // The SLO budget per JobSet name as one table (its labels the names' first runs' cells), whole and sorted.
  const slo = { queryType: 'slo', sloAnswer: 'errorBudget', objective: 0.95, period: `${Math.max(3_600_000, to - from)}ms`, groupBy: 'none', window: 'range', format: 'table', namespaces: q.namespaces };
  const body = {
    from: String(from),
    to: String(to),
    queries: [
      { refId: 'A', queryType: 'summary', groupBy: 'none', figures: q.figures, namespaces: q.namespaces },
      { refId: 'B', ...slo, columns: ['remainingFraction'] },
      { refId: 'C', ...slo, sort: { by: 'remainingFraction', direction: 'asc' } },
    ],
  };
  const { results } = runQueries(body, { timelines: list, horizon: q.horizon }, q.horizon);
  for (const refId of ['A', 'B', 'C']) expect([refId, results[refId]!.status, results[refId]!.error]).toEqual([refId, 200, undefined]);
  expect(joined(answerPieces(results)).equals(Buffer.from(JSON.stringify({ results }), 'utf8'))).toBe(true);
}

describe('a whole table written from its closed runs kept cells', () => {
  it('is byte for byte the uncached answer, as runs close, the horizon moves and runs are dropped and added', () => {
    fc.assert(
      fc.property(arbCase, ([fleet, first, closing, later]) => {
        const held = fleet.filter((_, i) => i % 4 === 3);
        // The engine's lists (one owner): the next one takes the rows and the lives worked out over.
        const engine = {};
        let list = markSorted(fleet.filter((_, i) => i % 4 !== 3), engine);
        // Twice each: the second time the cells written the first time are read.
        for (const q of first) for (let k = 0; k < 2; k++) ask(list, q);
        // Runs of the same list close (a deletion among them): the engine keeps its list while none is added or dropped.
        for (const k of closing) {
          const tl = list[k % list.length]!;
          const last = transitionsOf(tl)[transitionsOf(tl).length - 1]!;
          if (['completed', 'failed', 'deleted'].includes(last.state)) continue;
          openTransitions(tl).push({ at: last.at + 1000 * (k % 5), state: (['completed', 'failed', 'deleted'] as const)[k % 3]! });
        }
        for (const q of [...first, ...later]) ask(list, q);
        // The next list: the first run dropped (retention), the held-back ones added.
        list = markSorted([...list.slice(1), ...held].sort(byNamespaceNameUid), engine);
        for (const q of [...later, ...first]) if (list.length > 0) ask(list, q);
      }),
      { numRuns: 200 },
    );
    expect(rowCells.bytes).toBeLessThanOrEqual(rowCells.budgetBytes);
  });

  it('writes JSON.stringify of the values under any budget, keeping no more than it', () => {
    fc.assert(
      fc.property(arbFleet, fc.array(fc.tuple(arbTime, arbTime, fc.constantFrom('a', 'b', 'c')), { minLength: 1, maxLength: 12 }), fc.integer({ min: 0, max: 4000 }), (fleet, asks, budget) => {
        const list = markSorted(fleet);
        const columns = runColumns(list);
        const cells = new RowCells(budget);
        for (const [a, b, key] of asks) {
          const [from, to] = [Math.min(a, b), Math.max(a, b)];
          // Every other row, each row's value one of its own for a key (a closed run's figure), with text that is not ASCII now and then.
          const rows = Int32Array.from(list.map((_, i) => i).filter((i) => (i + from) % 2 === 0 || key === 'c'));
          const values = Array.from(rows, (row) => (row % 3 === 0 ? `${key}·${row}` : row % 3 === 1 ? row * 0.1 : null));
          const sink = new AnswerSink();
          // 'c' as a column of the runs' identities (the same cell in every range): every row's kept.
          cells.writeColumn(sink, key, columns, rows, values, from, to, key === 'c');
          expect(joined(sink.pieces()).equals(Buffer.from(JSON.stringify(values), 'utf8'))).toBe(true);
          expect(cells.bytes).toBeLessThanOrEqual(budget);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('keeps every row of a column of identities, open runs too: warm, the whole column is one stretch of bytes', () => {
    fc.assert(
      fc.property(arbFleet, arbTime, arbTime, (fleet, a, b) => {
        const list = markSorted(fleet);
        const columns = runColumns(list);
        const cells = new RowCells();
        const rows = Int32Array.from(list, (_, i) => i);
        const values = list.map((tl) => tl.uid);
        const [from, to] = [Math.min(a, b), Math.max(a, b)];
        for (let k = 0; k < 2; k++) {
          const sink = new AnswerSink();
          cells.writeColumn(sink, 'uid', columns, rows, values, from, to, true);
          const pieces = sink.pieces();
          expect(joined(pieces).equals(Buffer.from(JSON.stringify(values), 'utf8'))).toBe(true);
          // Warm: '[', the kept bytes of every row, ']'.
          if (k === 1) expect(pieces.filter((p) => typeof p !== 'string')).toHaveLength(1);
        }
      }),
      { numRuns: 100 },
    );
  });
});
