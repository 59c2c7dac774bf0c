// Replay: a recorded trace through the same observation path as the live watcher.

import type { EngineCounts, TimelineEngine } from '../timeline/engine.ts';
import { readTrace } from './read.ts';

/** Feeds every observation of `input` to `engine`; `onProgress` is called every 100,000 of them. */
export async function replayTrace(
  input: AsyncIterable<Buffer | string> | Iterable<Buffer | string>,
  engine: TimelineEngine,
  onProgress?: (counts: EngineCounts) => void,
  /** Skips observations at or before this time (already held by a store). */
  after: number | null = null,
): Promise<EngineCounts> {
  let n = 0;
  for await (const observation of readTrace(input)) {
    if (after !== null && observation.receivedAt <= after) continue;
    engine.observe(observation);
    if (onProgress !== undefined && ++n % 100_000 === 0) onProgress(engine.counts);
  }
  return engine.counts;
}
