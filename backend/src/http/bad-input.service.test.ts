/* eslint-disable @typescript-eslint/no-explicit-any -- the bodies are the JSON answers of the API under test */
// Bad input never costs the service: over real HTTP, times beyond what a Date holds, requests that
// would work out too much, and generated garbage in every field of every endpoint all get a 400
// naming the field (never a 5xx), while a normal request keeps being answered. That a refusal costs
// no work is counted, not timed, in frames/refusal-costs-nothing.test.ts.

import fc from 'fast-check';
import { merge, min, Scenario } from '../../../test/support/scenario.ts';
import { startService, type TestService } from '../../../test/support/service.ts';
import { querySchema } from '../frames/query-types/index.ts';
import { LIMITS } from '../query/step.ts';
import { UsageBook } from '../usage/book.ts';
import { USAGE_METRICS } from '../usage/metrics.ts';
import { openApiDocument } from './openapi.ts';

//   team-a/train   0 ─prov─ 10 ─up─ 70 ─down─ 75 ─up─ 240 (still up)
//   bulk-k/run-i   2,000 JobSets in 10 namespaces: 0 ─prov─ 10 ─up─ 240 (still up)
const train = new Scenario({ uid: 'u-train', name: 'train', namespace: 'team-a', labels: { team: 'x' } }, min(0)).created().up(min(10)).down(min(70)).up(min(75)).at(min(240), {});
const BULK = 2_000;
const bulk = Array.from({ length: BULK }, (_, i) => new Scenario({ uid: `b-${i}`, name: `run-${i}`, namespace: `bulk-${i % 10}` }, min(0)).created().up(min(10)));
const FROM = String(min(0));
const TO = String(min(240));
const HUGE = ['8640000000000001', '9999999999999999'];

let service: TestService;
beforeAll(async () => {
  service = await startService(merge(train, ...bulk));
});
afterAll(() => service.close());

/** The normal request: train's uptime ratio over the range, up 225 of 240 minutes (hand-computed). */
async function normal(on: TestService = service): Promise<void> {
  const res = await on.post('/api/v1/query', { from: FROM, to: TO, queries: [{ refId: 'A', name: 'train' }] });
  expect(res.status).toBe(200);
  expect(res.body.results.A.frames[0].data.values[1]).toEqual([225 / 240]);
}

describe('times beyond what a Date can hold', () => {
  it.each(HUGE)('GET /api/v1/jobsets and /api/v1/jobsets/{ns}/{name} with from = to = %s: a 400 naming from', async (t) => {
    for (const path of [`/api/v1/jobsets?from=${t}&to=${t}`, `/api/v1/jobsets/team-a/train?from=${t}&to=${t}`]) {
      const res = await service.get(path);
      expect(res).toEqual({ status: 400, body: { error: expect.stringMatching(new RegExp(`^from: ${t} is out of range: a time must lie within ±8640000000000000 ms of 1970`)) } });
    }
    expect((await service.get(`/api/v1/jobsets?to=${t}`)).body.error).toMatch(/^to: .* is out of range/);
  });

  it.each(['series', 'fleet', 'summary', 'states', 'events'])('POST /api/v1/query (%s) with from = to = 9999999999999999: a 400, not a 500', async (queryType) => {
    const res = await service.post('/api/v1/query', { from: '9999999999999999', to: '9999999999999999', queries: [{ refId: 'A', queryType }] });
    expect(res).toEqual({ status: 400, body: { results: { A: { status: 400, error: expect.stringMatching(/^queries\[0\]\.from: 9999999999999999 is out of range/) } } } });
  });

  it('the very edge of a Date is a time like any other', async () => {
    const edge = '8640000000000000';
    const res = await service.post('/api/v1/query', { from: edge, to: edge, queries: [{ refId: 'A', name: 'train', queryType: 'fleet' }, { refId: 'B', name: 'train' }] });
    expect(res.status).toBe(200);
    expect(res.body.results.A.status).toBe(200);
    // Nothing is observed after the horizon (240): no JobSet lived in that instant.
    expect(res.body.results.B).toEqual({ status: 200, frames: [] });
    const detail = await service.get(`/api/v1/jobsets/team-a/train?from=${edge}&to=${edge}`);
    expect(detail.status).toBe(200);
    expect(detail.body.timelines[0].from).toBe('+275760-09-13T00:00:00.000Z');
  });

  it.each([
    [{ timeRange: { from: 'now-14300000w', to: 'now' } }, /^queries\[0\]\.from: "now-14300000w" is out of range/],
    [{ timeRange: { from: 'now', to: 'now+14285715w' } }, /^queries\[0\]\.to: "now\+14285715w" is out of range/],
    [{ timeRange: { from: 1e300, to: 1e300 } }, /^queries\[0\]\.from: 1e\+300 is out of range/],
    [{ window: 'rolling', rolling: '401d' }, /^queries\[0\]\.rolling: must be at most 400 days$/],
    [{ window: 'rolling', rolling: '99999w' }, /^queries\[0\]\.rolling: must be at most 400 days$/],
    [{ window: 'rolling', rolling: '9999999999w' }, /^queries\[0\]\.rolling: must be a duration such as 30m, 24h or 7d$/],
    [{ intervalMs: 1e300 }, /^queries\[0\]\.intervalMs: must be at most 34560000000 \(400 days\)$/],
  ])('relative times and durations are held too (%#)', async (q, message) => {
    const res = await service.post('/api/v1/query', { from: FROM, to: TO, queries: [{ refId: 'A', ...q }] });
    expect(res.status).toBe(400);
    expect(res.body.results.A.error).toMatch(message);
  });
});

describe("a request's cost is checked before any work", () => {
  // 2,001 JobSets evaluated one by one (a mean is not answered by the fleet index) × 1,000 points
  // = 2,001,000 values: more than a query may work out.
  it('refuses a query that would work out too many values, saying how many and the limit', async () => {
    const res = await service.post('/api/v1/query', {
      from: FROM,
      to: TO,
      queries: [{ refId: 'A', metric: 'upSeconds', window: 'step', groupBy: 'all', aggregate: 'mean', intervalMs: 1000, maxDataPoints: 1000 }],
    });
    expect(res.status).toBe(400);
    // 4 h in at most 1,000 points: a 15 s step, 961 points.
    expect(res.body.results.A.error).toBe(
      'queries[0].maxDataPoints: the query would work out 1,922,961 values (2,001 JobSets × 961 points), more than the limit of 1,000,000 per query: ask for fewer points (a larger intervalMs or a smaller maxDataPoints), a shorter range, fewer JobSets, or a pooled aggregate',
    );
    expect(LIMITS.maxValuesPerQuery).toBe(1_000_000);
  });

  it('does not advise a pooled aggregate where none would help: the up state is worked out JobSet by JobSet', async () => {
    const res = await service.post('/api/v1/query', {
      from: FROM,
      to: TO,
      queries: [{ refId: 'A', metric: 'up', window: 'step', groupBy: 'all', aggregate: 'pooled', intervalMs: 1000, maxDataPoints: 1000 }],
    });
    expect(res.status).toBe(400);
    expect(res.body.results.A.error).toBe(
      'queries[0].maxDataPoints: the query would work out 1,922,961 values (2,001 JobSets × 961 points), more than the limit of 1,000,000 per query: ask for fewer points (a larger intervalMs or a smaller maxDataPoints), a shorter range or fewer JobSets',
    );
  });

  it('the same question pooled is answered from the fleet index, one series of 961 points', async () => {
    const res = await service.post('/api/v1/query', {
      from: FROM,
      to: TO,
      queries: [{ refId: 'A', metric: 'upSeconds', window: 'step', groupBy: 'all', aggregate: 'pooled', intervalMs: 1000, maxDataPoints: 1000 }],
    });
    expect(res.status).toBe(200);
    const [time, up] = res.body.results.A.frames[0].data.values;
    expect(time).toHaveLength(961);
    // The last 15 s step (225 m 45 s, 240 m]: all 2,001 JobSets up.
    expect(up.at(-1)).toBe(2_001 * 15);
  });

  // Each query alone is within the limit (200 JobSets of one namespace × 961 points = 192,200
  // values); eleven of them (2,114,200) are not.
  it('refuses the query that takes a request past its limit, and answers the ones before it', async () => {
    const q = (i: number) => ({ refId: `Q${i}`, namespaces: ['bulk-1'], metric: 'upSeconds', window: 'step', groupBy: 'all', aggregate: 'mean', intervalMs: 1000 });
    const res = await service.post('/api/v1/query', { from: FROM, to: TO, queries: Array.from({ length: 11 }, (_, i) => q(i)) });
    expect(res.status).toBe(200);
    for (let i = 0; i < 10; i++) expect(res.body.results[`Q${i}`].status).toBe(200);
    expect(res.body.results.Q10).toEqual({
      status: 400,
      error:
        'queries[10].maxDataPoints: with the queries before it the request would work out more than the limit of 2,000,000 values per request (this one: 200 JobSets × 961 points): ask for fewer points (a larger intervalMs or a smaller maxDataPoints), a shorter range, fewer JobSets, or a pooled aggregate, or split the request',
    });
  });

  it('queries of one request that select alike select once, and answer as each would alone', async () => {
    const queries = [
      { refId: 'A', name: 'train', metric: 'upSeconds', window: 'step', intervalMs: 3_600_000 },
      { refId: 'B', name: 'train', metric: 'provisioningSeconds', window: 'step', intervalMs: 3_600_000 },
      { refId: 'C', namespaces: ['bulk-1'], queryType: 'summary', groupBy: 'all', aggregate: 'sum' },
      { refId: 'D', namespaces: ['bulk-1'], name: 'run-1*', queryType: 'summary', groupBy: 'all', aggregate: 'sum' },
      { refId: 'E', name: 'train', queryType: 'states' },
    ];
    const together = (await service.post('/api/v1/query', { from: FROM, to: TO, queries })).body.results;
    for (const q of queries) expect(together[q.refId]).toEqual((await service.post('/api/v1/query', { from: FROM, to: TO, queries: [q] })).body.results[q.refId]);
    //   train by the hour: up (0,60]: 50 m, (60,120]: 55 m, (120,180]: 60 m, (180,240]: 60 m; provisioning 10 m in the first hour
    expect(together.A.frames[0].data.values[1]).toEqual([0, 50 * 60, 55 * 60, 60 * 60, 60 * 60]);
    expect(together.B.frames[0].data.values[1]).toEqual([0, 10 * 60, 0, 0, 0]);
    // bulk-1 holds run-1, run-11, …, run-1991 (200 JobSets); run-1* of them: run-1, run-11, run-101 … run-191 and run-1001 … run-1991 (1 + 1 + 10 + 100 = 112)
    const jobsets = (r: any) => r.frames[0].data.values[0][0];
    expect([jobsets(together.C), jobsets(together.D)]).toEqual([200, 112]);
  });

  it('answers a normal request rightly while expensive and huge requests arrive, and does not grow', async () => {
    const expensive = [
      { from: '9999999999999999', to: '9999999999999999', queries: [{ refId: 'A', queryType: 'series' }] },
      { from: '9999999999999999', to: '9999999999999999', queries: [{ refId: 'A', queryType: 'fleet' }] },
      { from: String(min(240) - LIMITS.maxRangeMs), to: TO, queries: Array.from({ length: 100 }, (_, i) => ({ refId: `R${i}`, metric: 'up', window: 'step', groupBy: 'all', intervalMs: 1000, maxDataPoints: 1e9 })) },
      { from: FROM, to: TO, queries: Array.from({ length: 100 }, (_, i) => ({ refId: `R${i}`, window: 'rolling', rolling: '400d', groupBy: 'namespace', aggregate: 'p99', intervalMs: 1 })) },
    ];
    const rssBefore = process.memoryUsage().rss;
    for (let round = 0; round < 6; round++) {
      const answers = Promise.all(expensive.map((body) => service.post('/api/v1/query', body)));
      const gets = Promise.all(HUGE.map((t) => service.get(`/api/v1/jobsets?from=${t}&to=${t}`)));
      await normal();
      for (const res of await answers) {
        expect(res.status).toBe(400);
        for (const r of Object.values(res.body.results) as { status: number; error: string }[]) {
          expect(r.status).toBe(400);
          expect(r.error).toMatch(/^queries\[\d+\]\.(from|maxDataPoints): .*(out of range|limit of)/);
        }
      }
      for (const res of await gets) expect(res.status).toBe(400);
    }
    // The bug grew the process by ~2 GB (and blocked every request for 4–16 s).
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(300 * 2 ** 20);
    // Six rounds of ~400 refused queries: room for a loaded machine (60 s ran out at load 20).
  }, 240_000);
});

describe('generated garbage in every field of every endpoint', () => {
  // Over a small fleet (train and ten others), so that what passes runs in milliseconds.
  let small: TestService;
  beforeAll(async () => {
    small = await startService(merge(train, ...bulk.slice(0, 10)));
    // Usage of train every minute, so that usage queries reach their frames.
    const book = new UsageBook();
    for (let m = 0; m < 240; m++) {
      book.record([{ owner: 'u-train', namespace: 'team-a', name: 'train', at: min(m), values: Object.fromEntries(USAGE_METRICS.map((u, i) => [u, i + m])) as Record<(typeof USAGE_METRICS)[number], number> }]);
    }
    small.view.setUsage(book);
  });
  afterAll(() => small.close());
  // Strings a careless or hostile client sends: numbers past 2^53 and past a Date, NaN-ish words,
  // empty and blank, regular expressions that backtrack, prototype keys, broken selectors.
  const nasty = fc.constantFrom(
    ...HUGE,
    '-8640000000000001',
    '1e999',
    'NaN',
    'Infinity',
    '-1',
    '',
    ' ',
    '0x10',
    'now-99999999999w',
    'now+14285715w',
    'now-1h',
    'now',
    '2026-01-01T00:00:00Z',
    '+275760-09-13T00:00:00.001Z',
    '/(a+)+$/',
    '/[/',
    'a in (',
    '__proto__',
    'constructor',
    'label:',
    '%',
    '%%',
    '%zz',
    '💥',
  );
  const scalar = fc.oneof(nasty, fc.string(), fc.integer(), fc.double({ noNaN: true }), fc.constantFrom(1e308, -1e308, 0, -0, 2 ** 53, -(2 ** 53), 1.5, true, false, null));
  const anyJson = fc.oneof(scalar, fc.jsonValue({ maxDepth: 2 }));
  const VALID: Record<string, unknown> = {
    refId: 'A',
    queryType: 'series',
    metric: 'upSeconds',
    layer: 'jobset',
    clusters: [],
    namespaces: ['team-a'],
    name: 'train',
    labelSelector: 'team=x',
    states: ['up'],
    groupBy: 'namespace',
    sizeBuckets: [1, 8, 64, 512],
    aggregate: 'p90',
    window: 'rolling',
    rolling: '1h',
    figures: ['uptimeRatio'],
    usageByState: ['cpuCores', 'memoryBytes'],
    // `slo`'s own, so a valid SLO query's every field is reached (the indicator: issue 20 §6).
    objective: 0.9,
    period: '1d',
    sloAnswer: 'errorBudget',
    indicator: 'schedulingGoodput',
    burnWindow: '1h',
    shortWindow: '5m',
    burnFactor: 14.4,
    budgetThreshold: 0.05,
    columns: ['remainingFraction', 'burnRate'],
    sort: { by: 'uptimeRatio', direction: 'asc' },
    limit: 5,
    format: 'table',
    intervalMs: 60_000,
    maxDataPoints: 100,
    timeRange: { from: FROM, to: TO },
  };
  const FIELDS = Object.keys(querySchema.shape);
  const fieldAlternation = FIELDS.join('|');
  /** A query whose every field is either valid or garbage (the node layer is left out: see below). */
  const arbQuery = fc
    .record(
      Object.fromEntries(
        FIELDS.map((k) => [
          k,
          k === 'timeRange'
            ? fc.oneof(fc.constant(VALID.timeRange), anyJson, fc.record({ from: fc.oneof(fc.constant(FROM), anyJson), to: fc.oneof(fc.constant(TO), anyJson) }))
            : k === 'queryType'
              ? // The table types too, which read the sort and the limit.
                fc.oneof(fc.constantFrom(VALID.queryType, 'summary', 'slo', 'fleet'), anyJson, fc.array(scalar, { maxLength: 3 }))
              : k === 'sort'
                ? fc.oneof(fc.constant(VALID.sort), anyJson, fc.record({ by: fc.oneof(fc.constantFrom('uptimeRatio', 'burnRate', 'remainingFraction', 'jobsets', 'cpuCoresWhileUp'), anyJson), direction: fc.oneof(fc.constantFrom('asc', 'desc'), anyJson) }, { requiredKeys: [] }))
                : k === 'metric'
                  ? // A usage metric too, which a series answers from the usage book and the other types refuse.
                    fc.oneof(fc.constantFrom(VALID.metric, 'cpuCores', 'networkReceiveBytesPerSecond'), anyJson, fc.array(scalar, { maxLength: 3 }))
                  : fc.oneof(fc.constant(VALID[k]), anyJson, fc.array(scalar, { maxLength: 3 })),
        ]),
      ),
      { requiredKeys: [] },
    )
    .filter((q) => q.layer !== 'nodes');
  const arbBody = fc.oneof(
    { weight: 1, arbitrary: anyJson },
    {
      weight: 6,
      arbitrary: fc.record(
        { from: fc.oneof(fc.constant(FROM), anyJson), to: fc.oneof(fc.constant(TO), anyJson), queries: fc.oneof(fc.array(fc.oneof(arbQuery, anyJson), { maxLength: 4 }), anyJson) },
        { requiredKeys: [] },
      ),
    },
  );
  // A 400 names what is at fault: the body, a top-level field, or a query's field.
  const BODY_ERROR = /^(body|from|to|queries(\[\d+\](\.refId)?)?): /;
  const QUERY_ERROR = new RegExp(`^queries\\[\\d+\\](: |\\.(${fieldAlternation}|from|to)(\\.(from|to|by|direction)|\\[\\d+\\])*: )`);

  it('POST /api/v1/query: 200 or 400, and a 400 names the field', async () => {
    await fc.assert(
      fc.asyncProperty(arbBody, async (body) => {
        const res = await small.post('/api/v1/query', body);
        expect([200, 400]).toContain(res.status);
        if (res.body.error !== undefined) {
          expect(res.status).toBe(400);
          expect(res.body.error).toMatch(BODY_ERROR);
          return;
        }
        for (const r of Object.values(res.body.results) as { status: number; error?: string }[]) {
          expect([200, 400]).toContain(r.status);
          if (r.status === 400) expect(r.error).toMatch(QUERY_ERROR);
        }
      }),
      { numRuns: 300 },
    );
  }, 120_000);

  it('POST /api/v1/query with a body that is not JSON, or not sent as JSON: a 400 naming the body', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string(), async (text) => {
        const res = await small.post('/api/v1/query', text, undefined, true);
        expect(res.status).toBe(400);
        expect(res.body.error).toMatch(BODY_ERROR);
      }),
      { numRuns: 100 },
    );
    const plain = await fetch(`${small.url}/api/v1/query`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{"queries": []}' });
    expect(plain.status).toBe(400);
    expect(await plain.json()).toEqual({ error: 'body: missing, or not sent as JSON (Content-Type: application/json)' });
  });

  const param = fc.oneof(nasty, fc.string({ maxLength: 20 }), fc.integer().map(String));
  /** A query string: each parameter absent, once or repeated, percent-encoded (or raw, to try the parser). */
  const queryString = (names: readonly string[]) =>
    fc
      .tuple(
        fc.array(fc.tuple(fc.constantFrom(...names, 'other'), fc.array(param, { minLength: 1, maxLength: 2 })), { maxLength: 6 }),
        fc.boolean(),
      )
      .map(([pairs, raw]) =>
        pairs.flatMap(([name, values]) => values.map((v) => `${name}=${raw ? v.replace(/[#&?\s]/g, '') : encodeURIComponent(v)}`)).join('&'),
      );
  const segment = fc.oneof(fc.constantFrom('team-a', 'train', 'bulk-1', 'run-1', '', '..', '%2F', '%00', '%zz', '__proto__'), fc.string({ minLength: 1, maxLength: 12 }).map(encodeURIComponent));
  const LIST = ['cluster', 'from', 'to', 'namespace', 'name', 'labelSelector', 'state', 'layer'];
  const GET_ERROR = new RegExp(`^(${LIST.join('|')}|key|query string|path)(\\[\\d+\\])?: |^layer=nodes: `);
  const gets = fc.oneof(
    queryString(LIST).map((q) => `/api/v1/jobsets?${q}`),
    fc.tuple(segment, segment, queryString(['from', 'to', 'layer'])).map(([ns, name, q]) => `/api/v1/jobsets/${ns}/${name}?${q}`),
    fc.tuple(fc.oneof(fc.constantFrom('clusters', 'namespaces', 'jobsets', 'labelKeys', 'labelValues', 'accelerators', 'topologies'), segment), queryString(['namespace', 'key', 'from', 'to'])).map(([what, q]) => `/api/v1/values/${what}?${q}`),
  );

  it('GET /api/v1/jobsets, /jobsets/{ns}/{name} and /values/{what}: 200, 400 naming the field, or 404', async () => {
    await fc.assert(
      fc.asyncProperty(gets, async (path) => {
        const res = await small.get(path);
        expect([200, 400, 404]).toContain(res.status);
        expect(typeof res.body).toBe('object');
        if (res.status === 400) expect(res.body.error).toMatch(GET_ERROR);
      }),
      { numRuns: 300 },
    );
  }, 120_000);

  it('leaves the service healthy: it answers, correctly', async () => {
    expect(await small.get('/healthz')).toEqual({ status: 200, body: { status: 'ok' } });
    await normal(small);
    await normal();
  });
});

describe('the OpenAPI description states the limits the server enforces', () => {
  const doc = openApiDocument() as any;

  it("intervalMs: its documented maximum is accepted, one more refused; every time's description gives the range", async () => {
    const max = doc.components.schemas.Query.properties.intervalMs.maximum;
    const post = (intervalMs: number) => service.post('/api/v1/query', { from: FROM, to: TO, queries: [{ refId: 'A', name: 'train', window: 'step', intervalMs }] });
    expect((await post(max)).status).toBe(200);
    expect((await post(max + 1)).body.results.A.error).toMatch(/^queries\[0\]\.intervalMs: must be at most/);
    expect(doc.components.schemas.Query.properties.timeRange.properties.from.description).toContain('±8640000000000000 ms');
    expect(doc.paths['/api/v1/jobsets'].get.parameters[0].description).toContain('±8640000000000000 ms');
  });

  it('names every limit of a query request, as the server counts it', () => {
    const described = doc.paths['/api/v1/query'].post.responses[400].description;
    for (const limit of ['1,000,000 values worked out per query', '2,000,000 per request', '5,000 series per query', '11,000 points per series', '400 days', '100 queries']) {
      expect(described).toContain(limit);
    }
    expect(doc.paths['/api/v1/openapi.json'].get.security).toEqual([]);
    expect(doc.info.description).toContain('served without the bearer token');
  });
});
