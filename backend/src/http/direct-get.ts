// A GET of the API answered on Node's own server, without express (issue 21 §3: "Save & test" and
// the dashboards' variables ask GET /api/v1/values/{what}, Prometheus GET /metrics; express cost the
// service ~11 MiB of RSS once asked). The server (app.ts) sends such a route the requests `plainGet` lets through; it takes
// the steps the express app takes (api.ts): the request timed under its route, the token, the
// store's commit awaited, the answer with the headers res.json sends, every error answered as the
// app's error handler answers it.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQueryString, type ParsedUrlQuery } from 'node:querystring';
import { plainGet, type ResolvedAppOptions } from './app.ts';
import { tokenCheck, writeUnauthorized } from './auth.ts';
import { errorAnswer } from './errors.ts';
import { sendJson } from './json-answer.ts';
import type { RequestTimer } from './metrics.ts';

const writeJson = (res: ServerResponse, value: unknown): void => sendJson(res, 200, JSON.stringify(value));

/**
 * A route answering GET requests with `answer(path, query)`, written by `write` (default: as JSON,
 * with the headers res.json sends; `query` parsed as the app's
 * 'simple' query parser does: node:querystring, a parameter given twice an array). `route` names
 * its requests in `upness_http_request_duration_seconds` as the app names them: `answered` when
 * answered, `failed` when `answer` threw (under /api/v1 the app's router has left it by then, so
 * the pattern lacks `/api/v1`), `stopped` when the token or the store's commit stopped it (under
 * /api/v1 they come before the routes: 'unmatched').
 */
export function directGetRoute<T>(
  options: Pick<ResolvedAppOptions, 'token' | 'beforeRead' | 'logger'>,
  time: RequestTimer,
  route: { answered: string; failed: string; stopped: string },
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
    const { path, query } = plainGet(req) ?? { path: req.url ?? '', query: '' };
    const fail = (error: unknown): void => {
      const { status, body } = errorAnswer(error, { method: req.method, path }, logger);
      sendJson(res, status, JSON.stringify(body));
    };
    const run = async (): Promise<void> => {
      await beforeRead?.();
      label = route.failed;
      const value = await answer(path, parseQueryString(query));
      label = route.answered;
      write(res, value);
    };
    run().catch(fail);
  };
}

/** GET /metrics: the registry's text, with the Content-Type the app sends (api.ts `metricsHandler`). */
export function metricsRoute(options: Pick<ResolvedAppOptions, 'token' | 'beforeRead' | 'logger' | 'registry'>, time: RequestTimer): (req: IncomingMessage, res: ServerResponse) => void {
  const { registry } = options;
  return directGetRoute(
    options,
    time,
    // The app's route takes its token and commit itself: every request is named by it.
    { answered: '/metrics', failed: '/metrics', stopped: '/metrics' },
    () => registry.metrics(),
    (res, text) => {
      res.writeHead(200, { 'Content-Type': registry.contentType, 'Content-Length': Buffer.byteLength(text, 'utf8') }).end(text, 'utf8');
    },
  );
}
