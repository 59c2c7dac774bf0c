// POST /api/v1/query: Grafana's query body in, data frames out (frames/run-request.ts and its query types do the work).

import { Router } from 'express';
import { runQueries } from '../frames/run-request.ts';
import type { ServedView } from '../runtime/served-view.ts';
import { HttpError } from './params.ts';

export interface QueryRouteOptions {
  view: ServedView;
  now: () => number;
  /** How long the service keeps history, ms: an `slo` period may not be longer; null: no limit. */
  retentionMs: number | null;
}

export function queryRoutes({ view, now, retentionMs }: QueryRouteOptions): Router {
  const router = Router();
  router.post('/query', (req, res) => {
    if (req.body === undefined) throw new HttpError(400, 'body: missing, or not sent as JSON (Content-Type: application/json)');
    const t = now();
    const { status, results } = runQueries(
      req.body,
      {
        timelines: view.timelines(),
        horizon: view.horizon(t),
        // Only a query of the node layer needs it.
        get nodes() {
          return view.nodeLayer?.(t) ?? null;
        },
        get pools() {
          return view.poolLayer?.(t) ?? null;
        },
        index: view.index?.() ?? null,
        selections: view.selections?.() ?? null,
        retentionMs,
      },
      t,
    );
    res.status(status).json({ results });
  });
  return router;
}
