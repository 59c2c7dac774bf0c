// The node pools' pooled figures (the node pools dashboard's stats and gauges, for All) are answered
// from the pools' own fleet index, which follows the pool layer as it grows and forgets, with the
// answer that visiting each pool gives (numbers to 1e-12 relative, as selections.test.ts allows).

import { ClusterEngine } from '../nodes/engine.ts';
import { EngineView } from '../runtime/served-view.ts';
import { simulateFleet } from '../sources/simulator/index.ts';
import { lastState, TERMINAL_STATES } from '../timeline/types.ts';
import { runQueries, type Observed } from './run-request.ts';
import { expectSame } from '../../../test/support/same-numbers.ts';

const HOUR = 3_600_000;

type Query = { refId: string } & Record<string, unknown>;

function queries(): Query[] {
  const out: Record<string, unknown>[] = [];
  for (const aggregate of ['pooled', 'sum']) {
    for (const metric of ['uptimeRatio', 'interruptions', 'recoveries', 'downSeconds', 'interruptionDowntimeSeconds', 'provisioningSeconds', 'mttrSeconds', 'mtbiSeconds']) {
      for (const window of ['step', 'rolling', 'range']) out.push({ queryType: 'series', metric, groupBy: 'all', aggregate, window, rolling: '6h' });
    }
    out.push({ queryType: 'summary', groupBy: 'all', aggregate });
    out.push({ queryType: 'summary', groupBy: 'all', aggregate, figures: ['interruptions', 'recoveries'] });
  }
  for (const sloAnswer of ['sli', 'errorBudget', 'burnRate']) out.push({ queryType: 'slo', sloAnswer, groupBy: 'all', window: 'step', period: '1d', burnWindow: '1h' });
  // `*` (the dashboard's All) is no filter: the index answers it too.
  out.push({ queryType: 'summary', groupBy: 'all', aggregate: 'pooled', name: '*' });
  return out.map((q, i): Query => ({ ...q, layer: 'nodepools', refId: `q${i}` }));
}

function ask(observed: Observed, all: Query[], from: number, to: number, now: number): unknown[] {
  const batch = all.map((q) => ({ ...q, intervalMs: HOUR, maxDataPoints: 200 }));
  const { results } = runQueries({ from: String(from), to: String(to), queries: batch }, observed, now);
  return batch.map((q) => results[q.refId]);
}

describe("the node pools' fleet index", () => {
  it.each([3, 8])('answers pooled pool figures as visiting each pool does, while the pools grow and are forgotten (seed %i)', (seed) => {
    const fleet = simulateFleet({ jobsets: 24, days: 2, seed, nodes: true });
    const engine = new ClusterEngine();
    // Subscribed before anything is observed: the index follows every transition as it comes.
    const view = new EngineView('simulator', engine, false);
    const observations = [...fleet.observations()];
    const all = queries();
    const compare = (): void => {
      const horizon = engine.nodeHorizon!;
      const pools = view.poolLayer(horizon)!;
      expect(pools.index).toBeDefined();
      expect(pools.timelines.length).toBeGreaterThan(5);
      const withIndex: Observed = { timelines: engine.timelines(), horizon: engine.horizon!, pools };
      const perPool: Observed = { timelines: engine.timelines(), horizon: engine.horizon!, pools: { timelines: pools.timelines, horizon: pools.horizon } };
      for (const [from, to] of [
        [fleet.start, horizon],
        [fleet.start + 5 * HOUR + 17_000, horizon - 3 * HOUR],
      ] as const) {
        const reference = ask(perPool, all, from, to, horizon);
        expect(reference.every((r) => (r as { status: number }).status === 200)).toBe(true);
        const answers = ask(withIndex, all, from, to, horizon);
        answers.forEach((answer, i) => expectSame(answer, reference[i], all[i]!.refId));
      }
    };
    for (const o of observations.slice(0, observations.length / 2)) engine.observe(o);
    compare();
    for (const o of observations.slice(observations.length / 2)) engine.observe(o);
    compare();
    // Retention drops ended pools: the index forgets them with the layer.
    const ended = engine.poolTimelines().filter((tl) => TERMINAL_STATES.has(lastState(tl)!));
    expect(ended.length).toBeGreaterThan(0);
    engine.poolLayer.forget(ended.slice(0, Math.ceil(ended.length / 2)).map((tl) => tl.uid));
    compare();
  });

  it('is what answers: a pooled series of every pool at a fine step is costed by the one group, not refused for the pools behind it', () => {
    const fleet = simulateFleet({ jobsets: 24, days: 2, seed: 3, nodes: true });
    const engine = new ClusterEngine();
    const view = new EngineView('simulator', engine, false);
    for (const o of fleet.observations()) engine.observe(o);
    const horizon = engine.nodeHorizon!;
    const pools = view.poolLayer(horizon)!;
    const points = 11_000;
    expect(pools.timelines.length * points).toBeGreaterThan(1_000_000);
    const body = {
      from: String(fleet.start),
      to: String(horizon),
      queries: [{ refId: 'A', layer: 'nodepools', queryType: 'series', metric: 'uptimeRatio', window: 'rolling', rolling: '24h', intervalMs: 1000, maxDataPoints: points, groupBy: 'all', aggregate: 'pooled' }],
    };
    const observed = (withIndex: boolean): Observed => ({ timelines: engine.timelines(), horizon: engine.horizon!, pools: withIndex ? pools : { timelines: pools.timelines, horizon: pools.horizon } });
    expect(runQueries(body, observed(true), horizon).results.A!.status).toBe(200);
    expect(runQueries(body, observed(false), horizon).results.A).toEqual({ status: 400, error: expect.stringMatching(/^queries\[0\]\.maxDataPoints: the query would work out [\d,]+ values/) });
  });
});
