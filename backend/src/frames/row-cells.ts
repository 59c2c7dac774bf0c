// A closed run's row does not change (issue 21 §4, "at the speed of bytes"): in any range that holds
// its whole life, its identity, its state at the range's end and every figure are those of its life,
// so the JSON text of each of its cells is too. This cache keeps those cells' bytes, per column,
// packed in the order of the engine's sorted list (series/run-columns.ts), each cell followed by a
// comma: a whole per-JobSet table copies each stretch of consecutive kept rows in one piece, and
// only the runs that straddle the range's ends or are still open are serialised again (and not even
// those in a column of the runs' identities, which no range changes: the whole column is one piece).
//
// Bounded: the cells of one list only (a new list, a run added or dropped, takes over the cells of
// the runs it kept, in one walk), and at most `budgetBytes` of them, whole columns evicted least
// recently used first; a column that would not fit is not kept. A cell is only ever the JSON text of
// the value the uncached path writes there, so the answer's bytes are the same with the cache,
// without it, cold or warm (row-cells.test.ts).
//
// Pure (a memo of what the timelines say), as run-columns.ts is.

import { byNamespaceNameUid } from '../timeline/order.ts';
import type { Timeline } from '../timeline/types.ts';
import { holdsLife, type RunColumns } from '../series/run-columns.ts';
import type { AnswerSink } from './answer-bytes.ts';

/** A row's cost beyond its bytes: its two offsets. */
const ROW_BYTES = 8;

/** The default bound: 16 MiB, the cells of ~15 whole tables of 10,000 rows and five columns (~110 bytes a row). */
export const DEFAULT_BUDGET_BYTES = 16 * 2 ** 20;

interface Column {
  /** The kept cells, each followed by a comma, in the list's order. */
  packed: Uint8Array;
  /** Row r's cell is packed[start[r], end[r]) (its comma included); start -1: not kept. */
  start: Int32Array;
  end: Int32Array;
  /** Cells written since the column was last packed, by row: packed on its next use. */
  pending: Map<number, string>;
  /** Estimated bytes: its offsets, its packed cells and those pending. */
  bytes: number;
  /** When it was last used, by the cache's own counter: the least recent is evicted first. */
  used: number;
}

/** The columns whose cell is a run's identity: the same in every range, an open run's too (writeColumn's `everyRange`). */
export const RUN_IDENTITY_KEYS: ReadonlySet<string> = new Set(['cluster', 'namespace', 'name', 'uid']);

export class RowCells {
  readonly budgetBytes: number;
  #list: readonly Timeline[] | null = null;
  #columns = new Map<string, Column>();
  /** Per key, the length of a list whose column outgrew the budget: longer lists' are not kept either. */
  #tooLong = new Map<string, number>();
  #bytes = 0;
  #clock = 0;

  constructor(budgetBytes = DEFAULT_BUDGET_BYTES) {
    this.budgetBytes = budgetBytes;
  }

  /** Estimated bytes held now (at most the budget). */
  get bytes(): number {
    return this.#bytes;
  }

  /** The columns held now, by key (for tests and the bench). */
  get columnKeys(): string[] {
    return [...this.#columns.keys()];
  }

  /**
   * Writes one column of a whole table into `sink` as JSON.stringify writes `values` (`[v0,v1,…]`),
   * `values[i]` being the cell of row `rows[i]` of `columns`' list (rows ascending). A row whose
   * whole life the range (from, to] holds takes its kept bytes, or keeps the text written now; any
   * other row is written now. `key` names what the column holds (its name: a figure's name, state,
   * uid…): one key, one value for such a row in every range. `everyRange`: the column's cell is its
   * row's in every range, open runs' too (a run's identity), so every row's cell is kept.
   */
  writeColumn(sink: AnswerSink, key: string, columns: RunColumns, rows: Int32Array, values: readonly unknown[], from: number, to: number, everyRange = false): void {
    const column = this.#column(key, columns);
    // Not kept (it does not fit the budget): the column as JSON.stringify writes it, in one call.
    if (column === null) {
      sink.text(JSON.stringify(values));
      return;
    }
    sink.text('[');
    const n = values.length;
    // The stretch of kept bytes being copied: [copyFrom, copyTo) of column.packed.
    let copyFrom = -1;
    let copyTo = -1;
    const flush = (i: number): void => {
      if (copyFrom >= 0) sink.bytes(column.packed.subarray(copyFrom, i < n ? copyTo : copyTo - 1));
      copyFrom = copyTo = -1;
    };
    let added = 0;
    for (let i = 0; i < n; i++) {
      const row = rows[i]!;
      // A row not to keep (open, or not held by the range): written now, value by value (most stand alone between kept stretches).
      if (!everyRange && !holdsLife(columns, row, from, to)) {
        flush(i);
        const text = JSON.stringify(values[i]) ?? 'null';
        sink.text(i + 1 < n ? `${text},` : text);
        continue;
      }
      const start = column.start[row]!;
      if (start >= 0) {
        if (start !== copyTo) {
          flush(i);
          copyFrom = start;
        }
        copyTo = column.end[row]!;
        continue;
      }
      flush(i);
      let text = column.pending.get(row);
      if (text === undefined) {
        text = JSON.stringify(values[i]) ?? 'null';
        // Kept while the column fits: one that outgrows the budget is not kept (#grow), so its cells stop here.
        if (column.bytes + added <= this.budgetBytes) {
          column.pending.set(row, text);
          added += text.length + ROW_BYTES;
        }
      }
      sink.text(i + 1 < n ? `${text},` : text);
    }
    // The last stretch without its comma: the column's bracket closes it.
    flush(n);
    sink.text(']');
    if (added > 0) this.#grow(key, column, added);
  }

  /** The column's kept cells for this list (taken over from the last list when it changed), packed; null when it cannot be kept within the budget. */
  #column(key: string, columns: RunColumns): Column | null {
    if (this.#list !== columns.list) this.#takeOver(columns.list);
    let column = this.#columns.get(key);
    if (column === undefined) {
      const n = columns.list.length;
      // A column that did not fit a list this long is not tried again (a whole table of 871,066 runs: its UIDs alone are 40 MB).
      if (n >= (this.#tooLong.get(key) ?? Infinity)) return null;
      const bytes = n * ROW_BYTES;
      if (!this.#makeRoom(bytes)) return null;
      column = { packed: new Uint8Array(0), start: new Int32Array(n).fill(-1), end: new Int32Array(n), pending: new Map(), bytes, used: 0 };
      this.#columns.set(key, column);
      this.#bytes += bytes;
    }
    if (column.pending.size > 0) pack(column, null);
    column.used = ++this.#clock;
    return column;
  }

  /** Accounts for cells added to a column; a column that outgrew the budget is dropped (other columns evicted first). */
  #grow(key: string, column: Column, added: number): void {
    this.#columns.delete(key);
    this.#bytes -= column.bytes;
    column.bytes += added;
    if (!this.#makeRoom(column.bytes)) {
      this.#tooLong.set(key, column.start.length);
      return;
    }
    this.#columns.set(key, column);
    this.#bytes += column.bytes;
  }

  /** Evicts the least recently used columns until `bytes` more fit; false when they cannot. */
  #makeRoom(bytes: number): boolean {
    if (bytes > this.budgetBytes) return false;
    while (this.#bytes + bytes > this.budgetBytes) {
      let oldest: [string, Column] | null = null;
      for (const entry of this.#columns) if (oldest === null || entry[1].used < oldest[1].used) oldest = entry;
      if (oldest === null) return false;
      this.#columns.delete(oldest[0]);
      this.#bytes -= oldest[1].bytes;
    }
    return true;
  }

  /**
   * A new list (the engine's, a run added or dropped): each kept cell moves to its run's new row, in
   * one walk of both lists (one order: namespace, name, UID); a dropped run's cells go.
   */
  #takeOver(list: readonly Timeline[]): void {
    const before = this.#list;
    this.#list = list;
    if (before === null || this.#columns.size === 0) {
      this.#columns.clear();
      this.#bytes = 0;
      return;
    }
    // moved[i]: the row in the last list of the new list's row i; -1 for a run it did not have.
    const moved = new Int32Array(list.length).fill(-1);
    let j = 0;
    for (let i = 0; i < list.length; i++) {
      const tl = list[i]!;
      while (j < before.length && before[j] !== tl && byNamespaceNameUid(before[j]!, tl) < 0) j++;
      if (j < before.length && before[j] === tl) moved[i] = j;
    }
    this.#bytes = 0;
    for (const column of this.#columns.values()) {
      pack(column, moved);
      this.#bytes += column.bytes;
    }
    // The list may have grown: evict until the columns fit again.
    this.#makeRoom(0);
  }
}

/**
 * Packs a column's kept and pending cells in row order into one buffer; with `moved`, onto a new
 * list's rows (moved[i]: row i's row in the column's list, -1: none).
 */
function pack(column: Column, moved: Int32Array | null): void {
  const rows = moved === null ? column.start.length : moved.length;
  const oldRow = (i: number): number => (moved === null ? i : moved[i]!);
  // The pending cells' bytes first: the packed size is known before it is filled.
  const encoded = new Map<number, Uint8Array>();
  let size = 0;
  for (let i = 0; i < rows; i++) {
    const r = oldRow(i);
    if (r < 0) continue;
    if (column.start[r]! >= 0) size += column.end[r]! - column.start[r]!;
    else {
      const text = column.pending.get(r);
      if (text === undefined) continue;
      const bytes = UTF8.encode(`${text},`);
      encoded.set(r, bytes);
      size += bytes.length;
    }
  }
  const packed = new Uint8Array(size);
  const start = new Int32Array(rows).fill(-1);
  const end = new Int32Array(rows);
  let at = 0;
  for (let i = 0; i < rows; i++) {
    const r = oldRow(i);
    if (r < 0) continue;
    const bytes = column.start[r]! >= 0 ? column.packed.subarray(column.start[r]!, column.end[r]!) : encoded.get(r);
    if (bytes === undefined) continue;
    packed.set(bytes, at);
    start[i] = at;
    at += bytes.length;
    end[i] = at;
  }
  column.packed = packed;
  column.start = start;
  column.end = end;
  column.pending = new Map();
  column.bytes = rows * ROW_BYTES + size;
}

const UTF8 = new TextEncoder();

/** The service's one cache (a process serves one engine's list at a time). */
export const rowCells = new RowCells();
