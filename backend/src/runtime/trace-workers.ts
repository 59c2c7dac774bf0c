// Replay on every core: worker threads and this thread split and parse a trace's lines and reduce each
// object to the compact record the engine applies (trace-chunk.ts). A worker sends its chunk's records as
// numbers in one transferred buffer with the strings new to its table (trace-views.ts); this thread
// rebuilds each view as it applies it, hands the buffer back with the worker's next chunk (a worker
// writes into the same few buffers, not a new one a chunk: spare-memory.ts), and applies the chunks it
// parsed itself as they are. Chunks are applied strictly in line order; this thread checks time order
// across chunks and names a bad line exactly as the in-thread reader does (sources/trace). JSON.parse
// and the garbage it leaves are most of a replay's time.
//
// Who parses what adapts to the speed of each side: a chunk goes to a worker that holds fewer than two,
// else this thread parses it. By default there is one worker fewer than the cores (none on one core),
// since this thread takes a share: on 2 cores one worker and this thread share the lines.
//
// Until the workers have started, and for a trace smaller than `inThreadBytes` (16 MiB), chunks are
// parsed here: a worker loads the parser and its modules first (no zod: a line the checks refuse is
// named here, by parse.ts's schema, loaded only then), which costs about as much CPU as parsing megabytes of trace
// here. Each thread parses a JobSet's spec once (sources/trace/reuse.ts). The workers are always
// terminated before the replay returns or throws.

import { open } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { TraceError } from '../sources/trace/check.ts';
import { backInTime } from '../sources/trace/lines.ts';
import { SpecReuse } from '../sources/trace/reuse.ts';
import type { ClusterViewedObservation } from '../nodes/viewed.ts';
import { viewTraceChunk, type ChunkError, type ViewedChunk } from './trace-chunk.ts';
import { SpareMemory } from './spare-memory.ts';
import { ViewDecoder, type EncodedViews } from './trace-views.ts';

/** An engine as the replay sees it (TimelineEngine, ClusterEngine). */
export interface ViewedSink<Counts> {
  observeViewed(observation: ClusterViewedObservation): unknown;
  readonly counts: Counts;
}

export interface TraceWorkersOptions<Counts> {
  /** Worker threads; default: one fewer than the cores available to the process (defaultParseWorkers). 0: parse in this thread only. */
  workers?: number;
  /**
   * This thread parses the chunks that no worker has room for (default true): on 2 cores one worker and
   * this thread share the lines. False: once a worker has started, every chunk goes to the workers and
   * this thread only applies (the benchmark's comparison).
   */
  mainThreadParses?: boolean;
  /** The pool layer's poolLabel (ClusterEngine.poolLayer.poolLabel): its view of a Node depends on it. */
  poolLabel?: string | null;
  /** Below this many bytes a trace is parsed in this thread (default 16 MiB, ~5,000 lines of JobSets; see the top). */
  inThreadBytes?: number;
  /** Lines go to a worker this many bytes at a time (default 256 KiB). */
  chunkBytes?: number;
  /** Called every 100,000 observations. */
  onProgress?: (counts: Counts) => void;
  /** Skips observations at or before this time (already held by a store). */
  after?: number | null;
  /** Once the workers are asked for, wait for them to start rather than parse here meanwhile (tests; with mainThreadParses false every chunk goes to a worker). */
  waitForWorkers?: boolean;
  /** Told at the end how many chunks were parsed in this thread and how many by the workers, and how many blocks of memory the workers made for their chunks' numbers (the rest were handed back). */
  onDone?: (chunks: { here: number; workers: number; numbersMemory: number }) => void;
}

const WORKER = join(import.meta.dirname, 'trace-worker.ts');
/** A worker's start on the sources stripped ahead (backend/bin/stripped-worker.js). */
const STRIPPED_WORKER = join(import.meta.dirname, '..', '..', 'bin', 'stripped-worker.js');

/**
 * How a worker starts: on the sources stripped ahead when this process runs on them (`upness`:
 * backend/bin/stripped-sources.js keeps their map at Symbol.for('upness.strippedSources')), so the
 * worker loads no type stripper of its own; else from its TypeScript, which Node strips.
 */
export function workerStart(poolLabel: string | null): { file: string; workerData: { poolLabel: string | null; strippedSources?: { byUrl: Map<string, string>; entry: string } } } {
  const byUrl = (globalThis as Record<symbol, unknown>)[Symbol.for('upness.strippedSources')];
  return byUrl instanceof Map ? { file: STRIPPED_WORKER, workerData: { poolLabel, strippedSources: { byUrl: byUrl as Map<string, string>, entry: pathToFileURL(WORKER).href } } } : { file: WORKER, workerData: { poolLabel } };
}

let live = 0;
/** Worker threads of trace replays that have not exited yet (tests check that none outlive a replay). */
export function liveTraceWorkers(): number {
  return live;
}

/**
 * The memory of chunks of bytes: each chunk is copied once into memory of its own, which is handed to
 * a worker without a copy and comes back with the chunk's result, to carry a later chunk. Fresh memory
 * for every chunk of 1 MiB cost the main thread more than applying the chunk's observations.
 */
class ChunkMemory {
  // Room for the partial line that a chunk of the next read begins with.
  readonly #spare = new SpareMemory({ headroom: 64 << 10 });
  readonly #ours = new WeakSet<ArrayBuffer>();

  /** `length` bytes of memory that is the chunk's alone (a whole ArrayBuffer, so it can be transferred). */
  take(length: number): Buffer {
    const memory = this.#spare.take(length);
    this.#ours.add(memory);
    return Buffer.from(memory, 0, length);
  }

  /** `bytes` copied into memory of their own. */
  copy(bytes: Buffer): Buffer {
    const own = this.take(bytes.length);
    own.set(bytes);
    return own;
  }

  ours(chunk: Buffer): boolean {
    return this.#ours.has(chunk.buffer as ArrayBuffer);
  }

  /** Memory whose chunk is done with (decoded: its lines are strings of their own). */
  give(memory: ArrayBuffer): void {
    this.#spare.give(memory);
  }
}

/** The memory of buffers that a reader fills again for its next piece (traceInput's): a piece of one is copied to be kept. */
const refilled = new WeakSet<ArrayBuffer>();

/**
 * A trace file's bytes, read 1 MiB at a time into two buffers in turn, the next read under way while
 * the last is used (each piece a view of one, valid until the next is asked for; LineChunker copies
 * what it keeps). A stream's reads were a fresh 1 MiB buffer each, over glibc's mmap threshold
 * (bin/malloc.js fixes it at 128 KiB): a mapping each whose pages the kernel zeroed, ~10% more CPU
 * for a load (README "Performance", "glibc's malloc thresholds").
 */
export async function* traceFileReads(path: string, readBytes = 1 << 20): AsyncGenerator<Buffer> {
  const file = await open(path);
  const buffers = [Buffer.allocUnsafeSlow(readBytes), Buffer.allocUnsafeSlow(readBytes)];
  for (const b of buffers) refilled.add(b.buffer as ArrayBuffer);
  const read = (b: Buffer): Promise<Buffer> => file.read(b, 0, readBytes, null).then(({ bytesRead }) => b.subarray(0, bytesRead));
  let next: Promise<Buffer> | null = null;
  try {
    next = read(buffers[0]!);
    for (let turn = 1; ; turn ^= 1) {
      const piece = await next;
      next = null;
      if (piece.length === 0) return;
      // The other buffer's last piece was used: the consumer has asked for this one.
      next = read(buffers[turn]!);
      yield piece;
    }
  } finally {
    // A read under way (the consumer stopped early) ends before the file is closed.
    await next?.catch(() => {});
    await file.close();
  }
}

/** A trace as the service and `upness replay` read it: standard input for '-', else the file. */
export function traceInput(trace: string): AsyncIterable<Buffer | string> {
  return trace === '-' ? process.stdin : traceFileReads(trace);
}

/** Cuts a byte or text stream into chunks of whole lines of at least `size` (the last may be smaller or unended); bytes are copied once, into `memory`. */
class LineChunker {
  #pending: (Buffer | string)[] = [];
  #length = 0;
  readonly #size: number;
  readonly #memory: ChunkMemory;
  constructor(size: number, memory: ChunkMemory) {
    this.#size = size;
    this.#memory = memory;
  }

  push(piece: Buffer | string): Buffer | string | null {
    // A piece shorter than a chunk waits here past the next read: a refilled buffer's is copied first.
    if (typeof piece !== 'string' && piece.length < this.#size && refilled.has(piece.buffer as ArrayBuffer)) piece = this.#memory.copy(piece);
    this.#pending.push(piece);
    this.#length += piece.length;
    if (this.#length < this.#size) return null;
    const all = this.#joined();
    const nl = typeof all === 'string' ? all.lastIndexOf('\n') : all.lastIndexOf(10);
    if (nl === -1) {
      this.#pending = [all];
      return null;
    }
    // The rest is copied out of bytes that go to a worker.
    const rest = typeof all === 'string' ? all.slice(nl + 1) : Buffer.from(all.subarray(nl + 1));
    this.#pending = rest.length > 0 ? [rest] : [];
    this.#length = rest.length;
    return typeof all === 'string' ? all.slice(0, nl + 1) : all.subarray(0, nl + 1);
  }

  /** What is left at the end of the input. */
  end(): Buffer | string | null {
    const all = this.#pending.length === 0 ? null : this.#joined();
    this.#pending = [];
    return all === null || all.length === 0 ? null : all;
  }

  #joined(): Buffer | string {
    const p = this.#pending;
    if (p.every((x) => typeof x === 'string')) return p.length === 1 ? p[0]! : p.join('');
    if (p.length === 1 && this.#memory.ours(p[0] as Buffer)) return p[0]!;
    const bytes = p.map((x) => (typeof x === 'string' ? Buffer.from(x, 'utf8') : x));
    if (bytes.length === 1) return this.#memory.copy(bytes[0]!);
    const all = this.#memory.take(bytes.reduce((n, b) => n + b.length, 0));
    let at = 0;
    for (const b of bytes) {
      all.set(b, at);
      at += b.length;
    }
    return all;
  }
}

interface PoolWorker {
  worker: Worker;
  ready: boolean;
  inFlight: number;
  /** This thread's copy of the worker's string table. */
  decoder: ViewDecoder;
  /** The memory of its chunks' numbers that this thread has applied, going back with its next chunk (trace-worker.ts keeps it). */
  applied: ArrayBuffer[];
  /** Blocks of that memory it has made so far. */
  numbersMade: number;
}

/** A chunk as a worker answers it: its views encoded (trace-views.ts), with the table to decode them. */
interface WorkerChunk {
  lines: number;
  error: ViewedChunk['error'];
  views: EncodedViews;
  decoder: ViewDecoder;
  worker: PoolWorker;
}

type WorkerMessage = { ready: true } | { seq: number; lines: number; error: ViewedChunk['error']; views: EncodedViews; memory: ArrayBuffer | null; numbersMade: number };

/** The worker threads, each answering its chunks in order; results are matched to chunks by number. */
class Pool {
  readonly #workers: PoolWorker[] = [];
  readonly #waiting = new Map<number, { resolve: (r: WorkerChunk) => void; reject: (e: Error) => void; worker: PoolWorker }>();
  #failure: Error | null = null;
  /** Settles when the first worker has started (or one failed first). */
  readonly started: Promise<void>;
  #started!: { resolve: () => void; reject: (e: Error) => void };

  readonly #memory: ChunkMemory;

  constructor(size: number, poolLabel: string | null, memory: ChunkMemory) {
    this.#memory = memory;
    this.started = new Promise((resolve, reject) => (this.#started = { resolve, reject }));
    this.started.catch(() => {}); // Seen by whoever awaits it; a failure also rejects every chunk.
    for (let i = 0; i < size; i++) {
      const start = workerStart(poolLabel);
      const worker = new Worker(start.file, { workerData: start.workerData });
      live++;
      const entry: PoolWorker = { worker, ready: false, inFlight: 0, decoder: new ViewDecoder(), applied: [], numbersMade: 0 };
      worker.on('message', (message: WorkerMessage) => {
        if ('ready' in message) {
          entry.ready = true;
          this.#started.resolve();
          return;
        }
        if (message.memory !== null) this.#memory.give(message.memory);
        const waiting = this.#waiting.get(message.seq);
        this.#waiting.delete(message.seq);
        entry.inFlight--;
        entry.numbersMade = message.numbersMade;
        // A worker's messages come in the order it sent them: its table grows here in the same order.
        entry.decoder = entry.decoder.learn(message.views);
        waiting?.resolve({ lines: message.lines, error: message.error, views: message.views, decoder: entry.decoder, worker: entry });
      });
      worker.on('error', (error) => this.#fail(error));
      worker.on('exit', (code) => {
        live--;
        if (code !== 0) this.#fail(new Error(`a trace worker thread exited with code ${code}`));
      });
      this.#workers.push(entry);
    }
  }

  /** A started worker with the fewest chunks in flight, fewer than `room`; null while none has started or none has room. */
  idlest(room = Infinity): PoolWorker | null {
    if (this.#failure !== null) throw this.#failure;
    let best: PoolWorker | null = null;
    for (const w of this.#workers) if (w.ready && w.inFlight < room && (best === null || w.inFlight < best.inFlight)) best = w;
    return best;
  }

  send(worker: PoolWorker, seq: number, chunk: Buffer | string): Promise<WorkerChunk> {
    if (this.#failure !== null) return Promise.reject(this.#failure);
    return new Promise((resolve, reject) => {
      this.#waiting.set(seq, { resolve, reject, worker });
      worker.inFlight++;
      const returned = worker.applied.splice(0);
      // Bytes are the chunk's own memory (ChunkMemory): handed over without a copy, and given back with the result.
      if (typeof chunk === 'string') worker.worker.postMessage({ seq, chunk, returned }, returned);
      else {
        // Anyone else's memory (a stream's pool, the caller's buffer) is copied, never taken.
        const own = this.#memory.ours(chunk) ? chunk : this.#memory.copy(chunk);
        worker.worker.postMessage({ seq, chunk: own, returned }, [own.buffer as ArrayBuffer, ...returned]);
      }
    });
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    this.#started.reject(this.#failure);
    for (const w of this.#waiting.values()) w.reject(this.#failure);
    this.#waiting.clear();
  }

  /** Blocks of memory the workers made for their chunks' numbers. */
  get numbersMade(): number {
    return this.#workers.reduce((n, w) => n + w.numbersMade, 0);
  }

  async terminate(): Promise<void> {
    // A terminated worker exits with code 1: that is not a failure of the replay.
    this.#failure ??= new Error('the trace workers were stopped');
    await Promise.all(this.#workers.map((w) => w.worker.terminate()));
  }
}

/** Chunks a worker holds at once when this thread parses too: one it parses and one waiting, so it never idles between messages. */
const WORKER_ROOM = 2;

/** The worker threads a replay starts by default: one fewer than the cores, as this thread parses a share too. */
export function defaultParseWorkers(cores = availableParallelism()): number {
  return Math.max(0, cores - 1);
}

/** A line that the checks refused, on its way to be named by parse.ts's schema (zod), which the replay loads only then. */
class RefusedLine extends Error {
  readonly line: number;
  readonly text: string;
  constructor(line: number, text: string) {
    super(`line ${line}: refused by the checks of trace lines`);
    this.line = line;
    this.text = text;
  }
}

/** The error of a chunk's bad line (`line` in the trace): its own detail, or the checks' refusal, named later. */
function errorOf(error: ChunkError, line: number): TraceError | RefusedLine {
  return 'detail' in error ? new TraceError(line, error.detail) : new RefusedLine(line, error.refused);
}

/** A chunk in line order: parsed here, or in flight to a worker (`done` once its answer is in). */
interface Queued {
  done: ViewedChunk | WorkerChunk | null;
  answer: Promise<WorkerChunk> | null;
}

/**
 * Feeds every observation of `input` to `engine` through observeViewed, in line order, the lines
 * parsed by worker threads and by this thread; the same observations, errors and line numbers as replayTrace.
 */
export async function replayTraceInWorkers<C>(
  input: AsyncIterable<Buffer | string> | Iterable<Buffer | string>,
  engine: ViewedSink<C>,
  options: TraceWorkersOptions<C> = {},
): Promise<C> {
  const size = options.workers ?? defaultParseWorkers();
  const poolLabel = options.poolLabel ?? null;
  const inThreadBytes = options.inThreadBytes ?? 16 << 20;
  const memory = new ChunkMemory();
  // The specs of the lines this thread parses, parsed once per JobSet (sources/trace/reuse.ts).
  const specs = new SpecReuse();
  const chunker = new LineChunker(options.chunkBytes ?? 256 << 10, memory);
  const after = options.after ?? null;
  const shares = options.mainThreadParses !== false;
  // Chunks in line order, parsed here or in flight to a worker; this thread runs at most a few chunks ahead of the oldest.
  const queue: Queued[] = [];
  const most = shares ? WORKER_ROOM * size + 4 : 2 * size;
  let pool: Pool | null = null;
  let seen = 0;
  let seq = 0;
  let base = 0;
  let last = -Infinity;
  let applied = 0;
  let here = 0;
  let inWorkers = 0;

  /** Checks time order and `after`: true when the observation is left out. */
  const skip = (receivedAt: number, line: number): boolean => {
    if (receivedAt < last) throw backInTime(base + line, receivedAt, last);
    last = receivedAt;
    return after !== null && receivedAt <= after;
  };
  const observe = (o: ClusterViewedObservation): void => {
    engine.observeViewed(o);
    if (options.onProgress !== undefined && ++applied % 100_000 === 0) options.onProgress(engine.counts);
  };
  const apply = (chunk: ViewedChunk | WorkerChunk): void => {
    if ('views' in chunk) {
      chunk.decoder.forEach(chunk.views, observe, skip);
      // Applied: the views were rebuilt, so the worker may write a later chunk's numbers there.
      chunk.worker.applied.push(chunk.views.numbers.buffer as ArrayBuffer);
    } else {
      const { observations, lineNumbers } = chunk;
      for (let i = 0; i < observations.length; i++) if (!skip(observations[i]!.receivedAt, lineNumbers[i]!)) observe(observations[i]!);
    }
    if (chunk.error !== null) throw errorOf(chunk.error, base + chunk.error.line);
    base += chunk.lines;
  };
  /** Applies the oldest chunk, waiting for its worker's answer if need be. */
  const applyOldest = async (): Promise<void> => {
    const oldest = queue.shift()!;
    apply(oldest.done ?? (await oldest.answer!));
  };
  /** Applies the chunks at the front whose answers are in. */
  const applyReady = (): void => {
    while (queue.length > 0 && queue[0]!.done !== null) apply(queue.shift()!.done!);
  };
  const dispatch = async (chunk: Buffer | string): Promise<void> => {
    seen += chunk.length;
    if (pool === null && size > 0 && seen >= inThreadBytes) pool = new Pool(size, poolLabel, memory);
    if (pool !== null && options.waitForWorkers === true) await (pool as Pool).started;
    applyReady();
    // Sharing, a chunk goes to a worker with room, else this thread parses it: each side takes what it can keep up with.
    const worker = (pool as Pool | null)?.idlest(shares ? WORKER_ROOM : Infinity) ?? null;
    if (worker === null) {
      const parsed = viewTraceChunk(chunk, poolLabel, specs);
      if (typeof chunk !== 'string' && memory.ours(chunk)) memory.give(chunk.buffer as ArrayBuffer);
      here++;
      if (queue.length === 0) apply(parsed);
      else queue.push({ done: parsed, answer: null });
      // Let the workers' messages in (an input that is not a stream would never yield to the event loop).
      if (pool !== null) await new Promise(setImmediate);
    } else {
      const answer = (pool as Pool).send(worker, seq++, chunk);
      const queued: Queued = { done: null, answer };
      // A worker's failure rejects every chunk in flight at once; the first one awaited reports it.
      answer.then((r) => (queued.done = r), () => {});
      queue.push(queued);
      inWorkers++;
    }
    while (queue.length > 0 && queue.length >= most) await applyOldest();
  };

  try {
    for await (const piece of input) {
      const chunk = chunker.push(piece);
      if (chunk !== null) await dispatch(chunk);
    }
    const rest = chunker.end();
    if (rest !== null) await dispatch(rest);
    while (queue.length > 0) await applyOldest();
    options.onDone?.({ here, workers: inWorkers, numbersMemory: (pool as Pool | null)?.numbersMade ?? 0 });
  } catch (error) {
    if (error instanceof RefusedLine) throw new TraceError(error.line, (await import('../sources/trace/parse.ts')).refusalOf(error.text));
    throw error;
  } finally {
    await (pool as Pool | null)?.terminate();
  }
  return engine.counts;
}
