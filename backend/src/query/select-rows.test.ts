// A selection of a sorted list (all of it, or namespaces of it) is tested for life from the list's columns (series/run-columns.ts),
// and a summary over it reads a closed run's whole-life totals from its row: both must answer
// exactly what the timelines themselves answer, also after runs of the list have closed since its
// columns were made.

import fc from 'fast-check';
import { timelines as arbTimelines, T0 } from '../../../test/support/arbitraries.ts';
import { FIGURE_NAMES } from '../series/figures.ts';
import { fleetFigureAggregates, fleetFigures, fleetSeries } from '../series/fleet.ts';
import { selectedRows } from '../series/run-columns.ts';
import { sloTotals } from '../series/slo.ts';
import { livedIn, summaryColumns } from '../series/summary.ts';
import { byNamespaceNameUid, markSorted } from '../timeline/order.ts';
import { openTransitions, transitionsOf, type Timeline } from '../timeline/types.ts';
import { select } from './select.ts';

/** A small fleet, each run named apart and given its own transitions, sorted as the engine lists it. */
const arbFleet = fc.array(arbTimelines(12), { minLength: 1, maxLength: 12 }).map((tls) =>
  tls
    .map((tl, i): Timeline => ({ ...tl, uid: `u${i}`, name: `js${i % 3}`, namespace: `ns${i % 2}`, transitions: transitionsOf(tl).slice() }))
    .sort(byNamespaceNameUid),
);
const arbTime = fc.integer({ min: -1_000_000, max: 90_000_000 }).map((t) => T0 + t);
/** A fleet and three times around it: often exactly one of its transitions' (the edges' rules are where reading a row instead would go wrong). */
const arbFleetAndTimes = arbFleet.chain((fleet) => {
  const at = fleet.flatMap((tl) => transitionsOf(tl).map((t) => t.at));
  const time = fc.oneof(arbTime, fc.constantFrom(...at));
  return fc.tuple(fc.constant(fleet), time, time, time, fc.constantFrom(...at), fc.integer({ min: 0, max: 3_000_000 }), fc.integer({ min: 0, max: 3_000_000 }));
});

/** What the summary answers without rows: the same selection as a plain array (no columns to read). */
function plain(tls: readonly Timeline[], horizon: number, from: number, to: number) {
  return summaryColumns(
    tls.filter((tl) => livedIn(tl, horizon, from, to)),
    horizon,
    from,
    to,
  );
}

/** Closes the open runs of the list that `closing` picks (list[k mod length]), each a few seconds after its last transition. */
function closeSome(list: readonly Timeline[], closing: readonly number[]): void {
  for (const k of closing) {
    const tl = list[k % list.length]!;
    const last = transitionsOf(tl)[transitionsOf(tl).length - 1]!;
    if (['completed', 'failed', 'deleted'].includes(last.state)) continue;
    openTransitions(tl).push({ at: last.at + 1000 * (k % 5), state: k % 2 === 0 ? 'completed' : 'failed' });
  }
}

describe('a selection by the list columns', () => {
  it('selects and sums exactly what the timelines do, before and after runs close', () => {
    fc.assert(
      fc.property(arbFleetAndTimes, fc.array(fc.nat(), { maxLength: 4 }), ([fleet, a, b, h, edge, burn, short], closing) => {
        // The engine's list now, and its next one: a run dropped, the held-back ones added (rows are taken over from the last columns made).
        const held = fleet.filter((_, i) => i % 4 === 3);
        // The engine's lists (one owner): the next one takes the rows and the lives worked out over.
        const engine = {};
        let list = markSorted(fleet.filter((_, i) => i % 4 !== 3), engine);
        const [from, to] = [Math.min(a, b), Math.max(a, b)];
        const check = (): void => {
          const selected = select(list, {}, h, from, to);
          expect(selectedRows(selected)).toBeDefined();
          expect(selected).toEqual(list.filter((tl) => livedIn(tl, h, from, to)));
          expect(summaryColumns(selected, h, from, to, { selected: true })).toEqual(plain(list, h, from, to));
          // An SLO's sums over the selection, its rows read where they serve, as the timelines give them.
          const marked = selectedRows(selected)!;
          // Two points: `to`, and one whose burn window begins exactly at a transition (a run's end, often).
          const windows = { periodMs: Math.max(1, to - from), burnWindowMs: burn, shortWindowMs: Math.min(burn, short) };
          const points = [...new Set([Math.min(to, edge + burn), to])].sort((x, y) => x - y);
          for (const indicator of ['uptime', 'schedulingGoodput'] as const) {
            expect(sloTotals(selected, h, points, windows, indicator, { ...marked, first: 0 })).toEqual(sloTotals(selected, h, points, windows, indicator));
          }
          // Namespaces: the rows of each one's run in the list, read by row as the whole list's are.
          for (const namespaces of [['ns1'], ['ns1', 'ns0'], ['ns2']]) {
            const inNamespaces = list.filter((tl) => namespaces.includes(tl.namespace));
            const some = select(list, { namespaces }, h, from, to);
            expect(selectedRows(some)).toBeDefined();
            expect(some).toEqual(inNamespaces.filter((tl) => livedIn(tl, h, from, to)));
            expect(summaryColumns(some, h, from, to, { selected: true })).toEqual(plain(inNamespaces, h, from, to));
          }
        };
        check();
        // Runs of the same list close (the engine's list is kept while none is added or dropped).
        closeSome(list, closing);
        check();
        list = markSorted([...list.slice(1), ...held].sort(byNamespaceNameUid), engine);
        if (list.length > 0) check();
      }),
      { numRuns: 1500 },
    );
  });
});

describe('the fleet figures of a selection by the list columns', () => {
  // The distributions across JobSets and the grouped tables read a closed run's figures from its row
  // (series/summary.ts WindowRows): they must be, byte for byte, what the timelines themselves give
  // (the same selection as a plain array, each run swept).
  const GROUPINGS = ['all', 'namespace', 'none', 'size:1,8', 'label:team', 'queue'] as const;
  const FIGURES = ['uptimeRatio', 'mttrSeconds', 'timeToFirstUpSeconds', 'queuedSeconds', 'interruptions', 'downSeconds', 'estimatedEffectiveTrainingRatio'] as const;
  const STATISTICS = ['min', 'mean', 'p50', 'p90', 'p99', 'max', 'sum'] as const;
  const withIdentity = (fleet: Timeline[]): Timeline[] =>
    fleet.map((tl, i) => ({ ...tl, pods: [0, 1, 4, 16][i % 4], accelerators: i % 5 === 0 ? 8 : undefined, checkpointIntervalMs: i % 3 === 0 ? 60_000 : null, labels: { team: `t${i % 2}`, ...(i % 3 === 1 ? { 'kueue.x-k8s.io/queue-name': 'q' } : {}) } }));

  it('answers as the timelines do, whatever the grouping, figure and aggregate, before and after runs close', () => {
    fc.assert(
      fc.property(arbFleetAndTimes, fc.constantFrom(...GROUPINGS), fc.constantFrom(...FIGURES), fc.constantFrom(...STATISTICS, 'pooled' as const), fc.array(fc.nat(), { maxLength: 3 }), ([fleet, a, b, h], groupBy, figure, how, closing) => {
        const list = markSorted(withIdentity(fleet), {});
        const [from, to] = [Math.min(a, b), Math.max(a, b)];
        const check = (): void => {
          for (const selection of [{}, { namespaces: ['ns1'] }]) {
            const selected = select(list, selection, h, from, to);
            expect(selectedRows(selected)).toBeDefined();
            const swept = [...selected];
            expect(fleetFigureAggregates(selected, h, from, to, figure, groupBy, STATISTICS, true)).toEqual(fleetFigureAggregates(swept, h, from, to, figure, groupBy, STATISTICS));
            expect(fleetFigures(selected, h, from, to, groupBy, how, FIGURE_NAMES, true)).toEqual(fleetFigures(swept, h, from, to, groupBy, how));
            // A series over the one window of the range (a `range` panel).
            const range = { start: to, end: to, stepMs: 1, mode: 'rolling' as const, rollingMs: to - from };
            expect(fleetSeries(selected, h, range, figure, groupBy, how, true)).toEqual(fleetSeries(swept, h, range, figure, groupBy, how));
          }
        };
        check();
        closeSome(list, closing);
        check();
      }),
      { numRuns: 1000 },
    );
  });
});
