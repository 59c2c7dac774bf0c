// Which timelines a query is about: namespaces, a name pattern, a label selector, and the state at
// the end of the range. Parsed once, applied to every timeline.

import { stateAt } from '../series/figures.ts';
import { livedRow, livedRows, markRows, runColumns } from '../series/run-columns.ts';
import { livedIn } from '../series/summary.ts';
import { isMarkedSorted, markSorted, namedRows, namespacesOf } from '../timeline/order.ts';
import type { State, Timeline } from '../timeline/types.ts';
import { literalName, matchesEveryName, parseLabelSelector, parseNamePattern } from './selector.ts';

export interface Selection {
  clusters?: readonly string[];
  namespaces?: readonly string[];
  name?: string;
  labelSelector?: string;
  states?: readonly string[];
}

/** Builds the filter; throws QueryError naming the field when a pattern or selector is malformed. */
export function selector(selection: Selection): (timeline: Timeline, horizon: number, from: number, to: number) => boolean {
  const { before, after } = filters(selection);
  return (tl, horizon, from, to) => (before === null || before(tl)) && livedIn(tl, horizon, from, to) && (after === null || after(tl, to));
}

/**
 * The selection's filters around the life test: `before` (name, namespaces, clusters: cheapest and
 * most selective first; one JobSet's name rules out the fleet by a string compare) and `after`
 * (labels, the state at `to`); null where nothing is filtered, as a dashboard's All asks.
 */
function filters(selection: Selection): { before: ((tl: Timeline) => boolean) | null; after: ((tl: Timeline, to: number) => boolean) | null } {
  const clusters = selection.clusters && selection.clusters.length > 0 ? new Set(selection.clusters) : null;
  const namespaces = selection.namespaces && selection.namespaces.length > 0 ? new Set(selection.namespaces) : null;
  // Filters that pass everything are left out (null): a dashboard's All asks this of every timeline.
  const nameMatches = matchesEveryName(selection.name ?? '') ? null : parseNamePattern(selection.name ?? '');
  const labelsMatch = (selection.labelSelector ?? '').trim() === '' ? null : parseLabelSelector(selection.labelSelector!);
  const states = selection.states && selection.states.length > 0 ? new Set(selection.states) : null;
  const before =
    nameMatches === null && namespaces === null && clusters === null
      ? null
      : (tl: Timeline): boolean => (nameMatches === null || nameMatches(tl.name)) && (namespaces === null || namespaces.has(tl.namespace)) && (clusters === null || clusters.has(tl.cluster ?? ''));
  const after =
    labelsMatch === null && states === null ? null : (tl: Timeline, to: number): boolean => (labelsMatch === null || labelsMatch(tl.labels)) && (states === null || states.has(stateAt(tl, to) as State));
  return { before, after };
}

export function select(timelines: readonly Timeline[], selection: Selection, horizon: number, from: number, to: number): Timeline[] {
  if (!isMarkedSorted(timelines)) {
    const matches = selector(selection);
    return timelines.filter((tl) => matches(tl, horizon, from, to));
  }
  // What a sorted list selects stays in its order: marked, so a table need not check it again.
  const name = literalName(selection.name ?? '');
  const namespaces = selection.namespaces && selection.namespaces.length > 0 ? [...new Set(selection.namespaces)].sort() : null;
  // One name in a list sorted by namespace and name: bisect to its rows in each namespace (read by
  // row after: one JobSet's detail takes its closed runs' lives from the list's columns).
  // Namespaces: bisect to each one's rows (an SLO table per name asks one query per namespace).
  const ranges =
    name !== null
      ? (namespaces ?? namespacesOf(timelines)).map((namespace) => namedRows(timelines, namespace, name))
      : namespaces === null
        ? [[0, timelines.length] as const]
        : namespaces.map((namespace) => namespaceRange(timelines, namespace));
  // The ranges hold only the namespaces' rows, and the name's when it is one: not asked again row by
  // row (a namespace's selection read each row's timeline for it, a cache miss a run; without them it
  // is a pass over the columns alone, as All's).
  const rest: Selection = { ...selection, namespaces: [], name: name !== null ? '' : (selection.name ?? '') };
  return selectByRows(timelines, rest, horizon, from, to, ranges);
}

/**
 * A sorted list's selection within row ranges, its life test a pass over the list's columns
 * (series/run-columns.ts) rather than a visit to every timeline; the result says which rows it holds,
 * so a table over it reads them by row (a namespace's table, too: at 871,066 runs one namespace took
 * 12–30× the whole fleet's time when it visited its timelines).
 */
function selectByRows(timelines: readonly Timeline[], selection: Selection, horizon: number, from: number, to: number, ranges: readonly (readonly [number, number])[]): Timeline[] {
  const { before, after } = filters(selection);
  const columns = runColumns(timelines);
  // The rows kept, in a buffer as long as the ranges; the selection made at its length after (arrays
  // grown by push left as much again in garbage, per request of a whole table).
  let most = 0;
  for (const [lo, hi] of ranges) most += hi - lo;
  const kept = new Int32Array(most);
  let count = 0;
  for (const [lo, hi] of ranges) {
    // Nothing filtered but life (a dashboard's All, or its namespaces): one pass over the columns.
    if (before === null && after === null) {
      count = livedRows(columns, lo, hi, horizon, from, to, kept, count);
      continue;
    }
    for (let i = lo; i < hi; i++) {
      if (!livedRow(columns, i, horizon, from, to)) continue;
      const tl = timelines[i]!;
      if ((before !== null && !before(tl)) || (after !== null && !after(tl, to))) continue;
      kept[count++] = i;
    }
  }
  const rows = kept.slice(0, count);
  const out = new Array<Timeline>(count);
  for (let k = 0; k < count; k++) out[k] = timelines[rows[k]!]!;
  return markRows(markSorted(out), columns, rows);
}

/** The rows [first, end) of one namespace in a list sorted by namespace: two bisections. */
function namespaceRange(sorted: readonly Timeline[], namespace: string): [number, number] {
  const first = (after: boolean): number => {
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const ns = sorted[mid]!.namespace;
      if (ns < namespace || (after && ns === namespace)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  return [first(false), first(true)];
}
