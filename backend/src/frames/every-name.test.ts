// `name: "*"` (what a dashboard variable's All sends) is no name filter: every query answers with
// exactly the frames it gives without a name, takes the same path (the fleet index for pooled
// groups) and is costed by the work that path does, so a pooled answer over a large fleet is not
// refused for the JobSets behind it.

import { FleetIndex } from '../series/fleet-index.ts';
import { simulateFleet } from '../sources/simulator/index.ts';
import { TimelineEngine } from '../timeline/engine.ts';
import { runQueries } from './run-request.ts';

const HOUR = 3_600_000;

const fleet = simulateFleet({ jobsets: 30, days: 2, seed: 7 });
const engine = new TimelineEngine({});
const index = new FleetIndex();
engine.subscribe(index);
for (const o of fleet.observations()) engine.observe(o);
const horizon = engine.horizon!;
const observed = { timelines: engine.timelines(), horizon, index };

/** Every query type, in the groupings and windows dashboards use, with and without the fleet index. */
type Query = { refId: string } & Record<string, unknown>;

function queries(): Query[] {
  const out: Record<string, unknown>[] = [];
  for (const groupBy of ['none', 'all', 'namespace', 'label:ml.example.com/team']) {
    for (const aggregate of ['pooled', 'sum', 'mean']) {
      for (const metric of ['up', 'uptimeRatio', 'interruptions', 'estimatedEffectiveTrainingRatio']) {
        for (const window of ['step', 'rolling', 'range']) out.push({ queryType: 'series', metric, groupBy, aggregate, window, rolling: '6h' });
      }
      out.push({ queryType: 'summary', groupBy, aggregate });
    }
    out.push({ queryType: 'fleet', metric: 'mttrSeconds', groupBy });
    for (const sloAnswer of ['sli', 'errorBudget', 'burnRate', 'budgetConsumed', 'alert']) {
      for (const window of ['step', 'range']) out.push({ queryType: 'slo', sloAnswer, groupBy, window, period: '1d', burnWindow: '1h' });
    }
  }
  out.push({ queryType: 'states', groupBy: 'none' }, { queryType: 'events' }, { queryType: 'events', groupBy: 'cause' });
  return out.map((q, i): Query => ({ ...q, refId: `q${i}`, namespaces: i % 2 === 0 ? [] : ['team-a', 'research'] }));
}

function run(all: Query[], name: string | undefined, from: number, to: number): string[] {
  const answers: string[] = [];
  for (let b = 0; b < all.length; b += 100) {
    const batch = all.slice(b, b + 100).map((q) => ({ ...q, ...(name === undefined ? {} : { name }), intervalMs: HOUR, maxDataPoints: 200 }));
    const { results } = runQueries({ from: String(from), to: String(to), queries: batch }, observed, horizon);
    for (const q of batch) answers.push(JSON.stringify(results[q.refId]));
  }
  return answers;
}

describe('name "*"', () => {
  it.each([
    ['the whole fleet', fleet.start, horizon],
    ['a range inside it', fleet.start + 5 * HOUR + 17_000, horizon - 3 * HOUR],
  ])('answers every query as no name does, byte for byte: %s', (_what, from, to) => {
    const all = queries();
    const without = run(all, undefined, from, to);
    expect(without.filter((a) => a.startsWith('{"status":200')).length).toBeGreaterThan(all.length * 0.9);
    expect(run(all, '*', from, to)).toEqual(without);
    expect(run(all, '', from, to)).toEqual(without);
  });

  it('is answered by the fleet index when it groups whole namespaces', () => {
    const window = jest.spyOn(index, 'windows');
    const query = { refId: 'A', queryType: 'series', metric: 'uptimeRatio', groupBy: 'namespace', aggregate: 'pooled', window: 'rolling', rolling: '24h', name: '*' };
    const { results } = runQueries({ from: String(fleet.start), to: String(horizon), queries: [query] }, observed, horizon);
    expect(results.A!.status).toBe(200);
    expect(window).toHaveBeenCalled();
    window.mockRestore();
  });

  it('is costed by the groups the fleet index answers, not by the JobSets behind them', () => {
    // 11,000 points over the fleet's JobSets would be more than a query may work out one JobSet
    // at a time; pooled by namespace from the index, it is a few series of 11,000 points.
    const points = 11_000;
    expect(engine.timelines().length * points).toBeGreaterThan(1_000_000);
    const base = { queryType: 'series', metric: 'uptimeRatio', window: 'rolling', rolling: '24h', intervalMs: 1000, maxDataPoints: points };
    const body = (name: string | undefined, groupBy: string) => ({
      from: String(fleet.start),
      to: String(horizon),
      queries: [{ refId: 'A', ...base, groupBy, aggregate: 'pooled', ...(name === undefined ? {} : { name }) }],
    });
    const star = runQueries(body('*', 'namespace'), observed, horizon).results.A!;
    expect(star.status).toBe(200);
    expect(star).toEqual(runQueries(body(undefined, 'namespace'), observed, horizon).results.A);
    // The per-JobSet path still counts its JobSets: a grouping the index cannot answer is refused.
    const byLabel = runQueries(body('*', 'label:ml.example.com/team'), observed, horizon).results.A!;
    expect(byLabel).toEqual({ status: 400, error: expect.stringMatching(/^queries\[0\]\.maxDataPoints: the query would work out [\d,]+ values \([\d,]+ JobSets × /) });
  });
});
