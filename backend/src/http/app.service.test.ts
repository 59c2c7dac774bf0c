/* eslint-disable @typescript-eslint/no-explicit-any -- the bodies are the JSON answers of the API under test */
// The HTTP API over real HTTP on loopback, on JobSets drawn below, with hand-computed answers.

import { gzipSync } from 'node:zlib';
import { tableFromIPC } from 'apache-arrow';
import fc from 'fast-check';
import { merge, min, Scenario } from '../../../test/support/scenario.ts';
import { startService, type TestService } from '../../../test/support/service.ts';
import { FIGURES, USAGE_METRICS } from '../query/types.ts';
import { openApiDocument } from './openapi.ts';
import { ARROW_ANSWER_TYPE, readArrowAnswer } from './query.ts';

//   team-a/train  (tpu-v5p-slice, 2x2x2, team=x)
//     0 ─prov─ 10 ─up─ 70 ─down─ 75 ─up─ 195 ─down─ 210 ─up─ 240 completed
//   team-a/eval   (created at 30, queued until 50 (Suspended: SuspendedJobs, "jobset is suspended"); team=y)
//     30 ─queued─ 50 ─prov─ 55 ─up─ 240 (still up)
//   team-b/bench  (nvidia-h100-80gb)
//     0 ─prov─ 20 ─up─ 100 ─down─ 240 (still down)
const tpu = { 'cloud.google.com/gke-tpu-accelerator': 'tpu-v5p-slice', 'cloud.google.com/gke-tpu-topology': '2x2x2' };
const train = new Scenario({ uid: 'u-train', name: 'train', namespace: 'team-a', labels: { team: 'x' }, nodeSelector: tpu }, min(0))
  .created()
  .up(min(10))
  .down(min(70), { restarts: 1 })
  .up(min(75))
  .down(min(195), { restarts: 2 })
  .up(min(210))
  .at(min(240), { completedAt: min(240), ready: 0, succeeded: 2 });
const evaluation = new Scenario({ uid: 'u-eval', name: 'eval', namespace: 'team-a', labels: { team: 'y' } }, min(30), {
  suspend: true,
  suspended: { status: 'True', at: min(30), reason: 'SuspendedJobs', message: 'jobset is suspended' },
})
  .created()
  .at(min(50), { suspend: false, suspended: { status: 'False', at: min(50), reason: 'ResumeJobs', message: 'jobset is resumed' } })
  .up(min(55));
const bench = new Scenario({ uid: 'u-bench', name: 'bench', namespace: 'team-b', nodeSelector: { 'cloud.google.com/gke-accelerator': 'nvidia-h100-80gb' } }, min(0))
  .created()
  .up(min(20))
  .down(min(100))
  .at(min(240), { ready: 0 });

const observations = merge(train, evaluation, bench);
const FROM = String(min(0));
const TO = String(min(240));
const HOUR = 3_600_000;

let service: TestService;
beforeAll(async () => {
  service = await startService(observations);
});
afterAll(() => service.close());

async function query(q: Record<string, unknown>, from = FROM, to = TO) {
  const res = await service.post('/api/v1/query', { from, to, queries: [{ refId: 'A', ...q }] });
  return res;
}

/** The values of a frame's fields by name. */
function columns(frame: any): Record<string, unknown[]> {
  return Object.fromEntries(frame.schema.fields.map((f: any, i: number) => [f.name, frame.data.values[i]]));
}

describe('POST /api/v1/query', () => {
  it('defaults to the uptime ratio of each JobSet over the range, labelled and in percent', async () => {
    const res = await query({});
    expect(res.status).toBe(200);
    const frames = res.body.results.A.frames;
    expect(frames.map((f: any) => f.schema.name)).toEqual(['team-a/eval', 'team-a/train', 'team-b/bench']);
    const trainFrame = frames[1];
    expect(trainFrame.schema.fields[0]).toEqual({ name: 'time', type: 'time', typeInfo: { frame: 'time.Time' } });
    expect(trainFrame.schema.fields[1]).toMatchObject({
      name: 'uptimeRatio',
      type: 'number',
      typeInfo: { frame: 'float64', nullable: true },
      labels: { namespace: 'team-a', jobset: 'train', uid: 'u-train' },
      config: { unit: 'percentunit' },
    });
    expect(trainFrame.data.values).toEqual([[min(240)], [210 / 240]]);
    expect(frames[0].data.values[1]).toEqual([185 / 190]);
    expect(frames[2].data.values[1]).toEqual([80 / 240]);
  });

  //   hourly buckets of team-a/train's up time: (0,60]: 50 m, (60,120]: 55 m, (120,180]: 60 m, (180,240]: 45 m
  it('steps: each hour its own bucket, aligned to the step', async () => {
    const res = await query({ metric: 'upSeconds', window: 'step', name: 'train', intervalMs: HOUR });
    const [frame] = res.body.results.A.frames;
    expect(columns(frame)).toEqual({ time: [min(0), min(60), min(120), min(180), min(240)], upSeconds: [0, 50 * 60, 55 * 60, 60 * 60, 45 * 60] });
  });

  //   train completed at 240; a 2 h window at 300 reaches back to 180: up (180,195] and (210,240]
  it("a point's window counts a JobSet that ended before the range began, if it lived in the window", async () => {
    const res = await query({ metric: 'upSeconds', window: 'rolling', rolling: '2h', name: 'train', intervalMs: HOUR }, String(min(300)), String(min(360)));
    // At 360 the window (240, 360] begins as train ends (240): it did not live in it, so no value there.
    expect(columns(res.body.results.A.frames[0])).toEqual({ time: [min(300), min(360)], upSeconds: [45 * 60, null] });
    // Its state at each point is not a window: it is not among the JobSets of that range.
    expect((await query({ metric: 'up', window: 'step', name: 'train', intervalMs: HOUR }, String(min(300)), String(min(360)))).body.results.A.frames).toEqual([]);
  });

  it('raises the step so the range holds at most maxDataPoints points', async () => {
    const res = await query({ metric: 'upSeconds', window: 'step', name: 'train', intervalMs: 60_000, maxDataPoints: 4 });
    // 4 hours in at most 4 aligned points: an 80-minute step.
    expect(columns(res.body.results.A.frames[0]).time).toEqual([min(0), min(80), min(160), min(240)]);
  });

  it('holds a maxDataPoints above the limit to the limit (Grafana alerting sends 43,200)', async () => {
    const res = await query({ metric: 'up', window: 'step', name: 'train', intervalMs: 1000, maxDataPoints: 43_200 }, FROM, String(min(24 * 60)));
    expect(res.status).toBe(200);
    expect(columns(res.body.results.A.frames[0]).time!.length).toBeLessThanOrEqual(11_000);
  });

  it('groups by namespace with a pooled aggregate, and by accelerator', async () => {
    const byNs = await query({ groupBy: 'namespace', aggregate: 'pooled' });
    const [a, b] = byNs.body.results.A.frames;
    expect(a.schema.fields[1].labels).toEqual({ namespace: 'team-a' });
    expect(a.data.values[1]).toEqual([(210 + 185) / (240 + 190)]);
    expect(b.data.values[1]).toEqual([80 / 240]);
    const byAccel = await query({ metric: 'interruptions', groupBy: 'accelerator', aggregate: 'sum' });
    expect(byAccel.body.results.A.frames.map((f: any) => [f.schema.fields[1].labels.accelerator, f.data.values[1][0]])).toEqual([
      ['', 0],
      ['nvidia-h100-80gb', 1],
      ['tpu-v5p-slice', 2],
    ]);
  });

  it('a rolling window and the up state at each step', async () => {
    const rolling = await query({ metric: 'upSeconds', window: 'rolling', rolling: '2h', name: 'train', intervalMs: HOUR });
    expect(columns(rolling.body.results.A.frames[0]).upSeconds).toEqual([0, 50 * 60, 105 * 60, 115 * 60, 105 * 60]);
    const up = await query({ metric: 'up', window: 'step', groupBy: 'all', aggregate: 'sum', intervalMs: HOUR });
    //   at 0: none up; 60: train, eval, bench; 120: train, eval (bench down); 180: train, eval; 240: eval (train completed, bench down)
    expect(columns(up.body.results.A.frames[0]).up).toEqual([0, 3, 2, 2, 1]);
  });

  it('filters by namespace, name pattern, label selector and state', async () => {
    const names = async (q: Record<string, unknown>) => (await query(q)).body.results.A.frames.map((f: any) => f.schema.name);
    expect(await names({ namespaces: ['team-b'] })).toEqual(['team-b/bench']);
    expect(await names({ name: 't*' })).toEqual(['team-a/train']);
    expect(await names({ name: '/^(eval|bench)$/' })).toEqual(['team-a/eval', 'team-b/bench']);
    expect(await names({ labelSelector: 'team in (x,y),team!=y' })).toEqual(['team-a/train']);
    expect(await names({ labelSelector: '!team' })).toEqual(['team-b/bench']);
    expect(await names({ states: ['down'] })).toEqual(['team-b/bench']);
  });

  it('summary: a table with the state and every figure of each JobSet', async () => {
    const res = await query({ queryType: 'summary' });
    const [frame] = res.body.results.A.frames;
    const c = columns(frame);
    expect(c.name).toEqual(['eval', 'train', 'bench']);
    expect(c.state).toEqual(['up', 'completed', 'down']);
    expect(c.interruptions).toEqual([0, 2, 1]);
    expect(c.mttrSeconds).toEqual([null, 600, null]);
    expect(c.queuedSeconds).toEqual([20 * 60, 0, 0]);
    expect(frame.schema.fields.map((f: any) => f.name)).toEqual(['namespace', 'name', 'uid', 'state', ...FIGURES]);
    const grouped = await query({ queryType: 'summary', groupBy: 'namespace', aggregate: 'sum' });
    expect(columns(grouped.body.results.A.frames[0])).toMatchObject({ namespace: ['team-a', 'team-b'], jobsets: [2, 1], interruptions: [2, 1] });
  });

  it('summary: `figures` narrows the table to the figures asked for, in the table order', async () => {
    const res = await query({ queryType: 'summary', figures: ['uptimeRatio', 'interruptions'] });
    const [frame] = res.body.results.A.frames;
    expect(frame.schema.fields.map((f: any) => f.name)).toEqual(['namespace', 'name', 'uid', 'state', 'interruptions', 'uptimeRatio']);
    expect(columns(frame).interruptions).toEqual([0, 2, 1]);
    const grouped = await query({ queryType: 'summary', groupBy: 'all', aggregate: 'pooled', figures: ['recoveries'] });
    expect(grouped.body.results.A.frames[0].schema.fields.map((f: any) => f.name)).toEqual(['jobsets', 'recoveries']);
  });

  it('states: one row per JobSet name with its changes inside the range, closed at the end', async () => {
    const res = await query({ queryType: 'states', name: 'train' }, String(min(60)), String(min(300)));
    const [frame] = res.body.results.A.frames;
    expect(frame.schema.fields[1]).toMatchObject({ name: 'state', type: 'string', config: { displayNameFromDS: 'team-a/train' } });
    expect(columns(frame)).toEqual({
      time: [min(60), min(70), min(75), min(195), min(210), min(240), min(300)],
      state: ['up', 'down', 'up', 'down', 'up', 'completed', null],
    });
  });

  it('events: interruptions and suspensions as annotation regions until they end, a suspension with why', async () => {
    const res = await query({ queryType: 'events' });
    const c = columns(res.body.results.A.frames[0]);
    expect(c.time).toEqual([min(30), min(70), min(100), min(195)]);
    expect(c.timeEnd).toEqual([min(50), min(75), min(240), min(210)]);
    expect(c.title).toEqual(['Queued: team-a/eval', 'Interruption: team-a/train', 'Interruption: team-b/bench', 'Interruption: team-a/train']);
    expect(c.text).toEqual([
      'Suspended for 20m, then provisioning. Reason: SuspendedJobs (jobset is suspended).',
      'Down for 5m, then recovered.',
      'Down for 2h 20m so far.',
      'Down for 15m, then recovered.',
    ]);
    expect(c.tags).toEqual(['suspension,team-a,eval,SuspendedJobs', 'interruption,team-a,train', 'interruption,team-b,bench', 'interruption,team-a,train']);
    expect(c.kind).toEqual(['suspension', 'interruption', 'interruption', 'interruption']);
    expect(c.reason).toEqual(['SuspendedJobs', null, null, null]);
    expect(c.message).toEqual(['jobset is suspended', null, null, null]);
  });

  it('fleet: the distribution of a figure across the JobSets of each group', async () => {
    const res = await query({ queryType: 'fleet', metric: 'upSeconds', groupBy: 'all' });
    const c = columns(res.body.results.A.frames[0]);
    // up: eval 185 m, train 210 m, bench 80 m
    expect(c).toEqual({ jobsets: [3], min: [80 * 60], mean: [((185 + 210 + 80) / 3) * 60], p50: [185 * 60], p90: [205 * 60], p99: [209.5 * 60], max: [210 * 60] });
  });

  it('an error in one query is that query\'s, the others still answer', async () => {
    const res = await service.post('/api/v1/query', {
      from: FROM,
      to: TO,
      queries: [
        { refId: 'A' },
        { refId: 'B', metric: 'uptime' },
        { refId: 'C', labelSelector: 'team in (x' },
        { refId: 'D', name: '/[/' },
        { refId: 'E', window: 'rolling', rolling: 'a day' },
        { refId: 'F', layer: 'nodes' },
      ],
    });
    expect(res.status).toBe(200);
    const r = res.body.results;
    expect(r.A.status).toBe(200);
    expect(r.B).toEqual({ status: 400, error: expect.stringMatching(/^queries\[1\]\.metric: Invalid option: expected one of "upSeconds"/) });
    expect(r.C).toEqual({ status: 400, error: 'queries[2].labelSelector: unbalanced parentheses' });
    expect(r.D.error).toMatch(/^queries\[3\]\.name: not a valid regular expression/);
    expect(r.E.error).toBe('queries[4].rolling: must be a duration such as 30m, 24h or 7d');
    // The node layer of a source without one (here a TimelineEngine, fed JobSets alone)
    // is no error: an empty frame whose notice says why, which Grafana shows on the panel.
    expect(r.F).toEqual({
      status: 200,
      frames: [{ schema: { name: 'node layer', refId: 'F', meta: { notices: [{ severity: 'info', text: expect.stringMatching(/^No node layer here: .*Pods and Nodes.*this source has JobSets only/) }] }, fields: [] }, data: { values: [] } }],
    });
  });

  it.each([
    [{ from: FROM, to: TO, queries: [{ refId: 'A', metric: 'x' }] }, /queries\[0\]\.metric/],
    [{ from: 'yesterday', to: TO, queries: [{ refId: 'A' }] }, /queries\[0\]\.from: must be epoch milliseconds/],
    [{ from: TO, to: FROM, queries: [{ refId: 'A' }] }, /timeRange: `to` is before `from`/],
    [{ from: '0', to: TO, queries: [{ refId: 'A' }] }, /spans more than the limit of 400 days/],
    [{ queries: [{ refId: 'A' }] }, /timeRange: missing/],
    [{ from: FROM, to: TO, queries: [{ refId: '' }] }, /queries\[0\]\.refId: must not be empty/],
    [{ from: FROM, to: TO, queries: [{ refId: 'A', queryType: 'summary', figures: ['uptime'] }] }, /queries\[0\]\.figures\[0\]: "uptime" is not a figure: one of upSeconds, downSeconds, /],
    [{ from: FROM, to: TO, queries: [[]] }, /^queries\[0\]: expected a JSON object, received an array$/],
    [{ from: FROM, to: TO, queries: [{ refId: 'A', timeRange: '1h' }] }, /^queries\[0\]\.timeRange: expected a JSON object, received a string$/],
    [{ from: FROM, to: TO, queries: [{ refId: 'A', timeRange: { from: FROM } }] }, /^queries\[0\]\.timeRange\.to: missing$/],
  ])('a query that cannot run is a 400 that says why (%#)', async (body, message) => {
    const res = await service.post('/api/v1/query', body);
    expect(res.status).toBe(400);
    expect(Object.values(res.body.results as Record<string, { error: string }>)[0]!.error).toMatch(message);
  });

  it.each([
    ['not JSON', '{"queries": [', /^body: not valid JSON \(/],
    ['an array', '[]', /^body: expected a JSON object, received an array$/],
    ['null', 'null', /^body: expected a JSON object, received null$/],
    ['a number', '42', /^body: expected a JSON object, received a number$/],
    ['a string', '"q"', /^body: expected a JSON object, received a string$/],
    ['a time not a time', '{"from": ["0"], "to": 1, "queries": [{"refId": "A"}]}', /^from: must be epoch milliseconds \(a number or a string of digits\), an RFC 3339 time or now-<duration>$/],
    ['no queries', '{}', /^queries: missing$/],
    ['queries not an array', '{"queries": {}}', /^queries: expected array, received object$/],
    ['no query', '{"queries": []}', /^queries: must hold at least one query$/],
    ['a refId used twice', '{"from": 0, "to": 1, "queries": [{"refId": "A"}, {"refId": "A"}]}', /^queries\[1\]\.refId: "A" is used by an earlier query$/],
  ])('a malformed body (%s) is a 400 naming the problem', async (_, body, message) => {
    const res = await service.post('/api/v1/query', body, undefined, true);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(message);
  });

  it('frames=arrow: the same frames as Arrow IPC files, field for field and value for value', async () => {
    const queries = [
      { refId: 'S', queryType: 'states' },
      { refId: 'G', metric: 'upSeconds', groupBy: 'namespace', aggregate: 'sum', window: 'step', intervalMs: HOUR },
      { refId: 'T', queryType: 'summary', sort: { by: 'downSeconds' }, limit: 1 },
      { refId: 'X', metric: 'nope' },
    ];
    const body = { from: FROM, to: TO, queries };
    const asJson = await service.post('/api/v1/query', body);
    const res = await fetch(`${service.url}/api/v1/query?frames=arrow`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(ARROW_ANSWER_TYPE);
    const asArrow = readArrowAnswer(new Uint8Array(await res.arrayBuffer()));
    expect(Object.keys(asArrow.results).sort()).toEqual(['G', 'S', 'T', 'X']);
    expect(asArrow.results.X).toEqual(asJson.body.results.X); // an error has no frames either way
    let nullStrings = 0;
    for (const refId of ['S', 'G', 'T']) {
      const want = asJson.body.results[refId];
      const got = asArrow.results[refId]!;
      expect(got.frames).toBeUndefined();
      expect(got.arrowFiles).toHaveLength(want.frames.length);
      want.frames.forEach((frame: any, i: number) => {
        const table = tableFromIPC(got.arrowFiles![i]!);
        const meta = table.schema.metadata;
        expect(meta.get('name')).toBe(frame.schema.name ?? '');
        expect(meta.get('refId')).toBe(frame.schema.refId ?? '');
        expect(meta.has('meta') ? JSON.parse(meta.get('meta')!) : undefined).toEqual(frame.schema.meta);
        expect(table.numRows).toBe(frame.data.values[0]?.length ?? 0);
        frame.schema.fields.forEach((field: any, j: number) => {
          const arrowField = table.schema.fields[j]!;
          expect(arrowField.name).toBe(field.name);
          expect(arrowField.nullable).toBe(field.typeInfo.nullable === true);
          expect(String(arrowField.type)).toBe({ time: 'Timestamp<NANOSECOND>', number: 'Float64', string: 'Utf8' }[field.type as string]);
          expect(arrowField.metadata.has('labels') ? JSON.parse(arrowField.metadata.get('labels')!) : undefined).toEqual(field.labels);
          expect(arrowField.metadata.has('config') ? JSON.parse(arrowField.metadata.get('config')!) : undefined).toEqual(field.config);
          const values = [...table.getChildAt(j)!].map((v) => (typeof v === 'bigint' ? Number(v / 1_000_000n) : v));
          expect(values).toEqual(frame.data.values[j]);
          if (field.type === 'string') nullStrings += values.filter((v) => v === null).length;
        });
      });
    }
    // The states frames have gaps (null states): the comparison above covered nulls.
    expect(nullStrings).toBeGreaterThan(0);
  });

  it('frames: anything but json or arrow, or both, is a 400 that says what it takes', async () => {
    const body = { from: FROM, to: TO, queries: [{ refId: 'A' }] };
    for (const q of ['frames=xml', 'frames=', 'frames=arrow&frames=json']) {
      const res = await service.post(`/api/v1/query?${q}`, body);
      expect(res).toEqual({ status: 400, body: { error: expect.stringMatching(/^frames: must be json .* or arrow/) } });
    }
  });

  it('sends no ETag: no client revalidates, and hashing every answer cost the service its time', async () => {
    const res = await fetch(`${service.url}/api/v1/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ from: FROM, to: TO, queries: [{ refId: 'A' }] }) });
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toBeNull();
    expect((await fetch(`${service.url}/api/v1/jobsets?from=${FROM}&to=${TO}`)).headers.get('etag')).toBeNull();
  });

  it('writes the query answer itself with the headers res.json sends: JSON, UTF-8, its length in bytes', async () => {
    // Names with a character of three UTF-8 bytes and one of Latin-1 (two UTF-8 bytes, one as Latin-1):
    // the length counts bytes, not characters, and only an ASCII answer is copied as it is.
    for (const refId of ['A€', 'Aé', 'A']) {
      const res = await fetch(`${service.url}/api/v1/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ from: FROM, to: TO, queries: [{ refId }] }) });
      const bytes = Buffer.from(await res.arrayBuffer());
      expect([res.status, res.headers.get('content-type'), res.headers.get('content-length')]).toEqual([200, 'application/json; charset=utf-8', String(bytes.length)]);
      expect(Object.keys(JSON.parse(bytes.toString('utf8')).results)).toEqual([refId]);
    }
  });

  it('refuses a body over 1 MB with 413', async () => {
    const res = await service.post('/api/v1/query', { from: FROM, to: TO, queries: [{ refId: 'A', name: 'x'.repeat(1_100_000) }] });
    expect(res.status).toBe(413);
    expect(res.body.error).toBe('body: too large, more than the limit of 1 MB');
  });

  it('never answers malformed input with a 500 (hundreds of generated bodies)', async () => {
    const valid = { refId: 'A', queryType: 'series', metric: 'upSeconds', groupBy: 'namespace', aggregate: 'p90', window: 'rolling', rolling: '1h', intervalMs: 60_000 };
    const mutated = fc.record(
      Object.fromEntries(Object.keys(valid).map((k) => [k, fc.oneof(fc.constant((valid as Record<string, unknown>)[k]), fc.jsonValue())])),
      { requiredKeys: [] },
    );
    const bodies = fc.oneof(
      fc.jsonValue(),
      fc.record({ from: fc.oneof(fc.constant(FROM), fc.jsonValue()), to: fc.oneof(fc.constant(TO), fc.jsonValue()), queries: fc.array(fc.oneof(mutated, fc.jsonValue()), { maxLength: 4 }) }),
    );
    await fc.assert(
      fc.asyncProperty(bodies, async (body) => {
        const res = await service.post('/api/v1/query', body);
        expect(res.status).not.toBe(500);
        expect([200, 400, 501]).toContain(res.status);
        expect(typeof res.body).toBe('object');
      }),
      { numRuns: 400 },
    );
    // …and raw text that is not JSON at all.
    await fc.assert(
      fc.asyncProperty(fc.string(), async (text) => {
        const res = await service.post('/api/v1/query', text, undefined, true);
        expect([200, 400]).toContain(res.status);
      }),
      { numRuns: 100 },
    );
  });
});

describe('GET endpoints', () => {
  it('/api/v1/jobsets: every figure of every JobSet, filterable', async () => {
    const res = await service.get(`/api/v1/jobsets?from=${FROM}&to=${TO}&namespace=team-a&state=completed&state=up`);
    expect(res.status).toBe(200);
    expect(res.body.jobsets.map((j: any) => [j.name, j.state, j.upSeconds])).toEqual([
      ['eval', 'up', 185 * 60],
      ['train', 'completed', 210 * 60],
    ]);
    expect((await service.get('/api/v1/jobsets?from=soon')).status).toBe(400);
    expect((await service.get('/api/v1/jobsets?labelSelector=a%20in%20(')).body.error).toMatch(/labelSelector/);
  });

  it('/api/v1/jobsets/{namespace}/{name}: the timeline with intervals, events and figures', async () => {
    const res = await service.get('/api/v1/jobsets/team-a/train');
    expect(res.status).toBe(200);
    const [tl] = res.body.timelines;
    expect(tl.uid).toBe('u-train');
    expect(tl.intervals[0]).toEqual({ state: 'provisioning', from: new Date(min(0)).toISOString(), to: new Date(min(10)).toISOString() });
    expect(tl.events.map((e: any) => e.type)).toEqual(['interruption', 'recovery', 'interruption', 'recovery']);
    expect(tl.figures.mtbiSeconds).toBe(90 * 60);
    expect((await service.get('/api/v1/jobsets/team-a/nope')).status).toBe(404);
    // A suspended interval says why; the others carry no suspension.
    const evaluation = (await service.get('/api/v1/jobsets/team-a/eval')).body.timelines[0];
    expect(evaluation.intervals.slice(0, 2)).toEqual([
      { state: 'suspended', from: new Date(min(30)).toISOString(), to: new Date(min(50)).toISOString(), suspension: { reason: 'SuspendedJobs', message: 'jobset is suspended' } },
      { state: 'provisioning', from: new Date(min(50)).toISOString(), to: new Date(min(55)).toISOString() },
    ]);
  });

  it('/api/v1/values/*: sorted unique values for editors and variables', async () => {
    const values = async (path: string) => (await service.get(`/api/v1/values/${path}`)).body.values;
    expect(await values('namespaces')).toEqual(['team-a', 'team-b']);
    expect(await values('jobsets?namespace=team-a')).toEqual(['eval', 'train']);
    expect(await values('labelKeys')).toEqual(['team']);
    expect(await values('labelValues?key=team')).toEqual(['x', 'y']);
    expect(await values('accelerators')).toEqual(['nvidia-h100-80gb', 'tpu-v5p-slice']);
    expect(await values('topologies')).toEqual(['2x2x2']);
    expect((await service.get('/api/v1/values/labelValues')).status).toBe(400);
    expect((await service.get('/api/v1/values/colours')).status).toBe(404);
  });

  it('/api/v1/values/*?from&to: only what lived in the range (a dashboard\'s variables)', async () => {
    // 0 ── train, bench ── 20 ── 30 eval created ── 240: train completed, eval up, bench down
    const values = async (path: string) => (await service.get(`/api/v1/values/${path}`)).body.values;
    const before = `from=${min(0)}&to=${min(20)}`;
    expect(await values(`jobsets?namespace=team-a&${before}`)).toEqual(['train']);
    expect(await values(`labelValues?key=team&${before}`)).toEqual(['x']);
    expect(await values(`jobsets?namespace=team-a&from=${min(30)}&to=${min(240)}`)).toEqual(['eval', 'train']);
    // Either bound alone: eval was not there up to 29 minutes; everything was there after 200.
    expect(await values(`jobsets?to=${min(29)}`)).toEqual(['bench', 'train']);
    expect(await values(`jobsets?from=${min(200)}`)).toEqual(['bench', 'eval', 'train']);
    expect(await values(`namespaces?from=${min(241)}`)).toEqual([]); // nothing lived after the last observation
    // A bad from or to is a 400 that names it.
    expect(await service.get('/api/v1/values/jobsets?from=soon')).toEqual({ status: 400, body: { error: expect.stringMatching(/^from: must be epoch milliseconds/) } });
    expect(await service.get(`/api/v1/values/jobsets?to=${min(10)}&from=${min(20)}`)).toEqual({ status: 400, body: { error: 'to: is before `from`' } });
  });

  it('unknown endpoints are a JSON 404', async () => {
    expect(await service.get('/api/v2/query')).toEqual({ status: 404, body: { error: 'no such endpoint: GET /api/v2/query' } });
  });
});

describe('operations', () => {
  it('/healthz and /readyz', async () => {
    expect(await service.get('/healthz')).toEqual({ status: 200, body: { status: 'ok' } });
    const ready = await service.get('/readyz');
    expect(ready).toEqual({ status: 200, body: { ready: true, source: 'trace', jobsets: 3, observations: observations.length, horizon: new Date(min(240)).toISOString() } });
    const starting = await startService(observations, { ready: false });
    try {
      expect(await starting.get('/readyz')).toEqual({ status: 503, body: { ready: false, reason: 'replaying test.jsonl', source: 'trace' } });
    } finally {
      await starting.close();
    }
  });

  it('/metrics: MegaMon-named per-JobSet gauges with the figures of each JobSet\'s life', async () => {
    const res = await service.get('/metrics');
    expect(res.status).toBe(200);
    const text = res.body as string;
    const labels = 'jobset_name="train",jobset_namespace="team-a",jobset_uid="u-train",tpu_topology="2x2x2",tpu_accelerator="tpu-v5p-slice"';
    expect(text).toContain(`megamon_jobset_up{${labels}} 0`);
    expect(text).toContain(`megamon_jobset_up_time_seconds{${labels}} 12600`);
    expect(text).toContain(`megamon_jobset_down_time_seconds{${labels}} 1800`);
    expect(text).toContain(`megamon_jobset_down_time_initial_seconds{${labels}} 600`);
    expect(text).toContain(`megamon_jobset_interruption_count{${labels}} 2`);
    expect(text).toContain(`megamon_jobset_recovery_count{${labels}} 2`);
    expect(text).toContain(`megamon_jobset_down_time_between_recovery_seconds{${labels}} 1200`);
    expect(text).toContain(`megamon_jobset_down_time_between_recovery_mean_seconds{${labels}} 600`);
    expect(text).toContain(`megamon_jobset_down_time_between_recovery_latest_seconds{${labels}} 900`);
    expect(text).toContain(`megamon_jobset_up_time_between_interruption_seconds{${labels}} 10800`);
    expect(text).toContain(`megamon_jobset_up_time_between_interruption_mean_seconds{${labels}} 5400`);
    expect(text).toContain(`megamon_jobset_up_time_between_interruption_latest_seconds{${labels}} 7200`);
    expect(text).toContain('upness_jobset_queued_seconds{jobset_name="eval"');
    expect(text).toMatch(/upness_timelines\{state="down"\} 1/);
    expect(text).toMatch(/upness_http_request_duration_seconds_bucket\{le="[^"]+",method="POST",route="\/api\/v1\/query",status="200"\}/);
    expect(text).toContain('process_cpu_seconds_total');
    // What only grows is a counter (Prometheus `_total`); the source registers its own.
    expect(text).toContain('# TYPE upness_observations_total counter');
    expect(text).toMatch(/^upness_observations_total [1-9]\d*$/m);
    expect(text).toContain('# TYPE upness_ready gauge');
  });

  it("/metrics: the kept selections' hits and selections made, counted as queries ask", async () => {
    const counts = async (): Promise<{ hit: number; made: number }> => {
      const text = (await service.get('/metrics')).body as string;
      const of = (result: string): number => Number(new RegExp(`^upness_kept_selections_total\\{result="${result}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? NaN);
      return { hit: of('hit'), made: of('made') };
    };
    const before = await counts();
    // A range no query of this file asks: the first asks makes its selection, the second finds it kept.
    const body = { from: String(Number(FROM) + 1_234), to: TO, queries: [{ refId: 'A', queryType: 'summary', namespaces: ['team-a'] }] };
    expect((await service.post('/api/v1/query', body)).status).toBe(200);
    const once = await counts();
    expect(once.made).toBe(before.made + 1);
    expect((await service.post('/api/v1/query', body)).status).toBe(200);
    const twice = await counts();
    expect(twice).toEqual({ hit: once.hit + 1, made: once.made });
  });
});

describe('authentication', () => {
  let secured: TestService;
  beforeAll(async () => {
    secured = await startService(observations, { token: 's3cret' });
  });
  afterAll(() => secured.close());

  it('requires the bearer token on /api/v1 and /metrics, not on /healthz, /readyz or the OpenAPI document', async () => {
    for (const path of ['/api/v1/values/namespaces', '/metrics', '/api/v1/jobsets']) {
      expect(await secured.get(path)).toEqual({ status: 401, body: { error: 'missing or wrong bearer token' } });
      expect((await secured.get(path, 'wrong')).status).toBe(401);
      expect((await secured.get(path, 's3cret')).status).toBe(200);
    }
    expect((await secured.post('/api/v1/query', { from: FROM, to: TO, queries: [{ refId: 'A' }] })).status).toBe(401);
    expect((await secured.post('/api/v1/query', { from: FROM, to: TO, queries: [{ refId: 'A' }] }, 's3cret')).status).toBe(200);
    for (const path of ['/healthz', '/readyz', '/api/v1/openapi.json']) expect((await secured.get(path)).status).toBe(200);
  });
});

describe('POST /api/v1/query on the server, ahead of the app (issue 21 §4)', () => {
  // `upness serve` answers the exact path on Node's own server; express's router also takes the path
  // with a trailing slash (not strict) and answers it through the app's route: every answer of the
  // direct route must be the app's, status, headers and bytes.
  let secured: TestService;
  beforeAll(async () => {
    secured = await startService(observations, { token: 's3cret' });
  });
  afterAll(() => secured.close());

  const good = JSON.stringify({ from: FROM, to: TO, queries: [{ refId: 'A', queryType: 'summary', figures: ['uptimeRatio'] }, { refId: 'B', metric: 'bogus' }] });
  const json = { 'content-type': 'application/json' };
  const auth = { authorization: 'Bearer s3cret' };
  const cases: [string, { query?: string; headers: Record<string, string>; body?: string | Buffer }][] = [
    ['an answer', { headers: { ...json, ...auth }, body: good }],
    ['an answer as Arrow', { query: '?frames=arrow', headers: { ...json, ...auth }, body: good }],
    ['frames twice', { query: '?frames=arrow&frames=json', headers: { ...json, ...auth }, body: good }],
    ['no token', { headers: json, body: good }],
    ['a wrong token', { headers: { ...json, authorization: 'Bearer nope' }, body: good }],
    ['malformed JSON', { headers: { ...json, ...auth }, body: '{"queries": [' }],
    ['JSON that is not an object', { headers: { ...json, ...auth }, body: '[1, 2]' }],
    ['an empty body', { headers: { ...json, ...auth }, body: '' }],
    ['no body', { headers: auth }],
    ['not sent as JSON', { headers: { 'content-type': 'text/plain', ...auth }, body: good }],
    ['a charset JSON cannot be in', { headers: { 'content-type': 'application/json; charset=latin1', ...auth }, body: good }],
    ['gzip', { headers: { ...json, ...auth, 'content-encoding': 'gzip' }, body: gzipSync(good) }],
    ['an unknown content encoding', { headers: { ...json, ...auth, 'content-encoding': 'zip' }, body: good }],
    ['over 1 MB', { headers: { ...json, ...auth }, body: JSON.stringify({ from: FROM, to: TO, queries: [{ refId: 'A', name: 'x'.repeat(1_100_000) }] }) }],
  ];

  it.each(cases)('%s: the same status, headers and bytes as the app route', async (_what, { query: search = '', headers, body }) => {
    const ask = async (path: string) => {
      const res = await fetch(`${secured.url}${path}${search}`, { method: 'POST', headers, ...(body !== undefined ? { body } : {}) });
      const kept = ['content-type', 'content-length', 'www-authenticate', 'etag', 'x-powered-by'].map((h) => [h, res.headers.get(h)]);
      return { status: res.status, headers: kept, bytes: Buffer.from(await res.arrayBuffer()).toString('base64') };
    };
    const direct = await ask('/api/v1/query');
    expect(direct).toEqual(await ask('/api/v1/query/'));
    // Neither a 5xx nor a bare status: every answer says what it is.
    expect(direct.status).toBeLessThan(500);
  });

  it("times its requests as the app's route: upness_http_request_duration_seconds by route /api/v1/query", async () => {
    const count = async (status: string): Promise<number> => {
      const text = (await secured.get('/metrics', 's3cret')).body as string;
      const line = text.split('\n').find((l) => l.startsWith('upness_http_request_duration_seconds_count{') && l.includes('route="/api/v1/query"') && l.includes(`status="${status}"`) && l.includes('method="POST"'));
      return line === undefined ? 0 : Number(line.split(' ').at(-1));
    };
    const [ok, refused] = [await count('200'), await count('401')];
    expect((await secured.post('/api/v1/query', { from: FROM, to: TO, queries: [{ refId: 'A' }] }, 's3cret')).status).toBe(200);
    expect((await secured.post('/api/v1/query', { from: FROM, to: TO, queries: [{ refId: 'A' }] })).status).toBe(401);
    expect([await count('200'), await count('401')]).toEqual([ok + 1, refused + 1]);
  });
});

describe('the OpenAPI description', () => {
  const doc = openApiDocument() as { paths: Record<string, Record<string, any>> };

  it('describes exactly the routes the server answers', async () => {
    // Every documented operation answers with one of its documented statuses (not the 404 of an unknown route).
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const concrete = path.replace('{namespace}', 'team-a').replace('{name}', 'train').replace('{what}', 'namespaces');
        const res =
          method === 'post' ? await service.post(concrete, { from: FROM, to: TO, queries: [{ refId: 'A' }] }) : await service.get(concrete);
        expect(Object.keys(operation.responses)).toContain(String(res.status));
      }
    }
    // And the server has no route the document leaves out.
    const routes = new Set<string>();
    const { createApp } = await import('./api.ts');
    const app = createApp({ view: service.view, token: null, logger: (await import('pino')).pino({ level: 'silent' }) });
    const walk = (stack: any[], prefix: string): void => {
      for (const layer of stack) {
        if (layer.route) for (const m of Object.keys(layer.route.methods)) routes.add(`${m} ${prefix}${layer.route.path.replace(/:(\w+)/g, '{$1}')}`);
        // A router mounted at / (one per resource) adds nothing to the path; the only other mount is /api/v1.
        else if (layer.handle?.stack) walk(layer.handle.stack, prefix + (layer.slash ? '' : '/api/v1'));
      }
    };
    walk((app as any).router.stack, '');
    const documented = new Set(Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m} ${p}`)));
    // The server's table of its routes (what OPTIONS answers; HEAD goes with GET) is the document's...
    const { ROUTES } = await import('./app.ts');
    const declared = ROUTES.flatMap((r) => r.methods.filter((m) => m !== 'HEAD').map((m) => `${m.toLowerCase()} ${r.path.replace(/:(\w+)/g, '{$1}')}`));
    expect(declared.sort()).toEqual([...documented].sort());
    // ...and holds every route of the express app (the others, the server answers alone: health, values, metrics).
    expect([...routes].filter((route) => !documented.has(route))).toEqual([]);
    expect(routes.size).toBeGreaterThan(0);
  });

  it('documents the query schema the server validates with', () => {
    const query = (openApiDocument() as any).components.schemas.Query;
    expect(query.properties.metric.enum).toEqual([...FIGURES, 'up', ...USAGE_METRICS]);
    expect(query.properties.usageByState.items.enum).toEqual([...USAGE_METRICS]);
    expect(query.required).toEqual(['refId']);
  });
});

describe('clusters', () => {
  let east: TestService;
  beforeAll(async () => {
    east = await startService(observations, { cluster: 'east' });
  });
  afterAll(() => east.close());

  it('names the cluster on every series, filters and groups by it, and lists it', async () => {
    const post = (q: Record<string, unknown>) => east.post('/api/v1/query', { from: FROM, to: TO, queries: [{ refId: 'A', ...q }] });
    const perJobSet = await post({});
    expect(perJobSet.body.results.A.frames[0].schema.fields[1].labels).toEqual({ cluster: 'east', namespace: 'team-a', jobset: 'eval', uid: 'u-eval' });
    const byCluster = await post({ groupBy: 'cluster', aggregate: 'pooled' });
    expect(byCluster.body.results.A.frames.map((f: any) => [f.schema.fields[1].labels, f.data.values[1][0]])).toEqual([
      [{ cluster: 'east' }, (210 + 185 + 80) / (240 + 190 + 240)],
    ]);
    expect((await post({ clusters: ['west'] })).body.results.A.frames).toEqual([]);
    expect((await post({ clusters: ['east'] })).body.results.A.frames).toHaveLength(3);
    const summary = await post({ queryType: 'summary' });
    expect(columns(summary.body.results.A.frames[0]).cluster).toEqual(['east', 'east', 'east']);
    expect((await east.get('/api/v1/values/clusters')).body.values).toEqual(['east']);
    expect((await east.get(`/api/v1/jobsets?from=${FROM}&to=${TO}&cluster=west`)).body.jobsets).toEqual([]);
  });
});

describe('a name borne twice within one second', () => {
  // Deleted and created again at once: both creationTimestamps fall in one second. The UIDs sort the
  // other way round, so only the rule (the one that ended first is the older) lists them in order.
  const before = new Scenario({ uid: 'z-first', name: 'again', namespace: 'team-a' }, min(0)).created().up(min(5)).deleted(min(10));
  const after = new Scenario({ uid: 'a-second', name: 'again', namespace: 'team-a' }, min(0)).created();
  let svc: TestService;
  beforeAll(async () => {
    svc = await startService(merge(before, after));
  });
  afterAll(() => svc.close());

  it('lists the timelines oldest first', async () => {
    const res = await svc.get(`/api/v1/jobsets/team-a/again?from=${FROM}&to=${String(min(20))}`);
    expect(res.body.timelines.map((t: { uid: string }) => t.uid)).toEqual(['z-first', 'a-second']);
  });
});
