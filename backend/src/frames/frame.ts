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

function config(options: FieldOptions): Record<string, unknown> | undefined {
  const c: Record<string, unknown> = {};
  if (options.unit !== undefined) c.unit = options.unit;
  if (options.displayName !== undefined) c.displayNameFromDS = options.displayName;
  return Object.keys(c).length > 0 ? c : undefined;
}

function field(name: string, type: FieldJSON['type'], frameType: FieldJSON['typeInfo']['frame'], values: unknown[], options: FieldOptions): Field {
  const schema: FieldJSON = { name, type, typeInfo: { frame: frameType, ...(options.nullable ? { nullable: true } : {}) } };
  if (options.labels !== undefined && Object.keys(options.labels).length > 0) schema.labels = options.labels;
  const c = config(options);
  if (c !== undefined) schema.config = c;
  return { schema, values };
}

export const timeField = (name: string, values: (number | null)[], options: FieldOptions = {}): Field =>
  field(name, 'time', 'time.Time', values, { nullable: values.includes(null), ...options });

/** Numbers are nullable float64: figures are null where undefined. Non-finite values become null. */
export const numberField = (name: string, values: (number | null)[], options: FieldOptions = {}): Field =>
  field(name, 'number', 'float64', values.map((v) => (v === null || !Number.isFinite(v) ? null : v)), { nullable: true, ...options });

/** Strings are nullable when any value is null (a state timeline's gaps), so null stays null in Go. */
export const stringField = (name: string, values: (string | null)[], options: FieldOptions = {}): Field =>
  field(name, 'string', 'string', values, { nullable: values.includes(null), ...options });

export function frame(fields: Field[], options: { name?: string; refId?: string; meta?: Record<string, unknown> } = {}): FrameJSON {
  return {
    schema: {
      ...(options.name !== undefined ? { name: options.name } : {}),
      ...(options.refId !== undefined ? { refId: options.refId } : {}),
      ...(options.meta !== undefined ? { meta: options.meta } : {}),
      fields: fields.map((f) => f.schema),
    },
    data: { values: fields.map((f) => f.values) },
  };
}
