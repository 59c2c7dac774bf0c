// Runs the queries of one request: each is checked, defaulted, given its range and steps, narrowed
// to the timelines it selects, and turned into frames by its query type. A bad query is that
// query's error; the others still answer.

import type { z } from 'zod';
import { querySchema, queryRequestSchema } from '../query/model.ts';
import { select } from '../query/select.ts';
import { matchesEveryName, QueryError } from '../query/selector.ts';
import { checkRange, LIMITS, planSteps, ValueBudget } from '../query/step.ts';
import { parseTimeParam } from '../query/time.ts';
import { DEFAULT_QUERY } from '../query/types.ts';
import type { FleetIndex } from '../series/fleet-index.ts';
import type { Timeline } from '../timeline/types.ts';
import type { QueryContext, ResolvedQuery } from './context.ts';
import { eventsFrames } from './events.ts';
import { frame, type FrameJSON } from './frame.ts';
import { fleetFrames } from './fleet.ts';
import { sloWindows } from '../query/slo.ts';
import { sloFrames, sloPooledGroups, sloPoints } from './slo.ts';
import { parseDuration } from '../query/types.ts';
import { seriesCost, seriesFrames, seriesSpec, seriesWindowStart } from './series.ts';
import { statesFrames } from './states.ts';
import { summaryCost, summaryFrames } from './summary.ts';

export interface QueryResult {
  status: number;
  frames?: FrameJSON[];
  error?: string;
}

export interface Observed {
  timelines: readonly Timeline[];
  /** The time up to which the timelines are observed. */
  horizon: number;
  /** The node layer (layer: 'nodes'), when the source has one. */
  nodes?: { timelines: readonly Timeline[]; horizon: number } | null;
  /** The JobSet layer's fleet index, when the source keeps one. */
  index?: FleetIndex | null;
  /** How long the service keeps history (`--retention`), ms, when known. */
  retentionMs?: number | null;
}

/** A problem with the request as a whole (not one query): the whole request is a 400. */
export class RequestError extends Error {}

/**
 * The first issue as `path: message`, e.g. `queries[0].figures[1]: Invalid option: …`. `prefix` is
 * where the validated value sits (`queries[2]`); `whole` names it when the issue is about the value
 * itself (`body`, `query string`), so a message never starts with a bare colon.
 */
export function describeZodError(error: z.ZodError, prefix: string, whole = 'body'): string {
  const issue = error.issues[0]!;
  let path = prefix;
  for (const key of issue.path) {
    if (typeof key === 'number') path += `[${key}]`;
    else path += path === '' ? String(key) : `.${String(key)}`;
  }
  const message = issue.message.replace(/^Invalid input: /, '');
  return `${path === '' ? whole : path}: ${message.endsWith('received undefined') ? 'missing' : message}`;
}

interface Cost {
  evaluated: number;
  what: 'JobSets' | 'series';
  points: number;
}

/** What a query will evaluate, before it does: series its points per series or JobSet, `slo` its
 *  points per group, the other types one value (a row, a pass) per JobSet. */
function costOf(ctx: QueryContext): Cost {
  switch (ctx.query.queryType) {
    case 'slo': {
      const pooled = sloPooledGroups(ctx);
      const points = sloPoints(ctx).length;
      return pooled !== null ? { evaluated: pooled.length, what: 'series', points } : { evaluated: ctx.timelines.length, what: 'JobSets', points };
    }
    case 'series':
      return seriesCost(ctx);
    case 'summary':
      return { ...summaryCost(ctx), points: 1 };
    default:
      return { evaluated: ctx.timelines.length, what: 'JobSets', points: 1 };
  }
}

const BY_TYPE = { series: seriesFrames, summary: summaryFrames, states: statesFrames, events: eventsFrames, fleet: fleetFrames, slo: sloFrames };

/** What the queries of one request share: its budget, and the JobSets each distinct selection picked. */
interface Shared {
  budget: ValueBudget;
  selections: Map<string, readonly Timeline[]>;
}

function runOne(raw: unknown, index: number, request: { from?: string | number; to?: string | number }, observed: Observed, now: number, shared: Shared): QueryResult {
  const prefix = `queries[${index}]`;
  const parsed = querySchema.safeParse(raw);
  if (!parsed.success) return { status: 400, error: describeZodError(parsed.error, prefix) };
  const q = parsed.data;
  try {
    const query: ResolvedQuery = { ...DEFAULT_QUERY, ...stripUndefined(q), refId: q.refId } as ResolvedQuery;
    // `*` (a dashboard variable's All) is no name filter: the query takes the path it takes without
    // a name, the fleet index included, and is costed by the work that path does.
    if (matchesEveryName(query.name)) query.name = '';
    const fromRaw = q.timeRange?.from ?? request.from;
    const toRaw = q.timeRange?.to ?? request.to;
    if (fromRaw === undefined || toRaw === undefined) throw new QueryError('timeRange', 'missing: give `from` and `to` in the request or the query');
    const from = parseTimeParam(fromRaw, 'from', now);
    const to = parseTimeParam(toRaw, 'to', now);
    checkRange(from, to);
    let layer: { timelines: readonly Timeline[]; horizon: number } = observed;
    if (query.layer === 'nodes') {
      if (!observed.nodes) return { status: 200, frames: [noNodeLayerFrame(q.refId)] };
      layer = observed.nodes;
    }
    const steps = planSteps(from, to, q.intervalMs, q.maxDataPoints);
    // A series point's window counts every JobSet that lived in it, also before `from` (`up` is a
    // state at each point, not a window).
    const windowed = query.queryType === 'series' && query.metric !== 'up';
    let selectFrom = windowed ? Math.min(from, seriesWindowStart(seriesSpec(query, steps, from, to))) : from;
    // An `slo` point covers the period ending at it: every JobSet that lived in it counts.
    if (query.queryType === 'slo') selectFrom = Math.min(from, sloPoints({ query, steps, to })[0]! - (parseDuration(query.period) ?? 0));
    let selected: readonly Timeline[] | null = null;
    const ctx: QueryContext = {
      query,
      get timelines() {
        if (selected !== null) return selected;
        // Queries of one panel often select alike (five metrics of one JobSet): select once per request.
        const key = JSON.stringify([query.layer, query.clusters, query.namespaces, query.name, query.labelSelector, query.states, selectFrom, to]);
        selected = shared.selections.get(key) ?? select(layer.timelines, query, layer.horizon, selectFrom, to);
        shared.selections.set(key, selected);
        return selected;
      },
      horizon: layer.horizon,
      from,
      to,
      selectFrom,
      steps,
      index: query.layer === 'jobset' ? (observed.index ?? null) : null,
      retentionMs: observed.retentionMs ?? null,
    };
    if (query.groupBy === 'cause' && query.queryType !== 'events') {
      throw new QueryError('groupBy', 'cause counts the interruptions of an events query: use it with queryType events');
    }
    if (query.groupBy === 'none' && (query.queryType === 'series' || query.queryType === 'states') && ctx.timelines.length > LIMITS.maxSeriesPerQuery) {
      throw new QueryError(
        'groupBy',
        `the query selects ${ctx.timelines.length} JobSets, more series than the limit of ${LIMITS.maxSeriesPerQuery}: narrow it with namespaces, name or labelSelector, or group it`,
      );
    }
    // An `slo` query's period and windows are checked, and what the query costs taken from the
    // request's budget, before any work or allocation.
    if (query.queryType === 'slo') sloWindows(query, observed.retentionMs ?? null);
    const cost = costOf(ctx);
    shared.budget.take(cost.evaluated, cost.points, cost.what);
    const frames = BY_TYPE[query.queryType](ctx);
    if (frames.length > LIMITS.maxSeriesPerQuery) {
      throw new QueryError('groupBy', `the query makes ${frames.length} series, more than the limit of ${LIMITS.maxSeriesPerQuery}`);
    }
    return { status: 200, frames };
  } catch (error) {
    if (error instanceof QueryError) return { status: 400, error: `${prefix}.${error.message}` };
    throw error;
  }
}

/**
 * The node layer of a source that has none (an engine fed JobSets alone, without Pods and Nodes):
 * not an error, since the query is right and a dashboard that shows the node layer is right too,
 * but an empty answer that says why: one frame without fields, whose notice Grafana shows on the
 * panel.
 */
const NO_NODE_LAYER =
  'No node layer here: it is computed from the Pods and Nodes of a Kubernetes cluster (upness serve --kubeconfig, a trace recorded from one, or the simulated cluster), and this source has JobSets only.';

function noNodeLayerFrame(refId: string): FrameJSON {
  return frame([], { name: 'node layer', refId, meta: { notices: [{ severity: 'info', text: NO_NODE_LAYER }] } });
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Runs a request body; throws RequestError when the body itself is malformed. */
export function runQueries(body: unknown, observed: Observed, now: number): { status: number; results: Record<string, QueryResult> } {
  const request = queryRequestSchema.safeParse(body);
  if (!request.success) throw new RequestError(describeZodError(request.error, ''));
  // No prototype: a refId such as "__proto__" or "constructor" is just a name.
  const results: Record<string, QueryResult> = Object.create(null);
  const refIds = request.data.queries.map((raw, i) =>
    typeof (raw as { refId?: unknown })?.refId === 'string' ? (raw as { refId: string }).refId : `queries[${i}]`,
  );
  // Answers are keyed by refId: two queries with one refId would make the answer ambiguous.
  refIds.forEach((refId, i) => {
    if (refIds.indexOf(refId) !== i) throw new RequestError(`queries[${i}].refId: "${refId}" is used by an earlier query`);
  });
  const shared: Shared = { budget: new ValueBudget(), selections: new Map() };
  request.data.queries.forEach((raw, i) => {
    results[refIds[i]!] = runOne(raw, i, request.data, observed, now, shared);
  });
  const all = Object.values(results);
  const status = all.some((r) => r.status === 200) ? 200 : all[0]!.status;
  return { status, results };
}
