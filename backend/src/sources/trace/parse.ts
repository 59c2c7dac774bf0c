// One trace line (JSON Lines: {"time", "type", "object"}) into an observation, or an error that
// names the line and what is wrong with it.

import { z } from 'zod';
import type { Observation } from '../../observation/types.ts';

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

const TYPES = ['ADDED', 'MODIFIED', 'DELETED'] as const;

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
    throw new TraceError(line, `not valid JSON (${(error as Error).message})`);
  }
  const parsed = lineSchema.safeParse(json);
  if (!parsed.success) throw new TraceError(line, describeIssue(parsed.error.issues[0]!));
  const { time, type, object } = parsed.data;
  if (!(TYPES as readonly string[]).includes(type)) {
    throw new TraceError(line, `unknown type "${type}" (expected ${TYPES.join(', ')})`);
  }
  return { receivedAt: Date.parse(time), type: type as Observation['type'], object: object as Observation['object'] };
}

/** Serializes an observation as one trace line (no trailing newline). */
export function formatTraceLine(observation: Observation): string {
  return JSON.stringify({ time: new Date(observation.receivedAt).toISOString(), type: observation.type, object: observation.object });
}
