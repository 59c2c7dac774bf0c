// The API's last handlers: an unknown endpoint is a 404, and every error a JSON answer; a client's
// mistake is a 4xx that names it, anything else a logged 500.

import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { RequestError } from '../frames/run-request.ts';
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

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error, req, res, _next) => {
    if (error instanceof HttpError) {
      res.status(error.status).json({ error: error.message });
      return;
    }
    if (error instanceof RequestError) {
      res.status(400).json({ error: error.message });
      return;
    }
    // The router could not decode a path segment (`/api/v1/values/%zz`): name the path.
    if (error instanceof URIError) {
      res.status(400).json({ error: `path: ${req.path} is not valid percent-encoding` });
      return;
    }
    const status = (error as { status?: unknown }).status;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      res.status(status).json({ error: bodyErrorMessage(error as Error & { type?: string }) });
      return;
    }
    logger.error({ err: error, method: req.method, path: req.path }, 'request failed');
    res.status(500).json({ error: 'internal error (logged by the service)' });
  };
}
