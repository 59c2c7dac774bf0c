// Replay: a recorded trace through the same observation path as the live watcher.

import type { ObservationSink } from '../../observation/types.ts';
import { readTraceBatches } from './read.ts';

/** Feeds every observation of `input` to `engine`; `onProgress` is called every 100,000 of them. */
export async function replayTrace<Counts>(
  input: AsyncIterable<Buffer | string> | Iterable<Buffer | string>,
  engine: ObservationSink<Counts>,
  onProgress?: (counts: Counts) => void,
  /** Skips observations at or before this time (already held by a store). */
  after: number | null = null,
): Promise<Counts> {
  let n = 0;
  for await (const batch of readTraceBatches(input)) {
    for (const observation of batch) {
      if (after !== null && observation.receivedAt <= after) continue;
      engine.observe(observation);
      if (onProgress !== undefined && ++n % 100_000 === 0) onProgress(engine.counts);
    }
  }
  return engine.counts;
}
