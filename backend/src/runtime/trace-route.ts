// A chunk's lines routed to the threads that parse them, by the object each line is about: every line
// of one object (one UID) goes to the same thread, so each thread learns only its own JobSets' specs
// (sources/trace/reuse.ts: a spec not kept yet costs a line about four lines' worth, and with whole
// chunks shared, every thread learnt every JobSet's). Which thread owns an object is a table of
// buckets (a hash of its UID) that the replay may change as it learns which side keeps up.
//
// Routing decides only who parses a line, never what it says: the replay applies the parts' views by
// their line numbers in the chunk, so the order, the observations and the errors are those of one
// thread. A line whose UID the scan cannot find (no `"uid":"` in it: a blank line, a line written with
// spaces, a bad line) is routed by its number; any line may go to any thread.

import type { ClusterViewedObservation } from '../nodes/viewed.ts';
import type { ChunkError } from './trace-chunk.ts';

/** Buckets of the owners' table: each is about 1/BUCKETS of the objects. */
export const BUCKETS = 256;

const UID_KEY = Buffer.from('"uid":"');
const QUOTE = 0x22;
const NEWLINE = 10;
/** A UID longer than this is hashed on its first bytes (Kubernetes UIDs have 36). */
const UID_BYTES = 128;

/** The lines this thread parses: their text and their number in the chunk (from 1). */
export interface HerePart {
  texts: string[];
  numbers: Int32Array;
}

/** The lines of one worker: their bytes, each line ended by a newline, and their numbers in the chunk (from 1). */
export interface AwayPart {
  bytes: Buffer;
  numbers: Int32Array;
}

export interface RoutedChunk {
  /** Lines in the chunk, blank ones included. */
  lines: number;
  here: HerePart;
  /** One part a worker (index w: the owner w + 1), empty ones included. */
  away: AwayPart[];
}

/**
 * Splits `chunk` (whole lines, the last with or without its newline) by owner: `owners[bucket]` is 0
 * for this thread and w + 1 for worker w. `take(n)`: n bytes of memory for a worker's part.
 */
export function routeChunk(chunk: Buffer, owners: Uint8Array, workers: number, take: (length: number) => Buffer): RoutedChunk {
  const texts: string[] = [];
  const hereNumbers: number[] = [];
  // A worker's part is at most the chunk and a newline after an unended last line.
  const away = Array.from({ length: workers }, () => ({ bytes: null as Buffer | null, used: 0, numbers: [] as number[] }));
  let line = 0;
  // Where the next `"uid":"` at or after the line's start is (-1: none is left in the chunk): a line
  // without one does not search the rest of the chunk again.
  let nextUid = -2;
  for (let start = 0; start < chunk.length; ) {
    const nl = chunk.indexOf(NEWLINE, start);
    const end = nl === -1 ? chunk.length : nl;
    line++;
    if (nextUid !== -1 && nextUid < start) nextUid = chunk.indexOf(UID_KEY, start);
    const bucket = nextUid !== -1 && nextUid < end ? uidBucket(chunk, nextUid + UID_KEY.length, end) : line % BUCKETS;
    const owner = owners[bucket]!;
    if (owner === 0) {
      texts.push(chunk.toString('utf8', start, end));
      hereNumbers.push(line);
    } else {
      const part = away[owner - 1]!;
      part.bytes ??= take(chunk.length + 1);
      part.used += chunk.copy(part.bytes, part.used, start, end);
      part.bytes[part.used++] = NEWLINE;
      part.numbers.push(line);
    }
    start = end + 1;
  }
  return {
    lines: line,
    here: { texts, numbers: Int32Array.from(hereNumbers) },
    away: away.map((p) => ({ bytes: p.bytes === null ? Buffer.alloc(0) : p.bytes.subarray(0, p.used), numbers: Int32Array.from(p.numbers) })),
  };
}

/** The bucket of the UID whose bytes begin at `from` (up to its closing quote, the line's end or UID_BYTES): FNV-1a. */
export function uidBucket(bytes: Buffer, from: number, end: number): number {
  let hash = 0x811c9dc5;
  const to = Math.min(end, from + UID_BYTES);
  for (let i = from; i < to; i++) {
    const b = bytes[i]!;
    if (b === QUOTE) break;
    hash = Math.imul(hash ^ b, 0x01000193);
  }
  return (hash >>> 0) % BUCKETS;
}

/** The owners' table at the start: the buckets dealt to this thread and the workers in turn. */
export function dealtOwners(workers: number): Uint8Array {
  const owners = new Uint8Array(BUCKETS);
  for (let b = 0; b < BUCKETS; b++) owners[b] = b % (workers + 1);
  return owners;
}

/** A part's observations with their lines in the chunk, in order, and its first bad line (in the chunk). */
export interface PartViews {
  lines: number[];
  observations: ClusterViewedObservation[];
  error: ChunkError | null;
}

/** Calls `each` with the parts' observations in the order of their lines, up to the first bad line of any part; returns that line's error. */
export function mergeParts(parts: readonly PartViews[], each: (observation: ClusterViewedObservation, line: number) => void): ChunkError | null {
  let error: ChunkError | null = null;
  for (const p of parts) if (p.error !== null && (error === null || p.error.line < error.line)) error = p.error;
  const stop = error === null ? Infinity : error.line;
  const next = parts.map(() => 0);
  for (;;) {
    let best = -1;
    for (let k = 0; k < parts.length; k++) {
      const line = parts[k]!.lines[next[k]!];
      if (line !== undefined && (best === -1 || line < parts[best]!.lines[next[best]!]!)) best = k;
    }
    if (best === -1 || parts[best]!.lines[next[best]!]! > stop) return error;
    const at = next[best]!++;
    each(parts[best]!.observations[at]!, parts[best]!.lines[at]!);
  }
}
