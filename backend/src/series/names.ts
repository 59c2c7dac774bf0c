// The JobSet names of a sorted list: where each name's runs begin, for a table per name (an SLO's
// error budget per JobSet name). Grouping logic of the list's order, apart from any answer's shape.
// Pure: values in, values out.

import { keptWithSelection } from './kept-selections.ts';
import { isMarkedSorted } from '../timeline/order.ts';
import type { Timeline } from '../timeline/types.ts';
import { selectedRows } from './run-columns.ts';

/**
 * The JobSet names of a list sorted by namespace, name and UID, without clusters: each name's
 * timelines are one run of it, and the runs come in key order (sloGroupOf's key is then
 * "\0namespace\0name", whose order is the list's). Where each run begins, and the list's length
 * last; null for any other list (frames/query-types/slo.ts then groups it by key). A selection marked with its rows of the
 * engine's list (run-columns.ts) is read from the list's name starts, not from its timelines.
 */
export function nameBounds(timelines: readonly Timeline[]): Int32Array | null {
  if (!isMarkedSorted(timelines)) return null;
  const marked = selectedRows(timelines);
  // The SLO dashboard's two name tables ask one selection: kept with it while it is kept.
  if (marked !== undefined) return keptWithSelection(timelines, 'name bounds', () => nameBoundsOfRows(nameStarts(marked.columns.list), marked.rows));
  const bounds: number[] = [];
  let name: string | null = null;
  let namespace: string | null = null;
  for (let i = 0; i < timelines.length; i++) {
    const tl = timelines[i]!;
    if (tl.cluster !== undefined) return null;
    if (tl.name !== name || tl.namespace !== namespace) {
      bounds.push(i);
      name = tl.name;
      namespace = tl.namespace;
    }
  }
  bounds.push(timelines.length);
  return Int32Array.from(bounds);
}

/** A name-starts byte: the row's (namespace, name) is not the row before's (or it is the first row). */
export const NAME_START = 1;
/** A name-starts byte: the row's run names a cluster. */
export const IN_CLUSTER = 2;

/**
 * A byte per row of a sorted list (the rows of its run columns): NAME_START and IN_CLUSTER. Worked out once per
 * list (the engine's list is shared until a timeline is added or dropped) and kept while the list
 * is: 1 byte a run. A whole fleet's table per name then finds its names in the rows it selected,
 * not by visiting ~800,000 timelines' names on every refresh (~70–150 ms at 10,000 × 30 d).
 */
const startsOfList = new WeakMap<readonly Timeline[], Uint8Array>();
export function nameStarts(list: readonly Timeline[]): Uint8Array {
  let starts = startsOfList.get(list);
  if (starts === undefined) {
    starts = new Uint8Array(list.length);
    let name: string | null = null;
    let namespace: string | null = null;
    for (let i = 0; i < list.length; i++) {
      const tl = list[i]!;
      if (tl.name !== name || tl.namespace !== namespace) starts[i] = NAME_START;
      if (tl.cluster !== undefined) starts[i]! |= IN_CLUSTER;
      name = tl.name;
      namespace = tl.namespace;
    }
    startsOfList.set(list, starts);
  }
  return starts;
}

/**
 * nameBounds of a selection of a sorted list given by its rows (ascending): a name begins at a
 * selected row when any row of the list after the selected row before it, up to it, starts a name
 * (the list's names are contiguous runs). Null when a selected run names a cluster, or the rows are
 * not ascending (then the selection is not in the list's order).
 */
export function nameBoundsOfRows(starts: Uint8Array, rows: Int32Array): Int32Array | null {
  // At most a name a row: filled, then cut to its length (an array grown by push to ~560,000 names left several times that in garbage).
  const bounds = new Int32Array(rows.length + 1);
  let count = 0;
  let previous = -1;
  for (let k = 0; k < rows.length; k++) {
    const row = rows[k]!;
    if (row <= previous || (starts[row]! & IN_CLUSTER) !== 0) return null;
    let begins = k === 0;
    for (let i = previous + 1; !begins && i <= row; i++) begins = (starts[i]! & NAME_START) !== 0;
    if (begins) bounds[count++] = k;
    previous = row;
  }
  bounds[count++] = rows.length;
  return bounds.slice(0, count);
}
