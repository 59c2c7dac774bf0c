// The server (app.ts) answers /healthz and /readyz itself, in every spelling express's router took
// (the only implementation: status, headers but Date, body as written here), and loads the API
// (api.ts) on the first other request: requests that arrive while it loads must all be answered.

import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import client from 'prom-client';
import { merge, min, Scenario } from '../../../test/support/scenario.ts';
import { askRaw as ask, listening, type RawAnswer as Answer } from '../../../test/support/service.ts';
import { EngineView } from '../runtime/served-view.ts';
import { TimelineEngine } from '../timeline/engine.ts';
import { createServer, type AppOptions } from './app.ts';
import { arrivedNow, requestTimer } from './metrics.ts';

const train = new Scenario({ uid: 'u-train', name: 'train', namespace: 'team-a' }, min(0)).created().up(min(10)).down(min(70)).up(min(75));

function view(ready: boolean): EngineView {
  const engine = new TimelineEngine();
  for (const o of merge(train)) engine.observe(o);
  const served = new EngineView('trace', engine, false);
  served.setReadiness(ready ? { ready: true } : { ready: false, reason: 'replaying test.jsonl' });
  return served;
}

const options = (served: EngineView, token: string | null = null): AppOptions => ({ view: served, token, logger: pino({ level: 'silent' }), now: () => min(80) });

const json = (status: number, body: unknown): Answer => {
  const text = JSON.stringify(body);
  return { status, headers: { 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(text)), connection: 'close' }, body: text };
};
const OK = json(200, { status: 'ok' });
const NOT_READY = json(503, { ready: false, reason: 'replaying test.jsonl', source: 'trace' });
const READY = json(200, { ready: true, source: 'trace', jobsets: 1, observations: 4, horizon: new Date(min(75)).toISOString() });
const headOf = (answer: Answer): Answer => ({ ...answer, body: '' });
const NOT_MODIFIED: Answer = { status: 304, headers: { connection: 'close' }, body: '' };
const noSuch = (method: string, path: string): Answer => json(404, { error: `no such endpoint: ${method} ${path}` });

/** A request (method, path, headers) and its answer, ready or not: the health checks in every spelling express's router took, and their neighbours. */
// Five entries each: Jest takes a test function's argument past a row's length for its `done`.
const REQUESTS: [string, string, Record<string, string>, Answer, Answer][] = [
  ['GET', '/healthz', {}, OK, OK],
  ['GET', '/readyz', {}, READY, NOT_READY],
  ['GET', '/readyz?verbose=1&x', {}, READY, NOT_READY],
  ['GET', '/healthz#x', {}, OK, OK],
  ['GET', '/healthz/', {}, OK, OK],
  ['GET', '/READYZ', {}, READY, NOT_READY],
  ['GET', '/ReadyZ/?x=1', {}, READY, NOT_READY],
  ['HEAD', '/healthz', {}, headOf(OK), headOf(OK)],
  ['HEAD', '/readyz', {}, headOf(READY), headOf(NOT_READY)],
  ['HEAD', '/Readyz/', {}, headOf(READY), headOf(NOT_READY)],
  // As express's req.fresh: `If-None-Match: *` leaves a 2xx unsent, unless no-cache; a date alone (no Last-Modified) does not.
  ['GET', '/healthz', { 'If-None-Match': '*' }, NOT_MODIFIED, NOT_MODIFIED],
  ['GET', '/readyz', { 'If-None-Match': '*' }, NOT_MODIFIED, NOT_READY],
  ['GET', '/healthz', { 'If-None-Match': '*', 'Cache-Control': 'no-cache' }, OK, OK],
  ['GET', '/readyz', { 'If-Modified-Since': 'Thu, 01 Jan 2026 00:00:00 GMT' }, READY, NOT_READY],
  ['POST', '/healthz', {}, noSuch('POST', '/healthz'), noSuch('POST', '/healthz')],
  ['DELETE', '/readyz', {}, noSuch('DELETE', '/readyz'), noSuch('DELETE', '/readyz')],
  ['GET', '/healthzz', {}, noSuch('GET', '/healthzz'), noSuch('GET', '/healthzz')],
  ['GET', '/readyz/more', {}, noSuch('GET', '/readyz/more'), noSuch('GET', '/readyz/more')],
  ['GET', '/healthz//', {}, noSuch('GET', '/healthz//'), noSuch('GET', '/healthz//')],
  ['GET', '/api/v1/readyz', {}, noSuch('GET', '/api/v1/readyz'), noSuch('GET', '/api/v1/readyz')],
];

describe.each([
  ['ready', true],
  ['not ready (503)', false],
])('the health checks, in every spelling, answered by the server alone: %s', (_name, ready) => {
  it.each(REQUESTS)('%s %s %j', async (method, path, headers, whenReady, whenNot) => {
    const server = await listening(createServer(options(view(ready))));
    try {
      expect(await ask(server.url, method, path, headers)).toEqual(ready ? whenReady : whenNot);
    } finally {
      await server.close();
    }
  });
});

it('counts every health check under its route as declared, whatever its spelling', async () => {
  const registry = new client.Registry();
  const server = await listening(createServer({ ...options(view(true)), registry }));
  try {
    for (const path of ['/healthz', '/HEALTHZ/', '/readyz?x', '/Readyz']) await ask(server.url, 'GET', path);
    await ask(server.url, 'HEAD', '/readyz');
  } finally {
    await server.close();
  }
  const counts = (await registry.metrics()).split('\n').filter((line) => line.startsWith('upness_http_request_duration_seconds_count'));
  expect(counts.sort()).toEqual([
    'upness_http_request_duration_seconds_count{method="GET",route="/healthz",status="200"} 2',
    'upness_http_request_duration_seconds_count{method="GET",route="/readyz",status="200"} 2',
    'upness_http_request_duration_seconds_count{method="HEAD",route="/readyz",status="200"} 1',
  ]);
});

it('answers every request that arrives while the API loads, each as it would once loaded, and counts them all', async () => {
  const server = await listening(createServer(options(view(true), 'secret')));
  const auth = { Authorization: 'Bearer secret' };
  const requests: [string, string, Record<string, string>][] = [
    ['GET', '/api/v1/values/namespaces', auth],
    ['GET', '/api/v1/values/namespaces', {}],
    ['GET', '/api/v1/jobsets', auth],
    ['GET', '/nope', {}],
    ['GET', '/api/v1/openapi.json', {}],
    ['GET', '/readyz', {}],
    ['POST', '/api/v1/query', auth],
  ];
  try {
    // All at once on a fresh server: the first non-health request starts loading the API, the rest wait for it.
    const first = await Promise.all(requests.map(([method, path, headers]) => ask(server.url, method, path, headers)));
    const again = await Promise.all(requests.map(([method, path, headers]) => ask(server.url, method, path, headers)));
    expect(first.map((a) => a.status)).toEqual([200, 401, 200, 404, 200, 200, 400]);
    expect(first).toEqual(again);
    expect(JSON.parse(first[0]!.body)).toEqual({ values: ['team-a'] });
    const metrics = (await ask(server.url, 'GET', '/metrics', auth)).body;
    const count = (labels: string): number => Number(new RegExp(`upness_http_request_duration_seconds_count\\{${labels}\\} (\\d+)`).exec(metrics)?.[1] ?? 0);
    expect(count('method="GET",route="/api/v1/values/:what",status="200"')).toBe(2);
    expect(count('method="GET",route="/readyz",status="200"')).toBe(2);
    expect(count('method="GET",route="unmatched",status="404"')).toBe(2);
    expect(count('method="POST",route="/api/v1/query",status="400"')).toBe(2);
  } finally {
    await server.close();
  }
});

it("times a request that waited for the API from its arrival, so its duration counts the wait", async () => {
  const registry = new client.Registry();
  const time = requestTimer(registry);
  const waited = Object.assign(new EventEmitter(), { method: 'GET' }) as unknown as IncomingMessage;
  const res = Object.assign(new EventEmitter(), { statusCode: 200 }) as unknown as ServerResponse;
  arrivedNow(waited);
  await sleep(60);
  time(waited, res, () => '/api/v1/values/:what');
  res.emit('finish');
  const [metric] = (await registry.getMetricsAsJSON()).filter((m) => m.name === 'upness_http_request_duration_seconds');
  const sum = (metric as unknown as { values: { metricName: string; value: number }[] }).values.find((v) => v.metricName.endsWith('_sum'))!.value;
  expect(sum).toBeGreaterThanOrEqual(0.05);
});
