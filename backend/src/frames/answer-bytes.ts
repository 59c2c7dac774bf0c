// The query answer as the pieces of its UTF-8 bytes: what JSON.stringify({results}) writes, byte for
// byte, except that a frame column whose bytes are known ahead (row-cells.ts: a whole table's column,
// its closed runs' cells kept as bytes) is copied in, stretches of rows at a time, rather than
// serialised value by value, and a frame or schema whose text is kept (a detail's summary) is written
// as that text. A frame's columns are marked by its `data.values` array, with a function per column
// that writes it only when the answer is JSON (an Arrow answer reads the values and never asks it).
// The HTTP stage joins the pieces into one body (http/json-answer.ts).

import { numbersText, stringsText } from './json-text.ts';

/** Where an answer is written: texts (JSON) and stretches of bytes (UTF-8 of JSON), in order. */
export class AnswerSink {
  readonly #pieces: (string | Uint8Array)[] = [];
  #text = '';

  text(s: string): void {
    this.#text += s;
  }

  bytes(b: Uint8Array): void {
    if (this.#text !== '') this.#pieces.push(this.#text);
    this.#text = '';
    this.#pieces.push(b);
  }

  /** What was written: texts (JSON) and byte stretches (its UTF-8), in order. */
  pieces(): (string | Uint8Array)[] {
    if (this.#text !== '') this.#pieces.push(this.#text);
    this.#text = '';
    return this.#pieces;
  }
}

/** Writes a column's values (`values`, the array it marks) as JSON.stringify(values) writes them (UTF-8), into the sink. */
export type ColumnWriter = (sink: AnswerSink, values: readonly unknown[]) => void;

/** A column of numbers and nulls, written by json-text.ts (one writer for every such column: no closure per column). */
export const writeNumbers: ColumnWriter = (sink, values) => sink.text(numbersText(values as readonly (number | null)[]));

/** A column of strings and nulls (a few distinct ones, as states), written by json-text.ts. */
export const writeStrings: ColumnWriter = (sink, values) => sink.text(stringsText(values as readonly (string | null)[]));

/**
 * A frame's column writers, and a frame's or schema's kept text, are properties of its arrays or
 * objects under these symbols, not enumerable (JSON.stringify, Object.keys, a deep equality and the
 * Arrow encoder do not see them): a WeakMap entry per column and request made V8's weak tables most
 * of a detail's garbage collection.
 */
const COLUMN_WRITERS = Symbol('column writers');
const KEPT_TEXT = Symbol('kept JSON text');

/**
 * Marks a frame's columns, the one way a column gets a writer: `columns` is its `data.values` (not
 * changed after), and `writers[i]`, when given, writes column i (its values passed) as the UTF-8 of
 * JSON.stringify(values). One property for the frame rather than one per column: defining a
 * property is a runtime call (~0.4 µs), and a detail's 30 marked columns cost ~10 µs of each request
 * (issue 21 §4); and a frame's `data.values` is its own, where a column may be a frozen array shared
 * by several frames (a whole table's kept identity columns).
 */
export function withColumnWriters(columns: readonly unknown[], writers: readonly (ColumnWriter | undefined)[]): void {
  Object.defineProperty(columns, COLUMN_WRITERS, { value: writers, configurable: true });
}

const columnWritersOf = (columns: readonly unknown[]): readonly (ColumnWriter | undefined)[] | undefined =>
  (columns as unknown as { [COLUMN_WRITERS]?: readonly (ColumnWriter | undefined)[] })[COLUMN_WRITERS];

/** Marks `o` (a frame or its schema, not changed after) as written by `text`, which must be JSON.stringify(o). */
export function withKeptText<T extends object>(o: T, text: string): T {
  Object.defineProperty(o, KEPT_TEXT, { value: text, configurable: true });
  return o;
}

const keptTextOf = (o: object): string | undefined => (o as { [KEPT_TEXT]?: string })[KEPT_TEXT];

interface FrameLike {
  schema?: unknown;
  data?: { values?: unknown };
}

/** The pieces of the UTF-8 of JSON.stringify({ results }), the marked columns written by their writers. */
export function answerPieces(results: Record<string, { frames?: readonly unknown[] }>): (string | Uint8Array)[] {
  let marked = false;
  for (const key of Object.keys(results)) if (hasMarkedColumn(results[key]!)) marked = true;
  if (!marked) return [JSON.stringify({ results })];
  const sink = new AnswerSink();
  sink.text('{"results":');
  objectInto(sink, results, (result) => {
    if (hasMarkedColumn(result as { frames?: readonly unknown[] })) resultInto(sink, result as object);
    else return JSON.stringify(result);
    return true;
  });
  sink.text('}');
  return sink.pieces();
}

function hasMarkedColumn(result: { frames?: readonly unknown[] }): boolean {
  const frames = result.frames;
  if (!Array.isArray(frames)) return false;
  for (const frame of frames) {
    if (typeof frame === 'object' && frame !== null && keptTextOf(frame) !== undefined) return true;
    const schema = (frame as FrameLike | null)?.schema;
    if (typeof schema === 'object' && schema !== null && keptTextOf(schema) !== undefined) return true;
    const values = (frame as FrameLike | null)?.data?.values;
    if (Array.isArray(values) && columnWritersOf(values) !== undefined) return true;
  }
  return false;
}

/**
 * What an object's or array's member writes: a JSON text; true when it wrote itself into the sink;
 * undefined when JSON.stringify leaves it out (undefined, a function: a member left out, an item null).
 */
type Member = string | true | undefined;

/** A result ({status, frames, …}) with its frames' marked columns written by their writers. */
function resultInto(sink: AnswerSink, result: object): void {
  objectInto(sink, result, (v, key) => (key === 'frames' && Array.isArray(v) ? arrayInto(sink, v, (frame) => frameInto(sink, frame)) : JSON.stringify(v)));
}

function frameInto(sink: AnswerSink, frame: unknown): Member {
  if (typeof frame !== 'object' || frame === null || Array.isArray(frame)) return JSON.stringify(frame);
  const kept = keptTextOf(frame);
  if (kept !== undefined) return kept;
  return objectInto(sink, frame, (v, key) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return JSON.stringify(v);
    if (key === 'data') return dataInto(sink, v);
    return (key === 'schema' ? keptTextOf(v) : undefined) ?? JSON.stringify(v);
  });
}

function dataInto(sink: AnswerSink, data: object): true {
  return objectInto(sink, data, (v, key) => {
    if (key !== 'values' || !Array.isArray(v)) return JSON.stringify(v);
    const writers = columnWritersOf(v);
    return arrayInto(sink, v, (column, i) => columnInto(sink, column, writers?.[i]));
  });
}

/** A column written by its frame's writer for it (withColumnWriters), else as JSON.stringify writes it. */
function columnInto(sink: AnswerSink, values: unknown, write: ColumnWriter | undefined): Member {
  if (write === undefined || !Array.isArray(values)) return JSON.stringify(values);
  write(sink, values as readonly unknown[]);
  return true;
}

/**
 * An object as JSON.stringify writes it: its own enumerable string keys in their order, each value
 * written by `member` (left out when undefined). An object with toJSON is left to JSON.stringify whole.
 */
function objectInto(sink: AnswerSink, o: object, member: (value: unknown, key: string) => Member): true {
  if (typeof (o as { toJSON?: unknown }).toJSON === 'function') {
    sink.text(JSON.stringify(o));
    return true;
  }
  sink.text('{');
  let first = true;
  for (const key of Object.keys(o)) {
    const value = (o as Record<string, unknown>)[key];
    // Left out as JSON.stringify leaves them out, before the key is written.
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue;
    sink.text(`${first ? '' : ','}${JSON.stringify(key)}:`);
    first = false;
    const text = member(value, key);
    if (text !== true) sink.text(text ?? 'null');
  }
  sink.text('}');
  return true;
}

/** An array as JSON.stringify writes it: an item it cannot write (undefined, a function) as null. */
function arrayInto(sink: AnswerSink, items: readonly unknown[], item: (value: unknown, index: number) => Member): true {
  if (typeof (items as { toJSON?: unknown }).toJSON === 'function') {
    sink.text(JSON.stringify(items));
    return true;
  }
  sink.text('[');
  for (let i = 0; i < items.length; i++) {
    if (i > 0) sink.text(',');
    const text = item(items[i], i);
    if (text !== true) sink.text(text ?? 'null');
  }
  sink.text(']');
  return true;
}
