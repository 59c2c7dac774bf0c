// Helpers around the simulator's stream: trace lines (DESIGN.md's trace format), writing them to a
// stream with back-pressure, and the average serialized object size that the benchmarks report.

import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { KubeObject, Observation } from '../../observation/types.ts';
import { specJson } from './manifest.ts';

const SIMULATED_KEYS = ['apiVersion', 'kind', 'metadata', 'spec', 'status'];

/**
 * JSON.stringify(object), byte for byte, but several times faster for the simulator's JobSets: their
 * specs are shared and frozen, and their JSON text is kept, so only metadata and status are walked.
 * Any other object (or one with extra or reordered keys) goes through JSON.stringify.
 */
export function objectJson(object: KubeObject): string {
  const spec = specJson(object.spec);
  if (spec === undefined) return JSON.stringify(object);
  let i = 0;
  for (const key in object) {
    if (key !== SIMULATED_KEYS[i]) return JSON.stringify(object);
    i++;
  }
  if (i !== SIMULATED_KEYS.length) return JSON.stringify(object);
  return (
    `{"apiVersion":${JSON.stringify(object.apiVersion)},"kind":${JSON.stringify(object.kind)},` +
    `"metadata":${JSON.stringify(object.metadata)},"spec":${spec},"status":${JSON.stringify(object.status)}}`
  );
}

/** One trace line (without the newline): {"time", "type", "object"}, time in RFC 3339 with milliseconds. */
export function traceLine(o: Observation): string {
  return `{"time":"${new Date(o.receivedAt).toISOString()}","type":"${o.type}","object":${objectJson(o.object)}}`;
}

/**
 * Writes observations as JSON Lines to `stream`, waiting for 'drain' when it is full. Does not end
 * the stream. Resolves to the number of lines written.
 */
export async function writeTrace(observations: Iterable<Observation>, stream: Writable): Promise<number> {
  const CHUNK = 1 << 20;
  let buffer = '';
  let lines = 0;
  for (const o of observations) {
    buffer += traceLine(o) + '\n';
    lines++;
    if (buffer.length >= CHUNK) {
      const ok = stream.write(buffer);
      buffer = '';
      if (!ok) await once(stream, 'drain');
    }
  }
  if (buffer.length > 0 && !stream.write(buffer)) await once(stream, 'drain');
  return lines;
}

/** Mean size in bytes of the serialized object over the first `limit` observations of a sample. */
export function averageObjectBytes(observations: Iterable<Observation>, limit = 10_000): number {
  let n = 0;
  let bytes = 0;
  for (const o of observations) {
    if (n >= limit) break;
    bytes += Buffer.byteLength(objectJson(o.object));
    n++;
  }
  return n === 0 ? 0 : bytes / n;
}
