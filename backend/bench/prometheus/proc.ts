// What the benchmark reads about a server process from /proc, timed HTTP calls, and the statistics
// it reports (median and p99 of a handful of runs).

import { execFileSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { gunzipSync } from 'node:zlib';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { PerformanceObserver } from 'node:perf_hooks';

let ticksPerSecond: number | null = null;

/** USER_HZ: the unit of utime and stime in /proc/<pid>/stat. */
function clockTicks(): number {
  if (ticksPerSecond === null) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** CPU seconds (user + system) the process has used so far. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / clockTicks();
}

/**
 * Waits until the process has used no more than `quietSeconds` of CPU over each of two intervals of
 * `intervalMs` in a row (a server that has just started or loaded may still work in the background:
 * Prometheus after its start, Upness compacting its heap after a load), at most `limitMs`. Returns
 * how long it waited and the CPU seconds the process used meanwhile.
 */
export async function settle(pid: number, { intervalMs = 500, quietSeconds = 0.02, limitMs = 30_000 } = {}): Promise<{ seconds: number; cpuSeconds: number }> {
  const t0 = performance.now();
  const cpu0 = cpuSeconds(pid);
  let quiet = 0;
  let last = cpu0;
  while (quiet < 2 && performance.now() - t0 < limitMs) {
    await sleep(intervalMs);
    const now = cpuSeconds(pid);
    quiet = now - last <= quietSeconds ? quiet + 1 : 0;
    last = now;
  }
  return { seconds: (performance.now() - t0) / 1000, cpuSeconds: last - cpu0 };
}

/** This process's garbage collections (start and length, ms on performance.now()'s clock), as V8 reports them, once watched. */
const collections: { start: number; ms: number }[] = [];
let observer: PerformanceObserver | null = null;

/** Starts keeping this process's garbage collections (once; the last minute's are kept). */
export function watchClientPauses(): void {
  if (observer !== null) return;
  observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) collections.push({ start: entry.startTime, ms: entry.duration });
    while (collections.length > 0 && collections[0]!.start < performance.now() - 60_000) collections.shift();
  });
  observer.observe({ entryTypes: ['gc'] });
}

/**
 * The client's own pauses for garbage collection between two times of performance.now() (watched
 * since watchClientPauses): a pause there stalls the reading of whichever answer is in flight, and
 * is timed as that peer's. Read after a tick, so that the observer has been told of the last ones.
 */
export async function clientPauses(from: number, to: number): Promise<{ ms: number; count: number }> {
  await new Promise((resolve) => setImmediate(resolve));
  let total = 0;
  let count = 0;
  for (const c of collections) {
    // Any pause that overlaps the interval.
    if (c.start + c.ms < from || c.start > to) continue;
    total += c.ms;
    count++;
  }
  return { ms: total, count };
}

export interface Memory {
  /** VmRSS: resident now. */
  rssBytes: number;
  /** VmHWM: the peak resident size so far. */
  peakRssBytes: number;
}

export function memory(pid: number): Memory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string): number => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rssBytes: kb('VmRSS'), peakRssBytes: kb('VmHWM') };
}

/** A free TCP port on the loopback interface. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface Timed {
  ms: number;
  status: number;
  body: string;
}

/** One HTTP exchange, timed from the request to the last byte of the answer (not its parsing), with undici's `fetch`. */
export async function timedFetch(url: string, init?: RequestInit): Promise<Timed> {
  const t = performance.now();
  const res = await fetch(url, init);
  const body = await res.text();
  return { ms: performance.now() - t, status: res.status, body };
}

/** The side-by-side questions' one connection pool: both peers are asked one request at a time, each on a kept-alive connection. */
const agent = new http.Agent({ keepAlive: true });

export interface TimedRequest {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}

/**
 * One question's HTTP exchange on node:http with a kept-alive connection: what `npm run bench` asks
 * both peers with, timed from the request to the last byte of the answer. Not undici's `fetch`: on
 * this machine it costs 0.2–0.6 ms more a request (a 6 KiB answer from a bare Node server, least:
 * 0.36 against 0.16 ms at a load of 8, 0.83 against 0.21 ms at 19), a quarter of one JobSet's
 * detail. It accepts gzip as fetch did and as Grafana's Go client does (Prometheus then compresses
 * its answers; Upness does not), and inflates a gzip answer inside the timed exchange. The answer's
 * text is decoded after the clock stops (since issue 21 §4's lean client, 2026-11-27: before, its
 * UTF-8 decoding was timed too, for both peers).
 */
export async function timedRequest(url: string, init: TimedRequest = {}): Promise<Timed> {
  const { ms, status, bytes } = await timedBytes(url, init);
  return { ms, status, body: bytes.toString('utf8') };
}

/** timedRequest's exchange, its answer as bytes (inflated when gzip): the lean client's (client.ts). */
export function timedBytes(url: string, init: TimedRequest = {}): Promise<TimedBytes> {
  const t = performance.now();
  return send(url, init, t, true);
}

export interface TimedBytes {
  ms: number;
  status: number;
  bytes: Buffer;
}

function send(url: string, { method = 'GET', headers = {}, body }: TimedRequest, t: number, retry: boolean): Promise<TimedBytes> {
  const sent = { 'accept-encoding': 'gzip', ...headers, ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}) };
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, agent, headers: sent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        try {
          const received = Buffer.concat(chunks);
          const bytes = res.headers['content-encoding'] === 'gzip' ? gunzipSync(received) : received;
          resolve({ ms: performance.now() - t, status: res.statusCode ?? 0, bytes });
        } catch (error) {
          reject(error as Error);
        }
      });
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      // A kept-alive connection the server closed while idle (node:http's documented case): the
      // questions only read, so ask again once on a new connection.
      if (retry && req.reusedSocket && error.code === 'ECONNRESET') send(url, { method, headers, ...(body !== undefined ? { body } : {}) }, t, false).then(resolve, reject);
      else reject(error);
    });
    req.end(body);
  });
}

export interface Stats {
  runs: number;
  median: number;
  /** Nearest rank: with fewer than 100 runs it is the slowest run. */
  p99: number;
  min: number;
  max: number;
}

export function stats(values: readonly number[]): Stats {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  const median = n % 2 === 1 ? sorted[(n - 1) / 2]! : (sorted[n / 2 - 1]! + sorted[n / 2]!) / 2;
  return { runs: n, median, p99: sorted[Math.max(0, Math.ceil(0.99 * n) - 1)]!, min: sorted[0]!, max: sorted[n - 1]! };
}

export const MiB = 2 ** 20;

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Resolves after `ms` without keeping the process alive (for races against a process's exit). */
export function deadline(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** Formats for the tables. */
export const fmt = (n: number, digits = 1): string =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
export const int = (n: number): string => Math.round(n).toLocaleString('en-US');

/** Milliseconds with a precision that suits their size. */
export function ms(n: number): string {
  if (n >= 1000) return `${fmt(n / 1000, 2)} s`;
  if (n >= 100) return `${fmt(n, 0)} ms`;
  if (n >= 10) return `${fmt(n, 1)} ms`;
  return `${fmt(n, 2)} ms`;
}

/**
 * Where an `upness serve` child listens: the URL of the "listening" line of its log (pino's JSON
 * lines on its standard output, read to the end so that the pipe never fills). Rejects when it
 * exits first, naming it as `what`.
 */
export function listeningUrl(child: ChildProcess, what = 'upness serve'): Promise<string> {
  const lines = createInterface({ input: child.stdout! });
  return new Promise<string>((resolve, reject) => {
    lines.on('line', (line) => {
      try {
        const entry = JSON.parse(line) as { msg?: string; url?: string };
        if (entry.msg === 'listening' && entry.url !== undefined) resolve(entry.url);
      } catch {
        // not a log line
      }
    });
    child.once('exit', (code) => reject(new Error(`${what} exited (code ${code}) before listening`)));
  });
}
