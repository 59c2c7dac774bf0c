// Runs the queries of one request: each is checked, defaulted, given its range and steps, and handed
// to its query type (query-types/), which says what it refuses, selects, costs and answers. The
// queries share one value budget and their selections. A bad query is that query's error; the
// others still answer.

import { describeZodError, queryRequestSchema, RequestError } from '../query/model.ts';
import { select } from '../query/select.ts';
import { literalName, matchesEveryName, QueryError } from '../query/selector.ts';
import { checkRange, LIMITS, planSteps, ValueBudget } from '../query/step.ts';
import { parseTimeParam } from '../query/time.ts';
import { DEFAULT_QUERY } from '../query/types.ts';
import type { FleetIndex } from '../series/fleet-index.ts';
import { type KeptSelections, sameSelection, type SelectedBy } from '../series/kept-selections.ts';
import type { SelectionIndexes } from '../series/selection-indexes.ts';
import type { Timeline } from '../timeline/types.ts';
import type { UsageBook } from '../usage/book.ts';
import type { QueryContext, ResolvedQuery } from './context.ts';
import { noticeFrame, type FrameJSON } from './frame.ts';
import { checkQuery } from './checked-queries.ts';
import { QUERY_TYPE_MODULES } from './query-types/index.ts';

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
  nodes?: { timelines: readonly Timeline[]; horizon: number; named?(name: string): readonly Timeline[] } | null;
  /** The node pools' timelines (layer: 'nodepools'), and their fleet index if kept, when the source has Nodes. */
  pools?: { timelines: readonly Timeline[]; horizon: number; index?: FleetIndex | null } | null;
  /** The JobSet layer's fleet index, when the source keeps one. */
  index?: FleetIndex | null;
  /** Fleet indexes of selections (a name, labels, a label's values), when the source keeps them. */
  selections?: SelectionIndexes | null;
  /** The JobSet layer's selections kept from one request to the next, when the source keeps them. */
  kept?: KeptSelections | null;
  /** How long the service keeps history (`--retention`), ms, when known. */
  retentionMs?: number | null;
  /** The JobSets' resource usage, when the service keeps it (--watch-usage, the simulator). */
  usage?: UsageBook | null;
}

/** What the queries of one request share: its budget, and the JobSets each distinct selection picked. */
interface Shared {
  budget: ValueBudget;
  selections: Selected[];
  memo: Map<string, unknown>;
}

/** What a query selected, and what it selected by (a request has a few distinct selections: a list, not a map keyed by their JSON). */
interface Selected {
  by: SelectedBy;
  timelines: readonly Timeline[];
}

function runOne(raw: unknown, index: number, request: { from?: string | number; to?: string | number }, observed: Observed, now: number, shared: Shared, fromJsonText: boolean): QueryResult {
  const prefix = `queries[${index}]`;
  const parsed = checkQuery(raw, fromJsonText);
  if (!parsed.success) return { status: 400, error: describeZodError(parsed.error, prefix) };
  const q = parsed.data;
  try {
    const query = resolvedQuery(q);
    const type = QUERY_TYPE_MODULES[query.queryType];
    // `*` (a dashboard variable's All) is no name filter: the query takes the path it takes without
    // a name, the fleet index included, and is costed by the work that path does.
    if (matchesEveryName(query.name)) query.name = '';
    const fromRaw = q.timeRange?.from ?? request.from;
    const toRaw = q.timeRange?.to ?? request.to;
    if (fromRaw === undefined || toRaw === undefined) throw new QueryError('timeRange', 'missing: give `from` and `to` in the request or the query');
    const from = parseTimeParam(fromRaw, 'from', now);
    const to = parseTimeParam(toRaw, 'to', now);
    checkRange(from, to);
    let layer: { timelines: readonly Timeline[]; horizon: number; named?(name: string): readonly Timeline[] } = observed;
    if (query.layer === 'nodes') {
      if (!observed.nodes) return { status: 200, frames: [noticeFrame(q.refId, 'node layer', NO_NODE_LAYER)] };
      layer = observed.nodes;
    } else if (query.layer === 'nodepools') {
      if (!observed.pools) return { status: 200, frames: [noticeFrame(q.refId, 'node pools', NO_POOL_LAYER)] };
      layer = observed.pools;
    }
    const steps = planSteps(from, to, q.intervalMs, q.maxDataPoints);
    const selectFrom = type.selectFrom(query, steps, from, to);
    let selected: readonly Timeline[] | null = null;
    const ctx: QueryContext = {
      query,
      get timelines() {
        if (selected !== null) return selected;
        // Queries of one panel often select alike (five metrics of one JobSet): select once per request.
        const by: SelectedBy = { layer: query.layer, clusters: query.clusters, namespaces: query.namespaces, name: query.name, labelSelector: query.labelSelector, states: query.states, selectFrom, to };
        const same = shared.selections.find((s) => sameSelection(s.by, by));
        if (same !== undefined) return (selected = same.timelines);
        // One name, of a layer that finds its bearers alone (the node layer): not the whole layer listed.
        const name = layer.named === undefined ? null : literalName(query.name);
        const make = (): readonly Timeline[] => select(name === null ? layer.timelines : layer.named!(name), query, layer.horizon, selectFrom, to);
        // The JobSet layer's list is the engine's, whose changes the kept selections follow.
        const kept = query.layer === 'jobset' ? (observed.kept ?? null) : null;
        selected = kept === null ? make() : kept.get(layer.timelines, by, layer.horizon, make);
        shared.selections.push({ by, timelines: selected });
        return selected;
      },
      horizon: layer.horizon,
      from,
      to,
      selectFrom,
      steps,
      index: query.layer === 'jobset' ? (observed.index ?? null) : query.layer === 'nodepools' ? (observed.pools?.index ?? null) : null,
      selections: query.layer === 'jobset' ? (observed.selections ?? null) : null,
      now,
      memo: shared.memo,
      retentionMs: observed.retentionMs ?? null,
      usage: observed.usage ?? null,
    };
    type.validate(ctx);
    const cost = type.cost(ctx);
    shared.budget.take(cost.evaluated, cost.points, cost.what, cost.perJobSetOnly !== true);
    const frames = type.frames(ctx);
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

const NO_POOL_LAYER =
  'No node pools here: they are computed from the Nodes of a Kubernetes cluster (upness serve --kubeconfig, a trace recorded from one, or the simulated cluster), and this source has JobSets only.';

/**
 * A parsed query with the defaults where it gives no value: DEFAULT_QUERY's fields, then the query's
 * own that are not undefined, in its order, then its refId. Made by spreads (which define each key
 * as an own field, `__proto__` too, as a loose schema passes any key through) and mended after for
 * the rare undefined: every query of every request passes here, and copying the query into an
 * object without prototype first made a slow object that the spread then copied key by key (~11 µs
 * a query against ~1 µs; issue 21 §4).
 */
export function resolvedQuery(q: { refId: string }): ResolvedQuery {
  const query: Record<string, unknown> = { ...DEFAULT_QUERY, ...q, refId: q.refId };
  for (const key of Object.keys(q)) {
    if ((q as Record<string, unknown>)[key] !== undefined) continue;
    // A default's key keeps its place and takes the default; any other is left out.
    if (Object.hasOwn(DEFAULT_QUERY, key)) query[key] = DEFAULT_QUERY[key as keyof typeof DEFAULT_QUERY];
    else delete query[key];
  }
  return query as unknown as ResolvedQuery;
}

/**
 * Runs a request body; throws RequestError when the body itself is malformed. `fromJsonText`: the
 * body is JSON.parse's value (the HTTP route's), so its queries' checks may be kept (checked-queries.ts).
 */
export function runQueries(body: unknown, observed: Observed, now: number, { fromJsonText = false }: { fromJsonText?: boolean } = {}): { status: number; results: Record<string, QueryResult> } {
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
  const shared: Shared = { budget: new ValueBudget(), selections: [], memo: new Map() };
  request.data.queries.forEach((raw, i) => {
    results[refIds[i]!] = runOne(raw, i, request.data, observed, now, shared, fromJsonText);
  });
  const all = Object.values(results);
  const status = all.some((r) => r.status === 200) ? 200 : all[0]!.status;
  return { status, results };
}
