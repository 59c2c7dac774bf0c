// The HTTP API (see README.md beside this file): express 5, JSON in and out, bad input a 400 that
// names the field, never a 500 for it.

import express, { type ErrorRequestHandler, type Request, type RequestHandler } from 'express';
import type { Logger } from 'pino';
import { z } from 'zod';
import { RequestError, runQueries } from '../frames/query.ts';
import { describeZodError } from '../frames/query.ts';
import { figures, stateAt } from '../series/figures.ts';
import { timelineEvents } from '../series/events.ts';
import { livedIn, summarize } from '../series/summary.ts';
import { select } from '../query/select.ts';
import { QueryError } from '../query/selector.ts';
import { checkRange } from '../query/step.ts';
import { parseTimeParam } from '../query/time.ts';
import type { TimelineSource } from '../service/source.ts';
import type { StoreStatus } from '../store/embedded.ts';
import { named, oldestFirst } from '../timeline/order.ts';
import type { Cause, Suspension, Timeline } from '../timeline/types.ts';
import { requireToken } from './auth.ts';
import { createMetrics } from './metrics.ts';
import { openApiDocument, VALUE_KINDS } from './openapi.ts';

export interface AppOptions {
  source: TimelineSource;
  /** Bearer token required on /api/v1 and /metrics; null: open. */
  token: string | null;
  logger: Logger;
  now?: () => number;
  /** How long a finished JobSet stays on /metrics, ms. */
  terminalGraceMs?: number;
  /** Awaited before answering from the timelines: the store's group commit, so nothing served can be lost. */
  beforeRead?: () => Promise<void>;
  store?: () => StoreStatus;
  /** How long the service keeps history (`--retention`), ms: an `slo` period may not be longer. */
  retentionMs?: number;
}

/** A client error with its HTTP status. */
class HttpError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

const repeated = z.union([z.string(), z.array(z.string())]).transform((v) => (Array.isArray(v) ? v : [v]));
const listQuerySchema = z.object({
  cluster: repeated.optional(),
  from: z.string().optional(),
  to: z.string().optional(),
  namespace: repeated.optional(),
  name: z.string().optional(),
  labelSelector: z.string().optional(),
  state: repeated.optional(),
  layer: z.enum(['jobset', 'nodes']).optional(),
});
const VALUES = VALUE_KINDS;

function parseQueryString<T extends z.ZodType>(schema: T, req: Request): z.infer<T> {
  const parsed = schema.safeParse(req.query);
  if (!parsed.success) throw new HttpError(400, describeZodError(parsed.error, '', 'query string'));
  return parsed.data;
}

/** from/to from a query string, with defaults; QueryError → 400. */
/** What a request's parameters get wrong (a QueryError while `read` runs) is a 400. */
function asClientError<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof QueryError) throw new HttpError(400, error.message);
    throw error;
  }
}

function window(q: { from?: string; to?: string }, now: number, defaultFrom: number, defaultTo: number): [number, number] {
  return asClientError(() => {
    const from = q.from === undefined ? defaultFrom : parseTimeParam(q.from, 'from', now);
    const to = q.to === undefined ? defaultTo : parseTimeParam(q.to, 'to', now);
    checkRange(from, to, 'to');
    return [from, to];
  });
}

/** from/to of a values look-up: either may be left out (no bound on that side). */
function valuesRange(q: { from?: string; to?: string }, now: number): [number, number] {
  return asClientError(() => {
    const from = q.from === undefined ? -Infinity : parseTimeParam(q.from, 'from', now);
    const to = q.to === undefined ? Infinity : parseTimeParam(q.to, 'to', now);
    if (to < from) throw new QueryError('to', 'is before `from`');
    return [from, to];
  });
}

function sortedUnique(values: Iterable<string>): string[] {
  return [...new Set(values)].filter((v) => v !== '').sort();
}

function intervals(tl: Timeline, horizon: number): { state: string; from: string; to: string | null; causes?: ReturnType<typeof causeJson>[]; suspension?: Suspension }[] {
  return tl.transitions.map((t, i) => {
    const next = tl.transitions[i + 1];
    const terminal = t.state === 'completed' || t.state === 'failed' || t.state === 'deleted';
    const end = next?.at ?? (terminal ? t.at : Math.max(horizon, t.at));
    return {
      state: t.state,
      from: new Date(t.at).toISOString(),
      to: next === undefined && !terminal ? null : new Date(end).toISOString(),
      ...(t.causes !== undefined ? { causes: t.causes.map(causeJson) } : {}),
      ...(t.suspension !== undefined ? { suspension: { reason: t.suspension.reason, message: t.suspension.message } } : {}),
    };
  });
}

/** A cause with its time as RFC 3339, as every time in the API is. */
function causeJson(c: Cause): Omit<Cause, 'at'> & { at: string } {
  return { ...c, at: new Date(c.at).toISOString() };
}

type EventJson = { type: 'interruption' | 'recovery'; time: string; causes?: ReturnType<typeof causeJson>[] };

function events(tl: Timeline): EventJson[] {
  return timelineEvents(tl).map(({ kind, at, transition }) =>
    kind === 'interruption' && transition.causes !== undefined
      ? { type: kind, time: new Date(at).toISOString(), causes: transition.causes.map(causeJson) }
      : { type: kind, time: new Date(at).toISOString() },
  );
}

export function createApp(options: AppOptions): express.Express {
  const { source, logger } = options;
  const now = options.now ?? Date.now;
  const { registry, httpDuration } = createMetrics({ source, now, terminalGraceMs: options.terminalGraceMs ?? 10 * 60_000, store: options.store });
  const durable: RequestHandler = async (_req, _res, next) => {
    await options.beforeRead?.();
    next();
  };
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');

  const timing: RequestHandler = (req, res, next) => {
    const stop = httpDuration.startTimer();
    res.on('finish', () => {
      // The route pattern, not the path, so JobSet names do not explode the label set.
      const route = req.route?.path ? `${req.baseUrl}${req.route.path}` : 'unmatched';
      stop({ method: req.method, route, status: String(res.statusCode) });
    });
    next();
  };
  app.use(timing);

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', (_req, res) => {
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

  const auth = requireToken(options.token);
  app.get('/metrics', auth, durable, async (_req, res) => {
    res.set('Content-Type', registry.contentType).send(await registry.metrics());
  });

  const api = express.Router();
  api.get('/openapi.json', (_req, res) => {
    res.json(openApiDocument());
  });
  api.use(auth);
  // Not strict: `null`, `42` or `"q"` are JSON too, and the schema names what the body should be.
  api.use(express.json({ limit: '1mb', strict: false }));
  api.use(durable);

  api.post('/query', (req, res) => {
    if (req.body === undefined) throw new HttpError(400, 'body: missing, or not sent as JSON (Content-Type: application/json)');
    const t = now();
    const { status, results } = runQueries(
      req.body,
      {
        timelines: source.timelines(),
        horizon: source.horizon(t),
        // Only a query of the node layer needs it.
        get nodes() {
          return source.nodeLayer?.(t) ?? null;
        },
        index: source.index?.() ?? null,
        retentionMs: options.retentionMs ?? null,
      },
      t,
    );
    res.status(status).json({ results });
  });

  /** The JobSet layer, or with `layer=nodes` the node layer (404 when the source has none). */
  const layerOf = (layer: 'jobset' | 'nodes' | undefined, t: number): { timelines: readonly Timeline[]; horizon: number } => {
    if (layer !== 'nodes') return { timelines: source.timelines(), horizon: source.horizon(t) };
    const nodes = source.nodeLayer?.(t) ?? null;
    if (nodes === null) throw new HttpError(404, 'layer=nodes: this source has no node layer (it needs a Kubernetes cluster, or a trace recorded from one)');
    return nodes;
  };

  api.get('/jobsets', (req, res) => {
    const q = parseQueryString(listQuerySchema, req);
    const t = now();
    const { timelines, horizon } = layerOf(q.layer, t);
    const [from, to] = window(q, t, t - 86_400_000, t);
    const selected = selectOrThrow(timelines, { clusters: q.cluster, namespaces: q.namespace, name: q.name, labelSelector: q.labelSelector, states: q.state }, horizon, from, to);
    res.json({ from: new Date(from).toISOString(), to: new Date(to).toISOString(), jobsets: summarize(selected, horizon, from, to) });
  });

  api.get('/jobsets/:namespace/:name', (req, res) => {
    const q = parseQueryString(listQuerySchema.pick({ from: true, to: true, layer: true }), req);
    const t = now();
    const layer = layerOf(q.layer, t);
    const horizon = layer.horizon;
    const bearers = named(layer.timelines, req.params.namespace, req.params.name);
    if (bearers.length === 0) throw new HttpError(404, `no JobSet ${req.params.namespace}/${req.params.name} has been seen`);
    const timelines = bearers
      .sort(oldestFirst)
      .map((tl) => {
        const [from, to] = window(q, t, tl.createdAt, horizon);
        return {
          uid: tl.uid,
          namespace: tl.namespace,
          name: tl.name,
          labels: tl.labels,
          accelerator: tl.accelerator,
          topology: tl.topology,
          // Goodput inputs (issue 13 §3): the slice's accelerators, the declared checkpoint interval.
          accelerators: tl.accelerators ?? 0,
          checkpointIntervalSeconds: tl.checkpointIntervalMs == null ? null : tl.checkpointIntervalMs / 1000,
          createdAt: new Date(tl.createdAt).toISOString(),
          state: stateAt(tl, to),
          from: new Date(from).toISOString(),
          to: new Date(to).toISOString(),
          figures: figures(tl, horizon, from, to),
          intervals: intervals(tl, horizon),
          events: events(tl),
        };
      });
    res.json({ timelines });
  });

  api.get('/values/:what', (req, res) => {
    const what = req.params.what as (typeof VALUES)[number];
    if (!VALUES.includes(what)) throw new HttpError(404, `unknown values "${req.params.what}" (one of ${VALUES.join(', ')})`);
    const q = parseQueryString(z.object({ namespace: repeated.optional(), key: z.string().optional(), from: z.string().optional(), to: z.string().optional() }), req);
    const t = now();
    // With from and/or to: only the timelines that lived in that range (a dashboard's variables
    // then offer what its panels can show); without: every timeline kept.
    let all = source.timelines();
    if (q.from !== undefined || q.to !== undefined) {
      const horizon = source.horizon(t);
      const [from, to] = valuesRange(q, t);
      all = all.filter((tl) => livedIn(tl, horizon, from, to));
    }
    const inNamespaces = q.namespace && q.namespace.length > 0 ? all.filter((tl) => q.namespace!.includes(tl.namespace)) : all;
    let values: string[];
    switch (what) {
      case 'clusters':
        values = sortedUnique(all.map((tl) => tl.cluster ?? ''));
        break;
      case 'namespaces':
        values = sortedUnique(all.map((tl) => tl.namespace));
        break;
      case 'jobsets':
        values = sortedUnique(inNamespaces.map((tl) => tl.name));
        break;
      case 'labelKeys':
        values = sortedUnique(inNamespaces.flatMap((tl) => Object.keys(tl.labels)));
        break;
      case 'labelValues':
        if (q.key === undefined || q.key === '') throw new HttpError(400, 'key: missing (the label key whose values to list)');
        values = sortedUnique(inNamespaces.map((tl) => tl.labels[q.key!] ?? ''));
        break;
      case 'accelerators':
        values = sortedUnique(inNamespaces.map((tl) => tl.accelerator ?? ''));
        break;
      case 'topologies':
        values = sortedUnique(inNamespaces.map((tl) => tl.topology ?? ''));
        break;
    }
    res.json({ values });
  });

  app.use('/api/v1', api);

  app.use((req, res) => {
    res.status(404).json({ error: `no such endpoint: ${req.method} ${req.path}` });
  });

  const errors: ErrorRequestHandler = (error, req, res, _next) => {
    if (error instanceof HttpError) {
      res.status(error.status).json({ error: error.message });
      return;
    }
    if (error instanceof RequestError) {
      res.status(400).json({ error: error.message });
      return;
    }
    // The router could not decode a path segment (`/api/v1/values/%zz`): name the path.
    if (error instanceof URIError) {
      res.status(400).json({ error: `path: ${req.path} is not valid percent-encoding` });
      return;
    }
    // body-parser's own errors carry the status they mean (malformed JSON, too large, bad charset).
    const status = (error as { status?: unknown }).status;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      const type = (error as { type?: string }).type;
      const message =
        type === 'entity.parse.failed'
          ? `body: not valid JSON (${(error as Error).message})`
          : type === 'entity.too.large'
            ? 'body: too large, more than the limit of 1 MB'
            : `body: ${(error as Error).message}`;
      res.status(status).json({ error: message });
      return;
    }
    logger.error({ err: error, method: req.method, path: req.path }, 'request failed');
    res.status(500).json({ error: 'internal error (logged by the service)' });
  };
  app.use(errors);
  return app;
}

function selectOrThrow(timelines: readonly Timeline[], selection: Parameters<typeof select>[1], horizon: number, from: number, to: number): Timeline[] {
  return asClientError(() => select(timelines, selection, horizon, from, to));
}
