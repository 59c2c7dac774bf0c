// GET /api/v1/values/{what} is answered by the server on Node's own server (values.ts `valuesRoute`,
// without express): every answer must be, byte for byte, the one the express app alone gives (status,
// headers but Date, body), each request counted under the same route and status, with and without a
// token, with the store's commit awaited or failing; what the server leaves to the app (other
// spellings, HEAD, conditional requests, a body) too.

import http from 'node:http';
import { pino } from 'pino';
import client from 'prom-client';
import { merge, min, Scenario } from '../../../test/support/scenario.ts';
import { askRaw as ask, listening, type RawAnswer as Answer } from '../../../test/support/service.ts';
import { EngineView } from '../runtime/served-view.ts';
import { TimelineEngine } from '../timeline/engine.ts';
import { createApp } from './api.ts';
import { createServer, isValuesRequest, type AppOptions } from './app.ts';

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

function options(served: EngineView, token: string | null, commit: Commit): AppOptions {
  const beforeRead = commit === 'none' ? undefined : commit === 'kept' ? () => Promise.resolve() : () => Promise.reject(new Error('the store is gone'));
  return { view: served, token, logger: pino({ level: 'silent' }), now: () => min(80), registry: new client.Registry(), ...(beforeRead === undefined ? {} : { beforeRead }) };
}

/** The request-duration counts of a registry, by their labels. */
async function counted(registry: client.Registry): Promise<string[]> {
  return (await registry.metrics()).split('\n').filter((line) => line.startsWith('upness_http_request_duration_seconds_count'));
}

/**
 * One request to the server and the same to the express app alone (each with its own registry):
 * the same answer (as `compared` sees it), and the same request counts by route and status.
 */
async function bothAsked(token: string | null, commit: Commit, request: (url: string) => Promise<Answer>, compared: (answer: Answer) => unknown): Promise<void> {
  const served = view();
  const serverOptions = options(served, token, commit);
  const appOptions = options(served, token, commit);
  const server = await listening(createServer(serverOptions));
  const app = await listening(http.createServer(createApp(appOptions)));
  try {
    expect(compared(await request(server.url))).toEqual(compared(await request(app.url)));
    expect(await counted(serverOptions.registry!)).toEqual(await counted(appOptions.registry!));
  } finally {
    await Promise.all([server.close(), app.close()]);
  }
}

const AUTH = { Authorization: 'Bearer secret' };
const V = '/api/v1/values';
// Four entries each: Jest takes a test function's argument past a row's length for its `done`.
const REQUESTS: [string, string, Record<string, string>, string | undefined][] = [
  ...['clusters', 'namespaces', 'jobsets', 'labelKeys', 'accelerators', 'topologies', 'pools'].map((what): [string, string, Record<string, string>, undefined] => ['GET', `${V}/${what}`, AUTH, undefined]),
  ['GET', `${V}/labelValues?key=team`, AUTH, undefined],
  ['GET', `${V}/labelValues?key=kueue.x-k8s.io%2Fqueue-name&namespace=team-a&namespace=team-b`, AUTH, undefined],
  ['GET', `${V}/jobsets?namespace=team-b`, AUTH, undefined],
  ['GET', `${V}/namespaces?from=now-75m&to=now`, AUTH, undefined],
  ['GET', `${V}/namespaces?from=${min(65)}`, AUTH, undefined],
  ['GET', `${V}/namespaces?from=${min(65)}&from=${min(66)}`, AUTH, undefined],
  ['GET', `${V}/namespaces?from=yesterday`, AUTH, undefined],
  ['GET', `${V}/namespaces?from=now&to=now-1h`, AUTH, undefined],
  ['GET', `${V}/namespaces?key=a&key=b`, AUTH, undefined],
  ['GET', `${V}/labelValues`, AUTH, undefined],
  ['GET', `${V}/labelValues?key=`, AUTH, undefined],
  ['GET', `${V}/nope`, AUTH, undefined],
  ['GET', `${V}/__proto__`, AUTH, undefined],
  ['GET', `${V}/namespaces?`, AUTH, undefined],
  ['GET', `${V}/namespaces?&&=&namespace`, AUTH, undefined],
  ['GET', `${V}/namespaces`, {}, undefined],
  ['GET', `${V}/namespaces`, { Authorization: 'Bearer wrong' }, undefined],
  // Left to the app.
  ['GET', `${V}/namespaces/`, AUTH, undefined],
  ['GET', `/API/v1/values/namespaces`, AUTH, undefined],
  ['GET', `${V}/%6eamespaces`, AUTH, undefined],
  ['GET', `${V}/bad%zz`, AUTH, undefined],
  ['GET', `${V}/name.spaces`, AUTH, undefined],
  ['GET', `${V}/`, AUTH, undefined],
  ['GET', `${V}`, AUTH, undefined],
  ['HEAD', `${V}/namespaces`, AUTH, undefined],
  ['POST', `${V}/namespaces`, AUTH, undefined],
  ['GET', `${V}/namespaces`, { ...AUTH, 'If-None-Match': '*' }, undefined],
  ['GET', `${V}/namespaces`, { ...AUTH, 'If-Modified-Since': 'Thu, 01 Jan 2026 00:00:00 GMT' }, undefined],
  ['GET', `${V}/namespaces`, { ...AUTH, 'Content-Type': 'application/json' }, '{"not json'],
  ['GET', `${V}/namespaces`, { ...AUTH, 'Content-Type': 'text/plain' }, 'hello'],
];

describe.each([
  ['no token, no store', null, 'none'],
  ['a token and a store', 'secret', 'kept'],
  ['a token and a store whose commit fails', 'secret', 'failing'],
] as const)('the server and the express app answer alike: %s', (_name, token, commit) => {
  it.each(REQUESTS)('%s %s', async (method, path, headers, body) => {
    await bothAsked(token, commit, (url) => ask(url, method, path, headers, body), (answer) => answer);
  });
});

/** A metrics text reduced to what two registries of one process share: its families (the values move between scrapes). */
const families = (answer: Answer): Answer => (answer.status === 200 ? { ...answer, headers: { ...answer.headers, 'content-length': 'n' }, body: answer.body.split('\n').filter((line) => line.startsWith('# ')).join('\n') } : answer);

const METRICS_REQUESTS: [string, string, Record<string, string>][] = [
  ['GET', '/metrics', AUTH],
  ['GET', '/metrics?name[]=x', AUTH],
  ['GET', '/metrics', {}],
  ['GET', '/metrics', { Authorization: 'Bearer wrong' }],
  ['GET', '/metrics/', AUTH],
  ['GET', '/METRICS', AUTH],
  ['HEAD', '/metrics', AUTH],
  ['GET', '/metrics', { ...AUTH, 'If-None-Match': '*' }],
];

describe.each([
  ['no token, no store', null, 'none'],
  ['a token and a store', 'secret', 'kept'],
  ['a token and a store whose commit fails', 'secret', 'failing'],
] as const)('GET /metrics: the server and the express app answer alike: %s', (_name, token, commit) => {
  it.each(METRICS_REQUESTS)('%s %s', async (method, path, headers) => {
    await bothAsked(token, commit, (url) => ask(url, method, path, headers), (answer) => {
      if (answer.status === 200 && method === 'GET') expect(Number(answer.headers['content-length'])).toBe(Buffer.byteLength(answer.body));
      return families(answer);
    });
  });
});

it('takes exactly a plain GET of /api/v1/values/ and one plain segment', () => {
  const request = (method: string, url: string, headers: Record<string, string> = {}): http.IncomingMessage => ({ method, url, headers }) as unknown as http.IncomingMessage;
  expect(isValuesRequest(request('GET', '/api/v1/values/namespaces'))).toBe(true);
  expect(isValuesRequest(request('GET', '/api/v1/values/label-Values_2?key=a'))).toBe(true);
  for (const url of ['/api/v1/values/namespaces/', '/api/v1/values/', '/api/v1/values', '/api/v1/values/a%20b', '/api/v1/values/a.b', '/api/v1/values/namespaces#x', '/Api/v1/values/namespaces', '/api/v1/valuesx/namespaces']) {
    expect(isValuesRequest(request('GET', url))).toBe(false);
  }
  expect(isValuesRequest(request('HEAD', '/api/v1/values/namespaces'))).toBe(false);
  expect(isValuesRequest(request('GET', '/api/v1/values/namespaces', { 'content-length': '0' }))).toBe(false);
  expect(isValuesRequest(request('GET', '/api/v1/values/namespaces', { 'transfer-encoding': 'chunked' }))).toBe(false);
  expect(isValuesRequest(request('GET', '/api/v1/values/namespaces', { 'if-none-match': '"x"' }))).toBe(false);
});
