// The peer: Prometheus from Debian's `prometheus` package, loaded with the same fleet as a 0/1
// gauge per JobSet UID scraped every 15 s, the way kube-state-metrics with a custom-resource
// config for JobSets would export it:
//
//   jobset_up{namespace="team-a", jobset="llama3-8b-sft-28t5-0", uid="8111aaf8-…"}  1 | 0 | (absent)
//
// 1 when up, 0 when provisioning or down, and no sample at all while suspended or after the
// JobSet ended (completed, failed, deleted): kube-state-metrics drops a deleted object's series,
// and a suspended JobSet is neither up nor down in Upness's figures either. The samples are
// written as OpenMetrics and imported with `promtool tsdb create-blocks-from openmetrics`.

import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { transitionsOf, type Timeline } from '../../src/timeline/types.ts';
import type { Exchange } from './client.ts';
import { deadline, freePort, sleep, timedRequest, type Timed } from './proc.ts';

export const SCRAPE_MS = 15_000;
export const METRIC = 'jobset_up';

export interface PrometheusBinaries {
  prometheus: string;
  promtool: string;
  version: string;
  /** Where it came from: already on PATH, unpacked earlier, or downloaded now. */
  how: string;
  installSeconds: number;
}

function which(name: string): string | null {
  try {
    return execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

function versionOf(prometheus: string): string {
  const out = execFileSync(prometheus, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return /version (\S+)/.exec(out)?.[1] ?? out.split('\n')[0]!;
}

/**
 * Prometheus and promtool: from PATH, from a package unpacked earlier under `dir`, or from
 * Debian's package, fetched with `apt-get download` and unpacked with `dpkg-deb -x` into `dir`
 * (no service is installed or started). Throws when none of that works.
 */
export function ensurePrometheus(dir: string, log: (line: string) => void): PrometheusBinaries {
  const onPath = which('prometheus');
  const toolOnPath = which('promtool');
  if (onPath !== null && toolOnPath !== null) return { prometheus: onPath, promtool: toolOnPath, version: versionOf(onPath), how: 'on PATH', installSeconds: 0 };
  const root = join(dir, 'deb');
  const prometheus = join(root, 'usr/bin/prometheus');
  const promtool = join(root, 'usr/bin/promtool');
  if (existsSync(prometheus) && existsSync(promtool)) {
    return { prometheus, promtool, version: versionOf(prometheus), how: `unpacked earlier in ${root}`, installSeconds: 0 };
  }
  const started = performance.now();
  const download = join(dir, 'download');
  rmSync(download, { recursive: true, force: true });
  mkdirSync(download, { recursive: true });
  const fetchDeb = (): void => {
    execFileSync('apt-get', ['-q', '-o', 'APT::Sandbox::User=root', 'download', 'prometheus'], { cwd: download, stdio: ['ignore', 'pipe', 'pipe'] });
  };
  log(`  prometheus: not found; fetching Debian's package (apt-get download prometheus) into ${dir}`);
  try {
    fetchDeb();
  } catch {
    log('  prometheus: apt-get download failed; running apt-get update and trying again');
    execFileSync('apt-get', ['-q', 'update'], { stdio: ['ignore', 'pipe', 'pipe'] });
    fetchDeb();
  }
  const deb = readdirSync(download).find((f) => f.startsWith('prometheus_') && f.endsWith('.deb'));
  if (deb === undefined) throw new Error(`apt-get download left no prometheus_*.deb in ${download}`);
  rmSync(root, { recursive: true, force: true });
  execFileSync('dpkg-deb', ['-x', join(download, deb), root]);
  rmSync(download, { recursive: true, force: true });
  return { prometheus, promtool, version: versionOf(prometheus), how: `apt-get download ${deb}, unpacked with dpkg-deb -x`, installSeconds: (performance.now() - started) / 1000 };
}

/** What a 15 s scrape of the gauge holds, summed the ways the questions need (the answer Prometheus must give). */
export interface SampledUid {
  namespace: string;
  name: string;
  /** Over the closed window [from, to] (Prometheus 2.x range selectors include both ends). */
  count: number;
  up: number;
  resets: number;
  changes: number;
}

export class SampledModel {
  readonly gridStart: number;
  readonly slots: number;
  readonly perUid = new Map<string, SampledUid>();
  readonly #perNamespace = new Map<string, { count: Int32Array; up: Int32Array }>();

  constructor(gridStart: number, gridEnd: number) {
    this.gridStart = gridStart;
    this.slots = Math.ceil((gridEnd - gridStart) / SCRAPE_MS) + 1;
  }

  namespace(ns: string): { count: Int32Array; up: Int32Array } {
    let arrays = this.#perNamespace.get(ns);
    if (arrays === undefined) this.#perNamespace.set(ns, (arrays = { count: new Int32Array(this.slots), up: new Int32Array(this.slots) }));
    return arrays;
  }

  /** Σ up samples and Σ samples over the closed window [a, b], for one namespace or all (null). */
  window(a: number, b: number, namespace: string | null): { up: number; count: number } {
    const lo = Math.max(0, Math.ceil((a - this.gridStart) / SCRAPE_MS));
    const hi = Math.min(this.slots - 1, Math.floor((b - this.gridStart) / SCRAPE_MS));
    let up = 0;
    let count = 0;
    const lists = namespace === null ? [...this.#perNamespace.values()] : [this.#perNamespace.get(namespace)].filter((x) => x !== undefined);
    for (const arrays of lists) {
      for (let i = lo; i <= hi; i++) {
        up += arrays.up[i]!;
        count += arrays.count[i]!;
      }
    }
    return { up, count };
  }
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

export interface OpenMetricsFile {
  path: string;
  samples: number;
  series: number;
  bytes: number;
  seconds: number;
  model: SampledModel;
}

/**
 * Writes the gauge of every timeline, sampled every 15 s on the grid from `start` until each
 * timeline ends (or `end`), one series after another, and keeps the model of what was written.
 */
export function writeOpenMetrics(
  timelines: readonly Timeline[],
  path: string,
  window: { start: number; end: number; from: number; to: number },
  progress: (done: number) => void,
): OpenMetricsFile {
  const started = performance.now();
  const { start, end, from, to } = window;
  const model = new SampledModel(start, end);
  const fd = openSync(path, 'w');
  let chunk = `# HELP ${METRIC} Whether the JobSet is up (1), provisioning or down (0); absent while suspended or after it ended.\n# TYPE ${METRIC} gauge\n`;
  let bytes = 0;
  let samples = 0;
  let series = 0;
  const flush = (): void => {
    writeSync(fd, chunk);
    bytes += Buffer.byteLength(chunk);
    chunk = '';
  };
  let done = 0;
  for (const tl of timelines) {
    const prefix = `${METRIC}{namespace="${escapeLabel(tl.namespace)}",jobset="${escapeLabel(tl.name)}",uid="${escapeLabel(tl.uid)}"} `;
    const arrays = model.namespace(tl.namespace);
    const uid: SampledUid = { namespace: tl.namespace, name: tl.name, count: 0, up: 0, resets: 0, changes: 0 };
    let previous = -1;
    let wrote = false;
    const tr = transitionsOf(tl);
    for (let i = 0; i < tr.length; i++) {
      const { at, state } = tr[i]!;
      if (state === 'completed' || state === 'failed' || state === 'deleted') break;
      const value = state === 'up' ? 1 : state === 'provisioning' || state === 'down' ? 0 : -1;
      if (value < 0) continue;
      const until = Math.min(i + 1 < tr.length ? tr[i + 1]!.at : end, end);
      for (let g = Math.ceil(at / SCRAPE_MS) * SCRAPE_MS; g < until; g += SCRAPE_MS) {
        chunk += `${prefix}${value} ${g / 1000}\n`;
        samples++;
        wrote = true;
        const slot = (g - start) / SCRAPE_MS;
        arrays.count[slot]!++;
        arrays.up[slot]! += value;
        if (g >= from && g <= to) {
          uid.count++;
          uid.up += value;
          if (previous >= 0 && value !== previous) uid.changes++;
          if (previous >= 0 && value < previous) uid.resets++;
          previous = value;
        }
      }
      if (chunk.length >= 1 << 20) flush();
    }
    if (wrote) series++;
    model.perUid.set(tl.uid, uid);
    if (++done % 2000 === 0) progress(done);
  }
  chunk += '# EOF\n';
  flush();
  closeSync(fd);
  return { path, samples, series, bytes, seconds: (performance.now() - started) / 1000, model };
}

/** The smallest of the TSDB's block ranges (2 h × 3^k) whose aligned block holds [start, end). */
function blockHours(start: number, end: number): number {
  for (let hours = 2; ; hours *= 3) {
    const range = hours * 3_600_000;
    if (Math.floor(start / range) * range + range >= end) return hours;
  }
}

export interface Blocks {
  seconds: number;
  bytes: number;
  blockHours: number;
}

/**
 * `promtool tsdb create-blocks-from openmetrics`. promtool reads the whole file once per block,
 * so the block duration is raised (its hidden --max-block-duration) to hold the fleet in one.
 */
export function createBlocks(promtool: string, input: string, dataDir: string, start: number, end: number): Blocks {
  const started = performance.now();
  rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(dataDir, { recursive: true });
  const hours = blockHours(start, end);
  execFileSync(promtool, ['tsdb', 'create-blocks-from', 'openmetrics', '--quiet', `--max-block-duration=${hours}h`, input, dataDir], {
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 * 2 ** 20,
  });
  return { seconds: (performance.now() - started) / 1000, bytes: directoryBytes(dataDir), blockHours: hours };
}

export function directoryBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? directoryBytes(path) : statSync(path).size;
  }
  return total;
}

export class PrometheusServer {
  readonly url: string;
  readonly #child: ChildProcess;
  #log = '';

  private constructor(url: string, child: ChildProcess) {
    this.url = url;
    this.#child = child;
    const keep = (data: Buffer): void => {
      this.#log = (this.#log + data.toString()).slice(-20_000);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
  }

  get pid(): number {
    return this.#child.pid!;
  }

  /** Starts Prometheus on the loopback interface over `dataDir`, scraping nothing, and waits until it is ready. */
  static async start(prometheus: string, dataDir: string, configDir: string): Promise<{ server: PrometheusServer; seconds: number }> {
    const started = performance.now();
    const port = await freePort();
    const config = join(configDir, 'prometheus.yml');
    writeFileSync(config, 'global:\n  scrape_interval: 15s\n  evaluation_interval: 15s\nscrape_configs: []\n');
    const child = spawn(
      prometheus,
      [
        `--config.file=${config}`,
        `--storage.tsdb.path=${dataDir}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--storage.tsdb.retention.time=3650d',
        // Limits that would refuse the questions, not make them faster.
        '--query.max-samples=2000000000',
        '--query.timeout=30m',
        '--log.level=warn',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const server = new PrometheusServer(`http://127.0.0.1:${port}`, child);
    const exited = new Promise<never>((_, reject) =>
      child.once('exit', (code) => reject(new Error(`prometheus exited (code ${code}) before it was ready:\n${server.#log}`))),
    );
    let gone = false;
    child.once('exit', () => (gone = true));
    const ready = (async (): Promise<void> => {
      while (!gone) {
        try {
          const res = await fetch(`${server.url}/-/ready`);
          await res.text();
          if (res.ok) return;
        } catch {
          // not listening yet
        }
        await sleep(50);
      }
    })();
    await Promise.race([ready, exited]);
    exited.catch(() => undefined);
    return { server, seconds: (performance.now() - started) / 1000 };
  }

  /** GET /api/v1/query or /api/v1/query_range. */
  query(path: '/api/v1/query' | '/api/v1/query_range', params: Record<string, string>): Promise<Timed> {
    const { url, init } = this.queryExchange(path, params);
    return timedRequest(url, init);
  }

  /** The exchange of query(path, params), for the lean client (client.ts) to send. */
  queryExchange(path: '/api/v1/query' | '/api/v1/query_range', params: Record<string, string>): Exchange {
    return { url: `${this.url}${path}?${new URLSearchParams(params)}`, init: {} };
  }

  async stop(): Promise<void> {
    if (this.#child.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => this.#child.once('exit', () => resolve()));
    this.#child.kill('SIGTERM');
    await Promise.race([exited, deadline(30_000)]);
    if (this.#child.exitCode === null) this.#child.kill('SIGKILL');
  }
}
