// A name pattern, a label selector or a grouping by a label's value is answered from the fleet
// index of that selection (series/selection-indexes.ts) with the answer the per-JobSet path gives
// (numbers to 1e-12 relative: seconds and means are summed in another order, as pooled.test.ts
// allows for whole namespaces); it is costed by the groups it answers; and a relabeled JobSet moves
// to its new group.

import { FleetIndex } from '../series/fleet-index.ts';
import { SelectionIndexes } from '../series/selection-indexes.ts';
import { simulateFleet } from '../sources/simulator/index.ts';
import { TimelineEngine } from '../timeline/engine.ts';
import { transitionsOf, type Timeline } from '../timeline/types.ts';
import { runQueries, type Observed } from './run-request.ts';
import { expectSame } from '../../../test/support/same-numbers.ts';

const HOUR = 3_600_000;

type KubeObject = { kind?: string; metadata: { uid: string; labels: Record<string, string> } } & Record<string, unknown>;

function served(seed: number): {
  engine: TimelineEngine;
  withIndexes: () => Observed;
  perJobSet: () => Observed;
  selections: SelectionIndexes;
  start: number;
  lastObject: (uid: string) => KubeObject;
} {
  const fleet = simulateFleet({ jobsets: 30, days: 2, seed });
  const engine = new TimelineEngine({});
  const index = new FleetIndex();
  const selections = new SelectionIndexes(() => engine.timelines());
  engine.subscribe(index);
  engine.subscribe(selections);
  // The object the engine last saw of each JobSet, to observe it again with other labels.
  const last = new Map<string, KubeObject>();
  for (const o of fleet.observations()) {
    engine.observe(o);
    const object = o.object as unknown as KubeObject;
    if (object.kind === 'JobSet') last.set(object.metadata.uid, object);
  }
  return {
    engine,
    lastObject: (uid) => last.get(uid)!,
    selections,
    start: fleet.start,
    withIndexes: () => ({ timelines: engine.timelines(), horizon: engine.horizon!, index, selections }),
    perJobSet: () => ({ timelines: engine.timelines(), horizon: engine.horizon! }),
  };
}

type Query = { refId: string } & Record<string, unknown>;

const SELECTIONS: Record<string, unknown>[] = [
  { name: 'gemma2-9b-*' },
  { name: '/^vit-l16-(pretrain|sft)-.*$/' },
  { name: 'vit-l16-bench-6tse-2' },
  { labelSelector: 'ml.example.com/team=research' },
  { labelSelector: 'ml.example.com/task in (bench,sft),ml.example.com/team!=team-b' },
  { name: 'gemma2-*', labelSelector: 'ml.example.com/task=ablation' },
  { name: 'no-such-jobset-*' },
  {},
];

function queries(): Query[] {
  const out: Record<string, unknown>[] = [];
  for (const selection of SELECTIONS) {
    for (const groupBy of ['all', 'namespace', 'label:ml.example.com/team', 'label:no.such/label', 'queue']) {
      for (const aggregate of ['pooled', 'sum']) {
        for (const metric of ['uptimeRatio', 'interruptions', 'downSeconds', 'mttrSeconds', 'schedulingGoodput']) {
          for (const window of ['step', 'rolling', 'range']) out.push({ ...selection, queryType: 'series', metric, groupBy, aggregate, window, rolling: '6h' });
        }
        out.push({ ...selection, queryType: 'summary', groupBy, aggregate });
      }
      for (const sloAnswer of ['sli', 'errorBudget', 'burnRate']) out.push({ ...selection, queryType: 'slo', sloAnswer, groupBy, window: 'step', period: '1d', burnWindow: '1h' });
    }
  }
  return out.map((q, i): Query => ({ ...q, refId: `q${i}`, ...(i % 3 === 0 ? { namespaces: ['team-a', 'research'] } : {}) }));
}

function run(observed: Observed, all: Query[], from: number, to: number, now: number): string[] {
  const answers: string[] = [];
  for (let b = 0; b < all.length; b += 100) {
    const batch = all.slice(b, b + 100).map((q) => ({ ...q, intervalMs: HOUR, maxDataPoints: 200 }));
    const { results } = runQueries({ from: String(from), to: String(to), queries: batch }, observed, now);
    for (const q of batch) answers.push(JSON.stringify(results[q.refId]));
  }
  return answers;
}

describe('a selection', () => {
  it.each([7, 11])('is answered from its own index as the per-JobSet path answers it (seed %i)', (seed) => {
    const { engine, withIndexes, perJobSet, selections, start } = served(seed);
    const all = queries();
    const horizon = engine.horizon!;
    for (const [from, to] of [
      [start, horizon],
      [start + 5 * HOUR + 17_000, horizon - 3 * HOUR],
    ] as const) {
      const reference = run(perJobSet(), all, from, to, horizon);
      expect(reference.filter((a) => a.startsWith('{"status":200')).length).toBeGreaterThan(all.length * 0.9);
      const answers = run(withIndexes(), all, from, to, horizon);
      answers.forEach((answer, i) => expectSame(JSON.parse(answer), JSON.parse(reference[i]!), all[i]!.refId));
    }
    // One index per distinct selection (a name and labels, and the label grouped by: none, a team,
    // a label no JobSet has, the queue), less the whole fleet ungrouped (the service's own index)
    // and the one JobSet name (answered JobSet by JobSet), each built once for both ranges.
    const distinct = (SELECTIONS.length - 1) * 4 - 1;
    expect(selections.counts()).toEqual({ kept: distinct, built: distinct });
  });

  it('is costed by the groups it answers, not by the JobSets behind them', () => {
    const { engine, withIndexes, perJobSet, start } = served(7);
    const horizon = engine.horizon!;
    const points = 11_000;
    expect(engine.timelines().length * points).toBeGreaterThan(1_000_000);
    const body = {
      from: String(start),
      to: String(horizon),
      queries: [{ refId: 'A', queryType: 'series', metric: 'uptimeRatio', window: 'rolling', rolling: '24h', intervalMs: 1000, maxDataPoints: points, groupBy: 'label:ml.example.com/team', aggregate: 'pooled', labelSelector: 'ml.example.com/team' }],
    };
    const pooled = runQueries(body, withIndexes(), horizon).results.A!;
    expect(pooled.status).toBe(200);
    expect(pooled.frames!.length).toBe(new Set(engine.timelines().map((tl) => tl.labels['ml.example.com/team'])).size);
    // Without the indexes the same question is worked out JobSet by JobSet, and refused for it.
    expect(runQueries(body, perJobSet(), horizon).results.A).toEqual({ status: 400, error: expect.stringMatching(/^queries\[0\]\.maxDataPoints: the query would work out [\d,]+ values/) });
  });

  it('follows a JobSet whose labels change', () => {
    const { engine, withIndexes, perJobSet, selections, start, lastObject } = served(7);
    const horizon = engine.horizon!;
    const ask = (observed: Observed): string =>
      JSON.stringify(
        runQueries(
          { from: String(start), to: String(horizon), queries: [{ refId: 'A', queryType: 'summary', groupBy: 'label:ml.example.com/team', aggregate: 'pooled', labelSelector: 'ml.example.com/team' }] },
          observed,
          horizon,
        ).results.A,
      );
    const before = ask(withIndexes());
    expect(selections.counts().kept).toBe(1);
    // The newest open JobSet moves to another team: its object, observed again with the new label.
    const open = engine.timelines().find((tl: Timeline) => tl.labels['ml.example.com/team'] === 'research' && transitionsOf(tl).at(-1)!.state === 'up')!;
    expect(open).toBeDefined();
    const object = structuredClone(lastObject(open.uid));
    object.metadata.labels['ml.example.com/team'] = 'team-moved';
    engine.observe({ receivedAt: horizon, type: 'MODIFIED', object: object as never });
    expect(selections.counts().kept).toBe(0);
    const after = ask(withIndexes());
    expect(after).not.toEqual(before);
    expect(after).toContain('team-moved');
    expectSame(JSON.parse(after), JSON.parse(ask(perJobSet())));
  });
});

describe('goodput inputs that change', () => {
  it('an open JobSet given a checkpoint interval: the fleet and selection indexes answer as the per-JobSet path', () => {
    const { engine, withIndexes, perJobSet, start, lastObject } = served(7);
    const horizon = engine.horizon!;
    const ask = (observed: Observed, selection: Record<string, unknown>): string =>
      JSON.stringify(
        runQueries(
          { from: String(start), to: String(horizon), queries: [{ refId: 'A', queryType: 'series', metric: 'estimatedEffectiveTrainingRatio', groupBy: 'namespace', aggregate: 'pooled', window: 'range', ...selection }] },
          observed,
          horizon,
        ).results.A,
      );
    const open = engine.timelines().find((tl: Timeline) => (tl.checkpointIntervalMs ?? null) === null && transitionsOf(tl).length > 3 && transitionsOf(tl).at(-1)!.state === 'up')!;
    expect(open).toBeDefined();
    const selection = { name: `${open.name.slice(0, 3)}*` };
    // Sums taken with no interval first: the whole namespace, and a selection's index.
    const before = [ask(withIndexes(), {}), ask(withIndexes(), selection)];
    const object = structuredClone(lastObject(open.uid)) as KubeObject & { metadata: { annotations?: Record<string, string> } };
    object.metadata.annotations = { ...object.metadata.annotations, 'upness.dev/checkpoint-interval': '30m' };
    engine.observe({ receivedAt: horizon, type: 'MODIFIED', object: object as never });
    expect(open.checkpointIntervalMs).toBe(30 * 60_000);
    const after = [ask(withIndexes(), {}), ask(withIndexes(), selection)];
    expect(after).not.toEqual(before);
    expectSame(JSON.parse(after[0]!), JSON.parse(ask(perJobSet(), {})));
    expectSame(JSON.parse(after[1]!), JSON.parse(ask(perJobSet(), selection)));
  });
});

describe('the selection indexes', () => {
  const timelines: Timeline[] = [];
  const scope = () => ({});

  it('keep at most `max`, dropping the least recently used', () => {
    const indexes = new SelectionIndexes(() => timelines, { max: 2, idleMs: 1_000 });
    const a = indexes.get('a', scope, 0);
    indexes.get('b', scope, 1);
    expect(indexes.get('a', scope, 2)).toBe(a);
    indexes.get('c', scope, 3); // drops b, the least recently used
    expect(indexes.counts()).toEqual({ kept: 2, built: 3 });
    expect(indexes.get('a', scope, 4)).toBe(a);
    indexes.get('b', scope, 5);
    expect(indexes.counts()).toEqual({ kept: 2, built: 4 });
  });

  it('hold together at most about one fleet of events, however many selections are asked', () => {
    const { engine } = served(7);
    const fleetEvents = engine.timelines().reduce((n, tl) => n + transitionsOf(tl).length, 0);
    const indexes = new SelectionIndexes(() => engine.timelines(), { max: 32, idleMs: 60_000, minEvents: 0 });
    const everyJobSet = () => ({ accepts: () => true });
    // Each selects every JobSet: the second pushes the first out.
    const first = indexes.get('all-1', everyJobSet, 0);
    expect(first.events()).toBe(fleetEvents);
    indexes.get('all-2', everyJobSet, 1);
    expect(indexes.counts()).toEqual({ kept: 1, built: 2 });
    // Halves of the fleet fit two at a time.
    const half = (parity: number) => () => ({ accepts: (tl: Timeline) => engine.timelines().indexOf(tl) % 2 === parity });
    indexes.get('even', half(0), 2);
    indexes.get('odd', half(1), 3);
    expect(indexes.counts().kept).toBe(2);
  });

  it('drop one not asked for `idleMs`', () => {
    const indexes = new SelectionIndexes(() => timelines, { max: 8, idleMs: 1_000 });
    const a = indexes.get('a', scope, 0);
    expect(indexes.get('a', scope, 1_000)).toBe(a);
    indexes.get('b', scope, 2_001);
    expect(indexes.counts()).toEqual({ kept: 1, built: 2 });
    expect(indexes.get('a', scope, 2_002)).not.toBe(a);
  });
});
