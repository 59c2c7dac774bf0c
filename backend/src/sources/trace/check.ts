// The checks of a trace line, by hand: what parse.ts's schema (zod) accepts, without zod on the hot
// path of a replay (the schema cost ~1.5 µs a line, and loading zod ~0.1 s of CPU in each worker
// thread). These checks accept exactly the lines that the schema and the type check accept, with the
// same observation; a line they refuse goes to parse.ts, whose schema names what is wrong with it.
// No zod here: a replay's worker threads import this module, not parse.ts.

import type { Observation, ObservationType } from '../../observation/types.ts';

export class TraceError extends Error {
  readonly line: number;
  /** What is wrong, without the line (a worker thread that parses lines knows only where they are in its chunk). */
  readonly detail: string;
  constructor(line: number, message: string) {
    super(`line ${line}: ${message}`);
    this.name = 'TraceError';
    this.line = line;
    this.detail = message;
  }
}

export const TYPES: readonly ObservationType[] = ['ADDED', 'MODIFIED', 'DELETED'];

/** What is wrong with a line that JSON.parse refused. */
export function notJson(error: unknown): string {
  return `not valid JSON (${(error as Error).message})`;
}

/** An object as the schema's z.object takes it: not null, not an array. */
function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function optionalString(value: unknown): boolean {
  return value === undefined || typeof value === 'string';
}

// An RFC 3339 time as the schema's z.iso.datetime({ offset: true }) reads it: a date that exists
// (29 February only in leap years), seconds always, any fraction, `Z` or an offset of ±hh:mm.
const TIME = /^(\d{4})-(\d\d)-(\d\d)T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d+)?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

export function isRfc3339Time(text: string): boolean {
  const m = TIME.exec(text);
  if (m === null) return false;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!);
}

/** The observation of a parsed line when the checks accept it; null when they do not (parse.ts says why). */
export function checkedObservation(json: unknown): Observation | null {
  if (!isObject(json)) return null;
  const { time, type, object } = json;
  if (typeof time !== 'string' || !isRfc3339Time(time)) return null;
  if (typeof type !== 'string' || !(TYPES as readonly string[]).includes(type)) return null;
  if (!isObject(object) || !optionalString(object.kind) || !optionalString(object.apiVersion)) return null;
  const metadata = object.metadata;
  if (!isObject(metadata) || typeof metadata.uid !== 'string' || metadata.uid === '' || typeof metadata.name !== 'string' || !optionalString(metadata.namespace)) return null;
  return { receivedAt: Date.parse(time), type: type as ObservationType, object: object as unknown as Observation['object'] };
}
