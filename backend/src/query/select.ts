// Which timelines a query is about: namespaces, a name pattern, a label selector, and the state at
// the end of the range. Parsed once, applied to every timeline.

import { stateAt } from '../series/figures.ts';
import { livedIn } from '../series/summary.ts';
import { isMarkedSorted, named, namespacesOf } from '../timeline/order.ts';
import type { State, Timeline } from '../timeline/types.ts';
import { literalName, parseLabelSelector, parseNamePattern } from './selector.ts';

export interface Selection {
  clusters?: readonly string[];
  namespaces?: readonly string[];
  name?: string;
  labelSelector?: string;
  states?: readonly string[];
}

/** Builds the filter; throws QueryError naming the field when a pattern or selector is malformed. */
export function selector(selection: Selection): (timeline: Timeline, horizon: number, from: number, to: number) => boolean {
  const clusters = selection.clusters && selection.clusters.length > 0 ? new Set(selection.clusters) : null;
  const namespaces = selection.namespaces && selection.namespaces.length > 0 ? new Set(selection.namespaces) : null;
  const nameMatches = parseNamePattern(selection.name ?? '');
  const labelsMatch = parseLabelSelector(selection.labelSelector ?? '');
  const states = selection.states && selection.states.length > 0 ? new Set(selection.states) : null;
  // Cheapest and most selective first: one JobSet's name rules out the fleet by a string compare.
  return (tl, horizon, from, to) =>
    nameMatches(tl.name) &&
    (namespaces === null || namespaces.has(tl.namespace)) &&
    (clusters === null || clusters.has(tl.cluster ?? '')) &&
    livedIn(tl, horizon, from, to) &&
    labelsMatch(tl.labels) &&
    (states === null || states.has(stateAt(tl, to) as State));
}

export function select(timelines: readonly Timeline[], selection: Selection, horizon: number, from: number, to: number): Timeline[] {
  const matches = selector(selection);
  const name = literalName(selection.name ?? '');
  if (name === null || !isMarkedSorted(timelines)) return timelines.filter((tl) => matches(tl, horizon, from, to));
  // One name in a list sorted by namespace and name: bisect to its run in each namespace.
  const namespaces = selection.namespaces && selection.namespaces.length > 0 ? [...new Set(selection.namespaces)].sort() : namespacesOf(timelines);
  return namespaces.flatMap((namespace) => named(timelines, namespace, name)).filter((tl) => matches(tl, horizon, from, to));
}
