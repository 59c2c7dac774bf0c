// Upness as a user runs it: `upness serve --memory --trace -` on the loopback interface, the
// simulated fleet's trace piped into its standard input straight from the simulator's process
// (generate.ts; nothing is written to disk), then asked over HTTP.

import { fork, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { deserialize } from 'node:v8';
import type { Exchange } from './client.ts';
import type { GenerateDone, GenerateRequest } from './generate.ts';
import { cpuSeconds, deadline, listeningUrl, memory, sleep, timedFetch, timedRequest, type Timed } from './proc.ts';
import { Truth, type TruthData } from './truth.ts';

/** The `upness` the benchmarks start: this checkout's, or another's (`UPNESS_BENCH_BIN=/other/backend/bin/upness.js`) for an A/B of the same benchmark. */
const BIN = process.env.UPNESS_BENCH_BIN ?? join(import.meta.dirname, '../../bin/upness.js');
const GENERATE = join(import.meta.dirname, 'generate.ts');

export interface UpnessLoad {
  observations: number;
  traceBytes: number;
  wallSeconds: number;
  /** CPU seconds of the server during the load: observations ÷ these is the rate per core. */
  serverCpuSeconds: number;
  /** CPU seconds of the simulator's process (making the trace and summing the truth). */
  generatorCpuSeconds: number;
  baselineRssBytes: number;
  rssBytes: number;
  peakRssBytes: number;
  jobsets: number;
  horizon: number;
}

export interface UpnessOptions {
  /** Extra Node flags for the server, e.g. --cpu-prof. */
  nodeFlags?: string[];
  /** What it serves, instead of `--memory` (and `--trace -` with a trace), e.g. `--follow --store URL`. */
  serveArgs?: string[];
}

export class UpnessServer {
  readonly url: string;
  readonly #child: ChildProcess;
  readonly #exited: Promise<number | null>;

  private constructor(url: string, child: ChildProcess, exited: Promise<number | null>) {
    this.url = url;
    this.#child = child;
    this.#exited = exited;
  }

  get pid(): number {
    return this.#child.pid!;
  }

  get exited(): Promise<number | null> {
    return this.#exited;
  }

  /**
   * Starts the server reading its trace from `stdin` (null: no trace, the simulated cluster of
   * `npm start`), and waits until it listens.
   */
  static async start(stdin: Readable | null, options: UpnessOptions = {}): Promise<UpnessServer> {
    const env = { ...process.env };
    delete env.UPNESS_TOKEN; // the benchmark asks without a token
    const trace = stdin === null ? [] : ['--trace', '-'];
    const serve = options.serveArgs ?? ['--memory', ...trace];
    const child = spawn(
      process.execPath,
      [...(options.nodeFlags ?? []), BIN, 'serve', ...serve, '--host', '127.0.0.1', '--port', '0', '--log-level', 'info'],
      { stdio: [stdin ?? 'ignore', 'pipe', 'inherit'], env },
    );
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    // The service logs JSON lines (pino): the "listening" line says where.
    const url = await listeningUrl(child);
    return new UpnessServer(url, child, exited);
  }

  /** POST /api/v1/query with Grafana's query body. */
  query(body: unknown): Promise<Timed> {
    const { url, init } = this.queryExchange(body);
    return timedRequest(url, init);
  }

  /** The exchange of query(body), for the lean client (client.ts) to send. */
  queryExchange(body: unknown): Exchange {
    return { url: `${this.url}/api/v1/query`, init: { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } };
  }

  /** SIGTERM: the service stops cleanly (and writes its profiles when started with --cpu-prof / --heap-prof). */
  async stop(): Promise<void> {
    if (this.#child.exitCode !== null) return;
    this.#child.kill('SIGTERM');
    await Promise.race([this.#exited, deadline(60_000)]);
    if (this.#child.exitCode === null) this.#child.kill('SIGKILL');
  }
}

/**
 * Starts the simulator's process and the server, the one's standard output being the other's
 * standard input, measures the load until /readyz says the whole trace is replayed, and returns
 * the server with the truth the simulator summed.
 */
export async function loadFleet(
  request: Omit<GenerateRequest, 'serverPid'>,
  options: UpnessOptions,
): Promise<{ server: UpnessServer; load: UpnessLoad; truth: Truth }> {
  const generator = fork(GENERATE, [], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  const generatorExited = new Promise<number | null>((resolve) => generator.once('exit', (code) => resolve(code)));
  const server = await UpnessServer.start(generator.stdout!, options);
  generator.stdout!.destroy(); // the server holds the pipe now
  const baseline = memory(server.pid).rssBytes;
  const cpu0 = cpuSeconds(server.pid);
  const t0 = performance.now();
  const done = new Promise<GenerateDone>((resolve, reject) => {
    generator.once('message', (m) => resolve(m as GenerateDone));
    void generatorExited.then((code) => reject(new Error(`the simulator's process exited (code ${code}) before it was done`)));
    void server.exited.then((code) => reject(new Error(`upness serve exited (code ${code}) during the load`)));
  });
  generator.send({ ...request, serverPid: server.pid } satisfies GenerateRequest);
  const generated = await done;
  let ready: { jobsets: number; horizon: string } | null = null;
  while (ready === null) {
    const res = await timedFetch(`${server.url}/readyz`);
    if (res.status === 200) ready = JSON.parse(res.body) as { jobsets: number; horizon: string };
    else await sleep(20);
  }
  const wallSeconds = (performance.now() - t0) / 1000;
  const serverCpuSeconds = cpuSeconds(server.pid) - cpu0;
  const mem = memory(server.pid);
  await generatorExited;
  const truth = Truth.fromData(deserialize(readFileSync(request.truthFile)) as TruthData);
  rmSync(request.truthFile, { force: true });
  return {
    server,
    truth,
    load: {
      observations: generated.sent,
      traceBytes: generated.bytes,
      wallSeconds,
      serverCpuSeconds,
      generatorCpuSeconds: generated.cpuSeconds,
      baselineRssBytes: baseline,
      rssBytes: mem.rssBytes,
      peakRssBytes: mem.peakRssBytes,
      jobsets: ready.jobsets,
      horizon: Date.parse(ready.horizon),
    },
  };
}
