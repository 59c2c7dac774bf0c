// GET /healthz (the process answers) and GET /readyz (the source has synced and is kept current).

import { Router } from 'express';
import type { TimelineSource } from '../service/source.ts';

export function healthRoutes(source: TimelineSource, now: () => number): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', (_req, res) => {
    const readiness = source.readiness();
    const counts = source.counts();
    if (!readiness.ready) {
      res.status(503).json({ ready: false, reason: readiness.reason, source: source.kind });
      return;
    }
    res.json({
      ready: true,
      source: source.kind,
      jobsets: counts.jobsets,
      observations: counts.observations,
      horizon: new Date(source.horizon(now())).toISOString(),
    });
  });
  return router;
}
