// The HTTP API (see README.md beside this file): express 5, JSON in and out, bad input a 400 that
// names the field, never a 500 for it. One module per resource, each a Router; this one composes
// them, with the token and the store's group commit. Loaded by the server (app.ts) on the first
// request that is neither a health check, an OPTIONS of a route, POST /api/v1/query (query.ts),
// GET /api/v1/values/{what} (values.ts) nor GET /metrics (direct-get.ts), which the server answers
// on Node's own server with the same steps, with the options and the request timer it made.

import express, { type RequestHandler } from 'express';
import { instrumented, type AppOptions, type ResolvedAppOptions } from './app.ts';
import { requireToken } from './auth.ts';
import { errorHandler, notFound } from './errors.ts';
import { jobsetRoutes } from './jobsets.ts';
import { inApiRouter, requestTiming, type RequestTimer } from './metrics.ts';
import { openApiDocument } from './openapi.ts';

/** The express app of one service: every route but the server's own (health, query, values, metrics), sharing its metrics and token. */
export function buildApi(options: ResolvedAppOptions, time: RequestTimer): express.Express {
  const { view, logger, now } = options;
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

  const api = express.Router();
  api.use(inApiRouter);
  api.get('/openapi.json', (_req, res) => {
    res.json(openApiDocument());
  });
  api.use(auth);
  // No body parser here: these routes are GETs, and a GET's body means nothing (RFC 9110 §9.3.1),
  // so none is read on any route (the server's own GETs do not read one either).
  api.use(durable);
  api.use(jobsetRoutes(view, now));
  app.use('/api/v1', api);

  app.use(notFound);
  app.use(errorHandler(logger));

  return app;
}

/** The express app alone (its routes), with its own registry: what a test walks for its routes. */
export function createApp(appOptions: AppOptions): express.Express {
  const { options, time } = instrumented(appOptions);
  return buildApi(options, time);
}
