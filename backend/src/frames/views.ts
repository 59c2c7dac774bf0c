// The JSON views of /api/v1/jobsets, /api/v1/jobsets/{ns}/{name} and /api/v1/values/{what}: pure
// functions of timelines, beside the frames, so the HTTP handlers only parse, call and send.

import { timelineEvents } from '../series/events.ts';
import { figures, stateAt, type Figures } from '../series/figures.ts';
import { livedIn, summarize, type JobSetSummary } from '../series/summary.ts';
import { named, oldestFirst } from '../timeline/order.ts';
import { transitionsOf, type Cause, type Suspension, type Timeline } from '../timeline/types.ts';

const iso = (ms: number): string => new Date(ms).toISOString();

/** A cause with its time as RFC 3339, as every time in the API is. */
export type CauseJson = Omit<Cause, 'at'> & { at: string };

function causeJson(c: Cause): CauseJson {
  return { ...c, at: iso(c.at) };
}

export interface IntervalJson {
  state: string;
  from: string;
  to: string | null;
  causes?: CauseJson[];
  suspension?: Suspension;
}

/** A timeline's states as intervals; the open last one has `to: null`. */
export function intervalsView(tl: Timeline, horizon: number): IntervalJson[] {
  // One JobSet's detail: its transitions as objects (made afresh for a closed one).
  const transitions = transitionsOf(tl);
  return transitions.map((t, i) => {
    const next = transitions[i + 1];
    const terminal = t.state === 'completed' || t.state === 'failed' || t.state === 'deleted';
    const end = next?.at ?? (terminal ? t.at : Math.max(horizon, t.at));
    return {
      state: t.state,
      from: iso(t.at),
      to: next === undefined && !terminal ? null : iso(end),
      ...(t.causes !== undefined ? { causes: t.causes.map(causeJson) } : {}),
      ...(t.suspension !== undefined ? { suspension: { reason: t.suspension.reason, message: t.suspension.message } } : {}),
    };
  });
}

export type EventJson = { type: 'interruption' | 'recovery'; time: string; causes?: CauseJson[] };

/** A timeline's interruptions (with their causes) and recoveries. */
export function eventsView(tl: Timeline): EventJson[] {
  return timelineEvents(tl).map(({ kind, at, transition }) =>
    kind === 'interruption' && transition.causes !== undefined ? { type: kind, time: iso(at), causes: transition.causes.map(causeJson) } : { type: kind, time: iso(at) },
  );
}

/** GET /api/v1/jobsets: the selected timelines' summaries over [from, to]. */
export function jobsetListView(selected: readonly Timeline[], horizon: number, from: number, to: number): { from: string; to: string; jobsets: JobSetSummary[] } {
  return { from: iso(from), to: iso(to), jobsets: summarize(selected, horizon, from, to) };
}

export interface JobSetDetailJson {
  uid: string;
  namespace: string;
  name: string;
  labels: Record<string, string>;
  accelerator: Timeline['accelerator'];
  topology: Timeline['topology'];
  accelerators: number;
  checkpointIntervalSeconds: number | null;
  createdAt: string;
  state: ReturnType<typeof stateAt>;
  from: string;
  to: string;
  figures: Figures;
  intervals: IntervalJson[];
  events: EventJson[];
}

/**
 * GET /api/v1/jobsets/{ns}/{name}: every timeline of that name (its recreations), oldest first, each
 * over the window `windowOf` gives it (the request's, or its own life); null when none was seen.
 */
export function jobsetDetailView(
  timelines: readonly Timeline[],
  horizon: number,
  namespace: string,
  name: string,
  windowOf: (tl: Timeline) => [number, number],
): { timelines: JobSetDetailJson[] } | null {
  const bearers = named(timelines, namespace, name);
  if (bearers.length === 0) return null;
  return {
    timelines: bearers.sort(oldestFirst).map((tl) => {
      const [from, to] = windowOf(tl);
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
        createdAt: iso(tl.createdAt),
        state: stateAt(tl, to),
        from: iso(from),
        to: iso(to),
        figures: figures(tl, horizon, from, to),
        intervals: intervalsView(tl, horizon),
        events: eventsView(tl),
      };
    }),
  };
}

function sortedUnique(values: Iterable<string>): string[] {
  return [...new Set(values)].filter((v) => v !== '').sort();
}

/** What a template variable can list, each from the timelines (the namespaces narrow all but clusters, namespaces and pools). */
const VALUE_LISTS = {
  clusters: (all, _inNamespaces) => all.map((tl) => tl.cluster ?? ''),
  namespaces: (all, _inNamespaces) => all.map((tl) => tl.namespace),
  jobsets: (_all, inNamespaces) => inNamespaces.map((tl) => tl.name),
  labelKeys: (_all, inNamespaces) => inNamespaces.flatMap((tl) => Object.keys(tl.labels)),
  labelValues: (_all, inNamespaces, key) => inNamespaces.map((tl) => tl.labels[key ?? ''] ?? ''),
  accelerators: (_all, inNamespaces) => inNamespaces.map((tl) => tl.accelerator ?? ''),
  topologies: (_all, inNamespaces) => inNamespaces.map((tl) => tl.topology ?? ''),
  // Given the node pools' timelines (http/values.ts), not the JobSets'.
  pools: (all, _inNamespaces) => all.map((tl) => tl.name),
} satisfies Record<string, (all: readonly Timeline[], inNamespaces: readonly Timeline[], key: string | undefined) => string[]>;

export type ValueKind = keyof typeof VALUE_LISTS;

export interface ValuesRequest {
  namespaces?: string[] | undefined;
  /** The label key, for labelValues. */
  key?: string | undefined;
  /** Only the timelines that lived in [from, to] (a dashboard's variables then offer what its panels can show). */
  range?: { horizon: number; from: number; to: number } | undefined;
}

/** GET /api/v1/values/{what}: the distinct values, sorted, without the empty one. */
export function valuesView(what: ValueKind, timelines: readonly Timeline[], request: ValuesRequest): { values: string[] } {
  const { range, namespaces, key } = request;
  const all = range === undefined ? timelines : timelines.filter((tl) => livedIn(tl, range.horizon, range.from, range.to));
  const inNamespaces = namespaces && namespaces.length > 0 ? all.filter((tl) => namespaces.includes(tl.namespace)) : all;
  return { values: sortedUnique(VALUE_LISTS[what](all, inNamespaces, key)) };
}
