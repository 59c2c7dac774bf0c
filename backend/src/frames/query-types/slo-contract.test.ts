// `slo` queries as backend/src/http/README.md and README.md ("SLOs and error budgets") describe
// them, one test per sentence a reader could have doubted: which JobSets a point counts, which
// objective a name's label sets, what an empty period answers, the default window, the label
// group of JobSets without the label, the least period, and the objective a burn-factor notice
// checks. Each expectation is worked out by hand from the timelines drawn above it.

import type { State, Timeline } from '../../timeline/types.ts';
import type { FrameJSON } from '../frame.ts';
import { runQueries, type Observed } from '../run-request.ts';

const HOUR = 3_600_000;
const h = (hours: number): number => hours * HOUR;

function timeline(uid: string, name: string, labels: Record<string, string>, ...steps: [number, State][]): Timeline {
  return { uid, namespace: 'ns', name, labels, accelerator: null, topology: null, createdAt: h(steps[0]![0]), transitions: steps.map(([at, state]) => ({ at: h(at), state })) };
}

function run(observed: Observed, query: Record<string, unknown>, from: number, to: number): { status: number; frames?: FrameJSON[]; error?: string } {
  return runQueries({ from: String(from), to: String(to), queries: [{ refId: 'A', queryType: 'slo', ...query }] }, observed, observed.horizon).results.A!;
}

/** A frame's name, its times and one field's values. */
function column(frame: FrameJSON, field: string): { name: string | undefined; times: unknown[]; values: unknown[] } {
  const i = frame.schema.fields.findIndex((f) => f.name === field);
  expect(i).toBeGreaterThan(0);
  return { name: frame.schema.name, times: frame.data.values[0]!, values: frame.data.values[i]! };
}

describe('an slo point counts the JobSets that lived in its own period', () => {
  // Hours; a step series from 36 h to 84 h every 12 h, period 1 d (point t covers (t − 24 h, t]):
  //
  //   hour   0 1        10      30         40   50 52                               84      96 (horizon)
  //   gone   prov─up─────completed                                                            (ended before the first period, (12, 36])
  //   old    prov─up──────────────down──────failed
  //   late                                        prov─up──────────────────────────────────────
  //   edge                                                                            prov─────  (created at 84 h, the last point)
  const fleet = [
    timeline('g', 'gone', {}, [0, 'provisioning'], [1, 'up'], [10, 'completed']),
    timeline('o', 'old', {}, [0, 'provisioning'], [1, 'up'], [30, 'down'], [40, 'failed']),
    timeline('l', 'late', {}, [50, 'provisioning'], [52, 'up']),
    timeline('e', 'edge', {}, [84, 'provisioning']),
  ];
  const observed: Observed = { timelines: fleet, horizon: h(96), retentionMs: h(24 * 30) };
  const query = { period: '1d', window: 'step', intervalMs: 12 * HOUR, sloAnswer: 'sli' };

  it('pools, at each point, only the time inside that point’s period', () => {
    const [all] = run(observed, { ...query, groupBy: 'all' }, h(36), h(84)).frames!;
    const { times, values } = column(all!, 'sli');
    expect(times).toEqual([36, 48, 60, 72, 84].map(h));
    // 36 h: old up 12→30 (18 h), down 30→36 (6 h).              18 / 24
    // 48 h: old up 24→30 (6), down 30→40 (10).                     6 / 16
    // 60 h: old down 36→40 (4); late prov 50→52 (2), up 52→60 (8). 8 / 14
    // 72 h: late prov 50→52 (2), up 52→72 (20).                   20 / 22
    // 84 h: late up 60→84 (24); edge created at 84 h counts 0.    24 / 24
    expect(values).toEqual([18 / 24, 6 / 16, 8 / 14, 20 / 22, 1].map((v) => expect.closeTo(v, 12)));
  });

  it('answers every name that lived in some point’s period, a JobSet created at the last point too', () => {
    const frames = run(observed, query, h(36), h(84)).frames!;
    // Not `gone` (it ended at 10 h, before the first period (12 h, 36 h]); `late` and `edge` though
    // they did not live in the first period.
    expect(frames.map((f) => f.schema.name)).toEqual(['ns/edge', 'ns/late', 'ns/old']);
    const sli = Object.fromEntries(frames.map((f) => [f.schema.name, column(f, 'sli').values]));
    expect(sli['ns/edge']).toEqual([null, null, null, null, null]);
    expect(sli['ns/late']).toEqual([null, null, 8 / 10, 20 / 22, 1].map((v) => (v === null ? null : expect.closeTo(v, 12))));
    // `old` ended at 40 h: nothing counted in (48, 72] and (60, 84].
    expect(sli['ns/old']).toEqual([18 / 24, 6 / 16, 0, null, null].map((v) => (v === null ? null : expect.closeTo(v, 12))));
  });
});

describe("a JobSet name's objective label", () => {
  // Hours; points every 12 h from 36 h to 84 h, period 1 d:
  //
  //   hour       0 1          20     30           50 51                 84      90    96
  //   train/a    prov─up───────────────completed                                          objective 0.99
  //   train/b                                     prov─up─────────────────────────────    objective 0.9
  //   train/c                                                                   prov──    objective 0.5 (after `to`)
  //   gap/a      prov─up───────completed                                                   objective 0.99
  const fleet = [
    timeline('a', 'train', { 'upness.dev/objective': '0.99' }, [0, 'provisioning'], [1, 'up'], [30, 'completed']),
    timeline('b', 'train', { 'upness.dev/objective': '0.9' }, [50, 'provisioning'], [51, 'up']),
    timeline('c', 'train', { 'upness.dev/objective': '0.5' }, [90, 'provisioning']),
    timeline('g', 'gap', { 'upness.dev/objective': '0.99' }, [0, 'provisioning'], [1, 'up'], [20, 'completed']),
  ];
  const observed: Observed = { timelines: fleet, horizon: h(96), retentionMs: h(24 * 30) };

  it("is, at each point, the newest UID's among those that lived in that point's period, else the query's", () => {
    const frames = run(observed, { period: '1d', window: 'step', intervalMs: 12 * HOUR, sloAnswer: 'sli', objective: 0.95 }, h(36), h(84)).frames!;
    const objective = Object.fromEntries(frames.map((f) => [f.schema.name, column(f, 'objective').values]));
    // train: a lived in (12, 36] and (24, 48]; from (36, 60] on only b. c, created after `to`, never.
    expect(objective['ns/train']).toEqual([0.99, 0.99, 0.9, 0.9, 0.9]);
    // gap: a lived in (12, 36] only; after it no UID of the name: the query's objective.
    expect(objective['ns/gap']).toEqual([0.99, 0.95, 0.95, 0.95, 0.95]);
  });

  it("sets the objective a burn-factor notice checks: the frame's own at its last point", () => {
    // 14.4 can fire only when 1 / (1 − o) ≥ 14.4: at 0.95 (20), not at 0.9 (10). The query's objective is 0.95.
    // From 12 h: gap (ended at 20 h) lived in the range and is answered.
    const frames = run(observed, { period: '1d', window: 'range', sloAnswer: 'burnRate', objective: 0.95, burnFactor: 14.4 }, h(12), h(84)).frames!;
    expect(frames.map((f) => f.schema.name)).toEqual(['ns/gap', 'ns/train']);
    const notices = Object.fromEntries(frames.map((f) => [f.schema.name, (f.schema.meta?.notices as { text: string }[] | undefined)?.map((n) => n.text) ?? []]));
    // train at 84 h: b's 0.9 → a notice naming 0.9 and the largest factor that can fire, 10.
    expect(notices['ns/train']).toEqual([expect.stringContaining('can never fire at an objective of 0.9 (ns/train)')]);
    expect(notices['ns/train']![0]).toContain('The largest factor that can fire is 10');
    // gap at 84 h: no UID in the period, the query's 0.95: none (though its label said 0.99 earlier).
    expect(notices['ns/gap']).toEqual([]);
    // With no JobSet selected, the query's objective: 0.9 cannot reach 14.4.
    const empty = run(observed, { period: '1d', objective: 0.9, burnFactor: 14.4, name: 'nothing' }, h(36), h(84)).frames!;
    expect(empty.map((f) => (f.schema.meta!.notices as { text: string }[])[0]!.text)).toEqual([expect.stringContaining('can never fire at an objective of 0.9:')]);
  });
});

describe('an slo period with nothing counted', () => {
  //   hour   0                               24 (horizon)
  //   held   suspended─────────────────────     (suspended the whole period: counted for neither up nor down)
  const observed: Observed = { timelines: [timeline('s', 'held', {}, [0, 'suspended'])], horizon: h(24), retentionMs: h(24 * 30) };
  const ask = (sloAnswer: string): Record<string, unknown> => {
    const [frame] = run(observed, { period: '1d', window: 'range', sloAnswer }, 0, h(24)).frames!;
    return Object.fromEntries(frame!.schema.fields.slice(1).map((f, i) => [f.name, frame!.data.values[i + 1]![0]]));
  };

  it('answers sli, remainingFraction, burnRate, budgetConsumed and timeToExhaustion null, the seconds 0 and alert 0', () => {
    expect(ask('sli')).toEqual({ sli: null, objective: 0.95 });
    expect(ask('errorBudget')).toEqual({ allowedSeconds: 0, consumedSeconds: 0, remainingSeconds: 0, remainingFraction: null, burnRate: null, timeToExhaustionSeconds: null });
    expect(ask('burnRate')).toEqual({ burnRate: null });
    expect(ask('budgetConsumed')).toEqual({ budgetConsumed: null });
    expect(ask('alert')).toEqual({ alert: 0 });
  });
});

describe('slo query defaults and groups', () => {
  //   hour   0 1                    40 (horizon)
  //   x      prov─up──────────────       team=x
  //   y      prov──────────up(10)───     team=x
  //   z      prov─up────down(20)────     no team label
  const fleet = [
    timeline('x', 'x', { team: 'x' }, [0, 'provisioning'], [1, 'up']),
    timeline('y', 'y', { team: 'x' }, [0, 'provisioning'], [10, 'up']),
    timeline('z', 'z', {}, [0, 'provisioning'], [1, 'up'], [20, 'down']),
  ];
  const observed: Observed = { timelines: fleet, horizon: h(40), retentionMs: h(24 * 30) };

  it('without a window: one point at `to`', () => {
    const frames = run(observed, { period: '1d', intervalMs: HOUR, groupBy: 'all' }, 0, h(36)).frames!;
    // (12 h, 36 h]: x up 24, y up 24, z up 12→20 (8) down 20→36 (16): 56 / 72.
    expect(frames.map((f) => [f.data.values[0], f.data.values[1]])).toEqual([[[h(36)], [expect.closeTo(56 / 72, 12)]]]);
  });

  it('under label:<key>, JobSets without the label in the group ""', () => {
    const frames = run(observed, { period: '1d', groupBy: 'label:team' }, 0, h(36)).frames!;
    expect(frames.map((f) => [f.schema.name, f.schema.fields[1]!.labels, f.data.values[1]])).toEqual([
      ['(none)', { team: '' }, [expect.closeTo(8 / 24, 12)]],
      ['x', { team: 'x' }, [1]],
    ]);
  });

  it('refuses a period shorter than the least period of 1h, and takes 1h', () => {
    for (const period of ['5m', '59m59s']) {
      expect(run(observed, { period, burnWindow: '1m', shortWindow: '1m' }, 0, h(36))).toEqual({ status: 400, error: `queries[0].period: ${period} is shorter than the least period of 1h` });
    }
    expect(run(observed, { period: '1h', burnWindow: '5m', shortWindow: '1m' }, 0, h(36)).status).toBe(200);
  });
});
