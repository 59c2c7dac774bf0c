// A query's check (its schema, zod) kept for the next request that sends the same query (issue 21
// §4): a dashboard sends the same queries on every refresh, and zod's check of one (some 35 fields
// and their defaults) was about a third of one JobSet's detail's own work, ~10 µs a query. The Go
// backend gives each query the refresh's range (`timeRange`), which changes every time: the rest of
// the query is what is kept, and the range is checked on its own by its field's schema (the query
// schema is a loose object of independent fields, so the whole query's result is the rest's with
// the range's field added in its place). A kept check is taken only for a query that equals the one
// it was made of, value for value (numbers by Object.is: -0 and 0 write one text) and key for key in
// order, of a body parsed from JSON text (no other kind of value can be in it). Anything else, and
// any query that fails its check, is checked by zod as before, so its error is the same.

import type { z } from 'zod';
import { deepFreeze } from './frame.ts';
import { querySchema } from './query-types/index.ts';

export type CheckedQuery = z.output<typeof querySchema>;
type Checked = ReturnType<typeof querySchema.safeParse>;

interface Kept {
  /** A copy of the query the check was made of, its range left out. */
  raw: Record<string, unknown>;
  /** Its checked form, frozen (the requests that send it share it); no range. */
  checked: CheckedQuery;
  /** Where the range's key goes among the checked form's keys: after the schema's fields (it is the last), before the unknown ones. */
  rangeAt: number;
  keys: string[];
}

const RANGE = 'timeRange';
const rangeSchema = querySchema.shape.timeRange;
const schemaKeys: ReadonlySet<string> = new Set(Object.keys(querySchema.shape));

/** The kept checks by the query's JSON text without its range; bounded, cleared when full. */
const kept = new Map<string, Kept>();
export const KEPT_QUERIES_MAX = 1024;

/**
 * zod's `querySchema.safeParse(raw)`, the same result (value for value, keys in order), taken from
 * a kept check when `raw` was parsed from JSON text (`fromJsonText`) and its rest was checked before.
 */
export function checkQuery(raw: unknown, fromJsonText: boolean): Checked {
  if (!fromJsonText || !isPlainObject(raw)) return querySchema.safeParse(raw);
  const hasRange = Object.hasOwn(raw, RANGE);
  const rest = hasRange ? withoutRange(raw) : raw;
  const text = JSON.stringify(rest);
  const found = kept.get(text);
  if (found !== undefined && sameJson(rest, found.raw)) {
    if (!hasRange) return { success: true, data: found.checked } as Checked;
    const range = rangeSchema.safeParse(raw[RANGE]);
    // A bad range: the whole query checked, for the error zod gives it (its first issue).
    if (!range.success) return querySchema.safeParse(raw);
    return { success: true, data: withRange(found, range.data) } as Checked;
  }
  const result = querySchema.safeParse(raw);
  if (result.success) keep(text, rest, result.data);
  return result;
}

function keep(text: string, rest: Record<string, unknown>, checked: CheckedQuery): void {
  const copy = { ...checked } as Record<string, unknown>;
  delete copy[RANGE];
  const keys = Object.keys(copy);
  let rangeAt = keys.findIndex((k) => !schemaKeys.has(k));
  if (rangeAt < 0) rangeAt = keys.length;
  if (kept.size >= KEPT_QUERIES_MAX) kept.clear();
  kept.set(text, { raw: copyJson(rest) as Record<string, unknown>, checked: deepFreeze(copy) as CheckedQuery, rangeAt, keys });
}

/** The kept checked form with `range` in its place among the keys (a new object: the kept one is shared). */
function withRange({ checked, keys, rangeAt }: Kept, range: unknown): CheckedQuery {
  const out: Record<string, unknown> = {};
  const from = checked as Record<string, unknown>;
  for (let i = 0; i < rangeAt; i++) setOwn(out, keys[i]!, from[keys[i]!]);
  out[RANGE] = range;
  for (let i = rangeAt; i < keys.length; i++) setOwn(out, keys[i]!, from[keys[i]!]);
  return out as CheckedQuery;
}

function withoutRange(raw: Record<string, unknown>): Record<string, unknown> {
  const rest: Record<string, unknown> = {};
  for (const key of Object.keys(raw)) if (key !== RANGE) setOwn(rest, key, raw[key]);
  return rest;
}

/** `o[key] = value` as JSON.parse and a spread define it: an own property, `__proto__` too (an assignment would set the prototype). */
function setOwn(o: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
  else o[key] = value;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** Whether `a` is made of JSON's values (plain objects and arrays, strings, numbers, booleans, null) and equals `b`: the same keys in the same order, numbers by Object.is. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === null || typeof a !== 'object') return (a === null || typeof a === 'string' || typeof a === 'number' || typeof a === 'boolean') && Object.is(a, b);
  if (typeof b !== 'object' || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length || Object.getPrototypeOf(a) !== Array.prototype) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  if (!isPlainObject(a) || Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (let i = 0; i < ka.length; i++) {
    if (ka[i] !== kb[i] || !sameJson(a[ka[i]!], (b as Record<string, unknown>)[kb[i]!])) return false;
  }
  return true;
}

/** A copy of JSON data, -0 kept. */
function copyJson(v: unknown): unknown {
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) return v.map(copyJson);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(v)) setOwn(out, key, copyJson((v as Record<string, unknown>)[key]));
  return out;
}

/** Forgets every kept check (for tests). */
export function forgetCheckedQueries(): void {
  kept.clear();
}
