// GET /metrics, and the HTTP edge's own metric (request durations). The service's registry is made
// here with the process's default metrics; each component registers its own on it (the served view:
// runtime/metrics.ts, the store: store/metrics.ts); the per-JobSet families are written beside it
// (runtime/jobset-metrics.ts: one sample per JobSet, too many for prom-client's objects).

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import client from 'prom-client';

/** A registry with Node's default process metrics (`process_cpu_seconds_total`, ...). */
export function createRegistry(): client.Registry {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  return registry;
}

/**
 * The text of GET /metrics: the registry's families, then those each of `written` gives (families
 * written in the registry's text format, Prometheus 0.0.4: runtime/prom-text.ts), blank-line apart
 * as the registry writes its own.
 */
export function metricsText(registry: client.Registry, ...written: (() => string)[]): () => Promise<string> {
  return async () => {
    const own = await registry.metrics();
    const rest = written.map((text) => text()).filter((text) => text !== '');
    return rest.length === 0 ? own : `${own}\n${rest.join('\n\n')}\n`;
  };
}

/** Starts timing a request; `route` names its route pattern once it has finished. */
export type RequestTimer = (req: IncomingMessage, res: ServerResponse, route: () => string) => void;

/** The request-duration histogram, labelled by route pattern (not path, so JobSet names do not explode the label set). */
export function requestTimer(registry: client.Registry): RequestTimer {
  const httpDuration = new client.Histogram({
    name: 'upness_http_request_duration_seconds',
    help: 'Time to answer HTTP requests, by method, route and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  return (req, res, route) => {
    // From the request's arrival where it waited for the API to load (app.ts), else from now.
    const start = arrivals.get(req) ?? process.hrtime.bigint();
    res.on('finish', () => {
      httpDuration.observe({ method: req.method, route: route(), status: String(res.statusCode) }, Number(process.hrtime.bigint() - start) / 1e9);
    });
  };
}

/** When requests that waited for the API to load arrived (process.hrtime.bigint()), so that their time counts the wait. */
const arrivals = new WeakMap<IncomingMessage, bigint>();

/** Notes that `req` arrived now and waits before it is timed: its duration will count from now. */
export function arrivedNow(req: IncomingMessage): void {
  arrivals.set(req, process.hrtime.bigint());
}

/** The requests the app's /api/v1 router has taken (`inApiRouter`): their route patterns are under /api/v1. */
const apiRequests = new WeakSet<IncomingMessage>();

/** The /api/v1 router's first handler: notes that the request's route, if it matches one, is under /api/v1. */
export const inApiRouter: RequestHandler = (req, _res, next) => {
  apiRequests.add(req);
  next();
};

/**
 * Times every request the express app answers, by the route it matched, written as it is declared
 * (not `req.baseUrl`, which is the request's own spelling, `/API/v1`, and is gone by the time an
 * error has left the router).
 */
export function requestTiming(time: RequestTimer): RequestHandler {
  return (req, res, next) => {
    time(req, res, () => (req.route?.path ? `${apiRequests.has(req) ? '/api/v1' : ''}${req.route.path}` : 'unmatched'));
    next();
  };
}
