// What every route does with OPTIONS and with a GET's body, alike whichever part of the server
// answers it (its own node:http routes or the express app): OPTIONS of a route, in any spelling,
// is a 204 whose `Allow` names the route's methods, without the token (it tells no data); a path
// that is no route is a 404 for OPTIONS as for any method. A GET's body is never read: a malformed
// JSON body, or any other, leaves the answer the one without a body (README "API").

import { pino } from 'pino';
import client from 'prom-client';
import { merge, min, Scenario } from '../../../test/support/scenario.ts';
import { askRaw as ask, listening } from '../../../test/support/service.ts';
import { EngineView } from '../runtime/served-view.ts';
import { TimelineEngine } from '../timeline/engine.ts';
import { createServer, ROUTES, type AppOptions } from './app.ts';

const train = new Scenario({ uid: 'u-train', name: 'train', namespace: 'team-a' }, min(0)).created().up(min(10)).down(min(70)).up(min(75));

function options(token: string | null): AppOptions {
  const engine = new TimelineEngine();
  for (const o of merge(train)) engine.observe(o);
  const view = new EngineView('trace', engine, false);
  view.setReadiness({ ready: true });
  return { view, token, logger: pino({ level: 'silent' }), now: () => min(80), registry: new client.Registry() };
}

async function withServer(appOptions: AppOptions, run: (url: string) => Promise<void>): Promise<void> {
  const server = await listening(createServer(appOptions));
  try {
    await run(server.url);
  } finally {
    await server.close();
  }
}

const AUTH = { Authorization: 'Bearer secret' };
const allowing = (methods: string) => ({ status: 204, headers: { allow: methods, connection: 'close' }, body: '' });

/** Each route's paths, a spelling express's router took among them, and the methods written out by hand. */
const OPTIONS_ASKED: [string, string][] = [
  ['/healthz', 'GET, HEAD'],
  ['/READYZ/', 'GET, HEAD'],
  ['/metrics', 'GET, HEAD'],
  ['/api/v1/query', 'POST'],
  ['/API/v1/Query/?frames=arrow', 'POST'],
  ['/api/v1/openapi.json', 'GET, HEAD'],
  ['/api/v1/values/namespaces', 'GET, HEAD'],
  ['/api/v1/values/nope/', 'GET, HEAD'],
  ['/api/v1/jobsets', 'GET, HEAD'],
  ['/api/v1/jobsets/team-a/train', 'GET, HEAD'],
  ['/api/v1/nodepools/pool-a', 'GET, HEAD'],
];

describe.each([
  ['no token', null],
  ['a token, none sent', 'secret'],
] as const)('OPTIONS: %s', (_name, token) => {
  it.each(OPTIONS_ASKED)('OPTIONS %s', async (path, methods) => {
    await withServer(options(token), async (url) => {
      expect(await ask(url, 'OPTIONS', path)).toEqual(allowing(methods));
    });
  });

  it('is a 404 on a path that is no route, as any method is', async () => {
    await withServer(options(token), async (url) => {
      for (const path of ['/nope', '/api/v1/values', '/api/v1/values/a/b', '/api/v1/jobsets/team-a', '/healthz//']) {
        const answer = await ask(url, 'OPTIONS', path, AUTH);
        expect([path, answer.status, JSON.parse(answer.body)]).toEqual([path, 404, { error: `no such endpoint: OPTIONS ${path}` }]);
      }
    });
  });
});

it('lists every declared route with a method, and counts OPTIONS under the route as declared', async () => {
  expect(ROUTES.map((r) => r.path).sort()).toEqual(
    ['/healthz', '/readyz', '/metrics', '/api/v1/query', '/api/v1/openapi.json', '/api/v1/values/:what', '/api/v1/jobsets', '/api/v1/jobsets/:namespace/:name', '/api/v1/nodepools/:name'].sort(),
  );
  const appOptions = options(null);
  await withServer(appOptions, async (url) => {
    await ask(url, 'OPTIONS', '/api/v1/values/namespaces');
    await ask(url, 'OPTIONS', '/API/v1/values/jobsets/');
  });
  expect(await appOptions.registry!.metrics()).toContain('upness_http_request_duration_seconds_count{method="OPTIONS",route="/api/v1/values/:what",status="204"} 2');
});

/** GETs of every kind of route: the server's own (health, values, metrics) and the express app's. */
const GETS = ['/healthz', '/readyz', '/metrics', '/api/v1/openapi.json', '/api/v1/values/namespaces', '/api/v1/jobsets?from=now-2h', '/api/v1/jobsets/team-a/train?from=now-2h', '/api/v1/nodepools/nope'];

/** An answer with what moves between two requests (a scrape's counts, a length) left out. */
const steady = (path: string, answer: { status: number; headers: Record<string, unknown>; body: string }) =>
  path === '/metrics' ? { status: answer.status, type: answer.headers['content-type'] } : answer;

describe("a GET's body is not read", () => {
  it.each(GETS)('GET %s', async (path) => {
    await withServer(options('secret'), async (url) => {
      const plain = await ask(url, 'GET', path, AUTH);
      for (const [type, body] of [
        ['application/json', '{"not json'],
        ['application/json', '[1, 2]'],
        ['text/plain', 'hello'],
      ]) {
        expect(steady(path, await ask(url, 'GET', path, { ...AUTH, 'Content-Type': type! }, body))).toEqual(steady(path, plain));
      }
    });
  });
});
