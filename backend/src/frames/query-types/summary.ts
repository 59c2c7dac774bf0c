// `summary`: a table, one row per JobSet (state at the end of the range and every figure), or one
// row per group with every figure aggregated. `figures` narrows the columns to those asked for (and
// what is worked out to them and the sort's figure); `sort` (by any figure, returned or not) and
// `limit` pick the rows a panel shows (../table.ts), the totals of every row in the meta.

import { z } from 'zod';
import { FIGURE_NAMES, figuresFromTotals, figureValue, type FigureName } from '../../series/figures.ts';
import { fleetFigures, groupingOf, groupOf } from '../../series/fleet.ts';
import { holdsLife, markRows, selectedRows, type RunColumns } from '../../series/run-columns.ts';
import { LentTotals, summaryColumns, WindowRows } from '../../series/summary.ts';
import { definitionOf } from '../../series/figure-definitions.ts';
import { isMarkedSorted, markSorted } from '../../timeline/order.ts';
import { FIELDS } from '../../series/totals.ts';
import { figureName, usageMetricName } from '../../query/model.ts';
import { DEFAULT_QUERY, FIGURES, unitOf, USAGE_METRICS } from '../../query/types.ts';
import type { Timeline } from '../../timeline/types.ts';
import type { QueryContext } from '../context.ts';
import { withColumnWriters, withKeptText, writeNumbers, type ColumnWriter } from '../answer-bytes.ts';
import { deepFreeze, frame, numberField, stringField, type Field, type FieldJSON, type FrameJSON } from '../frame.ts';
import { pooledGroups } from '../pooled.ts';
import { rowCells, RUN_IDENTITY_KEYS } from '../row-cells.ts';
import { NO_USAGE_NOTICE, usageByStateFields } from '../usage.ts';
import { isShaped, pickRows, pickRowsOfValues, refuseUnknownSortColumn, TABLE_FIELDS, tableMeta } from '../table.ts';
import { perJobSet, rangeStart, refuseCauseGroup, type Cost, type QueryTypeModule } from './module.ts';

/** The figure columns the query asks for, in the table's order (all of them by default). */
function figureColumns(ctx: QueryContext): readonly FigureName[] {
  const asked = ctx.query.figures;
  return asked.length === 0 ? FIGURE_NAMES : FIGURE_NAMES.filter((f) => asked.includes(f));
}

/** The figures worked out: those returned, and the one the rows are sorted by when it is not returned. */
function computedFigures(ctx: QueryContext): readonly FigureName[] {
  const shown = figureColumns(ctx);
  const by = ctx.query.sort?.by;
  if (by === undefined || shown.includes(by as FigureName) || !(FIGURE_NAMES as readonly string[]).includes(by)) return shown;
  return FIGURE_NAMES.filter((f) => f === by || shown.includes(f));
}

/** What a summary will work out before any of it is: a row per group when the fleet index answers, else a row (or a pass) per JobSet. */
function summaryCost(ctx: QueryContext): Cost {
  if (ctx.query.groupBy !== 'none') {
    const pooled = pooledGroups(ctx, computedFigures(ctx));
    if (pooled !== null) return { evaluated: pooled.length, what: 'series', points: 1 };
  }
  return perJobSet(ctx);
}

export function summaryFrames(ctx: QueryContext): FrameJSON[] {
  const { query } = ctx;
  const groupBy = groupingOf(query);
  const columns = figureColumns(ctx);
  // What is worked out: the columns returned, and the sort's figure (returned or not).
  const computed = computedFigures(ctx);
  if (groupBy === 'none') {
    // The rows as summaryColumns reads them: a selection of the engine's list, by its rows.
    const runRows = ctx.selectFrom === ctx.from && isMarkedSorted(ctx.timelines) ? selectedRows(ctx.timelines) : undefined;
    const keptKey = runRows !== undefined ? keptTableKey(ctx, runRows, computed) : null;
    if (keptKey !== null) {
      const kept = keptTables.get(runRows!.columns, keptKey);
      if (kept !== undefined) return [kept];
    }
    // A few rows of many, sorted by a figure ("worst 15 by uptime ratio"): the sort's figure of every
    // row first, then the rows picked worked out in full. Else every row in full.
    const few = runRows !== undefined ? fewRows(ctx, runRows) : null;
    // The selection is of the JobSets that lived in [from, to] (selectFrom is `from`): not tested again.
    const c = summaryColumns(few?.timelines ?? ctx.timelines, ctx.horizon, ctx.from, ctx.to, { selected: ctx.selectFrom === ctx.from, timeToFirstUp: computed.includes('timeToFirstUpSeconds'), totalsOf: lentTotals.of });
    // The table's rows: all that the selection holds (a table of the few picked says how many of them).
    const n = few !== null ? ctx.timelines.length : c.timelines.length;
    // Usage split by state, for every row (a sort may name one of its columns); none asked, no row of it.
    const usage = query.usageByState.length === 0 ? [] : usageByStateFields(ctx, c.timelines.map((tl) => [tl]));
    const usageByName = new Map(usage.map((f) => [f.schema.name, f.values as (number | null)[]]));
    const valueOf = (f: string, i: number): number | null => {
      const column = usageByName.get(f);
      return column !== undefined ? column[i]! : figureValue(c.totals, i * FIELDS, f as FigureName, c.timeToFirstUp[i]!);
    };
    // The rows shown, by index: every row in the table's own order (namespace, name, UID) unless shaped.
    const rows = few !== null ? few.order : isShaped(query) ? pickRows(n, query.sort ? (i) => valueOf(query.sort!.by, i) : null, query.sort, query.limit) : null;
    // A whole table (10,000 rows and more) reads the columns' arrays as they are, without a list of row numbers.
    const timelines = rows === null ? c.timelines : rows.map((i) => c.timelines[i]!);
    // Each column made at its length (grown by push, a 10,000-row column left twice its size in garbage).
    const column = <T>(at: (row: number) => T): T[] => {
      const out = new Array<T>(rows === null ? n : rows.length);
      if (rows === null) for (let i = 0; i < n; i++) out[i] = at(i);
      else for (let k = 0; k < rows.length; k++) out[k] = at(rows[k]!);
      return out;
    };
    // A whole table of the list's rows (not a small one, which json-text.ts writes): its identity
    // columns may be the last such table's.
    const wholeRows = rows === null && runRows !== undefined && runRows.rows.length === n && n > SMALL_TABLE_ROWS ? runRows : undefined;
    const id = wholeRows !== undefined ? keptIdentityColumns(timelines, wholeRows) : identityColumns(timelines);
    // A figure's column: each row's value, null where not finite (as numberField writes numbers), in
    // one array; its schema shared by every table (figureSchema).
    const figureField = (f: FigureName): Field => ({ schema: figureSchema(f), values: column((i) => finiteOrNull(figureValue(c.totals, i * FIELDS, f, c.timeToFirstUp[i]!))) });
    const fields: Field[] = [
      ...(id.cluster !== null ? [stringField('cluster', id.cluster, { nullable: false })] : []),
      stringField('namespace', id.namespace, { nullable: false }),
      stringField('name', id.name, { nullable: false }),
      stringField('uid', id.uid, { nullable: false }),
      stringField('state', rows === null ? c.states : column((i) => c.states[i]!)),
      ...(query.layer === 'nodepools' ? poolFields(timelines) : []),
      ...columns.map(figureField),
      ...usage.map((f) => ({ schema: f.schema, values: rows === null ? f.values : column((i) => f.values[i]) })),
    ];
    const meta = withUsageNotice(ctx, rows !== null ? tableMeta(n, rows.length, summaryTotals(ctx, columns)) : undefined);
    const table = frame(fields, { name: 'summary', refId: query.refId, ...(meta !== undefined ? { meta } : {}) });
    // A whole table's columns are written from their closed runs' kept texts (row-cells.ts): identity,
    // state and figures only, what a closed run's life says (not usage, nor a pool's JobSets).
    if (wholeRows !== undefined) {
      const kept = ({ schema: { name } }: Field): ColumnWriter | undefined =>
        CACHED_IDENTITY.has(name) || (columns as readonly string[]).includes(name)
          ? (sink, values) => rowCells.writeColumn(sink, name, wholeRows.columns, wholeRows.rows, values, ctx.from, ctx.to, RUN_IDENTITY_KEYS.has(name))
          : undefined;
      withColumnWriters(table.data.values, fields.map(kept));
    }
    if (wholeRows === undefined && timelines.length <= SMALL_TABLE_ROWS) smallTableText(table, fields, columns, meta === undefined && usage.length === 0 && query.layer !== 'nodepools');
    if (keptKey !== null) keptTables.keep(runRows!.columns, keptKey, table);
    return [table];
  }
  const pooled = pooledGroups(ctx, computed);
  const groups =
    pooled !== null
      ? pooled.map(({ key, labels, count, window }) => {
          const w = window(ctx.from, ctx.to);
          return { key, labels, count, figures: figuresFromTotals(w.totals, w.timeToFirstUpSeconds) };
        })
      : fleetFigures(ctx.timelines, ctx.horizon, ctx.from, ctx.to, groupBy, query.aggregate, computed, ctx.selectFrom === ctx.from);
  // Usage split by state: each group's members pooled (only worked out when asked: it needs the members).
  const usage = query.usageByState.length === 0 ? [] : usageByStateFields(ctx, membersOf(ctx, groups));
  const usageByName = new Map(usage.map((f) => [f.schema.name, f.values as (number | null)[]]));
  const groupValue = (by: string, i: number): number | null =>
    by === 'jobsets' ? groups[i]!.count : (usageByName.get(by)?.[i] ?? groups[i]!.figures[by as FigureName] ?? null);
  // The rows shown: every group in key order unless shaped.
  const rows = isShaped(query) ? pickRows(groups.length, query.sort ? (i) => groupValue(query.sort!.by, i) : null, query.sort, query.limit) : null;
  const shown = rows === null ? groups : rows.map((i) => groups[i]!);
  const dimensions = groups.length > 0 ? Object.keys(groups[0]!.labels) : [];
  const fields: Field[] = [
    ...dimensions.map((d) => stringField(d, shown.map((g) => g.labels[d] ?? ''))),
    numberField('jobsets', shown.map((g) => g.count), { unit: 'none' }),
    ...columns.map((f) => numberField(f, shown.map((g) => g.figures[f] ?? null), { unit: unitOf(f) })),
    ...usage.map((f) => ({ schema: f.schema, values: rows === null ? f.values : rows.map((i) => f.values[i]) })),
  ];
  const meta = withUsageNotice(ctx, rows !== null ? tableMeta(groups.length, rows.length, summaryTotals(ctx, columns)) : undefined);
  return [frame(fields, { name: 'summary', refId: query.refId, ...(meta !== undefined ? { meta } : {}) })];
}

/**
 * The rows a sorted, limited per-JobSet table shows, picked by the sort's figure alone (WindowRows
 * reads its columns of each row: a closed run's from its life, any other swept): the rows and order
 * pickRows gives over the table worked out in full. They come as a selection of their own, in the
 * list's order and marked with their rows (summaryColumns works them out as any selection), and
 * `order`: the places in it of the rows in the sort's order. Null where the whole table is worked
 * out: not a few of many (limit × 16 ≥ rows), a sort by no figure (usage), usage columns, a node
 * pool's table, or a selection whose windows start before `from`.
 */
function fewRows(ctx: QueryContext, { columns, rows }: { columns: RunColumns; rows: Int32Array }): { timelines: readonly Timeline[]; order: number[] } | null {
  const { query } = ctx;
  const sort = query.sort;
  const limit = query.limit;
  if (sort === undefined || limit === undefined || limit * 16 >= ctx.timelines.length) return null;
  if (!(FIGURE_NAMES as readonly string[]).includes(sort.by) || query.usageByState.length > 0 || query.layer === 'nodepools' || ctx.selectFrom !== ctx.from) return null;
  const figure = sort.by as FigureName;
  const definition = definitionOf(figure);
  const firstUp = definition.firstUp === true;
  const window = new WindowRows(ctx.timelines, ctx.horizon, ctx.from, ctx.to, true);
  const scratch = new Float64Array(FIELDS);
  const values = new Float64Array(ctx.timelines.length);
  for (let k = 0; k < values.length; k++) {
    const v = figureValue(scratch, 0, figure, window.fieldsInto(k, definition.columns, scratch, 0, firstUp));
    // NaN for null: pickRowsOfValues sorts it (as any value that is not finite) last, as pickRows does.
    values[k] = v ?? NaN;
  }
  const picked = pickRowsOfValues(values, sort, limit);
  // In the list's order (a part of a sorted selection is sorted), each with its row.
  const inOrder = Int32Array.from(picked).sort();
  const timelines = markRows(
    markSorted(Array.from(inOrder, (k) => ctx.timelines[k]!)),
    columns,
    inOrder.map((k) => rows[k]!),
  );
  // Each picked row's place in that order, looked up (indexOf per row was quadratic in the limit: up to ~54,000 rows at 871,066).
  const placeOf = new Map<number, number>();
  inOrder.forEach((k, place) => placeOf.set(k, place));
  return { timelines, order: picked.map((k) => placeOf.get(k)!) };
}

const finiteOrNull = (v: number | null): number | null => (v === null || !Number.isFinite(v) ? null : v);

/** Each figure column's schema (numberField's, with the figure's unit), made once and frozen: frames share it, and nothing may write it. */
const figureSchemas = new Map<FigureName, FieldJSON>();

function figureSchema(f: FigureName): FieldJSON {
  let schema = figureSchemas.get(f);
  if (schema === undefined) {
    schema = numberField(f, [], { unit: unitOf(f) }).schema;
    Object.freeze(schema.typeInfo);
    Object.freeze(schema.config);
    figureSchemas.set(f, Object.freeze(schema));
  }
  return schema;
}

/** A table of this many rows or fewer (one JobSet's detail: its runs) has its JSON written by json-text.ts. */
const SMALL_TABLE_ROWS = 64;

/**
 * A small table's JSON (one JobSet's detail, asked by every panel of its dashboard): its figure
 * columns written by json-text.ts and its schema's text kept from an earlier table of the same shape,
 * when `plainSchema` (no meta, usage or pool columns: the schema is then its refId, whether a cluster
 * column leads, whether the state is nullable and which figures, each figure's unit being fixed).
 * The bytes are JSON.stringify's (properties.test.ts).
 */
function smallTableText(table: FrameJSON, fields: readonly Field[], columns: readonly FigureName[], plainSchema: boolean): void {
  if (!plainSchema) return;
  // The figure columns are the last of the fields then, after the identity columns (cluster when any
  // row has one; namespace, name, uid) and the state.
  const firstFigure = fields.length - columns.length;
  withColumnWriters(table.data.values, figureWriters(firstFigure, fields.length));
  const stateNullable = fields[firstFigure - 1]!.schema.typeInfo.nullable === true;
  const key = `${table.schema.refId ?? ''}\u0000${firstFigure}${stateNullable ? '?' : ''}\u0000${columns === FIGURE_NAMES ? '*' : columns.join(',')}`;
  let text = schemaTexts.get(key);
  if (text === undefined) {
    text = JSON.stringify(table.schema);
    if (schemaTexts.size >= SCHEMA_TEXTS_MAX) schemaTexts.clear();
    schemaTexts.set(key, text);
  }
  withKeptText(table.schema, text);
}

/** The writers of a small table's columns: none for the `firstFigure` identity and state columns, json-text.ts's for the figures after them. */
function figureWriters(firstFigure: number, columns: number): readonly (ColumnWriter | undefined)[] {
  const writers = new Array<ColumnWriter | undefined>(columns).fill(undefined);
  return writers.fill(writeNumbers, firstFigure);
}

/**
 * The key of a small table (one JobSet's detail) whose every row is a closed run whose whole life
 * the range holds, or null for any other table. Such a table is the same in every range that holds
 * those lives (summaryColumns reads each such row's identity, final state and figures from the
 * list's columns, and nothing else of the range or the horizon enters it: row-cells.ts keeps whole
 * tables' cells on the same ground), so it is kept whole, with its JSON text, by its rows, its refId
 * and its figures. Not a shaped table (its meta counts the range's rows), nor one with usage or a
 * pool's columns, nor another layer's (a node layer's list is made per request).
 */
function keptTableKey(ctx: QueryContext, { columns, rows }: { columns: RunColumns; rows: Int32Array }, computed: readonly FigureName[]): string | null {
  const { query } = ctx;
  if (rows.length === 0 || rows.length > SMALL_TABLE_ROWS || query.layer !== 'jobset' || isShaped(query) || query.usageByState.length > 0) return null;
  for (let i = 0; i < rows.length; i++) if (!holdsLife(columns, rows[i]!, ctx.from, ctx.to)) return null;
  return `${query.refId}\u0000${computed === FIGURE_NAMES ? '*' : computed.join(',')}\u0000${rows.join(',')}`;
}

/** Kept small tables (keptTableKey) of the engine's current list's columns; bounded, cleared when full or when the list changes. */
class KeptTables {
  #columns: RunColumns | null = null;
  #tables = new Map<string, FrameJSON>();
  /** The kept tables' JSON texts' length in all (their frames hold the same values again). */
  #textLength = 0;

  get(columns: RunColumns, key: string): FrameJSON | undefined {
    return this.#columns === columns ? this.#tables.get(key) : undefined;
  }

  /** Keeps `table` (frozen from here on: the requests that ask it share it) with its JSON text. */
  keep(columns: RunColumns, key: string, table: FrameJSON): void {
    const text = JSON.stringify(table);
    if (this.#columns !== columns || this.#tables.size >= KEPT_TABLES_MAX || this.#textLength + text.length > KEPT_TABLES_MAX_TEXT) {
      this.#columns = columns;
      this.#tables = new Map();
      this.#textLength = 0;
    }
    this.#tables.set(key, deepFreeze(withKeptText(table, text)));
    this.#textLength += text.length;
  }
}

/** At most 1,024 tables and 2 MiB of their texts (a detail's is ~3 KB; 64 runs' ~50 KB). */
const KEPT_TABLES_MAX = 1024;
const KEPT_TABLES_MAX_TEXT = 2 * 2 ** 20;
const keptTables = new KeptTables();

/** Small tables' schema texts by shape (refId, identity columns, the state's nullability, figures); bounded, cleared when full. */
const schemaTexts = new Map<string, string>();
const SCHEMA_TEXTS_MAX = 256;

/**
 * A per-JobSet table's totals, in one array lent from request to request (the table reads them only
 * while its frame is built): up to 4 MiB, a table of ~30,000 rows; a longer one's made per request.
 */
const lentTotals = new LentTotals(2 ** 19);

/** The columns of a per-JobSet row, beside its figures, whose texts row-cells.ts keeps: the run's identity and its state at the range's end. */
const CACHED_IDENTITY: ReadonlySet<string> = new Set([...RUN_IDENTITY_KEYS, 'state']);

interface IdentityColumns {
  cluster: string[] | null;
  namespace: string[];
  name: string[];
  uid: string[];
}

/** The largest whole table whose identity columns are kept for the next (~2.4 MB of them). */
const KEPT_IDENTITY_MAX_ROWS = 100_000;

/** The last whole table's identity columns: the list and its rows they are of. */
let keptIdentity: { list: readonly Timeline[]; rows: Int32Array; columns: IdentityColumns } | null = null;

/**
 * A whole table's identity columns, kept for the next table of the same rows of the same list (a
 * dashboard asks the same table every refresh): a run's identity does not change, and a list is not
 * changed in place (a run added or dropped makes a new list), so the same rows of the same list have
 * the same identities. Read again from the timelines (10,000 objects spread on the heap, a cache miss
 * each, ~0.5 ms) only when the rows differ. Frozen: frames share them, and nothing may write them.
 */
function keptIdentityColumns(timelines: readonly Timeline[], { columns: { list }, rows }: { columns: { list: readonly Timeline[] }; rows: Int32Array }): IdentityColumns {
  const kept = keptIdentity;
  if (kept !== null && kept.list === list && sameRows(kept.rows, rows)) return kept.columns;
  const id = identityColumns(timelines);
  if (rows.length > KEPT_IDENTITY_MAX_ROWS) return id;
  const columns: IdentityColumns = {
    cluster: id.cluster === null ? null : Object.freeze(id.cluster) as string[],
    namespace: Object.freeze(id.namespace) as string[],
    name: Object.freeze(id.name) as string[],
    uid: Object.freeze(id.uid) as string[],
  };
  keptIdentity = { list, rows: rows.slice(), columns };
  return columns;
}

function sameRows(a: Int32Array, b: Int32Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The rows' identities as columns, in one visit to each timeline (10,000 rows were four passes over
 * objects spread on the heap, a cache miss each): `cluster` only when a row has one ('' for the others).
 */
function identityColumns(timelines: readonly Timeline[]): IdentityColumns {
  // Made at their length: grown by push, they left as much again in garbage.
  const n = timelines.length;
  const namespace = new Array<string>(n);
  const name = new Array<string>(n);
  const uid = new Array<string>(n);
  let cluster: string[] | null = null;
  for (let i = 0; i < n; i++) {
    const tl = timelines[i]!;
    namespace[i] = tl.namespace;
    name[i] = tl.name;
    uid[i] = tl.uid;
    if (tl.cluster !== undefined && cluster === null) cluster = new Array<string>(n).fill('', 0, i);
    if (cluster !== null) cluster[i] = tl.cluster ?? '';
  }
  return { cluster, namespace, name, uid };
}

/** Each group's member JobSets, in the groups' order (a group's key is groupOf's, as the fleet index's). */
function membersOf(ctx: QueryContext, groups: readonly { key: string }[]): Timeline[][] {
  const groupBy = groupingOf(ctx.query);
  const byKey = new Map<string, Timeline[]>();
  for (const tl of ctx.timelines) {
    const key = groupOf(tl, groupBy).key;
    const members = byKey.get(key);
    if (members === undefined) byKey.set(key, [tl]);
    else members.push(tl);
  }
  return groups.map((g) => byKey.get(g.key) ?? []);
}

/** A table that asks for usage of a service that keeps none says so on the panel (its columns are null). */
function withUsageNotice(ctx: QueryContext, meta: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (ctx.query.usageByState.length === 0 || ctx.usage) return meta;
  return { ...meta, notices: [...((meta?.notices as unknown[] | undefined) ?? []), NO_USAGE_NOTICE] };
}

/** A node pool's row also says its hardware, and which JobSets ran on its nodes (namespace/name, comma-separated). */
function poolFields(timelines: readonly Timeline[]): Field[] {
  return [
    stringField('accelerator', timelines.map((tl) => tl.accelerator ?? '')),
    stringField('topology', timelines.map((tl) => tl.topology ?? '')),
    stringField('ranJobSets', timelines.map((tl) => (tl.jobsets ?? []).join(', '))),
  ];
}

/**
 * The totals of a shaped summary, over every row the table had (not only those shown): its JobSets
 * pooled as one (additive figures summed, ratios and mean times of the summed totals), as
 * `groupBy: all, aggregate: pooled` answers them; `jobsets` their count; the usage columns the
 * JobSets' usage pooled. Null figures where none counts.
 */
function summaryTotals(ctx: QueryContext, columns: readonly FigureName[]): Record<string, number | null> {
  const all: QueryContext = Object.create(ctx, { query: { value: { ...ctx.query, groupBy: 'all', aggregate: 'pooled' } } });
  const pooled = pooledGroups(all, columns);
  let whole: { count: number; figures: Partial<Record<FigureName, number | null>> } | undefined;
  if (pooled !== null) {
    whole = pooled.map(({ count, window }) => {
      const w = window(ctx.from, ctx.to);
      return { count, figures: figuresFromTotals(w.totals, w.timeToFirstUpSeconds) };
    })[0];
  } else {
    whole = fleetFigures(ctx.timelines, ctx.horizon, ctx.from, ctx.to, 'all', 'pooled', columns, ctx.selectFrom === ctx.from)[0];
  }
  const finite = (v: number | null | undefined): number | null => (v !== null && v !== undefined && Number.isFinite(v) ? v : null);
  // Usage split by state over every row: all the JobSets pooled, as a group's row pools its members.
  const usage = ctx.query.usageByState.length === 0 ? [] : usageByStateFields(ctx, [ctx.timelines]);
  return {
    jobsets: whole?.count ?? 0,
    ...Object.fromEntries(columns.map((f) => [f, finite(whole?.figures[f])])),
    ...Object.fromEntries(usage.map((f) => [f.schema.name, finite(f.values[0] as number | null)])),
  };
}

export const summaryType: QueryTypeModule = {
  queryType: 'summary',
  fields: {
    figures: z.array(figureName).max(FIGURES.length).default(DEFAULT_QUERY.figures as (typeof FIGURES)[number][]).describe('summary: only these figure columns (empty: every figure); the identity columns (cluster, namespace, name, uid, state; a group\'s dimensions and jobsets) always. Only what they and the sort need is worked out; the sort may name any figure, returned or not; a shaped table\'s meta.custom holds the whole table\'s row count and the totals of the columns returned'),
    usageByState: z
      .array(usageMetricName)
      .max(USAGE_METRICS.length)
      .default(DEFAULT_QUERY.usageByState)
      .describe(
        "summary: for each of these resource usage metrics, the columns <metric>WhileUp, WhileNotUp (provisioning and down), WhileProvisioning, WhileDown and WhileSuspended: the metric's time-weighted mean over the state's exact intervals in the range (a group: its JobSets pooled); null where no usage covers the state (README \"Resource usage\")",
      ),
    ...TABLE_FIELDS,
  },
  selectFrom: rangeStart,
  validate(ctx) {
    refuseCauseGroup(ctx.query);
    refuseUnknownSortColumn(ctx.query);
  },
  cost: summaryCost,
  frames: summaryFrames,
};
