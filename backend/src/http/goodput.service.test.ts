/* eslint-disable @typescript-eslint/no-explicit-any -- the bodies are the JSON answers of the API under test */
// Goodput on the API and the /metrics counters for SLO tools (issue 13 §3 and §5), over real HTTP,
// on JobSets drawn below with hand-computed answers; the counters checked against the API's own
// answers too.

import { merge, min, Scenario } from '../../../test/support/scenario.ts';
import { startService, type TestService } from '../../../test/support/service.ts';

//   ml/train, first run (uid a; 2 replicas × 8 GPUs = 16; checkpoint every 20m)
//     0 ─prov─ 10 ─up─ 40 completed
//   ml/train, created again (uid b, same name and shape)
//     50 ─prov─ 60 ─up─ 100 ─down─ 110 ─up─ 150 (still up, now = 150)
//   ml/queued (uid q; no accelerators; Kueue queue team-q): suspended until 120, then provisioning
//     0 ─queued─ 120 ─prov─ 150
const shape = { name: 'train', namespace: 'ml', limits: { 'nvidia.com/gpu': '8' }, annotations: { 'upness.dev/checkpoint-interval': '20m' } };
const first = new Scenario({ uid: 'a', ...shape }, min(0))
  .created()
  .up(min(10))
  .at(min(40), { completedAt: min(40), ready: 0, succeeded: 2 });
const second = new Scenario({ uid: 'b', ...shape }, min(50))
  .created()
  .up(min(60))
  .down(min(100), { restarts: 1 })
  .up(min(110))
  .at(min(150));
const queued = new Scenario({ uid: 'q', name: 'queued', namespace: 'ml', labels: { 'kueue.x-k8s.io/queue-name': 'team-q' } }, min(0), { suspend: true, suspended: { status: 'True', at: min(0) } })
  .created()
  .at(min(120), { suspend: false, suspended: { status: 'False', at: min(120) } })
  .at(min(150));

const s = (minutes: number): number => minutes * 60;

let service: TestService;
beforeAll(async () => {
  service = await startService(merge(first, second, queued));
});
afterAll(() => service.close());

/** `name{labels} value` lines of one metric, as { 'namespace/name': value }. */
function samples(text: string, metric: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of text.split('\n')) {
    const m = new RegExp(`^${metric}\\{([^}]*)\\} (\\S+)$`).exec(line);
    if (!m) continue;
    const labels = Object.fromEntries([...m[1]!.matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    out[`${labels.jobset_namespace}/${labels.jobset_name}`] = Number(m[2]);
  }
  return out;
}

describe('goodput on /api/v1/jobsets', () => {
  it('gives each run its wall time, breakdown, accelerator time and ETTR', async () => {
    const res = await service.get(`/api/v1/jobsets?from=${min(0)}&to=${min(150)}`);
    expect(res.status).toBe(200);
    const byUid = Object.fromEntries(res.body.jobsets.map((j: any) => [j.uid, j]));
    // a: wall 40 = prov 10 + up 30; 16 GPUs; no interruption, so ETTR = goodput.
    expect(byUid.a).toMatchObject({ wallSeconds: s(40), upSeconds: s(30), provisioningFraction: 10 / 40, schedulingGoodput: 30 / 40 });
    expect(byUid.a).toMatchObject({ acceleratorSecondsUp: 16 * s(30), acceleratorSecondsLost: 16 * s(10), estimatedEffectiveTrainingRatio: 30 / 40 });
    // b: wall 100 = prov 10 + up 40 + down 10 + up 40; one interruption costs 10 min (20m / 2).
    expect(byUid.b).toMatchObject({ wallSeconds: s(100), upSeconds: s(80), interruptionDowntimeSeconds: s(10), schedulingGoodput: 0.8 });
    expect(byUid.b).toMatchObject({ acceleratorSecondsLost: 16 * s(20), estimatedEffectiveTrainingRatio: (80 - 10) / 100 });
    // q: queued 120 of its 150, provisioning 30; no accelerators, no annotation.
    expect(byUid.q).toMatchObject({ wallSeconds: s(150), queuedSeconds: s(120), queuedFraction: 0.8, provisioningFraction: 0.2, schedulingGoodput: 0 });
    expect(byUid.q).toMatchObject({ acceleratorSecondsUp: 0, acceleratorSecondsLost: 0, estimatedEffectiveTrainingRatio: null });
  });

  it('gives each timeline of a name its accelerators and checkpoint interval', async () => {
    const res = await service.get('/api/v1/jobsets/ml/train');
    expect(res.status).toBe(200);
    expect(res.body.timelines.map((t: any) => [t.uid, t.accelerators, t.checkpointIntervalSeconds])).toEqual([
      ['a', 16, 1200],
      ['b', 16, 1200],
    ]);
    const q = (await service.get('/api/v1/jobsets/ml/queued')).body.timelines[0];
    expect([q.accelerators, q.checkpointIntervalSeconds]).toEqual([0, null]);
  });

  it('pools a JobSet name across its recreations: accelerator time lost of both runs', async () => {
    const res = await service.post('/api/v1/query', {
      from: String(min(0)),
      to: String(min(150)),
      queries: [{ refId: 'A', queryType: 'series', metric: 'acceleratorSecondsLost', window: 'range', groupBy: 'all', aggregate: 'pooled', name: 'train' }],
    });
    expect(res.status).toBe(200);
    expect(res.body.results.A.frames[0].data.values[1]).toEqual([16 * s(10) + 16 * s(20)]);
  });
});

describe('grouping by Kueue queue', () => {
  it('puts each JobSet in the group of its kueue.x-k8s.io/queue-name label, none in the empty one', async () => {
    const res = await service.post('/api/v1/query', {
      from: String(min(0)),
      to: String(min(150)),
      queries: [{ refId: 'A', queryType: 'summary', groupBy: 'queue', aggregate: 'pooled', figures: ['wallSeconds', 'queuedSeconds', 'schedulingGoodput'] }],
    });
    expect(res.status).toBe(200);
    const frame = res.body.results.A.frames[0];
    const cols = Object.fromEntries(frame.schema.fields.map((f: any, i: number) => [f.name, frame.data.values[i]]));
    // '' = train (a + b): wall 40 + 100, up 30 + 80; team-q = queued: wall 150, queued 120, up 0.
    expect(cols.queue).toEqual(['', 'team-q']);
    expect(cols.wallSeconds).toEqual([s(140), s(150)]);
    expect(cols.queuedSeconds).toEqual([0, s(120)]);
    expect(cols.schedulingGoodput).toEqual([110 / 140, 0]);
  });
});

describe('interruptions by cause (groupBy: cause)', () => {
  it('answers an events query with a count per category; refuses cause on other query types with a 400 naming groupBy', async () => {
    const body = (q: Record<string, unknown>) => ({ from: String(min(0)), to: String(min(150)), queries: [{ refId: 'A', ...q }] });
    const ok = await service.post('/api/v1/query', body({ queryType: 'events', groupBy: 'cause' }));
    expect(ok.status).toBe(200);
    // One interruption (b at 100), with no cause observed (JobSets only): unknown.
    expect(ok.body.results.A.frames[0].data.values).toEqual([['node', 'pod OOM', 'pod evicted/preempted', 'failure policy', 'unknown'], [0, 0, 0, 0, 1]]);
    const bad = await service.post('/api/v1/query', body({ queryType: 'summary', groupBy: 'cause' }));
    expect(bad.status).toBe(400);
    expect(bad.body.results.A.error).toMatch(/^queries\[0\]\.groupBy: cause counts the interruptions of an events query/);
  });
});

describe('/metrics counters for SLO tools', () => {
  it('sum up, down and counted seconds per JobSet name across its recreations, equal to the API answers', async () => {
    const text = (await service.get('/metrics')).body as string;
    const up = samples(text, 'upness_jobset_up_seconds_total');
    const down = samples(text, 'upness_jobset_down_seconds_total');
    const counted = samples(text, 'upness_jobset_counted_seconds_total');
    const wall = samples(text, 'upness_jobset_wall_seconds_total');
    // Hand-computed: train = a (up 30, down 10) + b (up 80, down 20); queued = up 0, down 30 (its queued 120 counts for neither).
    expect(up).toEqual({ 'ml/train': s(110), 'ml/queued': 0 });
    expect(down).toEqual({ 'ml/train': s(30), 'ml/queued': s(30) });
    expect(counted).toEqual({ 'ml/train': s(140), 'ml/queued': s(30) });
    // Wall: train = a 40 + b 100 (the gap between them is no one's); queued = 150, its queued 120 included.
    expect(wall).toEqual({ 'ml/train': s(140), 'ml/queued': s(150) });
    expect(text).toContain('# TYPE upness_jobset_wall_seconds_total counter');
    expect(text).toContain('# TYPE upness_jobset_up_seconds_total counter');
    // And the API's own answers over each timeline's whole life, summed per name.
    const list = (await service.get(`/api/v1/jobsets?from=${min(-60)}&to=${min(150)}`)).body.jobsets as any[];
    for (const key of Object.keys(up)) {
      const runs = list.filter((j) => `${j.namespace}/${j.name}` === key);
      expect(runs.length).toBeGreaterThan(0);
      expect(up[key]).toBe(runs.reduce((x, j) => x + j.upSeconds, 0));
      expect(down[key]).toBe(runs.reduce((x, j) => x + j.downSeconds, 0));
      expect(counted[key]).toBe(runs.reduce((x, j) => x + j.upSeconds + j.downSeconds, 0));
      expect(wall[key]).toBe(runs.reduce((x, j) => x + j.wallSeconds, 0));
    }
  });
});

describe('/metrics counters for SLO tools, as names finish', () => {
  // At minute 150 with the default grace of 10 minutes:
  //   ml/train   a completed at 40, b still running      → published, a's time and b's (as above)
  //   ml/old     completed at 20 (130 minutes ago)       → not published: it no longer changes
  //   ml/recent  completed at 145 (5 minutes ago)        → published, its final totals
  const old = new Scenario({ uid: 'o', name: 'old', namespace: 'ml' }, min(0)).created().up(min(5)).at(min(20), { completedAt: min(20), ready: 0, succeeded: 2 });
  const recent = new Scenario({ uid: 'r', name: 'recent', namespace: 'ml' }, min(100)).created().up(min(105)).at(min(145), { completedAt: min(145), ready: 0, succeeded: 2 });
  let finishing: TestService;
  beforeAll(async () => {
    finishing = await startService(merge(first, second, old, recent), { now: min(150) });
  });
  afterAll(() => finishing.close());

  it('publish a name while it has a JobSet running or finished within the grace, with the time of all its JobSets', async () => {
    const text = (await finishing.get('/metrics')).body as string;
    expect(samples(text, 'upness_jobset_up_seconds_total')).toEqual({ 'ml/train': s(110), 'ml/recent': s(40) });
    expect(samples(text, 'upness_jobset_counted_seconds_total')).toEqual({ 'ml/train': s(140), 'ml/recent': s(45) });
    expect(samples(text, 'upness_jobset_wall_seconds_total')).toEqual({ 'ml/train': s(140), 'ml/recent': s(45) });
    // The per-JobSet family by the same rule.
    expect(Object.keys(samples(text, 'megamon_jobset_up')).sort()).toEqual(['ml/recent', 'ml/train']);
  });
});
