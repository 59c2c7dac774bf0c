// Tables that send what a panel shows (issue 21 §2): a table query's `sort` and `limit` pick the rows
// in the service ("the 50 burning fastest"), and the frame's meta keeps what the whole table had,
// its row count and totals, so a panel can say "50 of 7,209" and its totals stay those of every row.

import { z } from 'zod';
import { QueryError } from '../query/selector.ts';
import { MAX_TABLE_LIMIT, SORT_DIRECTIONS, sortableColumns, type TableSort } from '../query/types.ts';
import type { ResolvedQuery } from './context.ts';

/** The query fields of a table query type (summary, slo); both absent: every row, in the table's own order. */
export const TABLE_FIELDS = {
  sort: z
    .object(
      {
        by: z.string({ error: (issue) => (issue.input === undefined ? 'missing' : 'must be the name of a number column of the table, such as burnRate') }).min(1, 'must name a column').max(100),
        direction: z.enum(SORT_DIRECTIONS, { error: 'must be desc (largest first) or asc (smallest first)' }).default('desc'),
      },
      { error: 'must be an object such as {"by": "burnRate", "direction": "desc"}' },
    )
    .describe(
      'summary, slo: the rows in the order of a number column of the table, returned or not (a summary: any figure, whatever `figures` returns, its usageByState columns, and jobsets when grouped; an slo query: any of its answer\'s columns, whatever `columns` returns, at `to`), desc (default) or asc; nulls last either way; ties in the table\'s own order (by group or name)',
    )
    .optional(),
  limit: z
    .number({ error: 'must be a whole number of rows from 1' })
    .int('must be a whole number of rows from 1')
    .min(1, 'must be a whole number of rows from 1')
    .max(MAX_TABLE_LIMIT, `must be at most ${MAX_TABLE_LIMIT}`)
    .describe(
      'summary, slo: at most this many rows (slo: frames), after the sort. The answer\'s first frame then says in meta.custom how many rows the whole table had ({rows, shown, totals}: totals over every row) and, when rows were left out, an info notice "50 of 7,209 rows"',
    )
    .optional(),
};

/** Whether the query asks for a table's order or a limit: its answer then carries the table's meta. */
export function isShaped(query: Pick<ResolvedQuery, 'sort' | 'limit'>): boolean {
  return query.sort !== undefined || query.limit !== undefined;
}

/** Refuses a sort by a column the table has not (returned or not: sortableColumns): a 400 that lists those it has. */
export function refuseUnknownSortColumn(query: ResolvedQuery): void {
  if (query.sort === undefined) return;
  const allowed = sortableColumns(query);
  if (!allowed.includes(query.sort.by)) {
    throw new QueryError('sort.by', `"${query.sort.by}" is not a number column of this table: sort by one of ${allowed.join(', ')}`);
  }
}

/**
 * The rows to show, by their index in the table's own order: sorted by `valueOf` (nulls and
 * non-finite values last in both directions, as a Grafana table puts empty cells), ties kept in the
 * table's own order, then the first `limit`. Without a sort, the first `limit` rows as they are.
 */
export function pickRows(count: number, valueOf: ((row: number) => number | null) | null, sort: TableSort | undefined, limit: number | undefined): number[] {
  // A few rows of many (a dashboard's "top 50"): picked in one pass, not a sort of every row.
  if (sort !== undefined && valueOf !== null && limit !== undefined && limit * 16 < count) return firstRows(count, valueOf, sort, limit);
  const rows = Array.from({ length: count }, (_, i) => i);
  if (sort !== undefined && valueOf !== null) {
    const values = rows.map((i) => {
      const v = valueOf(i);
      return v !== null && Number.isFinite(v) ? v : null;
    });
    const sign = sort.direction === 'asc' ? 1 : -1;
    // Array.prototype.sort is stable: equal values keep the table's own order.
    rows.sort((a, b) => {
      const x = values[a]!;
      const y = values[b]!;
      if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
      return x === y ? 0 : sign * (x < y ? -1 : 1);
    });
  }
  return limit === undefined ? rows : rows.slice(0, limit);
}

/**
 * The first `limit` rows of the stable sort above, kept in order while the rows pass once: each
 * row's key (a finite value, by direction, before null; then its place) is distinct, so the rows
 * kept and their order are the sort's.
 */
function firstRows(count: number, valueOf: (row: number) => number | null, sort: TableSort, limit: number): number[] {
  const top = new TopRows(sort, limit);
  for (let row = 0; row < count; row++) {
    const raw = valueOf(row);
    const v = raw !== null && Number.isFinite(raw) ? raw : null;
    if (top.takes(v)) top.keep(row, v);
  }
  return top.kept;
}

/**
 * pickRows of a column of values (NaN: null), as a table that works its rows out a chunk at a time
 * keeps them: read in place, a number made on the heap only for a row kept, not through a function
 * whose every answer is one.
 */
export function pickRowsOfValues(values: Float64Array, sort: TableSort, limit: number): number[] {
  if (limit * 16 >= values.length) return pickRows(values.length, (row) => values[row]!, sort, limit);
  const top = new TopRows(sort, limit);
  const sign = sort.direction === 'asc' ? 1 : -1;
  for (let row = 0; row < values.length; row++) {
    const raw = values[row]!;
    const finite = Number.isFinite(raw);
    if (top.kept.length === limit) {
      // TopRows.takes in place, on the double: a null (any non-finite value) never goes before a kept row; a tie stays behind.
      if (!finite) continue;
      const last = top.last();
      if (last !== null && (raw === last || sign * (raw < last ? -1 : 1) > 0)) continue;
    }
    top.keep(row, finite ? raw : null);
  }
  return top.kept;
}

/** The first `limit` rows of a sort seen so far (firstRows), with their values. */
class TopRows {
  readonly kept: number[] = [];
  readonly #values: (number | null)[] = [];
  readonly #sign: number;
  readonly #limit: number;

  constructor(sort: TableSort, limit: number) {
    this.#sign = sort.direction === 'asc' ? 1 : -1;
    this.#limit = limit;
  }

  /** Whether value x (of a later row) goes before kept value y: ties stay behind, the earlier row first. */
  #before(x: number | null, y: number | null): boolean {
    return x === null ? false : y === null ? true : x !== y && this.#sign * (x < y ? -1 : 1) < 0;
  }

  /** The value of the last row kept (null when it has none, or there is none yet). */
  last(): number | null {
    return this.kept.length === 0 ? null : this.#values[this.kept.length - 1]!;
  }

  /** Whether a later row of value v is kept: while there is room, or when it goes before the last kept. */
  takes(v: number | null): boolean {
    return this.kept.length < this.#limit || this.#before(v, this.#values[this.#limit - 1]!);
  }

  /** Keeps the row at its place, after every kept row it does not go before; the last one out when over the limit. */
  keep(row: number, v: number | null): void {
    let lo = 0;
    let hi = this.kept.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.#before(v, this.#values[mid]!)) hi = mid;
      else lo = mid + 1;
    }
    this.kept.splice(lo, 0, row);
    this.#values.splice(lo, 0, v);
    if (this.kept.length > this.#limit) {
      this.kept.pop();
      this.#values.pop();
    }
  }
}

/** The numbers with commas, as the notice shows them: 7,209. */
const count = (n: number): string => n.toLocaleString('en-US');

/**
 * The meta a shaped table's (first) frame carries: `custom` with the whole table's row count, the
 * rows shown and the totals over every row; an info notice, which Grafana shows on the panel, when
 * rows were left out.
 */
export function tableMeta(rows: number, shown: number, totals: Record<string, number | null>): { custom: Record<string, unknown>; notices?: { severity: 'info'; text: string }[] } {
  return {
    custom: { rows, shown, totals },
    ...(shown < rows ? { notices: [{ severity: 'info' as const, text: `${count(shown)} of ${count(rows)} rows` }] } : {}),
  };
}
