// A data frame as an Apache Arrow IPC file, in the layout the Go SDK reads with
// data.UnmarshalArrowFrames (grafana-plugin-sdk-go data/arrow.go): the frame's name, refId and meta
// (JSON) in the schema's metadata; a field's labels and config (JSON) in its metadata; times as
// nanosecond timestamps (the SDK reads every timestamp as ns), numbers as float64, strings as utf8,
// each nullable exactly when the frame JSON says so. The plugin backend asks for it (issue 21 §4), so
// it hands columns to the SDK instead of parsing JSON value by value; the HTTP API's other users keep
// the frame JSON, which carries the same frame.
//
// Columns are built straight into typed arrays (values and a validity bitmap), not through
// Arrow's row-by-row builders.

// Its modules by their own paths (the package's `exports`), the IPC file writer's among them: the
// package's entry also loads its readers, builders and stream adapters (17 modules, ~0.4 MiB of the
// service's heap once an Arrow answer has loaded them; the writer's own modules import the rest).
import { makeData, type Data } from 'apache-arrow/data';
import { RecordBatchFileWriter } from 'apache-arrow/ipc/writer';
import { RecordBatch } from 'apache-arrow/recordbatch';
import { Field as ArrowField, Schema } from 'apache-arrow/schema';
import { Table } from 'apache-arrow/table';
import { Float64, Struct, TimestampNanosecond, Utf8, type DataType } from 'apache-arrow/type';
import type { FieldJSON, FrameJSON } from './frame.ts';

const NS_PER_MS = 1_000_000n;

/** A column's values, and its validity bitmap (bit i set: value i present) when any is null. */
function fill<T>(values: readonly unknown[], put: (i: number, v: NonNullable<T>) => void, isValue: (v: unknown) => v is NonNullable<T>): { nullBitmap: Uint8Array | undefined; nullCount: number } {
  let bitmap: Uint8Array | undefined;
  let nullCount = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (isValue(v)) {
      put(i, v);
      continue;
    }
    // The first null makes the bitmap; the present values' bits are set below.
    bitmap ??= new Uint8Array((values.length + 7) >> 3);
    nullCount++;
  }
  if (bitmap !== undefined) {
    for (let i = 0; i < values.length; i++) if (isValue(values[i])) bitmap[i >> 3]! |= 1 << (i & 7);
  }
  return { nullBitmap: bitmap, nullCount };
}

const isNumber = (v: unknown): v is number => typeof v === 'number';
const isString = (v: unknown): v is string => typeof v === 'string';

/** The times a nanosecond timestamp holds (int64): 1677-09-21 to 2262-04-11. */
const MAX_MS = 9_223_372_036_854;

/** A frame Arrow cannot carry as the SDK reads it: a time outside what int64 nanoseconds hold. */
export class ArrowRangeError extends Error {}

function timeColumn(values: readonly unknown[]): Data<TimestampNanosecond> {
  const data = new BigInt64Array(values.length);
  // Times are whole epoch milliseconds; a fraction (never sent) would be cut to the millisecond.
  const validity = fill<number>(
    values,
    (i, v) => {
      if (!(Math.abs(v) <= MAX_MS)) throw new ArrowRangeError(`a time of ${v} ms is outside what nanoseconds in int64 hold`);
      data[i] = BigInt(Math.trunc(v)) * NS_PER_MS;
    },
    isNumber,
  );
  return makeData({ type: new TimestampNanosecond(), length: values.length, ...validity, data });
}

function numberColumn(values: readonly unknown[]): Data<Float64> {
  const data = new Float64Array(values.length);
  const validity = fill<number>(values, (i, v) => (data[i] = v), isNumber);
  return makeData({ type: new Float64(), length: values.length, ...validity, data });
}

const utf8 = new TextEncoder();

function stringColumn(values: readonly unknown[]): Data<Utf8> {
  // One buffer for the whole column, each string encoded into its place (no array per value); a
  // UTF-16 code unit takes at most 3 bytes of UTF-8.
  let units = 0;
  for (const v of values) if (typeof v === 'string') units += v.length;
  const buffer = new Uint8Array(units * 3);
  const valueOffsets = new Int32Array(values.length + 1);
  let at = 0;
  const validity = fill<string>(
    values,
    (i, v) => {
      at += utf8.encodeInto(v, buffer.subarray(at)).written;
      valueOffsets[i + 1] = at;
    },
    isString,
  );
  // A null's offsets are its predecessor's: an empty slot.
  for (let i = 1; i <= values.length; i++) if (valueOffsets[i]! < valueOffsets[i - 1]!) valueOffsets[i] = valueOffsets[i - 1]!;
  return makeData({ type: new Utf8(), length: values.length, ...validity, valueOffsets, data: buffer.subarray(0, at) });
}

function column(schema: FieldJSON, values: readonly unknown[]): Data<DataType> {
  switch (schema.type) {
    case 'time':
      return timeColumn(values);
    case 'number':
      return numberColumn(values);
    case 'string':
      return stringColumn(values);
  }
}

function arrowField(schema: FieldJSON, data: Data<DataType>): ArrowField {
  const metadata = new Map<string, string>();
  if (schema.labels !== undefined) metadata.set('labels', JSON.stringify(schema.labels));
  if (schema.config !== undefined) metadata.set('config', JSON.stringify(schema.config));
  return new ArrowField(schema.name, data.type, schema.typeInfo.nullable === true, metadata);
}

/**
 * The frame as one Arrow IPC file (a schema, one record batch, the footer). Throws ArrowRangeError
 * for a time Arrow cannot carry: the caller sends that frame as JSON.
 */
export function frameToArrow(frame: FrameJSON): Uint8Array {
  // What the package's tableToIPC(table, 'file') does, without its module (which loads the readers).
  return RecordBatchFileWriter.writeAll(arrowTable(frame), { compressionType: null }).toUint8Array(true);
}

/** The frame as an Arrow table of one record batch (what frameToArrow writes). */
export function arrowTable(frame: FrameJSON): Table {
  const length = frame.data.values[0]?.length ?? 0;
  const columns = frame.schema.fields.map((schema, i) => column(schema, frame.data.values[i] ?? []));
  const fields = frame.schema.fields.map((schema, i) => arrowField(schema, columns[i]!));
  const metadata = new Map<string, string>([
    ['name', frame.schema.name ?? ''],
    ['refId', frame.schema.refId ?? ''],
  ]);
  if (frame.schema.meta !== undefined) metadata.set('meta', JSON.stringify(frame.schema.meta));
  const schema = new Schema(fields, metadata);
  const batch = new RecordBatch(schema, makeData({ type: new Struct(fields), length, nullCount: 0, children: columns }));
  return new Table(schema, batch);
}
