// A request's JSON body read on Node's own request, for POST /api/v1/query (issue 21 §4): the body
// every panel sends is plain JSON of a known length, and it is read into one buffer and parsed once,
// without body-parser's stream of steps (its type and charset checks, raw-body's reader, iconv's
// decoder). Any other request (another type or charset, a content encoding, no length, an empty or
// too long body) is left to body-parser, which the caller loads then: what each request answers,
// its errors too, stays what the express app's `express.json({ limit: '1mb', strict: false })` says.

import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';

/** The body's limit, body-parser's `1mb`: a longer body is a 413 (errors.ts says it). */
export const JSON_BODY_LIMIT = 1024 * 1024;

/** The app's body-parser options (api.ts), and the direct route's for the requests it leaves to body-parser. Not strict: `null`, `42` or `"q"` are JSON too, and the schema names what the body should be. */
export const JSON_BODY_OPTIONS = { limit: JSON_BODY_LIMIT, strict: false };

/**
 * `application/json`, alone or with the charset UTF-8, as content-type's grammar spells it (any case,
 * spaces around the `;` and `=` but no tabs, the value quoted or not). Anything else goes to body-parser.
 */
const PLAIN_JSON = /^application\/json *(?:; *charset *= *(?:utf-8|"utf-8") *)?$/i;

/**
 * The length of a body this reader takes as body-parser would, or null for a request left to
 * body-parser: one of JSON in UTF-8, not encoded, its length given (1 byte to the limit; an empty
 * body is `{}` to body-parser, which says so itself), not chunked.
 */
export function plainJsonLength(headers: IncomingHttpHeaders): number | null {
  const type = headers['content-type'];
  if (type === undefined || !PLAIN_JSON.test(type)) return null;
  if (headers['content-encoding'] !== undefined || headers['transfer-encoding'] !== undefined) return null;
  const length = headers['content-length'];
  if (length === undefined || !/^[0-9]{1,8}$/.test(length)) return null;
  const n = Number(length);
  return n > 0 && n <= JSON_BODY_LIMIT ? n : null;
}

/** An error as body-parser gives it (status and type: errors.ts words the answer from them). */
function bodyError(status: number, type: string, message: string): Error & { status: number; type: string } {
  return Object.assign(new Error(message), { status, type });
}

/** UTF-8's byte order mark, which body-parser's decoder drops. */
const BOM = [0xef, 0xbb, 0xbf] as const;

/** A body's bytes as the value body-parser parses from them: UTF-8 text without a leading byte order mark, then JSON.parse. */
export function parseJsonBytes(bytes: Buffer): unknown {
  const start = bytes.length >= 3 && bytes[0] === BOM[0] && bytes[1] === BOM[1] && bytes[2] === BOM[2] ? 3 : 0;
  const text = bytes.toString('utf8', start);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw bodyError(400, 'entity.parse.failed', (error as Error).message);
  }
}

/**
 * Reads a body of `length` bytes (plainJsonLength's) into one buffer and parses it; `done` gets
 * the value or the error body-parser would give. Node's parser ends the body at its length; a
 * request that ends short was aborted, which body-parser answers as a 400 too (to a closed socket).
 */
export function readJsonBody(req: IncomingMessage, length: number, done: (error: unknown, body?: unknown) => void): void {
  const bytes = Buffer.allocUnsafe(length);
  let at = 0;
  let finished = false;
  const finish = (error: unknown, body?: unknown): void => {
    if (finished) return;
    finished = true;
    done(error, body);
  };
  req.on('data', (chunk: Buffer) => {
    if (at + chunk.length > length) return finish(bodyError(400, 'request.size.invalid', 'request size did not match content length'));
    chunk.copy(bytes, at);
    at += chunk.length;
  });
  req.once('end', () => {
    if (at !== length) return finish(bodyError(400, 'request.size.invalid', 'request size did not match content length'));
    let body: unknown;
    try {
      body = parseJsonBytes(bytes);
    } catch (error) {
      return finish(error);
    }
    finish(undefined, body);
  });
  req.once('aborted', () => finish(bodyError(400, 'request.aborted', 'request aborted')));
  req.once('error', (error) => finish(error));
}
