// One chunk of a trace (whole lines) into the compact records the engine applies: what a worker thread
// does (trace-worker.ts), and what the replay does itself while the workers start. Line numbers are the
// chunk's own (from 1); the replay adds the lines of the chunks before, and checks time order across
// chunks, as it applies them in order.

import { parseTraceLine, TraceError } from '../sources/trace/parse.ts';
import { lineText, linesOf } from '../sources/trace/read.ts';
import { viewClusterObservation, type ClusterViewedObservation } from '../nodes/viewed.ts';

export interface ViewedChunk {
  /** The lines of the chunk, blank ones included. */
  lines: number;
  observations: ClusterViewedObservation[];
  /** The line (in the chunk, from 1) of each observation. */
  lineNumbers: Int32Array;
  /** The first bad line (in the chunk) and what is wrong with it: the observations stop before it. */
  error: { line: number; detail: string } | null;
}

/** `chunk`: whole lines, the last one with or without its newline; `poolLabel`: the pool layer's option. */
export function viewTraceChunk(chunk: Buffer | string, poolLabel: string | null): ViewedChunk {
  const raws = linesOf(chunk);
  const observations: ClusterViewedObservation[] = [];
  const lineNumbers = new Int32Array(raws.length);
  let error: ViewedChunk['error'] = null;
  for (let i = 0; i < raws.length; i++) {
    const line = lineText(raws[i]!);
    if (line === null) continue;
    try {
      lineNumbers[observations.length] = i + 1;
      observations.push(viewClusterObservation(parseTraceLine(line, i + 1), poolLabel));
    } catch (e) {
      if (!(e instanceof TraceError)) throw e;
      error = { line: e.line, detail: e.detail };
      break;
    }
  }
  return { lines: raws.length, observations, lineNumbers: lineNumbers.slice(0, observations.length), error };
}
