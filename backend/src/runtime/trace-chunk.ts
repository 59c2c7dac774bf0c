// One chunk of a trace (whole lines) into the compact records the engine applies: what a worker thread
// does (trace-worker.ts), and what the replay does itself while the workers start. Line numbers are the
// chunk's own (from 1); the replay adds the lines of the chunks before, and checks time order across
// chunks, as it applies them in order. No zod on this path (a worker never loads it): the checks are
// check.ts's, and a line they refuse is named by parse.ts's schema on the replay's side (refusalOf).

import { checkedObservation, notJson } from '../sources/trace/check.ts';
import { lineText, linesOf } from '../sources/trace/lines.ts';
import type { SpecReuse } from '../sources/trace/reuse.ts';
import { viewClusterObservation, type ClusterViewedObservation } from '../nodes/viewed.ts';
import type { SpecFieldsCache } from '../timeline/jobset.ts';

/**
 * The spec fields of the views of specs that SpecReuse hands out: a kept spec is one object shared by
 * every line with its text, and never changed, so its fields are worked out once (by object: a spec
 * parsed with its line is its own object and is collected with it).
 */
const keptSpecFields: SpecFieldsCache = new WeakMap();

/** The first bad line of a chunk (in the chunk, from 1): what is wrong with it, or its text when the checks refused it (refusalOf says why). */
export type ChunkError = { line: number; detail: string } | { line: number; refused: string };

export interface ViewedChunk {
  /** The lines of the chunk, blank ones included. */
  lines: number;
  observations: ClusterViewedObservation[];
  /** The line (in the chunk, from 1) of each observation. */
  lineNumbers: Int32Array;
  /** The first bad line: the observations stop before it. */
  error: ChunkError | null;
}

/**
 * `chunk`: whole lines, the last one with or without its newline; `poolLabel`: the pool layer's option;
 * `specs`: the parses of specs kept across the chunks of one replay (or one worker), or none.
 */
export function viewTraceChunk(chunk: Buffer | string, poolLabel: string | null, specs: SpecReuse | null = null): ViewedChunk {
  const raws = linesOf(chunk);
  const observations: ClusterViewedObservation[] = [];
  const lineNumbers = new Int32Array(raws.length);
  let error: ChunkError | null = null;
  for (let i = 0; i < raws.length; i++) {
    const line = lineText(raws[i]!);
    if (line === null) continue;
    let json: unknown;
    try {
      json = specs === null ? JSON.parse(line) : specs.parse(line);
    } catch (e) {
      error = { line: i + 1, detail: notJson(e) };
      break;
    }
    const observation = checkedObservation(json);
    if (observation === null) {
      error = { line: i + 1, refused: line };
      break;
    }
    lineNumbers[observations.length] = i + 1;
    observations.push(viewClusterObservation(observation, poolLabel, specs === null ? null : keptSpecFields));
  }
  return { lines: raws.length, observations, lineNumbers: lineNumbers.slice(0, observations.length), error };
}
