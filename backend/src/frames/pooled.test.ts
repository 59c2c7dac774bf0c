// Pooled queries answered from the fleet index give the frames the per-JobSet path gives, on a
// simulated fleet, for every figure, window and grouping the index serves (numbers to 1e-12: a mean
// time to first up is summed in another order). And the index did answer them.

import { ADDITIVE_FIGURES } from '../series/figures.ts';
import { FleetIndex } from '../series/fleet-index.ts';
import { FIGURES } from '../query/types.ts';
import { simulateFleet } from '../sources/simulator/index.ts';
import { TimelineEngine } from '../timeline/engine.ts';
import { runQueries } from './run-request.ts';
import { expectSame } from '../../../test/support/same-numbers.ts';

const HOUR = 3_600_000;

function fleetOf(cluster: string | undefined, seed: number) {
  const fleet = simulateFleet({ jobsets: 30, days: 2, seed });
  const engine = new TimelineEngine(cluster === undefined ? {} : { cluster });
  const index = new FleetIndex();
  engine.subscribe(index);
  for (const o of fleet.observations()) engine.observe(o);
  return { fleet, engine, index, horizon: engine.horizon! };
}

describe('pooled queries from the fleet index', () => {
  const { fleet, engine, index, horizon } = fleetOf('east', 11);
  const namespaces = [...new Set(engine.timelines().map((tl) => tl.namespace))].sort();
  const ranges: [string, number, number][] = [
    ['the whole fleet', fleet.start, horizon],
    ['a range inside it', fleet.start + 5 * HOUR + 17_000, horizon - 3 * HOUR],
    ['a range past the horizon', fleet.start + 30 * HOUR, horizon + 24 * HOUR],
  ];

  it.each(ranges)('equal the per-JobSet path: %s', (_name, from, to) => {
    const window = jest.spyOn(index, 'window');
    let compared = 0;
    for (const groupBy of ['all', 'namespace', 'cluster']) {
      for (const filter of [[], namespaces.slice(0, 2)]) {
        const queries = [
          ...FIGURES.flatMap((metric) =>
            (['step', 'rolling', 'cumulative', 'range'] as const).map((w, i) => ({ refId: `${metric}-${w}`, queryType: 'series', metric, window: w, rolling: `${5 + i}h`, groupBy, namespaces: filter, aggregate: 'pooled' })),
          ),
          // A sum of additive figures is the figure of the summed totals: the index answers it too.
          ...ADDITIVE_FIGURES.map((metric) => ({ refId: `${metric}-sum`, queryType: 'series', metric, window: 'step', groupBy, namespaces: filter, aggregate: 'sum' })),
          { refId: 'summary', queryType: 'summary', groupBy, namespaces: filter, aggregate: 'pooled' },
          { refId: 'summary-sum', queryType: 'summary', groupBy, namespaces: filter, aggregate: 'sum', figures: ['upSeconds', 'interruptions'] },
        ];
        // A request holds at most 100 queries: ask in batches.
        for (let b = 0; b < queries.length; b += 100) {
          const batch = queries.slice(b, b + 100);
          const body = { from: String(from), to: String(to), queries: batch.map((q) => ({ ...q, intervalMs: HOUR, maxDataPoints: 300 })) };
          const fast = runQueries(body, { timelines: engine.timelines(), horizon, index }, horizon);
          const slow = runQueries(body, { timelines: engine.timelines(), horizon, index: null }, horizon);
          expect(fast.status).toBe(200);
          for (const q of batch) {
            expect(fast.results[q.refId]!.frames!.length).toBeGreaterThan(0);
            expectSame(fast.results[q.refId], slow.results[q.refId], q.refId);
            compared++;
          }
        }
      }
    }
    expect(compared).toBe(3 * 2 * (FIGURES.length * 4 + ADDITIVE_FIGURES.length + 2));
    expect(window).toHaveBeenCalled();
    window.mockRestore();
  });

  it('works out the windows of one selection once per request, whatever figures its queries read', () => {
    const windows = jest.spyOn(index, 'windows');
    const figures = ['upSeconds', 'queuedSeconds', 'provisioningSeconds', 'interruptionDowntimeSeconds', 'unknownSeconds', 'uptimeRatio'];
    const query = (metric: string, i: number) => ({ refId: `q${i}`, queryType: 'series', metric, window: 'step', groupBy: 'namespace', aggregate: 'pooled', intervalMs: HOUR, maxDataPoints: 300 });
    const together = runQueries({ from: String(fleet.start), to: String(horizon), queries: figures.map(query) }, { timelines: engine.timelines(), horizon, index }, horizon);
    // Each group's windows once (a group is read by each of the six figures), besides the counts of JobSets.
    const groups = together.results.q0!.frames!.length;
    expect(windows.mock.calls.filter(([, , times]) => times.length > 2)).toHaveLength(groups);
    // And each answer is the one it gets asked alone.
    figures.forEach((metric, i) => {
      const alone = runQueries({ from: String(fleet.start), to: String(horizon), queries: [query(metric, i)] }, { timelines: engine.timelines(), horizon, index }, horizon);
      expect(JSON.stringify(together.results[`q${i}`])).toBe(JSON.stringify(alone.results[`q${i}`]));
    });
    windows.mockRestore();
  });

  it('leaves to the per-JobSet path what selects single JobSets or needs each one', () => {
    const window = jest.spyOn(index, 'window');
    const body = {
      from: String(fleet.start),
      to: String(horizon),
      queries: [
        { refId: 'A', queryType: 'summary', groupBy: 'all', aggregate: 'pooled', name: 'llama*' },
        { refId: 'B', queryType: 'summary', groupBy: 'all', aggregate: 'mean' },
        { refId: 'C', queryType: 'series', groupBy: 'label:team', aggregate: 'pooled' },
        { refId: 'D', queryType: 'summary', groupBy: 'all', aggregate: 'pooled', states: ['up'] },
        { refId: 'E', queryType: 'series', metric: 'uptimeRatio', groupBy: 'all', aggregate: 'sum' },
        { refId: 'F', queryType: 'summary', groupBy: 'all', aggregate: 'sum' },
      ],
    };
    const fast = runQueries(body, { timelines: engine.timelines(), horizon, index }, horizon);
    const slow = runQueries(body, { timelines: engine.timelines(), horizon, index: null }, horizon);
    expectSame(fast, slow);
    expect(window).not.toHaveBeenCalled();
    window.mockRestore();
  });
});
