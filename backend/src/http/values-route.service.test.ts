// GET /api/v1/values/{what} and GET /metrics are answered by the server alone (values.ts,
// direct-get.ts: the only implementation of either route), in every spelling express's router took
// (another case, a trailing slash, an encoded segment, HEAD, `If-None-Match: *`): each spelling's
// answer, byte for byte but Date, is the plain spelling's or the error written here, with and
// without a token, with the store's commit awaited or failing; and every request is counted under
// its route as declared (`/api/v1/values/:what`), whatever its spelling and whether it failed.

import type http from 'node:http';
import { pino } from 'pino';
import client from 'prom-client';
import { merge, min, Scenario } from '../../../test/support/scenario.ts';
import { askRaw as ask, listening, type RawAnswer as Answer } from '../../../test/support/service.ts';
import { EngineView } from '../runtime/served-view.ts';
import { TimelineEngine } from '../timeline/engine.ts';
import { createServer, isMetricsRequest, isValuesRequest, type AppOptions } from './app.ts';

const train = new Scenario({ uid: 'u-train', name: 'train', namespace: 'team-a', labels: { 'kueue.x-k8s.io/queue-name': 'gpu-a', team: 'équipe' }, limits: { 'nvidia.com/gpu': '8' } }, min(0))
  .created()
  .up(min(10))
  .down(min(70))
  .up(min(75));
const infer = new Scenario({ uid: 'u-infer', name: 'infer', namespace: 'team-b', labels: { 'kueue.x-k8s.io/queue-name': 'cpu' } }, min(20)).created().up(min(30));

function view(): EngineView {
  const engine = new TimelineEngine();
  for (const o of merge(train, infer)) engine.observe(o);
  const served = new EngineView('trace', engine, false);
  served.setReadiness({ ready: true });
  return served;
}

type Commit = 'none' | 'kept' | 'failing';

function options(token: string | null, commit: Commit): AppOptions {
  const beforeRead = commit === 'none' ? undefined : commit === 'kept' ? () => Promise.resolve() : () => Promise.reject(new Error('the store is gone'));
  return { view: view(), token, logger: pino({ level: 'silent' }), now: () => min(80), registry: new client.Registry(), ...(beforeRead === undefined ? {} : { beforeRead }) };
}

/** The request-duration counts of a registry, by their labels (sorted). */
async function counted(registry: client.Registry): Promise<string[]> {
  return (await registry.metrics())
    .split('\n')
    .filter((line) => line.startsWith('upness_http_request_duration_seconds_count'))
    .sort();
}

/** A server for `run`, closed after it. */
async function withServer<T>(appOptions: AppOptions, run: (url: string) => Promise<T>): Promise<T> {
  const server = await listening(createServer(appOptions));
  try {
    return await run(server.url);
  } finally {
    await server.close();
  }
}

const AUTH = { Authorization: 'Bearer secret' };
const V = '/api/v1/values';
const json = (status: number, body: unknown, headers: Record<string, string> = {}): Answer => {
  const text = JSON.stringify(body);
  return { status, headers: { ...headers, 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(text)), connection: 'close' }, body: text };
};
const KINDS = 'clusters, namespaces, jobsets, labelKeys, labelValues, accelerators, topologies, pools';
const NAMESPACES = json(200, { values: ['team-a', 'team-b'] });
const HEAD = { ...NAMESPACES, body: '' };
const NOT_MODIFIED: Answer = { status: 304, headers: { connection: 'close' }, body: '' };

/** A request (method, path, headers, body) and the answer it gets once the token and the store's commit have let it through. */
// Five entries each: Jest takes a test function's argument past a row's length for its `done`.
const REQUESTS: [string, string, Record<string, string>, string | undefined, Answer][] = [
  ['GET', `${V}/namespaces`, AUTH, undefined, NAMESPACES],
  ['GET', `${V}/jobsets?namespace=team-b`, AUTH, undefined, json(200, { values: ['infer'] })],
  ['GET', `${V}/labelValues?key=team`, AUTH, undefined, json(200, { values: ['équipe'] })],
  ['GET', `${V}/labelValues?key=kueue.x-k8s.io%2Fqueue-name&namespace=team-a&namespace=team-b`, AUTH, undefined, json(200, { values: ['cpu', 'gpu-a'] })],
  ['GET', `${V}/namespaces?from=${min(65)}&from=${min(66)}`, AUTH, undefined, json(400, { error: 'from: expected string, received array' })],
  ['GET', `${V}/namespaces?from=now&to=now-1h`, AUTH, undefined, json(400, { error: 'to: is before `from`' })],
  ['GET', `${V}/labelValues`, AUTH, undefined, json(400, { error: 'key: missing (the label key whose values to list)' })],
  ['GET', `${V}/nope`, AUTH, undefined, json(404, { error: `unknown values "nope" (one of ${KINDS})` })],
  ['GET', `${V}/__proto__`, AUTH, undefined, json(404, { error: `unknown values "__proto__" (one of ${KINDS})` })],
  // The spellings express's router took: answered as the plain one.
  ['GET', `${V}/namespaces/`, AUTH, undefined, NAMESPACES],
  ['GET', `/API/V1/Values/namespaces`, AUTH, undefined, NAMESPACES],
  ['GET', `${V}/%6eamespaces`, AUTH, undefined, NAMESPACES],
  ['GET', `${V}/namespaces#x`, AUTH, undefined, NAMESPACES],
  ['GET', `${V}/nope/`, AUTH, undefined, json(404, { error: `unknown values "nope" (one of ${KINDS})` })],
  ['GET', `${V}/a%2Fb`, AUTH, undefined, json(404, { error: `unknown values "a/b" (one of ${KINDS})` })],
  ['GET', `${V}/bad%zz`, AUTH, undefined, json(400, { error: `path: ${V}/bad%zz is not valid percent-encoding` })],
  ['HEAD', `${V}/namespaces`, AUTH, undefined, HEAD],
  ['GET', `${V}/namespaces`, { ...AUTH, 'If-None-Match': '*' }, undefined, NOT_MODIFIED],
  ['GET', `${V}/namespaces`, { ...AUTH, 'If-None-Match': '*', 'Cache-Control': 'no-cache' }, undefined, NAMESPACES],
  ['GET', `${V}/namespaces`, { ...AUTH, 'If-None-Match': '"x"' }, undefined, NAMESPACES],
  ['GET', `${V}/namespaces`, { ...AUTH, 'If-Modified-Since': 'Thu, 01 Jan 2026 00:00:00 GMT' }, undefined, NAMESPACES],
  // A GET's body means nothing: it is not read.
  ['GET', `${V}/namespaces`, { ...AUTH, 'Content-Type': 'text/plain' }, 'hello', NAMESPACES],
  // No route: the app's 404.
  ['GET', `${V}/`, AUTH, undefined, json(404, { error: `no such endpoint: GET ${V}/` })],
  ['GET', `${V}/namespaces//`, AUTH, undefined, json(404, { error: `no such endpoint: GET ${V}/namespaces//` })],
  ['POST', `${V}/namespaces`, AUTH, undefined, json(404, { error: `no such endpoint: POST ${V}/namespaces` })],
];

const UNAUTHORIZED = json(401, { error: 'missing or wrong bearer token' }, { 'www-authenticate': 'Bearer' });
const INTERNAL = json(500, { error: 'internal error (logged by the service)' });

describe.each([
  ['no token, no store', null, 'none'],
  ['a token and a store', 'secret', 'kept'],
  ['a token and a store whose commit fails', 'secret', 'failing'],
] as const)('GET /api/v1/values/{what}, every spelling: %s', (_name, token, commit) => {
  it.each(REQUESTS)('%s %s', async (method, path, headers, body, answer) => {
    // The store's commit is awaited before anything under /api/v1 is read (a 500); a HEAD's answer has no body.
    const expected = commit === 'failing' ? (method === 'HEAD' ? { ...INTERNAL, body: '' } : INTERNAL) : answer;
    await withServer(options(token, commit), async (url) => {
      expect(await ask(url, method, path, headers, body)).toEqual(expected);
      if (token !== null) expect(await ask(url, method, path, {}, body)).toEqual(method === 'HEAD' ? { ...UNAUTHORIZED, body: '' } : UNAUTHORIZED);
    });
  });
});

/** A metrics text reduced to what does not move between scrapes: its families. */
const families = (answer: Answer): Answer => ({ ...answer, headers: { ...answer.headers, 'content-length': 'n' }, body: answer.body.split('\n').filter((line) => line.startsWith('# ')).join('\n') });

it('answers GET /metrics in every spelling express took, the token and the commit first', async () => {
  for (const commit of ['kept', 'failing'] as const) {
    await withServer(options('secret', commit), async (url) => {
      const plain = await ask(url, 'GET', '/metrics', AUTH);
      if (commit === 'failing') {
        expect(plain).toEqual(INTERNAL);
        return;
      }
      expect(plain.status).toBe(200);
      expect(plain.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
      expect(Number(plain.headers['content-length'])).toBe(Buffer.byteLength(plain.body));
      for (const path of ['/metrics/', '/METRICS', '/metrics?name[]=x']) expect(families(await ask(url, 'GET', path, AUTH))).toEqual(families(plain));
      const head = await ask(url, 'HEAD', '/metrics', AUTH);
      expect({ ...head, headers: { ...head.headers, 'content-length': 'n' } }).toEqual({ ...families(plain), body: '' });
      expect(await ask(url, 'GET', '/metrics', { ...AUTH, 'If-None-Match': '*' })).toEqual(NOT_MODIFIED);
      expect(await ask(url, 'GET', '/metrics', {})).toEqual(UNAUTHORIZED);
      expect(await ask(url, 'GET', '/metrics', { Authorization: 'Bearer wrong' })).toEqual(UNAUTHORIZED);
      expect(await ask(url, 'GET', '/metrics//', AUTH)).toEqual(json(404, { error: 'no such endpoint: GET /metrics//' }));
    });
  }
});

it('counts every request under its route as declared, whatever its spelling and whether it failed', async () => {
  const appOptions = options('secret', 'kept');
  await withServer(appOptions, async (url) => {
    for (const path of [`${V}/namespaces`, `/API/V1/values/namespaces`, `${V}/namespaces/`, `${V}/nope`, `${V}/labelValues`, `${V}/bad%zz`, '/METRICS', '/api/v1/jobsets/team-a/nope', '/API/v1/jobsets/team-a/train']) {
      await ask(url, 'GET', path, AUTH);
    }
    await ask(url, 'GET', `${V}/namespaces`, {});
  });
  expect(await counted(appOptions.registry!)).toEqual(
    [
      'upness_http_request_duration_seconds_count{method="GET",route="/api/v1/values/:what",status="200"} 3',
      'upness_http_request_duration_seconds_count{method="GET",route="/api/v1/values/:what",status="404"} 1',
      'upness_http_request_duration_seconds_count{method="GET",route="/api/v1/values/:what",status="400"} 2',
      'upness_http_request_duration_seconds_count{method="GET",route="/metrics",status="200"} 1',
      'upness_http_request_duration_seconds_count{method="GET",route="/api/v1/jobsets/:namespace/:name",status="404"} 1',
      'upness_http_request_duration_seconds_count{method="GET",route="/api/v1/jobsets/:namespace/:name",status="200"} 1',
      // The token is checked before any route of /api/v1 is matched (as for the app's routes).
      'upness_http_request_duration_seconds_count{method="GET",route="unmatched",status="401"} 1',
    ].sort(),
  );
});

it('takes a GET or HEAD of /metrics and of /api/v1/values/ and one segment, in any case, one trailing slash allowed', () => {
  const request = (method: string, url: string): http.IncomingMessage => ({ method, url, headers: {} }) as unknown as http.IncomingMessage;
  for (const url of ['/api/v1/values/namespaces', '/api/v1/values/label-Values_2?key=a', '/api/v1/values/namespaces/', '/Api/v1/values/a%20b', '/api/v1/values/a.b#x', '/api/v1/values/x?y=/']) {
    expect([url, isValuesRequest(request('GET', url)), isValuesRequest(request('HEAD', url))]).toEqual([url, true, true]);
  }
  for (const url of ['/api/v1/values/', '/api/v1/values', '/api/v1/values//', '/api/v1/values/a//', '/api/v1/values/a/b', '/api/v1/valuesx/namespaces', '/x/api/v1/values/a', '/api/v1/values#/a']) {
    expect([url, isValuesRequest(request('GET', url))]).toEqual([url, false]);
  }
  expect(isValuesRequest(request('POST', '/api/v1/values/namespaces'))).toBe(false);
  expect(['/metrics', '/metrics/', '/Metrics?x', '/metrics#y'].map((url) => isMetricsRequest(request('GET', url)))).toEqual([true, true, true, true]);
  expect(['/metrics//', '/metricsx', '/api/v1/metrics'].map((url) => isMetricsRequest(request('GET', url)))).toEqual([false, false, false]);
  expect(isMetricsRequest(request('DELETE', '/metrics'))).toBe(false);
});
