// Optional bearer-token authentication. Compared in constant time (over digests, so the token's
// length does not leak either); the token itself is never logged.

import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

export function requireToken(token: string | null): RequestHandler {
  if (token === null) return (_req, _res, next) => next();
  const expected = digest(token);
  return (req, res, next) => {
    const header = req.get('authorization') ?? '';
    const match = /^Bearer\s+(.+)$/i.exec(header);
    if (match && timingSafeEqual(digest(match[1]!.trim()), expected)) return next();
    res.status(401).set('WWW-Authenticate', 'Bearer').json({ error: 'missing or wrong bearer token' });
  };
}
