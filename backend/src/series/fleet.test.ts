// The fast paths of fleet.ts against the path they stand in for, over generated fleets: a
// distribution's statistics from each JobSet's figure worked out once (fleetFigureAggregates)
// equal fleetFigure asked once per statistic.

import fc from 'fast-check';
import { timelines as arbTimelines, T0 } from '../../../test/support/arbitraries.ts';
import { transitionsOf, type Timeline } from '../timeline/types.ts';
import type { FigureName } from './figures.ts';
import { fleetFigure, fleetFigureAggregates, type Aggregate, type GroupBy } from './fleet.ts';

const NAMESPACES = ['a', 'b', 'c'];

/** Short timelines, and now and then a long one (over 64 transitions: the checkpointed sweeps). */
const arbFleet = fc
  .array(fc.tuple(fc.oneof({ weight: 5, arbitrary: arbTimelines(12) }, { weight: 1, arbitrary: arbTimelines(90, 70) }), fc.constantFrom(...NAMESPACES), fc.constantFrom(undefined, 'east'), fc.constantFrom(0, 3, 40)), {
    minLength: 0,
    maxLength: 12,
  })
  .map((list) =>
    list.map(([tl, namespace, cluster, pods], i): Timeline => ({ ...tl, uid: `u${i}`, name: `js${i % 4}`, namespace, pods, labels: { team: `t${i % 2}` }, ...(cluster ? { cluster } : {}) })),
  );

const FIGURES: FigureName[] = ['uptimeRatio', 'mttrSeconds', 'mtbiSeconds', 'timeToFirstUpSeconds', 'queuedSeconds', 'interruptions', 'downSeconds', 'schedulingGoodput', 'estimatedEffectiveTrainingRatio'];
const GROUPINGS: GroupBy[] = ['all', 'namespace', 'cluster', 'size:1,8,64', 'label:team', 'none'];
const HOWS: Exclude<Aggregate, 'pooled'>[] = ['min', 'mean', 'p50', 'p90', 'p99', 'max', 'sum'];

describe('fleetFigureAggregates', () => {
  it('gives, for every statistic, what fleetFigure gives for it alone', () => {
    fc.assert(
      fc.property(
        arbFleet,
        fc.constantFrom(...FIGURES),
        fc.constantFrom(...GROUPINGS),
        fc.integer({ min: -1_000_000, max: 60_000_000 }),
        fc.integer({ min: 0, max: 60_000_000 }),
        fc.nat(20_000_000),
        (fleet, figure, groupBy, a, length, ahead) => {
          const last = Math.max(T0, ...fleet.map((tl) => transitionsOf(tl)[transitionsOf(tl).length - 1]!.at));
          const horizon = last + ahead;
          // Now and then a window that begins or ends on an event (a JobSet ended at `from`, created at `to`).
          const edges = fleet.flatMap((tl) => transitionsOf(tl).map((t) => t.at));
          const from = edges.length > 0 && a % 3 === 0 ? edges[Math.abs(a) % edges.length]! : T0 + a;
          const to = edges.length > 0 && length % 5 === 0 ? Math.max(from, edges[(length >> 3) % edges.length]!) : from + length;
          const together = fleetFigureAggregates(fleet, horizon, from, to, figure, groupBy, HOWS);
          HOWS.forEach((how, i) => {
            const alone = fleetFigure(fleet, horizon, from, to, figure, groupBy, how);
            expect(together.map((g) => ({ key: g.key, labels: g.labels, count: g.count, value: g.values[i] }))).toEqual(alone);
          });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('answers a group whose JobSets did not live in the window with nulls, and a sum of counts with 0', () => {
    const tl: Timeline = {
      uid: 'u',
      namespace: 'ns',
      name: 'js',
      labels: {},
      accelerator: null,
      topology: null,
      createdAt: T0,
      transitions: [
        { at: T0, state: 'provisioning' },
        { at: T0 + 1000, state: 'up' },
        { at: T0 + 5000, state: 'completed' },
      ],
    };
    // The window begins after it ended: it is in its group, but not in the window's aggregate.
    const [group] = fleetFigureAggregates([tl], T0 + 10_000, T0 + 6000, T0 + 9000, 'interruptions', 'namespace', ['max', 'sum', 'p50']);
    expect(group).toEqual({ key: 'ns', labels: { namespace: 'ns' }, count: 1, values: [null, 0, null] });
  });
});
