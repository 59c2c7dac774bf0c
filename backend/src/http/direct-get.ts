// A GET of the API answered on Node's own server, without express (issue 21 §3: "Save & test" and
// the dashboards' variables ask GET /api/v1/values/{what}; express cost the service ~11 MiB of RSS
// once asked). The server (app.ts) sends such a route the requests `plainGet` lets through; it takes
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

/**
 * A route answering GET requests with `answer(path, query)` as JSON (`query` parsed as the app's
 * 'simple' query parser does: node:querystring, a parameter given twice an array). `route` names
 * its requests in `upness_http_request_duration_seconds` as the app names them: `answered` when
 * answered, `failed` when `answer` threw (the app's router has left `/api/v1` by then, so the
 * pattern lacks it), 'unmatched' when the token or the store's commit stopped it (they come before
 * the app's routes).
 */
export function directGetRoute(
  options: Pick<ResolvedAppOptions, 'token' | 'beforeRead' | 'logger'>,
  time: RequestTimer,
  route: { answered: string; failed: string },
  answer: (path: string, query: ParsedUrlQuery) => unknown,
): (req: IncomingMessage, res: ServerResponse) => void {
  const authorized = tokenCheck(options.token);
  const { beforeRead, logger } = options;
  return (req, res) => {
    let label = 'unmatched';
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
    const run = (): void => {
      label = route.failed;
      const json = JSON.stringify(answer(path, parseQueryString(query)));
      label = route.answered;
      sendJson(res, 200, json);
    };
    if (beforeRead === undefined) {
      try {
        run();
      } catch (error) {
        fail(error);
      }
      return;
    }
    beforeRead().then(run).catch(fail);
  };
}
