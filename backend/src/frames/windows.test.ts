/* eslint-disable @typescript-eslint/no-explicit-any -- the bodies are the JSON answers of the API under test */
// The windows behind every number the API gives, over real HTTP on a drawn fleet, with answers
// worked out by hand: a cumulative series runs from the range's start, and every aggregate over
// JobSets at a point is over the JobSets that lived in that point's window (created at or before
// its end, not ended by its start), whichever query type asks (series, summary, fleet, /jobsets).

import { merge, min, Scenario } from '../../../test/support/scenario.ts';
import { startService, type TestService } from '../../../test/support/service.ts';

//   minutes:   0    60   120   180   240   300 (horizon)
//   team-a/long    0 ─prov─ 10 ─up─ 70 ─down─ 95 ─up──────────────────────── 300 (still up)
//   team-a/late                      150 ─prov─ 160 ─up─ 200 ─down─ 210 ─up─ 300 (still up)
//   team-a/early   0 ─prov─ 5 ─up─ 60 completed
//   team-b/gone    0 ─prov─ 10 ─up─ 120 completed        (ends exactly at 120)
//   team-b/born                                   240 ─prov─ 250 ─up─ 300   (created exactly at 240)
const long = new Scenario({ uid: 'u-long', name: 'long', namespace: 'team-a' }, min(0)).created().up(min(10)).down(min(70)).up(min(95)).at(min(300));
const late = new Scenario({ uid: 'u-late', name: 'late', namespace: 'team-a' }, min(150)).created().up(min(160)).down(min(200)).up(min(210)).at(min(300));
const early = new Scenario({ uid: 'u-early', name: 'early', namespace: 'team-a' }, min(0))
  .created()
  .up(min(5))
  .at(min(60), { completedAt: min(60), ready: 0, succeeded: 2 });
const gone = new Scenario({ uid: 'u-gone', name: 'gone', namespace: 'team-b' }, min(0))
  .created()
  .up(min(10))
  .at(min(120), { completedAt: min(120), ready: 0, succeeded: 2 });
const born = new Scenario({ uid: 'u-born', name: 'born', namespace: 'team-b' }, min(240)).created().up(min(250)).at(min(300));

const HOUR = 3_600_000;

let service: TestService;
beforeAll(async () => {
  service = await startService(merge(long, late, early, gone, born));
});
afterAll(() => service.close());

/** Frames of one query over [from, to] (minutes), one point per hour. */
async function frames(q: Record<string, unknown>, from: number, to: number): Promise<any[]> {
  const res = await service.post('/api/v1/query', { from: String(min(from)), to: String(min(to)), queries: [{ refId: 'A', intervalMs: HOUR, maxDataPoints: 1000, ...q }] });
  expect(res.status).toBe(200);
  expect(res.body.results.A.error).toBeUndefined();
  return res.body.results.A.frames;
}

/** A series frame as [label, points (minutes), values], with seconds as minutes. */
function series(frame: any, scale = 60): [string, number[], (number | null)[]] {
  const [time, value] = frame.data.values as [number[], (number | null)[]];
  return [frame.schema.name, time.map((t) => (t - min(0)) / 60_000), value.map((v) => (v === null ? null : v / scale))];
}

/** A table frame's columns by name. */
function table(frame: any): Record<string, unknown[]> {
  return Object.fromEntries(frame.schema.fields.map((f: any, i: number) => [f.name, frame.data.values[i]]));
}

describe('a cumulative series runs from the range`s start', () => {
  // Range [120, 240]: points 120, 180, 240; the point at t covers [120, t]. The interruption at 70,
  // 50 minutes before the range, is not in it (it was counted at 120 when the series began a step early).
  //   team-a up:    [120,120] 0 · [120,180] long 60 + late 20 = 80 · [120,240] long 120 + late 70 = 190
  //   team-a down:  late provisioning 150–160, down 200–210: 0 · 10 · 20
  it.each([
    ['interruptions', 'sum', 1, [0, 0, 1]],
    ['upSeconds', 'sum', 60, [0, 80, 190]],
    ['upSeconds', 'pooled', 60, [0, 80, 190]],
    ['downSeconds', 'sum', 60, [0, 10, 20]],
    // Alive at 120: only long, with 0 s in an empty window; then long and late.
    ['upSeconds', 'mean', 60, [0, 40, 95]],
    ['upSeconds', 'min', 60, [0, 20, 70]],
    ['uptimeRatio', 'pooled', 1, [null, 80 / 90, 190 / 210]],
    ['mtbiSeconds', 'pooled', 60, [null, null, 40]],
  ] as const)('team-a %s (%s)', async (metric, aggregate, scale, expected) => {
    const [frame] = await frames({ queryType: 'series', metric, window: 'cumulative', groupBy: 'namespace', namespaces: ['team-a'], aggregate }, 120, 240);
    const [name, points, values] = series(frame, scale);
    expect(name).toBe('team-a');
    expect(points).toEqual([120, 180, 240]);
    values.forEach((v, k) => (expected[k] === null ? expect(v).toBeNull() : expect(v).toBeCloseTo(expected[k]!, 9)));
  });

  it('per JobSet: the point at t is the figure over [from, t]; none where the JobSet had not lived yet', async () => {
    // team-a/late was created at 150: at 120 it had not lived (asked alone, [120, 120] would not list it).
    const out = await frames({ queryType: 'series', metric: 'interruptions', window: 'cumulative', namespaces: ['team-a'] }, 120, 240);
    expect(out.map((f) => series(f, 1))).toEqual([
      ['team-a/late', [120, 180, 240], [null, 0, 1]],
      ['team-a/long', [120, 180, 240], [0, 0, 0]],
    ]);
  });
});

describe('an aggregate over JobSets at a point is over those that lived in its window', () => {
  // Range [60, 240], step buckets (0,60] (60,120] (120,180] (180,240]; up minutes of each JobSet:
  //   long   50   35   60   60
  //   late    –    –   20   50      (created at 150)
  //   early  55    –    –    –      (ended at 60: not in (60,120], its end belongs to (0,60])
  const buckets: [string, (number | null)[]][] = [
    ['mean', [52.5, 35, 40, 55]],
    ['min', [50, 35, 20, 50]],
    ['max', [55, 35, 60, 60]],
    ['p50', [52.5, 35, 40, 55]],
    ['sum', [105, 35, 80, 110]],
  ];
  it.each(buckets)('team-a up time per hour: %s', async (aggregate, expected) => {
    const [frame] = await frames({ queryType: 'series', metric: 'upSeconds', window: 'step', groupBy: 'namespace', namespaces: ['team-a'], aggregate }, 60, 240);
    expect(series(frame)).toEqual(['team-a', [60, 120, 180, 240], expected]);
  });

  it.each(buckets)('each hour asked alone as its own range gives the same: %s', async (aggregate, expected) => {
    for (const [k, to] of [60, 120, 180, 240].entries()) {
      const [frame] = await frames({ queryType: 'series', metric: 'upSeconds', window: 'range', groupBy: 'namespace', namespaces: ['team-a'], aggregate }, to - 60, to);
      expect(series(frame)).toEqual(['team-a', [to], [expected[k]]]);
      const [summary] = await frames({ queryType: 'summary', groupBy: 'namespace', namespaces: ['team-a'], aggregate, figures: ['upSeconds'] }, to - 60, to);
      expect(table(summary).upSeconds).toEqual([expected[k]! * 60]);
    }
  });

  it('a rolling window reaching before the range counts who lived in it, and no one else', async () => {
    //   rolling 2 h at 120: (0,120]: long 85, early 55 → mean 70; at 240: (120,240]: long 120, late 70 → 95
    const [frame] = await frames({ queryType: 'series', metric: 'upSeconds', window: 'rolling', rolling: '2h', groupBy: 'namespace', namespaces: ['team-a'], aggregate: 'mean' }, 120, 240);
    expect(series(frame)).toEqual(['team-a', [120, 180, 240], [70, (95 + 20) / 2, 95]]);
  });
});

describe('a window`s edges', () => {
  // Range [120, 240]: team-b/gone ended exactly at 120 (at `from`: not lived, like an event at
  // `from`); team-b/born was created exactly at 240 (at `to`: lived, like an event at `to`).
  it('/api/v1/jobsets lists who lived in the range', async () => {
    const res = await service.get(`/api/v1/jobsets?from=${min(120)}&to=${min(240)}`);
    expect(res.status).toBe(200);
    expect(res.body.jobsets.map((j: any) => [j.namespace, j.name, j.state, j.upSeconds / 60])).toEqual([
      ['team-a', 'late', 'up', 70],
      ['team-a', 'long', 'up', 120],
      ['team-b', 'born', 'provisioning', 0],
    ]);
  });

  it('a summary and a fleet distribution count who lived in the range', async () => {
    const [summary] = await frames({ queryType: 'summary', groupBy: 'namespace', aggregate: 'mean', figures: ['upSeconds'] }, 120, 240);
    expect(table(summary)).toEqual({ namespace: ['team-a', 'team-b'], jobsets: [2, 1], upSeconds: [95 * 60, 0] });
    const [fleet] = await frames({ queryType: 'fleet', metric: 'upSeconds', groupBy: 'namespace' }, 120, 240);
    const t = table(fleet);
    expect(t.namespace).toEqual(['team-a', 'team-b']);
    expect(t.jobsets).toEqual([2, 1]);
    expect(t.min).toEqual([70 * 60, 0]);
    expect(t.mean).toEqual([95 * 60, 0]);
  });

  it('a range that is one instant holds the JobSets alive at it', async () => {
    // At 120: long (up); gone ended at 120, late not yet created.
    const res = await service.get(`/api/v1/jobsets?from=${min(120)}&to=${min(120)}`);
    expect(res.body.jobsets.map((j: any) => j.name)).toEqual(['long']);
    // At the horizon (300), an open JobSet is still alive.
    const now = await service.get(`/api/v1/jobsets?from=${min(300)}&to=${min(300)}`);
    expect(now.body.jobsets.map((j: any) => j.name)).toEqual(['late', 'long', 'born']);
  });
});
