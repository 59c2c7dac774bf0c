// A trace file read into two refilled buffers (trace-workers.ts traceFileReads) replays as the same
// text given whole does (sources/trace replayTrace): every read size against every chunk size, a
// piece shorter than a chunk kept by the chunker past the next read included.

import fc from 'fast-check';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simulateFleet } from '../sources/simulator/index.ts';
import { replayTrace } from '../sources/trace/replay.ts';
import { TimelineEngine } from '../timeline/engine.ts';
import { timelineAsRead } from '../timeline/types.ts';
import { replayTraceInWorkers, traceFileReads, traceInput } from './trace-workers.ts';

const dir = mkdtempSync(join(tmpdir(), 'upness-reads-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const text = [...simulateFleet({ jobsets: 6, days: 1, seed: 7 }).traceLines()].map((l) => `${l}\n`).join('');
const file = join(dir, 'trace.jsonl');
writeFileSync(file, text);

function held(engine: TimelineEngine): unknown {
  return { timelines: engine.timelines().map(timelineAsRead), counts: engine.counts, horizon: engine.horizon };
}

const expected = (async () => {
  const engine = new TimelineEngine();
  await replayTrace([text], engine);
  return held(engine);
})();

describe('traceFileReads', () => {
  it('yields the file in views of two buffers in turn, each read as long as asked but the last', async () => {
    const pieces: Buffer[] = [];
    const copies: string[] = [];
    for await (const piece of traceFileReads(file, 4096)) {
      pieces.push(piece);
      copies.push(piece.toString('latin1'));
    }
    expect(copies.join('')).toBe(Buffer.from(text).toString('latin1'));
    expect(new Set(pieces.map((p) => p.buffer)).size).toBe(2);
    expect(pieces.every((p, i) => i < 2 || p.buffer === pieces[i - 2]!.buffer)).toBe(true);
    expect(pieces.slice(0, -1).every((p) => p.length === 4096)).toBe(true);
  });

  it('replays as the whole text does, whatever the reads and the chunks (a short piece is copied before the next read)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 512, max: 40_000 }), fc.integer({ min: 1024, max: 80_000 }), async (readBytes, chunkBytes) => {
        const engine = new TimelineEngine();
        await replayTraceInWorkers(traceFileReads(file, readBytes), engine, { workers: 0, chunkBytes });
        expect(held(engine)).toEqual(await expected);
      }),
      { numRuns: 25 },
    );
  });

  it('is what traceInput reads for a file, and fails as opening the file fails, naming it', async () => {
    const engine = new TimelineEngine();
    await replayTraceInWorkers(traceInput(file), engine, { workers: 0 });
    expect(held(engine)).toEqual(await expected);
    await expect(replayTraceInWorkers(traceInput(join(dir, 'missing.jsonl')), new TimelineEngine(), { workers: 0 })).rejects.toMatchObject({ code: 'ENOENT', path: join(dir, 'missing.jsonl') });
  });
});
