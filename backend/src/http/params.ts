// What every handler of the API shares: a client error with its status, and the parsing of query
// strings and time ranges into values (a wrong one is a 400 that names the field).

import { z } from 'zod';
import { describeZodError } from '../query/model.ts';
import { QueryError } from '../query/selector.ts';
import { checkRange } from '../query/step.ts';
import { parseTimeParam } from '../query/time.ts';

/** A client error with its HTTP status. */
export class HttpError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/** A query-string parameter that may be given once or repeated: always a list. */
export const repeated = z.union([z.string(), z.array(z.string())]).transform((v) => (Array.isArray(v) ? v : [v]));

/** The query string's parameters (`req.query`, as the app's 'simple' parser or node:querystring made them), checked by `schema`. */
export function parseQueryString<T extends z.ZodType>(schema: T, req: { readonly query: unknown }): z.infer<T> {
  const parsed = schema.safeParse(req.query);
  if (!parsed.success) throw new HttpError(400, describeZodError(parsed.error, '', 'query string'));
  return parsed.data;
}

/** What a request's parameters get wrong (a QueryError while `read` runs) is a 400. */
export function asClientError<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof QueryError) throw new HttpError(400, error.message);
    throw error;
  }
}

/** from/to from a query string, with defaults. */
export function window(q: { from?: string | undefined; to?: string | undefined }, now: number, defaultFrom: number, defaultTo: number): [number, number] {
  return asClientError(() => {
    const from = q.from === undefined ? defaultFrom : parseTimeParam(q.from, 'from', now);
    const to = q.to === undefined ? defaultTo : parseTimeParam(q.to, 'to', now);
    checkRange(from, to, 'to');
    return [from, to];
  });
}

/** from/to of a values look-up: either may be left out (no bound on that side). */
export function openRange(q: { from?: string | undefined; to?: string | undefined }, now: number): [number, number] {
  return asClientError(() => {
    const from = q.from === undefined ? -Infinity : parseTimeParam(q.from, 'from', now);
    const to = q.to === undefined ? Infinity : parseTimeParam(q.to, 'to', now);
    if (to < from) throw new QueryError('to', 'is before `from`');
    return [from, to];
  });
}
