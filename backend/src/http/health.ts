// GET /healthz (the process answers) and GET /readyz (what is served has synced and is kept current).
// Plain answers, so that the server answers them without express (app.ts: a health check is what an
// empty service is asked most, and express is loaded on the first request that needs it).

import type { ServedView } from '../runtime/served-view.ts';

export const HEALTH_PATHS = ['/healthz', '/readyz'] as const;
export type HealthPath = (typeof HEALTH_PATHS)[number];

/** The status and JSON body of GET `path`. */
export function healthAnswer(path: HealthPath, view: ServedView, now: () => number): { status: number; body: unknown } {
  if (path === '/healthz') return { status: 200, body: { status: 'ok' } };
  const readiness = view.readiness();
  if (!readiness.ready) return { status: 503, body: { ready: false, reason: readiness.reason, source: view.kind } };
  const counts = view.counts();
  return {
    status: 200,
    body: { ready: true, source: view.kind, jobsets: counts.jobsets, observations: counts.observations, horizon: new Date(view.horizon(now())).toISOString() },
  };
}
