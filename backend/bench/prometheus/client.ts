// `npm run bench`'s lean client (issue 21 §4, 2026-11-27): the timed requests are sent from a small
// process of its own that holds nothing but them, for both peers alike. The bench's own process holds
// the truth and the sampled model of every UID; when it asked, its garbage collections (partly on
// V8's threads, taking a core from the server being timed on this 2-core machine) and its CPU landed
// on the timed answers: 1.2–8.3 ms of the client's CPU a run of Upness's tables, pauses of up to
// 42 ms over ten runs, which weigh on an answer of 6 ms and not on one of a second. Here the bench's
// process waits (idle) while this one warms the peer up, times its runs, reads each whole answer
// (inflating Prometheus's gzip inside the timed exchange, as before) and reads the server's CPU
// around the timed runs; then it hands back the last run's answers as bytes, which the bench checks
// against the truth after the timing. Only node's built-ins and proc.ts are loaded here.

import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { PerformanceObserver } from 'node:perf_hooks';
import { cpuSeconds, timedBytes, type TimedRequest } from './proc.ts';

/** One HTTP exchange of a run: a run of a question is its exchanges one after the other (Prometheus's several queries), its time their sum. */
export interface Exchange {
  url: string;
  init: TimedRequest;
}

export interface AskRequest {
  /** What the question is called in errors and progress lines. */
  label: string;
  exchanges: Exchange[];
  runs: number;
  /** Untimed runs first: at least `warmups`, and more until `warmSeconds` of them have passed. */
  warmups: number;
  warmSeconds: number;
  /** The server's process: its CPU is read around the timed runs. */
  pid: number;
}

export interface AskAnswer {
  /** Each timed run's milliseconds, request to last byte (inflated) of its last exchange, summed over its exchanges. */
  times: number[];
  /** The last timed run's answers, one per exchange, as received (inflated when gzip). */
  bodies: Buffer[];
  /** The server's CPU seconds (user + system, all its threads) over the timed runs. */
  serverCpuSeconds: number;
  /** This client's own CPU per timed run, ms (all its threads). */
  clientCpuMs: number;
  /** This client's garbage collections during the timed runs. */
  pauses: { count: number; ms: number };
  warmRuns: number;
  /** When the timed runs began and ended, ms since the epoch (performance.timeOrigin + now): the bench's process tells its own pauses in between. */
  timedFrom: number;
  timedTo: number;
}

type Reply = { answer: AskAnswer } | { error: string };

/** The bench's side: the client process, asked one question at a time. */
export class LeanClient {
  readonly #child: ChildProcess;
  #pending: { resolve: (a: AskAnswer) => void; reject: (e: Error) => void } | null = null;

  private constructor(child: ChildProcess) {
    this.#child = child;
    child.on('message', (m: Reply) => {
      const pending = this.#pending;
      this.#pending = null;
      if ('answer' in m) pending?.resolve(m.answer);
      else pending?.reject(new Error(m.error));
    });
    child.once('exit', (code) => {
      this.#pending?.reject(new Error(`the bench's client exited (code ${code}) while asked`));
      this.#pending = null;
    });
  }

  /** Starts the client's process (its answers' bytes come back as Buffers: the advanced serialization). */
  static start(): LeanClient {
    return new LeanClient(fork(fileURLToPath(import.meta.url), [], { serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
  }

  /** Warms the peer up, times its runs, and returns what they took and the last run's answers. */
  ask(request: AskRequest): Promise<AskAnswer> {
    if (this.#pending !== null) throw new Error('the lean client asks one question at a time');
    return new Promise((resolve, reject) => {
      this.#pending = { resolve, reject };
      this.#child.send(request);
    });
  }

  /** Ends the client's process. */
  async close(): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.#child.once('exit', () => resolve()));
    this.#child.disconnect();
    await exited;
  }
}

// ── The client's process ─────────────────────────────────────────────────────────────────────

/** One run: each exchange in turn, every answer read whole; a status other than 200 is an error. */
async function runOnce({ label, exchanges }: AskRequest): Promise<{ ms: number; bodies: Buffer[] }> {
  let ms = 0;
  const bodies: Buffer[] = [];
  for (const { url, init } of exchanges) {
    const r = await timedBytes(url, init);
    if (r.status !== 200) throw new Error(`${label}: answered ${r.status}: ${r.bytes.subarray(0, 300).toString('utf8')}`);
    ms += r.ms;
    bodies.push(r.bytes);
  }
  return { ms, bodies };
}

async function answer(request: AskRequest): Promise<AskAnswer> {
  const started = performance.now();
  let warmRuns = 0;
  for (; warmRuns < request.warmups || performance.now() - started < request.warmSeconds * 1000; warmRuns++) await runOnce(request);
  const collections: { count: number; ms: number } = { count: 0, ms: 0 };
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      collections.count++;
      collections.ms += entry.duration;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  const cpu0 = cpuSeconds(request.pid);
  const own0 = process.cpuUsage();
  const timed = performance.now();
  const times: number[] = [];
  let bodies: Buffer[] = [];
  for (let i = 0; i < request.runs; i++) {
    const r = await runOnce(request);
    times.push(r.ms);
    bodies = r.bodies;
    if (performance.now() - timed > 10_000 && i + 1 < request.runs) process.stdout.write(`    ${request.label}: run ${i + 1}/${request.runs}, ${r.ms.toFixed(1)} ms\n`);
  }
  const timedTo = performance.now();
  const serverCpuSeconds = cpuSeconds(request.pid) - cpu0;
  const own = process.cpuUsage(own0);
  // The observer hears of the last collections after a tick.
  await new Promise((resolve) => setImmediate(resolve));
  observer.disconnect();
  return {
    times,
    bodies,
    serverCpuSeconds,
    clientCpuMs: (own.user + own.system) / 1000 / request.runs,
    pauses: collections,
    warmRuns,
    timedFrom: performance.timeOrigin + timed,
    timedTo: performance.timeOrigin + timedTo,
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.send !== undefined) {
  process.on('message', (request: AskRequest) => {
    answer(request).then(
      (a) => process.send!({ answer: a } satisfies Reply),
      (error: Error) => process.send!({ error: error.stack ?? String(error) } satisfies Reply),
    );
  });
  // The bench's process gone (ended, or failed): so is its client.
  process.on('disconnect', () => process.exit(0));
}
