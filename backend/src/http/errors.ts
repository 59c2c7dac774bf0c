// The API's last handlers: an unknown endpoint is a 404, and every error a JSON answer; a client's
// mistake is a 4xx that names it, anything else a logged 500.

import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { RequestError } from '../query/model.ts';
import { HttpError } from './params.ts';

export const notFound: RequestHandler = (req, res) => {
  res.status(404).json({ error: `no such endpoint: ${req.method} ${req.path}` });
};

/** body-parser's own errors carry the status they mean (malformed JSON, too large, bad charset). */
function bodyErrorMessage(error: Error & { type?: string }): string {
  if (error.type === 'entity.parse.failed') return `body: not valid JSON (${error.message})`;
  if (error.type === 'entity.too.large') return 'body: too large, more than the limit of 1 MB';
  return `body: ${error.message}`;
}

/** What an error answers (the status and the JSON body), for the express app and the routes the server answers itself (query, values, metrics) alike; a 500 is logged. */
export function errorAnswer(error: unknown, request: { method: string | undefined; path: string }, logger: Logger): { status: number; body: { error: string } } {
  if (error instanceof HttpError) return { status: error.status, body: { error: error.message } };
  if (error instanceof RequestError) return { status: 400, body: { error: error.message } };
  // A path segment that is not valid percent-encoding (`/api/v1/values/%zz`, `/api/v1/jobsets/%zz/x`): name the path.
  if (error instanceof URIError) return { status: 400, body: { error: `path: ${request.path} is not valid percent-encoding` } };
  const status = (error as { status?: unknown } | null)?.status;
  if (typeof status === 'number' && status >= 400 && status < 500) return { status, body: { error: bodyErrorMessage(error as Error & { type?: string }) } };
  logger.error({ err: error, method: request.method, path: request.path }, 'request failed');
  return { status: 500, body: { error: 'internal error (logged by the service)' } };
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error, req, res, _next) => {
    const { status, body } = errorAnswer(error, req, logger);
    res.status(status).json(body);
  };
}
