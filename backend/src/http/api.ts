// The HTTP API (see README.md beside this file): express 5, JSON in and out, bad input a 400 that
// names the field, never a 500 for it. One module per resource, each a Router; this one composes
// them, with the token and the store's group commit, and puts POST /api/v1/query on Node's own
// server ahead of the app, with the same steps (query.ts). Loaded by the server (app.ts) on the
// first request that is not a health check, with the options and the request timer it made.

import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type RequestHandler } from 'express';
import { instrumented, type AppOptions, type ResolvedAppOptions } from './app.ts';
import { requireToken, tokenCheck } from './auth.ts';
import { errorAnswer, errorHandler, notFound } from './errors.ts';
import { HEALTH_PATHS, healthAnswer } from './health.ts';
import { jobsetRoutes } from './jobsets.ts';
import { sendJson } from './json-answer.ts';
import { metricsHandler, requestTiming, type RequestTimer } from './metrics.ts';
import { openApiDocument } from './openapi.ts';
import { directQueryRoute, QUERY_PATH, queryAnswerer, queryHandler, type DirectQueryOptions } from './query.ts';
import { valuesRoutes } from './values.ts';

/** The express app and the direct query route of one service, sharing its metrics, token and parser. */
export interface Api {
  app: express.Express;
  direct: (req: IncomingMessage, res: ServerResponse) => boolean;
}

export function buildApi(options: ResolvedAppOptions, time: RequestTimer): Api {
  const { view, logger, now, registry } = options;
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
  // route answers its exact path before the app sees it.)
  app.post(QUERY_PATH, auth, json, durable, queryHandler(answer));
  // The server answers the health checks' exact paths itself (app.ts); the app the other spellings.
  for (const path of HEALTH_PATHS) {
    app.get(path, (_req, res) => {
      const { status, body } = healthAnswer(path, view, now);
      res.status(status).json(body);
    });
  }
  app.get('/metrics', auth, durable, metricsHandler(registry));

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
      sendJson(res, status, JSON.stringify(body));
    },
  });
  return { app, direct };
}

/** The express app alone (every route, POST /api/v1/query too), with its own registry: what a test walks for its routes. */
export function createApp(appOptions: AppOptions): express.Express {
  const { options, time } = instrumented(appOptions);
  return buildApi(options, time).app;
}
