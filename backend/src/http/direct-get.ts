// A GET of the API answered on Node's own server, without express (issue 21 §3: "Save & test" and
// the dashboards' variables ask GET /api/v1/values/{what}, Prometheus GET /metrics; express cost the
// service ~11 MiB of RSS once asked). These routes are answered here alone, in every spelling the
// server sends them (app.ts `isValuesRequest`, `isMetricsRequest`), with the steps the express app
// takes for its own routes (api.ts): the request timed under its route, the token, the store's
// commit awaited, the answer with the headers res.json sends, every error answered as the app's
// error handler answers it.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQueryString, type ParsedUrlQuery } from 'node:querystring';
import { getRequest, notModified, type ResolvedAppOptions } from './app.ts';
import { tokenCheck, writeUnauthorized } from './auth.ts';
import { errorAnswer } from './errors.ts';
import { sendJson } from './json-answer.ts';
import type { RequestTimer } from './metrics.ts';

const writeJson = (res: ServerResponse, value: unknown): void => sendJson(res, 200, JSON.stringify(value));

/**
 * A route answering GET and HEAD requests with `answer(path, query)`, written by `write` (default:
 * as JSON, with the headers res.json sends; `query` parsed as the app's 'simple' query parser does:
 * node:querystring, a parameter given twice an array). `route` names its requests in
 * `upness_http_request_duration_seconds`: `answered` once the token and the store's commit let it
 * through, `stopped` when either stopped it (under /api/v1 they come before the routes, as in the
 * app: 'unmatched').
 */
export function directGetRoute<T>(
  options: Pick<ResolvedAppOptions, 'token' | 'beforeRead' | 'logger'>,
  time: RequestTimer,
  route: { answered: string; stopped: string },
  answer: (path: string, query: ParsedUrlQuery) => T | Promise<T>,
  write: (res: ServerResponse, value: T) => void = writeJson,
): (req: IncomingMessage, res: ServerResponse) => void {
  const authorized = tokenCheck(options.token);
  const { beforeRead, logger } = options;
  return (req, res) => {
    let label = route.stopped;
    time(req, res, () => label);
    if (!authorized(req.headers.authorization)) {
      writeUnauthorized(res);
      return;
    }
    const { path, query } = getRequest(req) ?? { path: req.url ?? '', query: '' };
    const fail = (error: unknown): void => {
      const { status, body } = errorAnswer(error, { method: req.method, path }, logger);
      sendJson(res, status, JSON.stringify(body));
    };
    const run = async (): Promise<void> => {
      await beforeRead?.();
      label = route.answered;
      const value = await answer(path, parseQueryString(query));
      if (notModified(req)) res.writeHead(304).end();
      else write(res, value);
    };
    run().catch(fail);
  };
}

/** GET /metrics: the service's metrics (options.metrics), in Prometheus's text format. */
export function metricsRoute(options: Pick<ResolvedAppOptions, 'token' | 'beforeRead' | 'logger' | 'registry' | 'metrics'>, time: RequestTimer): (req: IncomingMessage, res: ServerResponse) => void {
  const { registry, metrics } = options;
  return directGetRoute(
    options,
    time,
    // Outside /api/v1: every request is the route's, a 401 among them.
    { answered: '/metrics', stopped: '/metrics' },
    metrics,
    (res, text) => {
      // Encoded once, for its length and to send (at 10,000 open JobSets ~35 MB: each pass over it counts).
      const body = Buffer.from(text, 'utf8');
      res.writeHead(200, { 'Content-Type': registry.contentType, 'Content-Length': body.length }).end(body);
    },
  );
}
