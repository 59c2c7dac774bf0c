// The HTTP API (see README.md beside this file): express 5, JSON in and out, bad input a 400 that
// names the field, never a 500 for it. One module per resource, each a Router; this one composes
// them, with the token, the store's group commit and the metrics registry. `createServer` puts
// POST /api/v1/query on Node's own server ahead of the app, with the same steps (query.ts).

import http, { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import express, { type RequestHandler } from 'express';
import type { Logger } from 'pino';
import type client from 'prom-client';
import { z } from 'zod';
import { registerJobSetMetrics } from '../runtime/jobset-metrics.ts';
import { registerViewMetrics } from '../runtime/metrics.ts';
import type { ServedView } from '../runtime/served-view.ts';
import { registerStoreMetrics } from '../store/metrics.ts';
import type { StoreStatus } from '../store/store.ts';
import { requireToken, tokenCheck } from './auth.ts';
import { errorAnswer, errorHandler, notFound } from './errors.ts';
import { healthRoutes } from './health.ts';
import { jobsetRoutes } from './jobsets.ts';
import { createRegistry, metricsRoutes, requestTimer, requestTiming } from './metrics.ts';
import { openApiDocument } from './openapi.ts';
import { directQueryRoute, QUERY_PATH, queryAnswerer, queryHandler, type DirectQueryOptions } from './query.ts';
import { valuesRoutes } from './values.ts';

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

const appDefaults = z.object({
  now: z.custom<() => number>((v) => typeof v === 'function').default(() => Date.now),
  terminalGraceMs: z.number().nonnegative().default(10 * 60_000),
  retentionMs: z.number().nonnegative().nullable().default(null),
});

export type ResolvedAppOptions = Omit<AppOptions, keyof z.infer<typeof appDefaults> | 'registry'> & z.infer<typeof appDefaults> & { registry: client.Registry };

/** The options with their defaults, checked once. */
export function resolveAppOptions(options: AppOptions): ResolvedAppOptions {
  return { ...options, ...appDefaults.parse(options), registry: options.registry ?? createRegistry() };
}

/** The express app and the direct query route of one service, sharing its metrics, token and parser. */
function buildApi(appOptions: AppOptions): { app: express.Express; direct: (req: IncomingMessage, res: ServerResponse) => boolean } {
  const options = resolveAppOptions(appOptions);
  const { view, logger, now, registry } = options;
  // Each component's metrics, on the one registry /metrics serves.
  const time = requestTimer(registry);
  registerViewMetrics(registry, view, now);
  if (options.store !== undefined) registerStoreMetrics(registry, options.store);
  registerJobSetMetrics(registry, { view, now, terminalGraceMs: options.terminalGraceMs });

  const durable: RequestHandler =
    options.beforeRead === undefined
      ? (_req, _res, next) => next()
      : async (_req, _res, next) => {
          await options.beforeRead?.();
          next();
        };
  const auth = requireToken(options.token);

  const app = express();
  app.disable('x-powered-by');
  // No ETag: Express hashes every answer for it, and no client of this API revalidates (a query is a
  // POST; Grafana and the plugin never send If-None-Match). Megabytes of frames were hashed for nothing.
  app.disable('etag');
  app.set('query parser', 'simple');
  app.use(requestTiming(time));
  // Not strict: `null`, `42` or `"q"` are JSON too, and the schema names what the body should be.
  const json = express.json({ limit: '1mb', strict: false });
  const answer = queryAnswerer({ view, now, retentionMs: options.retentionMs });
  // POST /api/v1/query first, with the same steps as the rest of /api/v1 (token, body, durability):
  // what every panel asks, routed without passing the other routers' layers. (The server's direct
  // route answers its exact path before the app sees it: createServer.)
  app.post(QUERY_PATH, auth, json, durable, queryHandler(answer));
  app.use(healthRoutes(view, now));
  app.use(metricsRoutes(registry, auth, durable));

  const api = express.Router();
  api.get('/openapi.json', (_req, res) => {
    res.json(openApiDocument());
  });
  api.use(auth);
  api.use(json);
  api.use(durable);
  api.use(jobsetRoutes(view, now));
  api.use(valuesRoutes(view, now));
  app.use('/api/v1', api);

  app.use(notFound);
  app.use(errorHandler(logger));

  const direct = directQueryRoute({
    answer,
    authorized: tokenCheck(options.token),
    parseBody: json as unknown as DirectQueryOptions['parseBody'],
    ...(options.beforeRead !== undefined ? { beforeRead: options.beforeRead } : {}),
    time,
    fail: (error, req, res) => {
      const { status, body } = errorAnswer(error, { method: req.method, path: QUERY_PATH }, logger);
      // Failed while writing its answer: nothing more can be said on this response.
      if (res.headersSent) {
        res.destroy();
        return;
      }
      const text = JSON.stringify(body);
      res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) }).end(text);
    },
  });
  return { app, direct };
}

/** The express app alone (every route, POST /api/v1/query too): what a test walks for its routes. */
export function createApp(appOptions: AppOptions): express.Express {
  return buildApi(appOptions).app;
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

/**
 * The service's HTTP server: POST /api/v1/query on Node's own server, ahead of the app (http/query.ts
 * `directQueryRoute`), every other request the express app's. Listen with `.listen(port, host)`.
 */
export function createServer(appOptions: AppOptions): Server {
  const { app, direct } = buildApi(appOptions);
  const server = http.createServer((req, res) => {
    if (!direct(req, res)) app(req, res);
  });
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  return server;
}
