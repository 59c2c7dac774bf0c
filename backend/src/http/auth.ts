// Optional bearer-token authentication. Compared in constant time (over digests, so the token's
// length does not leak either); the token itself is never logged.

import { createHash, timingSafeEqual } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import { sendJson } from './json-answer.ts';

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/** Whether an Authorization header carries the token (always, when there is none to carry). */
export function tokenCheck(token: string | null): (header: string | undefined) => boolean {
  if (token === null) return () => true;
  const expected = digest(token);
  return (header) => {
    const match = /^Bearer\s+(.+)$/i.exec(header ?? '');
    return match !== null && timingSafeEqual(digest(match[1]!.trim()), expected);
  };
}

/** The 401 of a missing or wrong token. */
export const UNAUTHORIZED = { error: 'missing or wrong bearer token' };

/** The 401 written on a bare Node response, as `requireToken` has express write it. */
export function writeUnauthorized(res: ServerResponse): void {
  sendJson(res, 401, JSON.stringify(UNAUTHORIZED), { 'WWW-Authenticate': 'Bearer' });
}

export function requireToken(token: string | null): RequestHandler {
  if (token === null) return (_req, _res, next) => next();
  const matches = tokenCheck(token);
  return (req, res, next) => {
    if (matches(req.get('authorization'))) return next();
    res.status(401).set('WWW-Authenticate', 'Bearer').json(UNAUTHORIZED);
  };
}
