// Replay on worker threads (trace-workers.ts) against the in-thread replay (sources/trace), every chunk
// parsed by the workers or the lines shared between a worker and the main thread: the same timelines of
// every layer, the same facts in the same order, the same errors naming the same lines, and no worker
// thread left once a replay has ended or failed.

import fc from 'fast-check';
import { simulateFleet } from '../sources/simulator/index.ts';
import { replayTrace } from '../sources/trace/replay.ts';
import { ClusterEngine } from '../nodes/engine.ts';
import type { Fact } from '../timeline/facts.ts';
import { TimelineEngine } from '../timeline/engine.ts';
import { timelineFields, transitionsOf, type Timeline } from '../timeline/types.ts';
import { defaultParseWorkers, liveTraceWorkers, replayTraceInWorkers } from './trace-workers.ts';

/** A simulated cluster's trace (JobSets, their Pods and Nodes, Kueue's Workloads), in chunks of `size` characters. */
function trace(seed: number, jobsets = 12, size = 64 << 10): { lines: string[]; chunks: string[] } {
  const lines = [...simulateFleet({ jobsets, days: 1, seed, nodes: true, workloads: true }).traceLines()];
  const text = lines.map((l) => `${l}\n`).join('');
  const chunks: string[] = [];
  for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
  return { lines, chunks };
}

/** Everything an engine holds and told, to compare two replays. */
function record(poolLabel: string | null): { engine: ClusterEngine; facts: Fact[]; updates: string[] } {
  const facts: Fact[] = [];
  const updates: string[] = [];
  const engine = new ClusterEngine({ onFact: (f) => facts.push(f), onUpdate: (u) => updates.push(JSON.stringify([u.timeline.uid, u.added, u.at, u.deleted])), pools: { poolLabel } });
  return { engine, facts, updates };
}

/** Timelines with their transitions as objects, to compare two engines: a closed run's are held as a record of the process's arena (timeline/arena.ts), its number another in each engine. */
function read(timelines: readonly Timeline[]): unknown[] {
  return timelines.map((tl) => ({ ...timelineFields(tl), transitions: transitionsOf(tl) }));
}

function held(r: ReturnType<typeof record>): unknown {
  const { engine } = r;
  return { timelines: read(engine.timelines()), nodes: read(engine.nodeTimelines()), pools: read(engine.poolTimelines()), counts: engine.counts, horizon: engine.horizon, facts: r.facts, updates: r.updates };
}

/** How the lines are shared: every chunk to the workers, or the main thread parsing those no worker has room for. */
type Mode = 'workers only' | 'shared';

/** Replays through the workers once they have started (every chunk sent to them, or shared with this thread), and says how many chunks went where. */
async function inWorkers<C>(
  chunks: AsyncIterable<Buffer | string> | Iterable<Buffer | string>,
  engine: Parameters<typeof replayTraceInWorkers<C>>[1],
  options: Parameters<typeof replayTraceInWorkers<C>>[2] = {},
  mode: Mode = 'workers only',
): Promise<{ here: number; workers: number; numbersMemory: number }> {
  let parsed = { here: 0, workers: 0, numbersMemory: 0 };
  const sharing = mode === 'shared' ? { workers: 1, mainThreadParses: true } : { workers: 2, mainThreadParses: false };
  await replayTraceInWorkers(chunks, engine, { ...sharing, inThreadBytes: 0, waitForWorkers: true, chunkBytes: 16 << 10, onDone: (c) => (parsed = c), ...options });
  return parsed;
}

describe('replay on worker threads', () => {
  it.each([
    [1, 'workers only'],
    [2, 'workers only'],
    [1, 'shared'],
    [2, 'shared'],
  ] as const)('gives every layer the same timelines, facts and updates as the in-thread replay (seed %i, %s)', async (seed, mode) => {
    const { lines, chunks } = trace(seed);
    expect(lines.some((l) => l.includes('"kind":"Pod"')) && lines.some((l) => l.includes('"kind":"Node"')) && lines.some((l) => l.includes('"kind":"Workload"'))).toBe(true);
    const here = record('example.com/pool');
    await replayTrace(chunks, here.engine);
    const there = record('example.com/pool');
    const parsed = await inWorkers(chunks, there.engine, { poolLabel: there.engine.poolLayer.poolLabel }, mode);
    if (mode === 'workers only') expect(parsed).toEqual({ here: 0, workers: expect.any(Number), numbersMemory: expect.any(Number) });
    // Shared: a worker holds two chunks at a time, so the third of a row that it has not answered is parsed here.
    else expect(parsed.here).toBeGreaterThan(0);
    expect(parsed.workers).toBeGreaterThan(mode === 'shared' ? 1 : 100);
    expect(parsed.here + parsed.workers).toBeGreaterThan(100);
    expect(here.engine.counts.observations).toBe(lines.length);
    expect(here.engine.nodeTimelines().length).toBeGreaterThan(0);
    expect(held(there)).toEqual(held(here));
    expect(liveTraceWorkers()).toBe(0);
  });

  it.each(['workers only', 'shared'] as const)("writes a chunk's numbers into memory that the replay handed back once it applied an earlier chunk's (%s)", async (mode) => {
    const { chunks } = trace(10);
    const here = record(null);
    await replayTrace(chunks, here.engine);
    const there = record(null);
    const parsed = await inWorkers(chunks, there.engine, {}, mode);
    expect(parsed.workers).toBeGreaterThan(mode === 'shared' ? 20 : 100);
    // A block for each chunk a worker holds at once, not one for every chunk.
    expect(parsed.numbersMemory).toBeGreaterThan(0);
    expect(parsed.numbersMemory).toBeLessThanOrEqual(mode === 'shared' ? 8 : 16);
    expect(held(there)).toEqual(held(here));
    expect(liveTraceWorkers()).toBe(0);
  });

  it('parses the lines a pipe delivers after it went quiet, through the workers, until it ends', async () => {
    const { lines, chunks } = trace(11);
    const here = record(null);
    await replayTrace(chunks, here.engine);
    const text = chunks.join('');
    const quiet = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 200));
    const pieces: number[] = [];
    // A writer that stops for a while twice, as a trace piped from a live recorder does, read 4 KiB at a time.
    async function* pipe(): AsyncGenerator<string> {
      const thirds = [0, 1, 2, 3].map((k) => Math.floor((text.length * k) / 3));
      for (let k = 0; k < 3; k++) {
        if (k > 0) await quiet();
        for (let at = thirds[k]!; at < thirds[k + 1]!; at += 4096) {
          pieces.push(k);
          yield text.slice(at, Math.min(at + 4096, thirds[k + 1]!));
        }
      }
    }
    const there = record(null);
    const parsed = await inWorkers(pipe(), there.engine, { chunkBytes: 8 << 10 }, 'shared');
    expect(pieces.filter((k) => k === 2).length).toBeGreaterThan(10);
    expect(parsed.workers).toBeGreaterThan(10);
    expect(there.engine.counts.observations).toBe(lines.length);
    expect(held(there)).toEqual(held(here));
    expect(liveTraceWorkers()).toBe(0);
  });

  it('starts one worker fewer than the cores by default, the main thread parsing a share (none on one core)', () => {
    expect([1, 2, 4, 8].map((cores) => defaultParseWorkers(cores))).toEqual([0, 1, 3, 7]);
  });

  it('skips what a store holds (after) as the in-thread replay does', async () => {
    const { lines, chunks } = trace(3);
    const after = JSON.parse(lines[Math.floor(lines.length / 2)]!) as { time: string };
    const here = new TimelineEngine();
    await replayTrace(chunks, here, undefined, Date.parse(after.time));
    for (const mode of ['workers only', 'shared'] as const) {
      const there = new TimelineEngine();
      await inWorkers(chunks, there, { after: Date.parse(after.time) }, mode);
      expect(read(there.timelines())).toEqual(read(here.timelines()));
      expect(there.counts).toEqual(here.counts);
    }
  });

  it('starts in this thread while the workers start, and stays there for a small trace', async () => {
    const { chunks } = trace(4, 2);
    const text = chunks.join('');
    expect(text.length).toBeLessThan(16 << 20);
    const here = new TimelineEngine();
    await replayTrace(chunks, here);
    let parsed = { here: 0, workers: 0, numbersMemory: 0 };
    const small = new TimelineEngine();
    await replayTraceInWorkers(chunks, small, { workers: 2, onDone: (c) => (parsed = c) });
    expect(parsed).toEqual({ here: expect.any(Number), workers: 0, numbersMemory: 0 });
    expect(read(small.timelines())).toEqual(read(here.timelines()));
    // Past the threshold at once: the first chunk cannot wait for a worker that has not started yet.
    const mixed = new TimelineEngine();
    await replayTraceInWorkers(chunks, mixed, { workers: 2, inThreadBytes: 0, chunkBytes: 4 << 10, onDone: (c) => (parsed = c) });
    expect(parsed.here).toBeGreaterThanOrEqual(1);
    expect(parsed.here + parsed.workers).toBeGreaterThan(20);
    expect(read(mixed.timelines())).toEqual(read(here.timelines()));
  });

  it('reads Buffers as a file stream gives them, characters cut in two between reads, as the text itself', async () => {
    const { lines } = trace(9);
    // A free text the timelines keep (the Suspended condition's message), made of multi-byte characters.
    const text = lines.map((l) => `${l.replaceAll('jobset is suspended', 'JobSet angehalten — 2 × wartend')}\n`).join('');
    const bytes = Buffer.from(text, 'utf8');
    const reads: Buffer[] = [];
    for (let at = 0; at < bytes.length; at += 7001) reads.push(bytes.subarray(at, at + 7001));
    const here = record(null);
    await replayTrace([text], here.engine);
    expect(JSON.stringify(read(here.engine.timelines()))).toContain('JobSet angehalten — 2 × wartend');
    const inThread = record(null);
    await replayTrace(reads, inThread.engine);
    const there = record(null);
    expect((await inWorkers(reads, there.engine, { chunkBytes: 3000 })).workers).toBeGreaterThan(10);
    expect(held(inThread)).toEqual(held(here));
    expect(held(there)).toEqual(held(here));
    // The reads were copied to the workers, not taken from their owner.
    expect(Buffer.concat(reads).toString('utf8')).toBe(text);
    expect(liveTraceWorkers()).toBe(0);
  });

  /** The error of a replay: in-thread, through the workers alone, and shared between a worker and the main thread. */
  async function errors(text: string): Promise<[string, string, string]> {
    const chunks = [text.slice(0, 5000), text.slice(5000)];
    const here = await replayTrace(chunks, new TimelineEngine()).then(() => 'no error', (e: Error) => e.message);
    const there = await inWorkers(chunks, new TimelineEngine(), { chunkBytes: 3000 }).then(() => 'no error', (e: Error) => e.message);
    const shared = await inWorkers(chunks, new TimelineEngine(), { chunkBytes: 3000 }, 'shared').then(() => 'no error', (e: Error) => e.message);
    return [here, there, shared];
  }

  it('names a malformed line by its number in the whole trace, blank lines counted', async () => {
    const { lines } = trace(5);
    const text = [...lines.slice(0, 40), '', '\r', ...lines.slice(40, 60), '{"time": "2026-01-01T00:00:00Z"', ...lines.slice(60)].join('\n');
    const [here, there, shared] = await errors(text);
    expect(here).toMatch(/^line 63: not valid JSON/);
    expect(there).toBe(here);
    expect(shared).toBe(here);
    expect(liveTraceWorkers()).toBe(0);
  });

  it('names a line that goes back in time, across the chunks of different workers', async () => {
    const { lines } = trace(6);
    const text = [...lines.slice(0, 50), lines[0]!, ...lines.slice(50)].join('\n');
    const [here, there, shared] = await errors(text);
    expect(here).toMatch(/^line 51: goes back in time/);
    expect(there).toBe(here);
    expect(shared).toBe(here);
    expect(liveTraceWorkers()).toBe(0);
  });

  it('names a line whose fields are wrong (the checks of parse.ts, in the worker)', async () => {
    const { lines } = trace(7);
    const text = [...lines.slice(0, 30), '{"time":"2026-01-01T00:00:00Z","type":"UPDATED","object":{"metadata":{"uid":"u","name":"n"}}}', ...lines.slice(30)].join('\n');
    const [here, there, shared] = await errors(text);
    expect(here).toMatch(/^line 31: unknown type "UPDATED"/);
    expect(there).toBe(here);
    expect(shared).toBe(here);
  });

  it('gives the same timelines, counts and first error as one thread, over generated traces (relists, deletions, bad lines)', async () => {
    const bad = ['{"time": "2026-01-01T00:00:00Z"', '{"time":"2026-01-01T00:00:00Z","type":"UPDATED","object":{"metadata":{"uid":"u","name":"n"}}}', 'BACK IN TIME', '', '\r', 'not json — ü'];
    await fc.assert(
      fc.asyncProperty(
        fc.nat(1000),
        fc.array(fc.tuple(fc.nat(1 << 16), fc.constantFrom('relist', 'delete', 'spaced', 'bad')), { maxLength: 6 }),
        fc.nat(bad.length - 1),
        fc.constantFrom(1, 2),
        async (seed, edits, badKind, workers) => {
          const lines = [...simulateFleet({ jobsets: 6, days: 1, seed, nodes: seed % 2 === 0, workloads: true }).traceLines()];
          for (const [at, edit] of edits) {
            const i = at % lines.length;
            const line = lines[i]!;
            // A relist delivers an object again as ADDED; a deletion ends it; a key written with spaces hides its UID from the specs' reuse.
            if (edit === 'relist') lines.splice(i + 1, 0, line.replace(/"type":"(MODIFIED|DELETED)"/, '"type":"ADDED"'));
            else if (edit === 'delete') lines[i] = line.replace('"type":"MODIFIED"', '"type":"DELETED"');
            else if (edit === 'spaced') lines[i] = line.replace('"uid":"', '"uid": "');
            else lines.splice(i, 0, bad[badKind] === 'BACK IN TIME' ? lines[0]! : bad[badKind]!);
          }
          const text = lines.map((l) => `${l}\n`).join('');
          const chunks = [Buffer.from(text, 'utf8')];
          const here = record(null);
          const hereError = await replayTrace(chunks, here.engine).then(() => 'no error', (e: Error) => e.message);
          const there = record(null);
          // One worker and the main thread sharing the chunks, or two workers parsing them all.
          const mode: Mode = workers === 1 ? 'shared' : 'workers only';
          const thereError = await inWorkers(chunks, there.engine, { chunkBytes: 8 << 10 }, mode).then(() => 'no error', (e: Error) => e.message);
          expect(thereError).toBe(hereError);
          // After an error, what the replay applied is every observation before the bad line (the
          // in-thread reader applies none of the bad line's read; the lines before it replayed alone are the truth).
          const badLine = /^line (\d+):/.exec(hereError);
          const truth = record(null);
          await replayTrace(badLine === null ? chunks : [lines.slice(0, Number(badLine[1]) - 1).join('\n')], truth.engine);
          expect(held(there)).toEqual(held(truth));
        },
      ),
      { numRuns: 8 },
    );
    expect(liveTraceWorkers()).toBe(0);
  }, 120_000);

  it('leaves no worker running when the input itself fails', async () => {
    const { chunks } = trace(8);
    async function* failing(): AsyncGenerator<string> {
      yield* chunks.slice(0, 10);
      throw new Error('the disk went away');
    }
    await expect(inWorkers(failing(), new TimelineEngine())).rejects.toThrow('the disk went away');
    expect(liveTraceWorkers()).toBe(0);
  });
});
