// The node layer listed in the JobSet layer's order, and one name's node layers found without
// listing the whole layer (the JobSet page's node-layer panel): the same answers as a plain scan of
// the layer, for every name of a simulated cluster.

import { runQueries, type Observed, type QueryResult } from '../frames/run-request.ts';
import { LiveSimulation } from '../runtime/live-simulation.ts';
import { byNamespaceNameUid, isMarkedSorted } from '../timeline/order.ts';
import type { Timeline } from '../timeline/types.ts';
import { min, Scenario } from '../../../test/support/scenario.ts';
import { ClusterEngine } from './engine.ts';

const HOUR = 3_600_000;
const WALL = Date.UTC(2026, 2, 1);

function cluster(seed: number): ClusterEngine {
  const engine = new ClusterEngine();
  new LiveSimulation(engine, { jobsets: 24, historyDays: 1, seed, profile: 'demo', nodes: true, now: () => WALL }).advance();
  return engine;
}

/** The layer as a plain list, not known sorted: every selection scans it (the path before named()). */
function scanned(engine: ClusterEngine): Observed {
  const horizon = engine.nodeHorizon!;
  return { timelines: engine.timelines(), horizon, nodes: { timelines: [...engine.nodeTimelines()], horizon } };
}

/** The layer as the service serves it, except that listing it whole fails: a named query must not. */
function namedOnly(engine: ClusterEngine): Observed {
  const horizon = engine.nodeHorizon!;
  return {
    timelines: engine.timelines(),
    horizon,
    nodes: {
      get timelines(): readonly Timeline[] {
        throw new Error('the whole node layer was listed');
      },
      horizon,
      named: (name) => engine.nodeTimelinesNamed(name),
    },
  };
}

describe('the node layer of a simulated cluster', () => {
  it.each([3, 8])('is listed sorted, one timeline per JobSet that has one (seed %i)', (seed) => {
    const engine = cluster(seed);
    const list = engine.nodeTimelines();
    expect(isMarkedSorted(list)).toBe(true);
    expect([...list].sort(byNamespaceNameUid)).toEqual(list);
    const expected = engine.timelines().flatMap((tl) => engine.nodeLayer.timeline(tl.uid) ?? []);
    expect(list.map((tl) => tl.uid)).toEqual(expected.map((tl) => tl.uid));
    expect(list.length).toBeGreaterThan(24);
  });

  it('is listed sorted when few JobSets keep one (listed from those, not from every JobSet), as the JobSet layer orders them', () => {
    // A fleet of JobSets alone restored without node layers (a trace's data dir), then a few JobSets seen: only those keep one.
    const first = new ClusterEngine();
    const job = (k: number): Scenario => new Scenario({ uid: `${(k * 7919) % 97}-u${k}`, name: `js-${k % 5}`, namespace: `ns-${k % 3}` }, min(k)).created().up(min(k + 1));
    const done = Array.from({ length: 80 }, (_, k) => job(k).at(min(100 + k), { completedAt: min(100 + k) }));
    for (const o of done.flatMap((s) => s.observations).sort((a, b) => a.receivedAt - b.receivedAt)) first.observe(o);
    const engine = new ClusterEngine();
    engine.restore([...first.machines()], min(200));
    engine.restoreNodeLayer([], min(200));
    for (const o of [80, 81, 82].flatMap((k) => new Scenario({ uid: `${k}-u${k}`, name: `js-${k % 5}`, namespace: `ns-${k % 3}` }, min(300 + k)).created().observations)) engine.observe(o);
    const list = engine.nodeTimelines();
    expect(list.length).toBeGreaterThan(0);
    expect(list.length * 16).toBeLessThan(engine.timelines().length);
    expect(isMarkedSorted(list)).toBe(true);
    const expected = engine.timelines().flatMap((tl) => engine.nodeLayer.timeline(tl.uid) ?? []);
    expect(list.map((tl) => tl.uid)).toEqual(expected.map((tl) => tl.uid));
  });

  it.each([3, 8])('answers one name from its bearers alone, as a scan of the whole layer does (seed %i)', (seed) => {
    const engine = cluster(seed);
    const names = [...new Set(engine.timelines().map((tl) => tl.name))];
    const horizon = engine.nodeHorizon!;
    const queries = [...names, 'no-such-jobset'].flatMap((name, i) => [
      { refId: `s${i}`, layer: 'nodes', name, queryType: 'series', metric: 'uptimeRatio', window: 'rolling', rolling: '24h' },
      { refId: `t${i}`, layer: 'nodes', name, queryType: 'summary', ...(i % 2 === 0 ? { namespaces: [engine.timelines()[0]!.namespace] } : {}) },
      { refId: `e${i}`, layer: 'nodes', name, queryType: 'series', metric: 'interruptions', window: 'step' },
    ]);
    const ask = (observed: Observed): QueryResult[] => {
      const answers: QueryResult[] = [];
      // A request holds at most 100 queries.
      for (let b = 0; b < queries.length; b += 90) {
        const batch = queries.slice(b, b + 90).map((q) => ({ ...q, intervalMs: HOUR, maxDataPoints: 100 }));
        const { results } = runQueries({ from: String(horizon - 24 * HOUR), to: String(horizon), queries: batch }, observed, horizon);
        for (const q of batch) answers.push(results[q.refId]!);
      }
      return answers;
    };
    // Both before the whole layer was ever listed (the bearers made from the JobSet layer) and after (read from that list).
    const before = ask(namedOnly(cluster(seed)));
    const reference = ask(scanned(engine));
    const after = ask(namedOnly(engine));
    let rows = 0;
    reference.forEach((answer, i) => {
      expect(answer.status).toBe(200);
      expect(JSON.stringify(before[i])).toBe(JSON.stringify(answer));
      expect(JSON.stringify(after[i])).toBe(JSON.stringify(answer));
      rows += answer.frames!.length;
    });
    expect(rows).toBeGreaterThan(names.length);
  });

  it('finds a name borne in several namespaces, in their order, whatever order they were seen in', () => {
    const engine = new ClusterEngine();
    const shapes = [
      { uid: 'u3', namespace: 'zeta', name: 'train' },
      { uid: 'u2', namespace: 'beta', name: 'train' },
      { uid: 'u1', namespace: 'beta', name: 'eval' },
      { uid: 'u0', namespace: 'alpha', name: 'train' },
    ];
    const observations = shapes.flatMap((shape, i) => new Scenario(shape, min(i)).created().up(min(10 + i)).observations);
    for (const o of observations.sort((a, b) => a.receivedAt - b.receivedAt)) engine.observe(o);
    expect(engine.nodeTimelinesNamed('train').map((tl) => `${tl.namespace}/${tl.uid}`)).toEqual(['alpha/u0', 'beta/u2', 'zeta/u3']);
    const whole = engine.nodeTimelines();
    expect(whole.map((tl) => tl.uid)).toEqual(['u0', 'u1', 'u2', 'u3']);
    // Now read from the whole layer's list, kept while it is held: the very same timelines.
    expect(engine.nodeTimelinesNamed('train')).toEqual([whole[0], whole[2], whole[3]]);
    expect(engine.nodeTimelinesNamed('nothing')).toEqual([]);
  });
});
