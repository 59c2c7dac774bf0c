// `slo` queries through the query stage as the API runs them (issue 13 section 1): the frames'
// shape, the 400s that name their field, the notice for a burn factor that can never fire, the
// objective a JobSet name's label sets, and the figures on a simulated fleet against the
// simulator's truth computed the naive way (test/support/arbitraries.ts's oracle).

import { oracle } from '../../../../test/support/arbitraries.ts';
import { min } from '../../../../test/support/scenario.ts';
import { FleetIndex } from '../../series/fleet-index.ts';
import { simulateFleet } from '../../sources/simulator/index.ts';
import { TimelineEngine } from '../../timeline/engine.ts';
import type { State, Timeline } from '../../timeline/types.ts';
import type { FrameJSON } from '../frame.ts';
import { runQueries, type Observed } from '../run-request.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

function timeline(uid: string, name: string, labels: Record<string, string>, ...steps: [number, State][]): Timeline {
  return { uid, namespace: 'ns', name, labels, accelerator: null, topology: null, createdAt: min(steps[0]![0]), transitions: steps.map(([m, state]) => ({ at: min(m), state })) };
}

function run(observed: Observed, query: Record<string, unknown>, from = min(0), to = min(24 * 60)): { status: number; frames?: FrameJSON[]; error?: string } {
  return runQueries({ from: String(from), to: String(to), queries: [{ refId: 'A', queryType: 'slo', ...query }] }, observed, observed.horizon).results.A!;
}

/** Each frame's labels and its fields' last values. */
function last(frames: readonly FrameJSON[]): { labels: Record<string, string>; values: Record<string, unknown> }[] {
  return frames.map((f) => ({
    labels: f.schema.fields[1]?.labels ?? {},
    values: Object.fromEntries(f.schema.fields.slice(1).map((field, i) => [field.name, f.data.values[i + 1]!.at(-1)])),
  }));
}

// Two names in one namespace, over a day (minutes):
//
//   minute   0     60                 600  660                       1440 (horizon)
//   train/a  prov──up─────────────────completed                               (upness.dev/objective: "0.99")
//   train/b                                 prov─────up───────────────────────  (no label: the query's objective)
//                                       660  720
//   eval     prov──up─────────────────down───────────────────────────────────  down since 600
//
// Period 1d ending at 1440: train (a and b pooled): up 540 + 720 = 1260, down 60 + 60 = 120 min.
// eval: up 540, down 60 + 840 = 900 min.
const fleet: Timeline[] = [
  timeline('a', 'train', { 'upness.dev/objective': '0.99' }, [0, 'provisioning'], [60, 'up'], [600, 'completed']),
  timeline('b', 'train', {}, [660, 'provisioning'], [720, 'up']),
  timeline('e', 'eval', {}, [0, 'provisioning'], [60, 'up'], [600, 'down']),
];
const observed: Observed = { timelines: fleet, horizon: min(1440), retentionMs: 30 * DAY };

describe('slo queries', () => {
  it('answer per JobSet name across its recreations, with the SLI beside the objective', () => {
    const result = run(observed, { period: '1d', sloAnswer: 'sli', window: 'range' });
    expect(result.status).toBe(200);
    const frames = result.frames!;
    expect(frames.map((f) => f.schema.fields.map((x) => `${x.name}:${x.type}`))).toEqual([
      ['time:time', 'sli:number', 'objective:number'],
      ['time:time', 'sli:number', 'objective:number'],
    ]);
    expect(last(frames)).toEqual([
      { labels: { namespace: 'ns', jobset: 'eval' }, values: { sli: 540 / 1440, objective: 0.95 } },
      // The newest recreation (b) carries no label: the query's objective.
      { labels: { namespace: 'ns', jobset: 'train' }, values: { sli: 1260 / 1380, objective: 0.95 } },
    ]);
  });

  it("take a name's objective from its newest recreation's upness.dev/objective label", () => {
    const labelled: Observed = { ...observed, timelines: [fleet[0]!, { ...fleet[1]!, labels: { 'upness.dev/objective': '0.9' } }] };
    const [train] = last(run(labelled, { period: '1d', sloAnswer: 'errorBudget', window: 'range' }).frames!);
    // allowed = 0.1 × 1380 min = 138 min; consumed 120 min; remaining 18 min.
    expect(train!.values.allowedSeconds).toBeCloseTo(138 * 60, 9);
    expect(train!.values.consumedSeconds).toBe(120 * 60);
    expect(train!.values.remainingSeconds).toBeCloseTo(18 * 60, 9);
    expect(train!.values.remainingFraction).toBeCloseTo(18 / 138, 12);
    // Not burning in the last hour (b up since 720): no time to exhaustion.
    expect(train!.values.timeToExhaustionSeconds).toBeNull();
    // Grouped by namespace, labels do not set the objective: the query's.
    const [ns] = last(run(labelled, { period: '1d', sloAnswer: 'sli', window: 'range', groupBy: 'namespace', objective: 0.97 }).frames!);
    expect(ns).toEqual({ labels: { namespace: 'ns' }, values: { sli: 1260 / 1380, objective: 0.97 } });
  });

  it('give burn rates, budget consumed lately and the alert at every step', () => {
    // eval, burn window 1 h, at 1440: down the whole hour: burn = 1 / 0.05 = 20; consumed 60 / (0.05 × 1440) = 0.8333.
    const q = { period: '1d', burnWindow: '1h', shortWindow: '5m', window: 'step', intervalMs: 6 * HOUR, maxDataPoints: 10, namespaces: ['ns'], name: 'eval' };
    const burn = run(observed, { ...q, sloAnswer: 'burnRate' }).frames!;
    // Points at 0, 6, 12, 18, 24 h: the windows ending there. At 0: nothing counted. At 6 h: up. At 12, 18, 24 h: down (since 10 h).
    expect(burn[0]!.data.values).toEqual([[0, 6, 12, 18, 24].map((h) => min(h * 60)), [null, 0, expect.closeTo(20, 9), expect.closeTo(20, 9), expect.closeTo(20, 9)]]);
    const consumed = run(observed, { ...q, sloAnswer: 'budgetConsumed' }).frames!;
    // At 18 h: period (−6 h, 18 h]: up 540, down 60 + 480 = 540 → allowed 0.05 × 1080 = 54 min; 60 min down in the hour → 60/54.
    const values = consumed[0]!.data.values[1] as number[];
    expect(values[3]).toBeCloseTo(60 / 54, 12);
    expect(values[4]).toBeCloseTo(60 / 72, 12);
    const alert = run(observed, { ...q, sloAnswer: 'alert' }).frames!;
    expect(alert[0]!.schema.fields.map((f) => f.name)).toEqual(['time', 'alert']);
    // At 12 h: period (−12 h, 12 h]: up 540, down 180 → allowed 36 min, 60 consumed in the hour: fires, as at 18 and 24 h.
    expect(alert[0]!.data.values[1]).toEqual([0, 0, 1, 1, 1]);
  });

  it.each([
    [{ objective: 1 }, 'queries[0].objective: must be strictly between 0 and 1'],
    [{ objective: 0 }, 'queries[0].objective: must be strictly between 0 and 1'],
    [{ objective: '0.95' }, 'queries[0].objective: must be a number'],
    [{ period: '30m' }, 'queries[0].period: 30m is shorter than the least period of 1h'],
    [{ period: 'month' }, 'queries[0].period: must be a duration'],
    [{ period: '31d' }, 'queries[0].period: 31d is longer than the 30 days of history the service keeps'],
    [{ period: '1d', burnWindow: '2d' }, 'queries[0].burnWindow: 2d is longer than the period (1d)'],
    [{ burnWindow: '1h', shortWindow: '2h' }, 'queries[0].shortWindow: 2h is longer than the burn window (1h)'],
    [{ sloAnswer: 'budget' }, 'queries[0].sloAnswer: Invalid option'],
  ])('refuse %j with a 400 naming the field', (query, message) => {
    const result = run(observed, query);
    expect(result.status).toBe(400);
    expect(result.error).toContain(message);
  });

  it('say when a burn factor can never fire at the objective, and the largest that can', () => {
    // 14.4 at 95 %: the burn rate is at most 1 / 0.05 = 20 → fine. At 90 %: at most 10 → a notice per frame.
    expect(run(observed, { burnFactor: 14.4, objective: 0.95, sloAnswer: 'burnRate' }).frames!.every((f) => f.schema.meta?.notices === undefined)).toBe(true);
    const frames = run(observed, { burnFactor: 14.4, objective: 0.9, sloAnswer: 'burnRate', groupBy: 'all' }).frames!;
    expect(frames).toHaveLength(1);
    const [notice] = frames[0]!.schema.meta!.notices as { severity: string; text: string }[];
    expect(notice!.severity).toBe('warning');
    expect(notice!.text).toContain('can never fire at an objective of 0.9');
    expect(notice!.text).toContain('The largest factor that can fire is 10');
    // Nothing selected: the notice still comes, on a frame without fields.
    const empty = run(observed, { burnFactor: 14.4, objective: 0.9, name: 'nothing' }).frames!;
    expect(empty.map((f) => [f.schema.fields.length, (f.schema.meta!.notices as { text: string }[])[0]!.text.includes('largest factor')])).toEqual([[0, true]]);
  });
});

describe('slo queries with format: table', () => {
  /** A table frame's columns by name. */
  const columns = (f: FrameJSON): Record<string, unknown[]> => Object.fromEntries(f.schema.fields.map((x, i) => [x.name, f.data.values[i]!]));

  it('answer one table frame, a row per JobSet name, with the values of the frames per name', () => {
    const q = { period: '1d', sloAnswer: 'errorBudget', window: 'range' };
    const perName = run(observed, q).frames!;
    const [table, ...rest] = run(observed, { ...q, format: 'table' }).frames!;
    expect(rest).toEqual([]);
    expect(table!.schema.name).toBe('slo');
    expect(table!.schema.meta).toBeUndefined();
    expect(table!.schema.fields.map((f) => `${f.name}:${f.type}:${f.config?.unit ?? ''}`)).toEqual([
      'namespace:string:',
      'jobset:string:',
      'time:time:',
      'allowedSeconds:number:s',
      'consumedSeconds:number:s',
      'remainingSeconds:number:s',
      'remainingFraction:number:percentunit',
      'burnRate:number:none',
      'timeToExhaustionSeconds:number:s',
    ]);
    // The same rows, in the same order, as the frames per name: eval, then train (budget by hand
    // for train: allowed 0.05 × 1380 min = 69 min, consumed 120 min, 51 min overspent).
    const c = columns(table!);
    expect(c.namespace).toEqual(['ns', 'ns']);
    expect(c.jobset).toEqual(['eval', 'train']);
    expect(c.time).toEqual([min(24 * 60), min(24 * 60)]);
    expect(c.consumedSeconds).toEqual([900 * 60, 120 * 60]);
    expect(c.remainingSeconds![1]).toBeCloseTo(-51 * 60, 9);
    for (const name of ['allowedSeconds', 'consumedSeconds', 'remainingSeconds', 'remainingFraction', 'burnRate', 'timeToExhaustionSeconds']) {
      expect(c[name]).toEqual(last(perName).map((f) => f.values[name]));
    }
  });

  it('give a row per group and point, groups in order, points in time order, and `series` is the frames per group', () => {
    const q = { period: '1d', sloAnswer: 'burnRate', window: 'step', intervalMs: 12 * HOUR, maxDataPoints: 10, groupBy: 'none' };
    const perName = run(observed, q).frames!;
    expect(run(observed, { ...q, format: 'series' }).frames).toEqual(perName);
    const c = columns(run(observed, { ...q, format: 'table' }).frames![0]!);
    expect(c.jobset).toEqual(['eval', 'eval', 'eval', 'train', 'train', 'train']);
    expect(c.time).toEqual([0, 12, 24, 0, 12, 24].map((h) => min(h * 60)));
    expect(c.burnRate).toEqual(perName.flatMap((f) => f.data.values[1]));
    // Grouped by namespace, the namespace is the one label column; grouped by all, there is none.
    expect(Object.keys(columns(run(observed, { ...q, groupBy: 'namespace', format: 'table' }).frames![0]!))).toEqual(['namespace', 'time', 'burnRate']);
    expect(Object.keys(columns(run(observed, { ...q, groupBy: 'all', format: 'table' }).frames![0]!))).toEqual(['time', 'burnRate']);
  });

  it('sort and limit the rows, with the whole table in the meta, and carry the notices of the frames per group', () => {
    const r = run(observed, { period: '1d', sloAnswer: 'errorBudget', window: 'range', format: 'table', sort: { by: 'remainingFraction', direction: 'desc' }, limit: 1 });
    const [table] = r.frames!;
    expect(columns(table!).jobset).toEqual(['train']);
    const shaped = run(observed, { period: '1d', sloAnswer: 'errorBudget', window: 'range', sort: { by: 'remainingFraction', direction: 'desc' }, limit: 1 }).frames!;
    expect(table!.schema.meta).toEqual({ notices: shaped[0]!.schema.meta!.notices, custom: shaped[0]!.schema.meta!.custom });
    expect((table!.schema.meta!.custom as { rows: number }).rows).toBe(2);
    // A factor that cannot fire at 90 %: one notice per name, as each frame per name carries its own.
    const noticed = run(observed, { period: '1d', sloAnswer: 'burnRate', objective: 0.9, burnFactor: 14.4, format: 'table' }).frames![0]!;
    expect((noticed.schema.meta!.notices as { text: string }[]).map((n) => n.text.match(/\(ns\/\w+\)/)![0])).toEqual(['(ns/eval)', '(ns/train)']);
  });

  it.each([['tables'], [''], [1], [['table']], [null]])('refuse format %j with a 400 naming the field', (format) => {
    const result = run(observed, { format });
    expect(result.status).toBe(400);
    expect(result.error).toContain('queries[0].format: must be series (a frame per group, the default) or table');
  });

  it('answer a per-name table of more names than the series limit allows frames', () => {
    const many: Timeline[] = Array.from({ length: 5001 }, (_, i) => ({ ...fleet[1]!, uid: `u${i}`, name: `n${String(i).padStart(5, '0')}` }));
    const wide: Observed = { ...observed, timelines: many };
    expect(run(wide, { period: '1d' }).error).toContain('more than the limit of 5000');
    const [table] = run(wide, { period: '1d', format: 'table' }).frames!;
    expect(table!.data.values[0]).toHaveLength(5001);
  });
});

describe('slo queries on a simulated fleet reproduce the truth', () => {
  const sim = simulateFleet({ jobsets: 30, days: 4, seed: 7 });
  const engine = new TimelineEngine();
  const index = new FleetIndex();
  engine.subscribe(index);
  for (const o of sim.observations()) engine.observe(o);
  const horizon = engine.horizon!;
  const truth = sim.truth();

  // Bad time by indicator, from the oracle's durations: uptime's down, or all of wall time but up
  // (suspended holds queued time).
  const badOf = {
    uptime: (d: Record<State, number>) => d.provisioning + d.down,
    schedulingGoodput: (d: Record<State, number>) => d.provisioning + d.down + d.suspended + d.unknown,
  };

  it.each(['uptime', 'schedulingGoodput'] as const)('per JobSet name and per namespace (%s): SLI, budget, burn rate, budget consumed', (indicator) => {
    const to = horizon - 5 * HOUR;
    const names = new Set(truth.map((t) => `${t.namespace}/${t.name}`));
    expect(names.size).toBeLessThan(truth.length); // names were created again: pooling across UIDs is exercised
    // The fleet has time the two indicators count differently: queued and suspended (the simulator's
    // truth has no unknown time: that is the watch's; the script and series/slo.test.ts cover it).
    const suspended = truth.reduce((sum, tl) => sum + oracle(tl, horizon, to - 2 * DAY, to).durations.suspended, 0);
    expect(suspended).toBeGreaterThan(0);
    for (const groupBy of ['none', 'namespace'] as const) {
      const query = { period: '2d', burnWindow: '6h', objective: 0.9, window: 'range', groupBy, indicator };
      const observedSim: Observed = { timelines: engine.timelines(), horizon, index: null };
      const budget = last(run(observedSim, { ...query, sloAnswer: 'errorBudget' }, sim.start, to).frames!);
      const burn = last(run(observedSim, { ...query, sloAnswer: 'burnRate' }, sim.start, to).frames!);
      const sli = last(run(observedSim, { ...query, sloAnswer: 'sli' }, sim.start, to).frames!);
      expect(budget.length).toBeGreaterThan(3);
      budget.forEach((b, i) => {
        const members = truth.filter((t) => t.namespace === b.labels.namespace && (groupBy === 'namespace' || t.name === b.labels.jobset));
        const sum = (from: number) =>
          members.reduce(
            (acc, tl) => {
              const d = oracle(tl, horizon, from, to).durations;
              return { up: acc.up + d.up, down: acc.down + badOf[indicator](d) };
            },
            { up: 0, down: 0 },
          );
        const period = sum(to - 2 * DAY);
        const window = sum(to - 6 * HOUR);
        const counted = period.up + period.down;
        expect(b.values.consumedSeconds).toBeCloseTo(period.down / 1000, 6);
        expect(b.values.allowedSeconds).toBeCloseTo((0.1 * counted) / 1000, 6);
        expect(sli[i]!.values.sli).toEqual(counted === 0 ? null : expect.closeTo(period.up / counted, 12));
        const windowCounted = window.up + window.down;
        expect(burn[i]!.values.burnRate).toEqual(windowCounted === 0 ? null : expect.closeTo(window.down / windowCounted / 0.1, 9));
      });
    }
  });

  // Whole namespaces and the fleet are answered by the fleet index, without visiting each JobSet:
  // the same frames as the per-JobSet path, for every answer, at every step.
  it.each(['uptime', 'schedulingGoodput'] as const)('answered by the fleet index (%s), equal the per-JobSet path', (indicator) => {
    const windows = jest.spyOn(index, 'windows');
    const queries = (['namespace', 'all'] as const).flatMap((groupBy) =>
      (['sli', 'errorBudget', 'burnRate', 'budgetConsumed', 'alert'] as const).map((sloAnswer) => ({
        refId: `${groupBy}-${sloAnswer}`,
        queryType: 'slo',
        sloAnswer,
        groupBy,
        indicator,
        period: '2d',
        burnWindow: '3h',
        shortWindow: '10m',
        objective: 0.9,
        window: 'step',
        intervalMs: HOUR,
        maxDataPoints: 200,
      })),
    );
    const body = { from: String(sim.start + 7 * HOUR + 13_000), to: String(horizon - 2 * HOUR), queries };
    const fast = runQueries(body, { timelines: engine.timelines(), horizon, index }, horizon);
    const slow = runQueries(body, { timelines: engine.timelines(), horizon, index: null }, horizon);
    for (const q of queries) {
      expect(fast.results[q.refId]!.status).toBe(200);
      expect(fast.results[q.refId]!.frames!.length).toBeGreaterThan(0);
      expect([q.refId, fast.results[q.refId]]).toEqual([q.refId, slow.results[q.refId]]);
    }
    expect(windows).toHaveBeenCalled();
    windows.mockRestore();
  });

  // The goodput SLI is the figure schedulingGoodput, pooled over the same window: one definition.
  it.each([
    ['the fleet index', index],
    ['each JobSet', null],
  ] as const)('schedulingGoodput (%s): the SLI equals the summary figure pooled over the period, per namespace', (_path, withIndex) => {
    const to = horizon - 5 * HOUR;
    const from = to - 2 * DAY;
    const observedSim: Observed = { timelines: engine.timelines(), horizon, index: withIndex };
    const sli = last(run(observedSim, { period: '2d', objective: 0.9, window: 'range', groupBy: 'namespace', indicator: 'schedulingGoodput' }, from, to).frames!);
    const summary = runQueries(
      { from: String(from), to: String(to), queries: [{ refId: 'S', queryType: 'summary', groupBy: 'namespace', aggregate: 'pooled', figures: ['schedulingGoodput'] }] },
      observedSim,
      horizon,
    ).results.S!;
    expect(summary.status).toBe(200);
    const [table] = summary.frames!;
    const names = table!.schema.fields.map((f) => f.name);
    const namespaces = table!.data.values[names.indexOf('namespace')] as string[];
    const goodput = table!.data.values[names.indexOf('schedulingGoodput')] as (number | null)[];
    expect(namespaces.length).toBeGreaterThan(1);
    expect(sli.map((f) => [f.labels.namespace, f.values.sli])).toEqual(namespaces.map((n, i) => [n, goodput[i]]));
  });
});
