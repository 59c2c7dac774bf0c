// The order timelines are listed in: by namespace, name and UID.

import { runArena } from './arena.ts';
import { RunTimeline } from './run-timeline.ts';
import { closedAt, type Timeline } from './types.ts';
import { compareUidWords, encodeUid, UID_WORDS } from './uids.ts';

/** Code-unit order: namespaces, names and UIDs are DNS labels and hex, where it is the collation order. */
export function byNamespaceNameUid(a: Timeline, b: Timeline): number {
  if (a.namespace !== b.namespace) return a.namespace < b.namespace ? -1 : 1;
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  return byUid(a, b);
}

/** The words of the two UIDs byUid compares (those not read from the arena). */
const left = new Uint32Array(UID_WORDS);
const right = new Uint32Array(UID_WORDS);

/**
 * The order of two timelines' UIDs as strings (code units). Two canonical UIDs compare by their words
 * (uids.ts: the same order), read where a sealed run holds them, without a string made of them.
 */
export function byUid(a: Timeline, b: Timeline): number {
  const ra = a instanceof RunTimeline ? a.uidRecord : -1;
  const rb = b instanceof RunTimeline ? b.uidRecord : -1;
  if (ra >= 0 || rb >= 0) {
    const words = runArena.uids;
    const wa = ra >= 0 ? words : encodeUid(a.uid, left) ? left : null;
    const wb = rb >= 0 ? words : encodeUid(b.uid, right) ? right : null;
    if (wa !== null && wb !== null) return compareUidWords(wa, ra >= 0 ? ra * UID_WORDS : 0, wb, rb >= 0 ? rb * UID_WORDS : 0);
  }
  const ua = a.uid;
  const ub = b.uid;
  return ua < ub ? -1 : ua > ub ? 1 : 0;
}

/** Two lists in this order as one. */
export function mergeSorted(a: readonly Timeline[], b: readonly Timeline[]): Timeline[] {
  const out = new Array<Timeline>(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) out[k++] = byNamespaceNameUid(b[j]!, a[i]!) < 0 ? b[j++]! : a[i++]!;
  while (i < a.length) out[k++] = a[i++]!;
  while (j < b.length) out[k++] = b[j++]!;
  return out;
}

/**
 * Arrays of timelines known to be in this order (the engine's list, a selection of it), so a search
 * may bisect them: marked by a symbol property, not enumerable (JSON, Object.keys and a deep equality
 * do not see it). A WeakSet entry per selection (one a request) made weak-table work for the garbage
 * collector (~1% of a detail's samples, issue 21 §4). A frozen array goes to the WeakSet.
 */
const SORTED = Symbol('sorted by namespace, name, UID');
const frozenSorted = new WeakSet<readonly Timeline[]>();

/** Lists that are one owner's successive lists (an engine's: the same runs, some added or dropped), by owner. */
const lineages = new WeakMap<readonly Timeline[], object>();

/**
 * Marks the list sorted; `owner`: the object whose successive lists these are (an engine, whose list
 * lives until a run is added or dropped), so series/run-columns.ts may keep its latest list's rows
 * for the next one. A list made again and again on demand (the node layer's) has none: its rows must
 * not keep it alive.
 */
export function markSorted<T extends readonly Timeline[]>(timelines: T, owner?: object): T {
  if (Object.isExtensible(timelines)) Object.defineProperty(timelines, SORTED, { value: true, configurable: true });
  else frozenSorted.add(timelines);
  if (owner !== undefined) lineages.set(timelines, owner);
  return timelines;
}

/** The owner a list was marked with (markSorted); undefined when none. */
export function ownerOf(timelines: readonly Timeline[]): object | undefined {
  return lineages.get(timelines);
}

export function isMarkedSorted(timelines: readonly Timeline[]): boolean {
  return (timelines as { [SORTED]?: true })[SORTED] === true || frozenSorted.has(timelines);
}

/** The first index in [lo, hi) whose (namespace, name) is not before (namespace, name) — or, with `after`, is after it. */
function bisect(timelines: readonly Timeline[], namespace: string, name: string, lo: number, hi: number, after = false): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const t = timelines[mid]!;
    const c = t.namespace !== namespace ? (t.namespace < namespace ? -1 : 1) : t.name !== name ? (t.name < name ? -1 : 1) : 0;
    if (c < 0 || (after && c === 0)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Timelines that bore one name, oldest first. creationTimestamp has whole seconds: of two created in
 * one second (deleted and created again at once), the one that ended (first) is the older.
 */
export function oldestFirst(a: Timeline, b: Timeline): number {
  if (a.createdAt !== b.createdAt) return a.createdAt - b.createdAt;
  const ea = closedAt(a);
  const eb = closedAt(b);
  return ea === eb ? 0 : ea < eb ? -1 : 1;
}

/** The timelines of `namespace` that bore `name`: bisected in a list known sorted, else found by a scan. */
export function named(timelines: readonly Timeline[], namespace: string, name: string): Timeline[] {
  if (!isMarkedSorted(timelines)) return timelines.filter((tl) => tl.namespace === namespace && tl.name === name);
  return timelines.slice(...namedRows(timelines, namespace, name));
}

/** The rows [first, end) of the timelines of `namespace` that bore `name`, in a list sorted by namespace and name: two bisections. */
export function namedRows(sorted: readonly Timeline[], namespace: string, name: string): [number, number] {
  const lo = bisect(sorted, namespace, name, 0, sorted.length);
  return [lo, bisect(sorted, namespace, name, lo, sorted.length, true)];
}

/** The namespaces of a list known sorted, in order, each found by one bisection past the one before. */
export function namespacesOf(sorted: readonly Timeline[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    const namespace = sorted[i]!.namespace;
    out.push(namespace);
    // Past every name of this namespace.
    i = bisect(sorted, namespace, '\u{10FFFF}', i, sorted.length, true);
  }
  return out;
}
