// The usage sampler (`--watch-usage`): every interval, for every node that runs a JobSet's pod, it
// asks that node's kubelet for its stats/summary (through the apiserver's node proxy), sums the
// pods per JobSet and adds the sums to the usage book. A node that fails (refused, unreachable, a
// timeout, an answer that is not a summary) is skipped and counted by reason; nothing it does
// stops the watch. Samplings never overlap: the next one is scheduled when the last has ended.

import type { Logger } from 'pino';
import type { KubeObject } from '../observation/types.ts';
import { isPod, viewPod } from '../nodes/objects.ts';
import { parseKubeletSummary, KubeletSummaryError, type PodSample } from '../usage/kubelet-summary.ts';
import { attribute, podOwners, type CounterReading, type JobSetUsage } from '../usage/jobset-usage.ts';
import type { UsageBook } from '../usage/book.ts';
import { ApiError, NotJsonError } from '../sources/cluster/list.ts';

export type SampleFailure = 'forbidden' | 'unreachable' | 'timeout' | 'invalid' | 'error';

export interface UsageSamplerOptions {
  intervalMs: number;
  /** One node's summary JSON (sources/cluster/kubelet-stats.ts in a live cluster). */
  fetchSummary: (node: string, signal: AbortSignal) => Promise<unknown>;
  /** The pods the watch holds now. */
  pods: () => Iterable<KubeObject>;
  book: UsageBook;
  /** Receives each sampling's sums once the book has them (the store writes them). */
  onRecorded?: (usages: JobSetUsage[]) => void;
  /** After each sampling, what is older than this is dropped (the timelines' retention); default: kept. */
  retentionMs?: number;
  logger: Logger;
  clock?: () => number;
  /** Nodes asked at once (default 16): a large fleet is not asked all in one burst. */
  concurrency?: number;
  /** Give up on a node after this long (default: the interval, at most 10 s). */
  timeoutMs?: number;
}

export interface SamplingReport {
  at: number;
  nodes: number;
  failedNodes: number;
  jobsets: number;
  pods: number;
  unattributedPods: number;
}

function failureOf(error: unknown): SampleFailure {
  if (error instanceof KubeletSummaryError || (error instanceof NotJsonError)) return 'invalid';
  if (error instanceof ApiError) return error.statusCode === 401 || error.statusCode === 403 ? 'forbidden' : 'unreachable';
  // Node's own errors are read by name and code, not instanceof: they may come from another realm (a test's VM context).
  const { name, code, message } = (error ?? {}) as { name?: unknown; code?: unknown; message?: unknown };
  if (name === 'AbortError' || name === 'TimeoutError') return 'timeout';
  if (['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EHOSTUNREACH', 'ETIMEDOUT'].includes(String(code)) || /socket hang up/.test(String(message))) return 'unreachable';
  return 'error';
}

/** What /metrics reads of a sampler. */
export interface UsageSamplerStatus {
  readonly failures: Readonly<Record<SampleFailure, number>>;
  readonly samplings: number;
  readonly last: SamplingReport | null;
}

export class UsageSampler implements UsageSamplerStatus {
  readonly #options: UsageSamplerOptions;
  readonly #clock: () => number;
  #readings: Map<string, CounterReading> = new Map();
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<SamplingReport> | null = null;
  #stopped = false;
  readonly #abort = new AbortController();
  /** Node samplings that failed, by reason, since start. */
  readonly failures: Record<SampleFailure, number> = { forbidden: 0, unreachable: 0, timeout: 0, invalid: 0, error: 0 };
  samplings = 0;
  last: SamplingReport | null = null;

  constructor(options: UsageSamplerOptions) {
    if (!(options.intervalMs > 0)) throw new RangeError('usage sampler: intervalMs must be > 0');
    this.#options = options;
    this.#clock = options.clock ?? Date.now;
  }

  /** The nodes that run a JobSet's pod now. */
  #nodes(pods: KubeObject[]): string[] {
    const nodes = new Set<string>();
    for (const object of pods) {
      if (!isPod(object)) continue;
      const pod = viewPod(object);
      if (pod.jobsetName !== null && pod.nodeName !== null) nodes.add(pod.nodeName);
    }
    return [...nodes].sort();
  }

  /** One sampling of every node, now. */
  async sampleOnce(): Promise<SamplingReport> {
    const { fetchSummary, book, logger } = this.#options;
    const pods = [...this.#options.pods()];
    const nodes = this.#nodes(pods);
    const owners = podOwners(pods);
    const timeoutMs = this.#options.timeoutMs ?? Math.min(this.#options.intervalMs, 10_000);
    const samples: PodSample[] = [];
    let failedNodes = 0;
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < nodes.length && !this.#stopped) {
        const node = nodes[next++]!;
        try {
          const signal = AbortSignal.any([this.#abort.signal, AbortSignal.timeout(timeoutMs)]);
          samples.push(...parseKubeletSummary(await fetchSummary(node, signal), node));
        } catch (error) {
          failedNodes++;
          const reason = failureOf(error);
          this.failures[reason]++;
          logger.debug({ node, reason, err: error }, 'usage: node skipped');
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.#options.concurrency ?? 16, nodes.length) }, worker));
    const at = this.#clock();
    const result = attribute(samples, owners, this.#readings, at);
    this.#readings = result.readings;
    book.record(result.usages);
    if (result.usages.length > 0) this.#options.onRecorded?.(result.usages);
    book.compact(at, this.#options.retentionMs !== undefined ? at - this.#options.retentionMs : -Infinity);
    this.samplings++;
    const report: SamplingReport = { at, nodes: nodes.length, failedNodes, jobsets: result.usages.length, pods: samples.length - result.unattributedPods, unattributedPods: result.unattributedPods };
    this.last = report;
    if (failedNodes > 0) logger.warn({ failedNodes, nodes: nodes.length, failures: this.failures }, 'usage: some nodes were not sampled');
    return report;
  }

  start(): void {
    const tick = (): void => {
      this.#timer = null;
      if (this.#stopped) return;
      this.#running = this.sampleOnce();
      this.#running
        .catch((error: unknown) => this.#options.logger.error({ err: error }, 'usage: sampling failed'))
        .finally(() => {
          this.#running = null;
          if (!this.#stopped) {
            this.#timer = setTimeout(tick, this.#options.intervalMs);
            this.#timer.unref();
          }
        });
    };
    this.#timer = setTimeout(tick, this.#options.intervalMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#abort.abort();
    await this.#running?.catch(() => {});
  }
}
