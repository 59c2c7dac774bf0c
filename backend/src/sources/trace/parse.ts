// One trace line (JSON Lines: {"time", "type", "object"}) into an observation, or an error that
// names the line and what is wrong with it. The checks themselves run by hand (check.ts); the schema
// here says what is wrong with a line they refuse.

import { z } from 'zod';
import type { Observation } from '../../observation/types.ts';
import { checkedObservation, notJson, TraceError, TYPES } from './check.ts';

export { TraceError } from './check.ts';

// Only what routing needs is checked here; what an object means is the timeline stage's business.
const lineSchema = z.object({
  time: z.iso.datetime({
    offset: true,
    // Keep zod's own "received undefined" for a missing field; say what a good time looks like otherwise.
    error: (issue) => (issue.input === undefined ? undefined : 'must be an RFC 3339 time such as 2026-01-01T00:00:00Z'),
  }),
  type: z.string(),
  object: z.looseObject({
    kind: z.string().optional(),
    apiVersion: z.string().optional(),
    metadata: z.looseObject({
      uid: z.string().min(1, 'must not be empty'),
      name: z.string(),
      namespace: z.string().optional(),
    }),
  }),
});

function describeIssue(issue: z.core.$ZodIssue): string {
  const path = issue.path.join('.');
  const message = issue.message.replace(/^Invalid input: /, '');
  if (path === '') return `the line must be a JSON object (${message})`;
  if (issue.code === 'invalid_type' && message.endsWith('received undefined')) return `missing field "${path}"`;
  return `field "${path}" ${message}`;
}

export function parseTraceLine(text: string, line: number): Observation {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new TraceError(line, notJson(error));
  }
  return checkedObservation(json) ?? refuse(json, line);
}

/** What is wrong with a line (valid JSON) that the checks of check.ts refused. */
export function refusalOf(text: string): string {
  try {
    refuse(JSON.parse(text), 0);
  } catch (error) {
    if (error instanceof TraceError) return error.detail;
    throw error;
  }
}

/** The schema's verdict on a parsed line, with the type check: what check.ts must agree with (its tests). */
export function schemaAccepts(json: unknown): boolean {
  const parsed = lineSchema.safeParse(json);
  return parsed.success && (TYPES as readonly string[]).includes(parsed.data.type);
}

/** Throws the error of a line that the checks refused: the schema's first issue, or its unknown type. */
function refuse(json: unknown, line: number): never {
  const parsed = lineSchema.safeParse(json);
  if (!parsed.success) throw new TraceError(line, describeIssue(parsed.error.issues[0]!));
  const { type } = parsed.data;
  if (!(TYPES as readonly string[]).includes(type)) {
    throw new TraceError(line, `unknown type "${type}" (expected ${TYPES.join(', ')})`);
  }
  // check.ts and the schema disagree: a bug, never a bad line.
  throw new Error(`line ${line}: the checks of trace lines refused a line that their schema accepts`);
}

/** Serializes an observation as one trace line (no trailing newline). */
export function formatTraceLine(observation: Observation): string {
  return JSON.stringify({ time: new Date(observation.receivedAt).toISOString(), type: observation.type, object: observation.object });
}
