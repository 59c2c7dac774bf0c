// Grafana's data-frame JSON, as the Go SDK's data.Frame marshals it, so the plugin backend decodes
// what the service sends without conversion: time fields as epoch ms with typeInfo time.Time,
// numbers as nullable float64, strings as string.

export interface FieldJSON {
  name: string;
  type: 'time' | 'number' | 'string';
  typeInfo: { frame: 'time.Time' | 'float64' | 'string'; nullable?: boolean };
  labels?: Record<string, string>;
  config?: Record<string, unknown>;
}

export interface FrameJSON {
  schema: { name?: string; refId?: string; meta?: Record<string, unknown>; fields: FieldJSON[] };
  data: { values: unknown[][] };
}

export interface Field {
  schema: FieldJSON;
  values: unknown[];
}

export interface FieldOptions {
  labels?: Record<string, string>;
  unit?: string;
  displayName?: string;
  nullable?: boolean;
}

// Built by assignment in the order JSON.stringify writes them (no spread of optional parts): tables
// per JobSet name make thousands of frames a request, and these are most of their cost.
function config(options: FieldOptions): Record<string, unknown> | undefined {
  if (options.unit === undefined && options.displayName === undefined) return undefined;
  const c: Record<string, unknown> = {};
  if (options.unit !== undefined) c.unit = options.unit;
  if (options.displayName !== undefined) c.displayNameFromDS = options.displayName;
  return c;
}

function hasKeys(labels: Record<string, string>): boolean {
  for (const _ in labels) return true;
  return false;
}

function field(name: string, type: FieldJSON['type'], frameType: FieldJSON['typeInfo']['frame'], values: unknown[], options: FieldOptions, nullable: boolean): Field {
  const typeInfo: FieldJSON['typeInfo'] = { frame: frameType };
  if (nullable) typeInfo.nullable = true;
  const schema: FieldJSON = { name, type, typeInfo };
  if (options.labels !== undefined && hasKeys(options.labels)) schema.labels = options.labels;
  const c = config(options);
  if (c !== undefined) schema.config = c;
  return { schema, values };
}

const NO_OPTIONS: FieldOptions = {};

/** `options.nullable` when given, else whether any value is null. */
const nullableOf = (values: readonly unknown[], options: FieldOptions): boolean => (options.nullable !== undefined ? options.nullable : values.includes(null));

export const timeField = (name: string, values: (number | null)[], options: FieldOptions = NO_OPTIONS): Field =>
  field(name, 'time', 'time.Time', values, options, nullableOf(values, options));

/** Numbers are nullable float64: figures are null where undefined. Non-finite values become null. */
export const numberField = (name: string, values: (number | null)[], options: FieldOptions = NO_OPTIONS): Field =>
  field(name, 'number', 'float64', values.map((v) => (v === null || !Number.isFinite(v) ? null : v)), options, options.nullable !== undefined ? options.nullable : true);

/** Strings are nullable when any value is null (a state timeline's gaps), so null stays null in Go. */
export const stringField = (name: string, values: (string | null)[], options: FieldOptions = NO_OPTIONS): Field =>
  field(name, 'string', 'string', values, options, nullableOf(values, options));

export function frame(fields: Field[], options: { name?: string; refId?: string; meta?: Record<string, unknown> } = {}): FrameJSON {
  const schema: FrameJSON['schema'] = {} as FrameJSON['schema'];
  if (options.name !== undefined) schema.name = options.name;
  if (options.refId !== undefined) schema.refId = options.refId;
  if (options.meta !== undefined) schema.meta = options.meta;
  const columns = new Array<FieldJSON>(fields.length);
  const values = new Array<unknown[]>(fields.length);
  for (let i = 0; i < fields.length; i++) {
    columns[i] = fields[i]!.schema;
    values[i] = fields[i]!.values;
  }
  schema.fields = columns;
  return { schema, data: { values } };
}

/**
 * An empty answer that says why: one frame without fields whose info notice Grafana shows on the
 * panel. For a query that is right but that this source cannot answer (no node layer, no usage).
 */
export function noticeFrame(refId: string, name: string, text: string): FrameJSON {
  return frame([], { name, refId, meta: { notices: [{ severity: 'info', text }] } });
}

/** Freezes `v` and everything in it (a value the requests that ask it share: nothing may write it). */
export function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const key of Object.keys(v)) deepFreeze((v as Record<string, unknown>)[key]);
  }
  return v;
}
