// The HTTP API (see README.md beside this file): express 5, JSON in and out, bad input a 400 that
// names the field, never a 500 for it. One module per resource, each a Router; this one composes
// them, with the token, the store's group commit and the metrics registry.

import express, { type RequestHandler } from 'express';
import type { Logger } from 'pino';
import type client from 'prom-client';
import { z } from 'zod';
import { registerJobSetMetrics } from '../runtime/jobset-metrics.ts';
import { registerViewMetrics } from '../runtime/metrics.ts';
import type { ServedView } from '../runtime/served-view.ts';
import { registerStoreMetrics } from '../store/metrics.ts';
import type { StoreStatus } from '../store/store.ts';
import { requireToken } from './auth.ts';
import { errorHandler, notFound } from './errors.ts';
import { healthRoutes } from './health.ts';
import { jobsetRoutes } from './jobsets.ts';
import { createRegistry, metricsRoutes, requestTiming } from './metrics.ts';
import { openApiDocument } from './openapi.ts';
import { queryHandler } from './query.ts';
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

export function createApp(appOptions: AppOptions): express.Express {
  const options = resolveAppOptions(appOptions);
  const { view, logger, now, registry } = options;
  // Each component's metrics, on the one registry /metrics serves.
  const timing = requestTiming(registry);
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
  app.use(timing);
  // Not strict: `null`, `42` or `"q"` are JSON too, and the schema names what the body should be.
  const json = express.json({ limit: '1mb', strict: false });
  // POST /api/v1/query first, with the same steps as the rest of /api/v1 (token, body, durability):
  // what every panel asks, routed without passing the other routers' layers.
  app.post('/api/v1/query', auth, json, durable, queryHandler({ view, now, retentionMs: options.retentionMs }));
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
  return app;
}
