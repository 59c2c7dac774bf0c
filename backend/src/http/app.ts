// The service's HTTP server (see README.md beside this file). GET /healthz and /readyz, and OPTIONS
// of every route (ROUTES), are answered here on Node's own server, and POST /api/v1/query (query.ts:
// the query engine and zod, without express), GET /api/v1/values/{what} (values.ts: what "Save &
// test" and the dashboards' variables ask) and GET /metrics (direct-get.ts), in every spelling, too,
// each loaded on its first request (the only implementation of those routes, the health checks'
// too); every other request goes to the API (api.ts: express 5, zod's schemas, the query engine),
// loaded on the first request that needs it, so that a service nobody has asked yet holds none of
// it, and one Grafana uses no express (issue 21 §3, the empty service). The metrics registry and its
// request timer are made here, at start, so that every request is counted.

import http, { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type client from 'prom-client';
import { jobSetMetrics } from '../runtime/jobset-metrics.ts';
import { registerViewMetrics } from '../runtime/metrics.ts';
import type { ServedView } from '../runtime/served-view.ts';
import { registerStoreMetrics } from '../store/metrics.ts';
import type { StoreStatus } from '../store/store.ts';
import { healthAnswer } from './health.ts';
import { sendJson } from './json-answer.ts';
import { arrivedNow, createRegistry, metricsText, requestTimer, type RequestTimer } from './metrics.ts';

export interface AppOptions {
  view: ServedView;
  /** Bearer token required on /api/v1 and /metrics; null: open. */
  token: string | null;
  logger: Logger;
  now?: () => number;
  /** How long a finished JobSet stays on /metrics, ms (default 10 minutes). */
  terminalGraceMs?: number;
  /** Awaited before answering from the timelines: the store's group commit, so nothing served can be lost. */
  beforeRead?: () => Promise<void>;
  store?: () => StoreStatus;
  /** How long the service keeps history (`--retention`), ms: an `slo` period may not be longer. */
  retentionMs?: number;
  /** Where the service's metrics are registered (default: a new registry with the process's metrics). */
  registry?: client.Registry;
}

export type ResolvedAppOptions = Omit<AppOptions, 'now' | 'terminalGraceMs' | 'retentionMs' | 'registry'> & {
  now: () => number;
  terminalGraceMs: number;
  retentionMs: number | null;
  registry: client.Registry;
  /** GET /metrics' text: the registry's families, then the per-JobSet ones (runtime/jobset-metrics.ts). */
  metrics: () => Promise<string>;
};

/** The options with their defaults (the durations come checked from the command line: cli/options.ts). */
export function resolveAppOptions(options: AppOptions): Omit<ResolvedAppOptions, 'metrics'> {
  return {
    ...options,
    now: options.now ?? Date.now,
    terminalGraceMs: options.terminalGraceMs ?? 10 * 60_000,
    retentionMs: options.retentionMs ?? null,
    registry: options.registry ?? createRegistry(),
  };
}

/** The options resolved, and each component's metrics registered on the one registry /metrics serves (the per-JobSet families written beside it). */
export function instrumented(appOptions: AppOptions): { options: ResolvedAppOptions; time: RequestTimer } {
  const resolved = resolveAppOptions(appOptions);
  const { view, now, registry } = resolved;
  const time = requestTimer(registry);
  registerViewMetrics(registry, view, now);
  if (resolved.store !== undefined) registerStoreMetrics(registry, resolved.store);
  const metrics = metricsText(registry, jobSetMetrics({ view, now, terminalGraceMs: resolved.terminalGraceMs }));
  return { options: { ...resolved, metrics }, time };
}

/**
 * GET and HEAD of /healthz and /readyz in every spelling (routePath), answered here (health.ts),
 * with the headers res.json sent, a conditional request as express answered it (notModified), and
 * timed under its route as declared. Returns false for a request it does not answer.
 */
export function healthRoute(view: ServedView, now: () => number, time: RequestTimer): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    const path = getRequest(req)?.path;
    const check = path === undefined ? null : HEALTHZ_PATH.test(path) ? 'healthz' : READYZ_PATH.test(path) ? 'readyz' : null;
    if (check === null) return false;
    time(req, res, () => `/${check}`);
    const { status, body } = healthAnswer(check, view, now);
    if (status === 200 && notModified(req)) res.writeHead(304).end();
    else sendJson(res, status, JSON.stringify(body));
    return true;
  };
}

/**
 * Whether a request's conditions leave its 2xx answer unsent (a 304), as express's `req.fresh`
 * decides it for an answer with neither ETag nor Last-Modified: only `If-None-Match: *` (RFC 9110
 * §13.1.2: the resource has a representation), unless the client asks for no cache.
 */
export function notModified(req: IncomingMessage): boolean {
  const { headers } = req;
  if (headers['if-none-match'] !== '*' || headers['if-modified-since'] !== undefined) return false;
  return !/(?:^|,)\s*?no-cache\s*?(?:,|$)/.test(headers['cache-control'] ?? '');
}

/**
 * How long an idle keep-alive connection stays open: longer than its clients keep one idle (the
 * plugin's Go client, Grafana's data proxy: 90 s), so that the client, not the service, closes it.
 * With Node's default of 5 s a request sent on an idle connection could meet the service closing it
 * (ECONNRESET, a failed panel: Go does not resend a POST); and while one long answer blocked the
 * event loop past 5 s, every connection that had sent its next request in the meantime was reset,
 * because expired timers run before the pending reads.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 100_000;

/** The query route's path as declared (query.ts, the route's only implementation). */
export const QUERY_PATH = '/api/v1/query';

/** Whether a request is the query route's: a POST of its path in any spelling (QUERY_PATHS; a query string allowed). */
export function isQueryRequest(req: IncomingMessage): boolean {
  return req.method === 'POST' && QUERY_PATHS.test(targetOf(req).path);
}

/** The path and query string of a request, read as express's router reads its URL (a fragment dropped). */
function targetOf(req: IncomingMessage): { path: string; query: string } {
  const url = req.url ?? '';
  const hash = url.indexOf('#');
  const target = hash < 0 ? url : url.slice(0, hash);
  const q = target.indexOf('?');
  return q < 0 ? { path: target, query: '' } : { path: target.slice(0, q), query: target.slice(q + 1) };
}

/** The path and query string of a GET or HEAD (targetOf); null for any other method. */
export function getRequest(req: IncomingMessage): { path: string; query: string } | null {
  return req.method === 'GET' || req.method === 'HEAD' ? targetOf(req) : null;
}

/**
 * A route's path as declared (`:name` a segment), in every spelling express's router took:
 * any case, one trailing slash allowed; each `:name` a capture group, still percent-encoded.
 */
function routePath(declared: string): RegExp {
  const pattern = declared
    .split('/')
    .map((part) => (part.startsWith(':') ? '([^/]+)' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${pattern}/?$`, 'i');
}

/** Every route the service answers, as declared, and the methods it takes (HEAD with GET: Node answers it without a body). */
export const ROUTES: readonly { path: string; methods: readonly string[] }[] = [
  { path: '/healthz', methods: ['GET', 'HEAD'] },
  { path: '/readyz', methods: ['GET', 'HEAD'] },
  { path: '/metrics', methods: ['GET', 'HEAD'] },
  { path: '/api/v1/query', methods: ['POST'] },
  { path: '/api/v1/openapi.json', methods: ['GET', 'HEAD'] },
  { path: '/api/v1/values/:what', methods: ['GET', 'HEAD'] },
  { path: '/api/v1/jobsets', methods: ['GET', 'HEAD'] },
  { path: '/api/v1/jobsets/:namespace/:name', methods: ['GET', 'HEAD'] },
  { path: '/api/v1/nodepools/:name', methods: ['GET', 'HEAD'] },
];
const ROUTE_PATHS = ROUTES.map((route) => ({ ...route, pattern: routePath(route.path) }));

const HEALTHZ_PATH = routePath('/healthz');
const READYZ_PATH = routePath('/readyz');
const METRICS_PATH = routePath('/metrics');
const QUERY_PATHS = routePath(QUERY_PATH);
/** GET /api/v1/values/{what}'s paths; the first group is `what`, still percent-encoded. */
export const VALUES_PATH = routePath('/api/v1/values/:what');

/** Whether a request is the metrics route's (direct-get.ts): a GET or HEAD of /metrics. */
export function isMetricsRequest(req: IncomingMessage): boolean {
  const path = getRequest(req)?.path;
  return path !== undefined && METRICS_PATH.test(path);
}

/** Whether a request is the values route's (values.ts): a GET or HEAD of /api/v1/values/ and one segment. */
export function isValuesRequest(req: IncomingMessage): boolean {
  const path = getRequest(req)?.path;
  return path !== undefined && VALUES_PATH.test(path);
}

/**
 * OPTIONS of any route, in any spelling: 204 with `Allow`, the methods the route takes (RFC 9110
 * §9.3.7), without the token (it tells no data, as the OpenAPI document). Answered here, so that
 * every route answers it alike; false for a request that is not an OPTIONS of a route (an unknown
 * path is the app's 404, as for any method).
 */
export function optionsRoute(time: RequestTimer): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    if (req.method !== 'OPTIONS') return false;
    const { path } = targetOf(req);
    const route = ROUTE_PATHS.find((r) => r.pattern.test(path));
    if (route === undefined) return false;
    time(req, res, () => route.path);
    res.writeHead(204, { Allow: route.methods.join(', ') }).end();
    return true;
  };
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * A part of the server loaded on the first request that needs it (once: 0.1–0.7 s of modules).
 * Requests meanwhile wait, unread, and that wait is in their time; if loading fails, each is a 500.
 */
function loadedOnFirstRequest(load: () => Promise<Handler>, logger: Logger): Handler {
  let handler: Handler | null = null;
  let loading: Promise<Handler> | null = null;
  return (req, res) => {
    if (handler !== null) {
      handler(req, res);
      return;
    }
    arrivedNow(req);
    loading ??= load().then((loaded) => (handler = loaded));
    loading.then(
      (loaded) => loaded(req, res),
      (error: unknown) => {
        logger.error({ err: error }, 'loading the API failed');
        sendJson(res, 500, JSON.stringify({ error: 'internal error (logged by the service)' }));
      },
    );
  };
}

/**
 * The service's HTTP server: the health checks here, POST /api/v1/query, GET /api/v1/values/{what}
 * and GET /metrics on Node's own server (http/query.ts `serviceQueryRoute`, http/values.ts
 * `valuesRoute`, http/direct-get.ts `metricsRoute`, each loaded on its first request), every other
 * request the express app's (loaded on the first such request). Listen with `.listen(port, host)`.
 */
export function createServer(appOptions: AppOptions): Server {
  const { options, time } = instrumented(appOptions);
  const health = healthRoute(options.view, options.now, time);
  const allowed = optionsRoute(time);
  const query = loadedOnFirstRequest(() => import('./query.ts').then(({ serviceQueryRoute }) => serviceQueryRoute(options, time)), options.logger);
  const values = loadedOnFirstRequest(() => import('./values.ts').then(({ valuesRoute }) => valuesRoute(options, time)), options.logger);
  const metrics = loadedOnFirstRequest(() => import('./direct-get.ts').then(({ metricsRoute }) => metricsRoute(options, time)), options.logger);
  const api = loadedOnFirstRequest(() => import('./api.ts').then(({ buildApi }) => buildApi(options, time)), options.logger);
  const server = http.createServer((req, res) => {
    if (health(req, res) || allowed(req, res)) return;
    if (isQueryRequest(req)) query(req, res);
    else if (isValuesRequest(req)) values(req, res);
    else if (isMetricsRequest(req)) metrics(req, res);
    else api(req, res);
  });
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  return server;
}
