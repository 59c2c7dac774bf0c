// GET /healthz (the process answers) and GET /readyz (what is served has synced and is kept current).
// Plain answers, which the server gives in every spelling without express (app.ts `healthRoute`: a
// health check is what an empty service is asked most, and express is loaded on the first request
// that needs it): the only implementation of either.

import type { ServedView } from '../runtime/served-view.ts';

/** The status and JSON body of GET /healthz or /readyz. */
export function healthAnswer(check: 'healthz' | 'readyz', view: ServedView, now: () => number): { status: number; body: unknown } {
  if (check === 'healthz') return { status: 200, body: { status: 'ok' } };
  const readiness = view.readiness();
  if (!readiness.ready) return { status: 503, body: { ready: false, reason: readiness.reason, source: view.kind } };
  const counts = view.counts();
  return {
    status: 200,
    body: { ready: true, source: view.kind, jobsets: counts.jobsets, observations: counts.observations, horizon: new Date(view.horizon(now())).toISOString() },
  };
}
