// Helpers for the tests that run the real `upness` CLI against the real test cluster (cluster.ts):
// start `upness serve` / `upness record` as child processes, ask their HTTP API, and make the
// JobSets, Pods and Nodes the JobSet controller, the scheduler and the kubelets would make, status
// included (nothing in the test cluster reacts to objects).

import type { ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { spawnOwned } from '../support/processes.ts';
import type { ApiResponse, Cluster } from './cluster.ts';

export const ROOT = join(import.meta.dirname, '..', '..');
/** Node 22 (the project's), not the system's. */
export const NODE = join(ROOT, 'node_modules', '.bin', 'node');
export const UPNESS = join(ROOT, 'backend', 'bin', 'upness.js');

/**
 * Fast watch timings for the tests that break the watch: failures are noticed and retried in about a
 * second. Tests that do not break it keep the defaults: on a starved apiserver a reopen can take
 * longer than this watchdog's 2 s margin, and the restart it causes shows as `unknown` time.
 */
export const FAST_WATCH = [
  '--watch-timeout', '4s',
  '--watch-silence', '6s',
  '--watch-backoff-initial', '200ms',
  '--watch-backoff-max', '2s',
  '--list-timeout', '4s',
  '--ready-broken-after', '2s',
];

export interface LogLine {
  level: number;
  msg: string;
  time: number;
  [key: string]: unknown;
}

export interface Process {
  child: ChildProcess;
  logs(): string;
  /** The JSON log lines so far. */
  lines(): LogLine[];
  /** SIGTERM (default) and wait for the exit; resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface Service extends Process {
  url: string;
}

function run(args: string[], env: NodeJS.ProcessEnv = {}): Process & { exited: Promise<number | null>; onOutput(cb: () => void): void } {
  const child = spawnOwned(NODE, [UPNESS, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let logs = '';
  const listeners: (() => void)[] = [];
  const add = (chunk: Buffer): void => {
    logs += chunk.toString('utf8');
    for (const l of listeners) l();
  };
  child.stdout!.on('data', add);
  child.stderr!.on('data', add);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    exited,
    onOutput: (cb) => listeners.push(cb),
    logs: () => logs,
    lines: () =>
      logs
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => {
          try {
            return JSON.parse(l) as LogLine;
          } catch {
            return null;
          }
        })
        .filter((l): l is LogLine => l !== null),
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Starts `upness serve --memory --host 127.0.0.1 --port 0 <args>` (no --memory when args give a
 *  --data-dir or a --store: serve refuses --memory beside either) and resolves with its URL once it listens. */
export async function startServe(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Service> {
  const p = run(['serve', ...(args.includes('--data-dir') || args.includes('--store') ? [] : ['--memory']), '--host', '127.0.0.1', '--port', '0', ...args], env);
  const url = await new Promise<string>((resolve, reject) => {
    const check = (): void => {
      const match = /"url":"(http:\/\/[^"]+)"/.exec(p.logs());
      if (match) resolve(match[1]!);
    };
    p.onOutput(check);
    void p.exited.then((code) => reject(new Error(`upness serve exited with ${code}:\n${p.logs()}`)));
  });
  return { ...p, url };
}

/** Starts `upness record <args> --out <file>`; its logs go to stderr. */
export function startRecord(args: string[], out: string): Process {
  return run(['record', '--out', out, ...args]);
}

/** Polls `fn` until it returns something other than undefined/false; fails after `timeoutMs`. */
export async function waitFor<T>(what: string, fn: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 30_000, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await fn();
      if (value !== undefined && value !== false) return value as T;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await sleep(everyMs);
  }
}

/** A kept-alive socket the server closed (its keep-alive timeout, 5 s) just as the client reused it. */
const staleSocket = (error: unknown): boolean => {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code === 'UND_ERR_SOCKET' || cause?.code === 'ECONNRESET' || cause?.message === 'other side closed';
};

export async function getJson<T = unknown>(url: string, init?: RequestInit): Promise<{ status: number; body: T }> {
  let res: Response;
  try {
    res = await fetch(url, init);
  } catch (error) {
    // A GET changes nothing: asked again once on a new connection, as Go's and browsers' clients do.
    if ((init?.method ?? 'GET') !== 'GET' || !staleSocket(error)) throw error;
    res = await fetch(url, init);
  }
  const text = await res.text();
  return { status: res.status, body: (text.startsWith('{') || text.startsWith('[') ? JSON.parse(text) : text) as T };
}

export async function waitReady(service: Service, timeoutMs = 30_000): Promise<Record<string, unknown>> {
  return waitFor(`${service.url}/readyz`, async () => {
    const r = await getJson<Record<string, unknown>>(`${service.url}/readyz`);
    return r.status === 200 ? r.body : undefined;
  }, timeoutMs);
}

export async function readiness(service: Service): Promise<{ status: number; body: { ready: boolean; reason?: string } }> {
  return getJson(`${service.url}/readyz`);
}

/** Prometheus text → the value of one series (labels given in any order), or undefined. */
export function metric(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const m = /^([a-zA-Z_:][\w:]*)(\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got: Record<string, string> = {};
    for (const [, k, v] of (m[3] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) got[k!] = v!;
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(m[4]);
  }
  return undefined;
}

/** Sum of every series of a metric whose labels include `labels`. */
export function metricSum(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got: Record<string, string> = {};
    for (const [, k, v] of (m[3] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) got[k!] = v!;
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) sum += Number(m[4]);
  }
  return sum;
}

// ---- the API as the service answers it -------------------------------------------------------

export interface IntervalJson {
  state: string;
  from: string;
  to: string | null;
  causes?: CauseJson[];
}

export interface CauseJson {
  kind: string;
  at: string;
  node?: string;
  pod?: string;
  container?: string;
  reason?: string;
  exitCode?: number;
  message?: string;
  restarts?: number;
}

export interface TimelineJson {
  uid: string;
  name: string;
  namespace: string;
  state: string;
  figures: Record<string, number | null>;
  intervals: IntervalJson[];
  events: { type: string; time: string; causes?: CauseJson[] }[];
}

export async function timelines(service: Service, namespace: string, name: string, layer: 'jobset' | 'nodes' = 'jobset', query = ''): Promise<TimelineJson[]> {
  const r = await getJson<{ timelines: TimelineJson[] }>(`${service.url}/api/v1/jobsets/${namespace}/${name}?layer=${layer}${query}`);
  if (r.status !== 200) throw new Error(`GET timelines of ${namespace}/${name} (${layer}): ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.timelines;
}

/** The states of a timeline in order, e.g. ['provisioning', 'up', 'down']. */
export function states(tl: TimelineJson): string[] {
  return tl.intervals.map((i) => i.state);
}

// ---- objects ---------------------------------------------------------------------------------

export const JOBSET_API = '/apis/jobset.x-k8s.io/v1alpha2';

export interface Meta {
  name: string;
  namespace?: string;
  uid: string;
  resourceVersion: string;
}

export function jobsetManifest(name: string, options: { replicas?: number; parallelism?: number; suspend?: boolean; labels?: Record<string, string> } = {}): object {
  return {
    apiVersion: 'jobset.x-k8s.io/v1alpha2',
    kind: 'JobSet',
    metadata: { name, labels: options.labels ?? {} },
    spec: {
      suspend: options.suspend ?? false,
      replicatedJobs: [
        {
          name: 'workers',
          replicas: options.replicas ?? 2,
          template: {
            spec: {
              parallelism: options.parallelism ?? 1,
              completions: options.parallelism ?? 1,
              completionMode: 'Indexed',
              backoffLimit: 0,
              template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'trainer:1', command: ['train'] }] } },
            },
          },
        },
      ],
    },
  };
}

/** The readiness part of a JobSet's status, as the JobSet controller writes it. */
export function jobsetStatus(ready: number, extra: Record<string, unknown> = {}): object {
  return { status: { replicatedJobsStatus: [{ name: 'workers', ready, active: ready, succeeded: 0, failed: 0, suspended: 0 }], ...extra } };
}

export function podManifest(p: { name: string; jobset: Meta; jobIndex: number; completionIndex?: number; nodeName?: string; restartAttempt?: number }): object {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: p.name,
      labels: {
        'jobset.sigs.k8s.io/jobset-name': p.jobset.name,
        'jobset.sigs.k8s.io/jobset-uid': p.jobset.uid,
        'jobset.sigs.k8s.io/replicatedjob-name': 'workers',
        'jobset.sigs.k8s.io/job-index': String(p.jobIndex),
        'jobset.sigs.k8s.io/restart-attempt': String(p.restartAttempt ?? 0),
        'batch.kubernetes.io/job-completion-index': String(p.completionIndex ?? 0),
      },
    },
    spec: {
      ...(p.nodeName !== undefined ? { nodeName: p.nodeName } : {}),
      restartPolicy: 'Never',
      automountServiceAccountToken: false,
      containers: [{ name: 'main', image: 'trainer:1', command: ['train'] }],
    },
  };
}

export const rfc3339 = (ms: number = Date.now()): string => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

export function nodeReadyStatus(status: 'True' | 'False' | 'Unknown', at: number = Date.now(), reason?: string): object {
  return {
    status: {
      conditions: [{ type: 'Ready', status, reason: reason ?? (status === 'True' ? 'KubeletReady' : status === 'False' ? 'KubeletNotReady' : 'NodeStatusUnknown'), message: `Ready=${status}`, lastHeartbeatTime: rfc3339(at), lastTransitionTime: rfc3339(at) }],
    },
  };
}

/** The test's side of the cluster: creates and changes objects as cluster admin, failing loudly. */
export class Kube {
  readonly cluster: Pick<Cluster, 'request'>;
  constructor(cluster: Pick<Cluster, 'request'>) {
    this.cluster = cluster;
  }

  async req(method: string, path: string, body?: unknown, expect: number[] = [200, 201]): Promise<ApiResponse> {
    const res = await this.cluster.request(method, path, body);
    if (!expect.includes(res.status)) throw new Error(`${method} ${path}: HTTP ${res.status}: ${res.body}`);
    return res;
  }

  /** A namespace with the default ServiceAccount (no controller-manager creates it here). */
  async namespace(name: string): Promise<void> {
    await this.req('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, [201, 409]);
    await this.req('POST', `/api/v1/namespaces/${name}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } }, [201, 409]);
  }

  async createJobSet(namespace: string, manifest: object): Promise<Meta> {
    const res = await this.req('POST', `${JOBSET_API}/namespaces/${namespace}/jobsets`, manifest);
    return res.json<{ metadata: Meta }>().metadata;
  }

  async jobsetStatus(namespace: string, name: string, status: object): Promise<void> {
    await this.req('PATCH', `${JOBSET_API}/namespaces/${namespace}/jobsets/${name}/status`, status);
  }

  async patchJobSet(namespace: string, name: string, patch: object): Promise<void> {
    await this.req('PATCH', `${JOBSET_API}/namespaces/${namespace}/jobsets/${name}`, patch);
  }

  async deleteJobSet(namespace: string, name: string): Promise<void> {
    await this.req('DELETE', `${JOBSET_API}/namespaces/${namespace}/jobsets/${name}`);
  }

  async getJobSet(namespace: string, name: string): Promise<{ metadata: Meta; status?: Record<string, unknown> }> {
    return (await this.req('GET', `${JOBSET_API}/namespaces/${namespace}/jobsets/${name}`)).json();
  }

  async createNode(name: string, ready: 'True' | 'False' | 'Unknown' = 'True', at?: number): Promise<void> {
    await this.req('POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'kubernetes.io/hostname': name } } });
    await this.nodeReady(name, ready, at);
  }

  async nodeReady(name: string, ready: 'True' | 'False' | 'Unknown', at?: number, reason?: string): Promise<void> {
    await this.req('PATCH', `/api/v1/nodes/${name}/status`, nodeReadyStatus(ready, at, reason));
  }

  async createPod(namespace: string, manifest: object): Promise<Meta> {
    const res = await this.req('POST', `/api/v1/namespaces/${namespace}/pods`, manifest);
    return res.json<{ metadata: Meta }>().metadata;
  }

  async podStatus(namespace: string, name: string, status: object): Promise<void> {
    await this.req('PATCH', `/api/v1/namespaces/${namespace}/pods/${name}/status`, { status });
  }

  /** Deletes a pod at once (grace period 0: no kubelet here to finish a graceful deletion). */
  async deletePod(namespace: string, name: string): Promise<void> {
    await this.req('DELETE', `/api/v1/namespaces/${namespace}/pods/${name}?gracePeriodSeconds=0`, undefined, [200, 404]);
  }

  /** The current etcd revision (from a list's resourceVersion). */
  async revision(): Promise<number> {
    const res = await this.req('GET', '/api/v1/namespaces/default/configmaps?limit=1');
    return Number(res.json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion);
  }
}

/** A running, scheduled pod on `node`: Running, Ready, its container started. */
export function runningPodStatus(at: number = Date.now()): object {
  return {
    phase: 'Running',
    conditions: [
      { type: 'PodScheduled', status: 'True', lastTransitionTime: rfc3339(at) },
      { type: 'Ready', status: 'True', lastTransitionTime: rfc3339(at) },
    ],
    containerStatuses: [{ name: 'main', ready: true, restartCount: 0, image: 'trainer:1', imageID: '', state: { running: { startedAt: rfc3339(at) } } }],
  };
}

/** A pod whose container was OOMKilled (exit code 137). */
export function oomKilledPodStatus(at: number = Date.now()): object {
  return {
    phase: 'Failed',
    conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: rfc3339(at) }],
    containerStatuses: [
      { name: 'main', ready: false, restartCount: 0, image: 'trainer:1', imageID: '', state: { terminated: { exitCode: 137, reason: 'OOMKilled', startedAt: rfc3339(at - 60_000), finishedAt: rfc3339(at) } } },
    ],
  };
}

/** A kubeconfig like the cluster's, pointing at another server (a proxy) or using a bearer token. */
export function writeKubeconfig(cluster: Cluster, path: string, options: { server?: string; token?: string } = {}): string {
  const config = JSON.parse(readFileSync(cluster.kubeconfigPath, 'utf8')) as {
    clusters: { cluster: { server: string } }[];
    users: { user: Record<string, string> }[];
  };
  if (options.server !== undefined) config.clusters[0]!.cluster.server = options.server;
  if (options.token !== undefined) config.users[0]!.user = { token: options.token };
  writeFileSync(path, JSON.stringify(config, null, 2), { mode: 0o600 });
  return path;
}

/** ms between two RFC 3339 times. */
export const between = (from: string, to: string): number => Date.parse(to) - Date.parse(from);
