// GET /healthz (the process answers) and GET /readyz (what is served has synced and is kept current).

import { Router } from 'express';
import type { ServedView } from '../runtime/served-view.ts';

export function healthRoutes(view: ServedView, now: () => number): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', (_req, res) => {
    const readiness = view.readiness();
    const counts = view.counts();
    if (!readiness.ready) {
      res.status(503).json({ ready: false, reason: readiness.reason, source: view.kind });
      return;
    }
    res.json({
      ready: true,
      source: view.kind,
      jobsets: counts.jobsets,
      observations: counts.observations,
      horizon: new Date(view.horizon(now())).toISOString(),
    });
  });
  return router;
}
