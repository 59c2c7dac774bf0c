// The server (app.ts) answers /healthz and /readyz itself and loads the API (api.ts) on the first
// other request: each of its answers must be, byte for byte, the one the express app alone gives
// (status, headers but Date, body), and requests that arrive while the API loads must all be answered.

import { EventEmitter } from 'node:events';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import client from 'prom-client';
import { merge, min, Scenario } from '../../../test/support/scenario.ts';
import { askRaw as ask, listening } from '../../../test/support/service.ts';
import { EngineView } from '../runtime/served-view.ts';
import { TimelineEngine } from '../timeline/engine.ts';
import { createApp } from './api.ts';
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

/** The requests compared: the health checks' exact paths (answered by the server) and their neighbours (left to the app). */
// Three entries each: Jest takes a test function's argument past a row's length for its `done`.
const REQUESTS: [string, string, Record<string, string>][] = [
  ['GET', '/healthz', {}],
  ['GET', '/readyz', {}],
  ['GET', '/readyz?verbose=1&x', {}],
  ['GET', '/healthz#x', {}],
  ['GET', '/healthz/', {}],
  ['GET', '/READYZ', {}],
  ['HEAD', '/healthz', {}],
  ['HEAD', '/readyz', {}],
  ['POST', '/healthz', {}],
  ['DELETE', '/readyz', {}],
  ['GET', '/healthz', { 'If-None-Match': '*' }],
  ['GET', '/readyz', { 'If-Modified-Since': 'Thu, 01 Jan 2026 00:00:00 GMT' }],
  ['GET', '/healthzz', {}],
  ['GET', '/readyz/more', {}],
  ['GET', '/api/v1/readyz', {}],
];

describe.each([
  ['ready', true],
  ['not ready (503)', false],
])('the server and the express app answer alike: %s', (_name, ready) => {
  it.each(REQUESTS)('%s %s', async (method, path, headers) => {
    const served = view(ready);
    const server = await listening(createServer(options(served)));
    const app = await listening(http.createServer(createApp(options(served))));
    try {
      expect(await ask(server.url, method, path, headers)).toEqual(await ask(app.url, method, path, headers));
    } finally {
      await Promise.all([server.close(), app.close()]);
    }
  });
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
