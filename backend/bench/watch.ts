// `npm run bench:watch`: the memory of `upness serve` watching a real kube-apiserver, against its peer
// measured in the same run: the same fleet replayed from a trace.
//   The cluster: the kube tier's etcd + kube-apiserver (test/kube/cluster.ts) with the JobSet CRD.
//   The fleet: N JobSets (default 2,000) of R replicas × P parallelism pods (default 2 × 2: 8,000
//   pods), one pod per node on nodes of their own (8,000 nodes), the objects of bench:memory
//   (fleet-shapes.ts: containers with env, a node's images, conditions, ...) created through the API
//   with their status, so the apiserver adds its own managedFields. Every JobSet is up at the end.
//   Watched: `upness serve --memory --kubeconfig …`, once its watches hold every object and its
//   /readyz says the first sync is delivered.
//   Peer: `upness serve --memory --trace -`, the trace on standard input: one ADDED line per object,
//   the objects as the apiserver lists them (nodes, pods, JobSets: the first sync's order), once
//   /readyz says the trace is replayed.
//   Measured: each service's RSS (/proc/PID/status) after full garbage collections, forced through
//   the inspector (node --inspect on loopback: HeapProfiler.collectGarbage), and its V8 heap in use;
//   and both services' RSS before the fleet (an empty cluster, an empty trace), which tells the cost
//   of the cluster source's code (client-node) apart from what each holds for the fleet.
// Options: --jobsets N --replicas R --parallelism P --concurrency C (JobSets created at once, each
// with its nodes and pods in parallel), --smoke (20 JobSets).

import type { ChildProcess } from 'node:child_process';
import { closeSync, createWriteStream, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { startCluster, type Cluster } from '../../test/kube/cluster.ts';
import { NODE, UPNESS, getJson, metric, metricSum, waitFor } from '../../test/kube/harness.ts';
import { spawnOwned } from '../../test/support/processes.ts';
import type { KubeObject } from '../src/observation/types.ts';
import { fleetShapes } from './fleet-shapes.ts';
import { settledMemory, type SettledMemory } from './settled-memory.ts';
import { benchArgs } from './args.ts';

const { values: args } = benchArgs(import.meta.filename, {
  options: {
    jobsets: { type: 'string', default: '2000' },
    replicas: { type: 'string', default: '2' },
    parallelism: { type: 'string', default: '2' },
    concurrency: { type: 'string', default: '8' },
    smoke: { type: 'boolean', default: false },
  },
});
const jobsets = args.smoke ? 20 : Number(args.jobsets);
const replicas = Number(args.replicas);
const parallelism = Number(args.parallelism);
const concurrency = Number(args.concurrency);
const podsPer = replicas * parallelism;
const NAMESPACES = ['team-0', 'team-1', 'team-2', 'team-3'];
const JOBSETS = '/apis/jobset.x-k8s.io/v1alpha2';

const log = (line: string): void => void process.stdout.write(`${line}\n`);
const progress = (line: string): void => void process.stderr.write(`${line}\n`);
const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
const memory = (m: { rss: number; heapUsed: number; heapTotal: number; external: number }): string =>
  `rss ${mib(m.rss)}, heapUsed ${mib(m.heapUsed)}, heapTotal ${mib(m.heapTotal)}, external ${mib(m.external)}`;

// ---- the cluster's side: a keep-alive client, and the fleet made through it ------------------

interface Client {
  send(method: string, path: string, body?: unknown): Promise<{ status: number; body: string }>;
  destroy(): void;
}

function client(cluster: Cluster): Client {
  const agent = new Agent({ ...cluster.tls, keepAlive: true, maxSockets: 4 * concurrency });
  return {
    send: (method, path, body) =>
      new Promise((resolve, reject) => {
        const payload = body === undefined ? undefined : JSON.stringify(body);
        const headers: Record<string, string> = { accept: 'application/json' };
        if (payload !== undefined) headers['content-type'] = method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
        const req = httpsRequest(new URL(cluster.server + path), { method, agent, headers, timeout: 120_000 }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        });
        req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer in 120 s`)));
        req.on('error', reject);
        req.end(payload);
      }),
    destroy: () => agent.destroy(),
  };
}

async function must(kube: Client, method: string, path: string, body?: unknown, expect = [200, 201]): Promise<Record<string, unknown>> {
  const res = await kube.send(method, path, body);
  if (!expect.includes(res.status)) throw new Error(`${method} ${path}: HTTP ${res.status}: ${res.body.slice(0, 500)}`);
  return res.body.startsWith('{') ? (JSON.parse(res.body) as Record<string, unknown>) : {};
}

/** The object as a client sends it: no server-set metadata, no status (written through /status). */
function forCreate(object: KubeObject): { manifest: Record<string, unknown>; status: unknown } {
  const { status, ...rest } = object as KubeObject & { status?: unknown };
  const { uid: _uid, resourceVersion: _rv, creationTimestamp: _ct, managedFields: _mf, ...metadata } = object.metadata as Record<string, unknown>;
  return { manifest: { ...rest, metadata }, status };
}

const shapes = fleetShapes({ replicas, parallelism });

/** One JobSet with its nodes and pods, created and given their status (nodes Ready, pods Running, the JobSet up);
 *  its nodes and its pods in parallel. */
async function createJobSet(kube: Client, js: number): Promise<void> {
  const at = Date.now();
  const nodes = Array.from({ length: podsPer }, (_, k) => `node-${js}-${String(k).padStart(2, '0')}`);
  const nodesMade = Promise.all(nodes.map(async (name) => {
    const { manifest, status } = forCreate(shapes.nodeObject(name, at, true));
    await must(kube, 'POST', '/api/v1/nodes', manifest);
    await must(kube, 'PATCH', `/api/v1/nodes/${name}/status`, { status });
  }));
  const jobset = shapes.jobsetObject(js, at, replicas, 0);
  const namespace = jobset.metadata.namespace!;
  const pod0 = shapes.podObject(js, 0, 0, 0, 0, nodes[0]!, 'running', at) as KubeObject & { spec: Record<string, unknown> };
  // A JobSet's pod template is the pods' spec (what the JobSet controller copies into them).
  const { nodeName: _n, hostname: _h, subdomain: _s, ...podTemplate } = pod0.spec;
  const { manifest: jsManifest, status: jsStatus } = forCreate(jobset);
  const spec = jsManifest.spec as { replicatedJobs: { template: { spec: { template: { spec: unknown } } } }[] };
  for (const rj of spec.replicatedJobs) rj.template.spec.template.spec = podTemplate;
  const created = await must(kube, 'POST', `${JOBSETS}/namespaces/${namespace}/jobsets`, jsManifest);
  const uid = (created.metadata as { uid: string }).uid;
  await Promise.all(Array.from({ length: podsPer }, async (_, k) => {
    const pod = shapes.podObject(js, 0, Math.floor(k / parallelism), k % parallelism, 0, nodes[k]!, 'running', at);
    pod.metadata.labels!['jobset.sigs.k8s.io/jobset-uid'] = uid;
    const { manifest, status } = forCreate(pod);
    await must(kube, 'POST', `/api/v1/namespaces/${namespace}/pods`, manifest);
    await must(kube, 'PATCH', `/api/v1/namespaces/${namespace}/pods/${pod.metadata.name}/status`, { status });
  }));
  await nodesMade;
  await must(kube, 'PATCH', `${JOBSETS}/namespaces/${namespace}/jobsets/${jobset.metadata.name}/status`, { status: jsStatus });
}

async function createFleet(kube: Client): Promise<void> {
  for (const ns of NAMESPACES) {
    await must(kube, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }, [201, 409]);
    await must(kube, 'POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } }, [201, 409]);
  }
  let next = 0;
  let done = 0;
  const started = Date.now();
  const worker = async (): Promise<void> => {
    while (next < jobsets) {
      await createJobSet(kube, next++);
      if (++done % 200 === 0) progress(`created ${done} of ${jobsets} JobSets with their pods and nodes (${((Date.now() - started) / 1000).toFixed(0)} s)`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, jobsets) }, worker));
}

/** Every object of a collection as the apiserver lists it (pages of 500), apiVersion and kind set. */
async function listAll(kube: Client, path: string, apiVersion: string, kind: string, labelSelector?: string): Promise<KubeObject[]> {
  const items: KubeObject[] = [];
  let token: string | undefined;
  do {
    const query = new URLSearchParams({ limit: '500', ...(labelSelector ? { labelSelector } : {}), ...(token ? { continue: token } : {}) });
    const page = (await must(kube, 'GET', `${path}?${query}`)) as { metadata?: { continue?: string }; items?: KubeObject[] };
    for (const item of page.items ?? []) items.push({ apiVersion, kind, ...item });
    token = page.metadata?.continue || undefined;
  } while (token !== undefined);
  return items;
}

/** The fleet as a recorded trace: one ADDED line per object, nodes, then pods, then JobSets; returns the bytes of JSON. */
async function writeTrace(kube: Client, file: string): Promise<{ objects: number; bytes: number }> {
  const out = createWriteStream(file);
  const time = new Date().toISOString();
  let objects = 0;
  let bytes = 0;
  const collections: [string, string, string, string?][] = [
    ['/api/v1/nodes', 'v1', 'Node'],
    ['/api/v1/pods', 'v1', 'Pod', 'jobset.sigs.k8s.io/jobset-name'],
    [`${JOBSETS}/jobsets`, 'jobset.x-k8s.io/v1alpha2', 'JobSet'],
  ];
  for (const [path, apiVersion, kind, selector] of collections) {
    for (const object of await listAll(kube, path, apiVersion, kind, selector)) {
      const json = JSON.stringify(object);
      objects++;
      bytes += json.length;
      if (!out.write(`{"time":"${time}","type":"ADDED","object":${json}}\n`)) await once(out, 'drain');
    }
  }
  out.end();
  await once(out, 'finish');
  return { objects, bytes };
}

// ---- the service's side ------------------------------------------------------------------------

interface Served {
  child: ChildProcess;
  url: string;
  inspector: string;
  logs(): string;
  stop(): Promise<void>;
}

/** `upness serve --memory <args>` under the inspector (loopback, a free port), stdin from `stdin` (a file descriptor) or none. */
async function serve(serveArgs: string[], stdin: number | 'ignore' = 'ignore'): Promise<Served> {
  const child = spawnOwned(NODE, ['--inspect=127.0.0.1:0', UPNESS, 'serve', '--memory', '--host', '127.0.0.1', '--port', '0', ...serveArgs], { stdio: [stdin, 'pipe', 'pipe'] });
  let logs = '';
  child.stdout!.on('data', (c: Buffer) => (logs += c.toString('utf8')));
  child.stderr!.on('data', (c: Buffer) => (logs += c.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const found = await waitFor('the service to listen', () => {
    if (child.exitCode !== null) throw new Error(`upness serve exited with ${child.exitCode}:\n${logs}`);
    const url = /"url":"(http:\/\/[^"]+)"/.exec(logs)?.[1];
    const inspector = /Debugger listening on (ws:\/\/\S+)/.exec(logs)?.[1];
    return url !== undefined && inspector !== undefined ? { url, inspector } : undefined;
  }, 60_000);
  return {
    child,
    ...found,
    logs: () => logs,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Full garbage collections through the inspector, then the process's RSS and V8 heap in use. */
const settled = (served: Served): Promise<SettledMemory> => settledMemory(served.inspector, served.child.pid!);

async function upTimelines(served: Served): Promise<number> {
  const metrics = await getJson<string>(`${served.url}/metrics`);
  return metric(metrics.body, 'upness_timelines', { state: 'up' }) ?? 0;
}

async function waitServed(served: Served, what: string, check: (metrics: string) => boolean): Promise<number> {
  const started = Date.now();
  await waitFor(what, async () => {
    if (served.child.exitCode !== null) throw new Error(`upness serve exited with ${served.child.exitCode}:\n${served.logs()}`);
    const ready = await getJson(`${served.url}/readyz`);
    if (ready.status !== 200) return undefined;
    return check((await getJson<string>(`${served.url}/metrics`)).body);
  }, 30 * 60_000, 500);
  return (Date.now() - started) / 1000;
}

// ---- the run -----------------------------------------------------------------------------------

const dir = mkdtempSync(join(tmpdir(), 'upness-bench-watch-'));
let cluster: Cluster | null = null;
const services: Served[] = [];
let kube: Client | null = null;
const cleanUp = async (): Promise<void> => {
  await Promise.allSettled(services.map((s) => s.stop()));
  kube?.destroy();
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
};
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void cleanUp().finally(() => process.exit(130)));
}

try {
  const pods = jobsets * podsPer;
  const nodes = jobsets * podsPer;
  progress('starting etcd and kube-apiserver (test/kube/cluster.ts)');
  // The fleet and its status writes are ~ 10 revisions an object: room in etcd beyond its 2 GiB default.
  cluster = await startCluster({ etcdFlags: ['--quota-backend-bytes=8589934592'], log: progress });
  kube = client(cluster);

  // The same two services before there is any fleet: what the cluster source's code (client-node)
  // costs by itself, apart from what either holds for the fleet.
  progress('both services on an empty cluster and an empty trace');
  const emptyWatched = await serve(['--kubeconfig', cluster.kubeconfigPath]);
  services.push(emptyWatched);
  await waitServed(emptyWatched, 'the watch of the empty cluster', () => true);
  const emptyWatchedMemory = await settled(emptyWatched);
  await emptyWatched.stop();
  const emptyTrace = join(dir, 'empty.jsonl');
  writeFileSync(emptyTrace, '');
  const emptyInput = openSync(emptyTrace, 'r');
  const emptyReplayed = await serve(['--trace', '-'], emptyInput);
  closeSync(emptyInput);
  services.push(emptyReplayed);
  await waitServed(emptyReplayed, 'the empty trace', () => true);
  const emptyReplayedMemory = await settled(emptyReplayed);
  await emptyReplayed.stop();

  const createStarted = Date.now();
  await createFleet(kube);
  const createSeconds = (Date.now() - createStarted) / 1000;

  progress('watching it: upness serve --kubeconfig');
  const watched = await serve(['--kubeconfig', cluster.kubeconfigPath]);
  services.push(watched);
  const watchSeconds = await waitServed(watched, 'the watch to hold the whole fleet', (m) =>
    metric(m, 'upness_watch_objects', { resource: 'jobsets' }) === jobsets &&
    metric(m, 'upness_watch_objects', { resource: 'pods' }) === pods &&
    metric(m, 'upness_watch_objects', { resource: 'nodes' }) === nodes &&
    metricSum(m, 'upness_timelines') === jobsets);
  const watchedUp = await upTimelines(watched);
  const watchedMemory = await settled(watched);
  await watched.stop();

  progress('writing the same fleet as a trace');
  const trace = join(dir, 'fleet.jsonl');
  const { objects, bytes } = await writeTrace(kube, trace);
  kube.destroy();
  kube = null;
  await cluster.stop();
  cluster = null;

  progress('replaying it: upness serve --trace -');
  const input = openSync(trace, 'r');
  const replayed = await serve(['--trace', '-'], input);
  closeSync(input); // the child has its own copy of the descriptor
  services.push(replayed);
  const replaySeconds = await waitServed(replayed, 'the trace to be replayed', (m) => metricSum(m, 'upness_timelines') === jobsets);
  const replayedUp = await upTimelines(replayed);
  const replayedMemory = await settled(replayed);
  await replayed.stop();

  log(`Upness watch memory benchmark — Node ${process.version}`);
  log(`fleet: ${jobsets.toLocaleString('en-US')} JobSets × ${replicas} replicas × ${parallelism} parallelism, ${pods.toLocaleString('en-US')} pods, ${nodes.toLocaleString('en-US')} nodes, created in ${createSeconds.toFixed(0)} s`);
  log(`as listed: ${objects.toLocaleString('en-US')} objects, ${mib(bytes)} of JSON (${Math.round(bytes / objects).toLocaleString('en-US')} bytes each on average, managedFields included)`);
  log(`watched (serve --kubeconfig): first sync in ${watchSeconds.toFixed(1)} s, ${watchedUp.toLocaleString('en-US')} JobSets up; after a full GC: ${memory(watchedMemory)}`);
  log(`replayed (serve --trace -):   replayed in ${replaySeconds.toFixed(1)} s, ${replayedUp.toLocaleString('en-US')} JobSets up; after a full GC: ${memory(replayedMemory)}`);
  log(`empty cluster, empty trace: watched ${memory(emptyWatchedMemory)}; replayed ${memory(emptyReplayedMemory)} (the cluster source's code: +${mib(emptyWatchedMemory.rss - emptyReplayedMemory.rss)})`);
  const heldWatched = watchedMemory.rss - emptyWatchedMemory.rss;
  const heldReplayed = replayedMemory.rss - emptyReplayedMemory.rss;
  log(`held for the fleet (rss over the empty service's): watched ${mib(heldWatched)}, replayed ${mib(heldReplayed)}: ${(heldWatched / heldReplayed).toFixed(2)}×`);
  log(`watched / replayed: rss ${(watchedMemory.rss / replayedMemory.rss).toFixed(2)}×, heapUsed ${(watchedMemory.heapUsed / replayedMemory.heapUsed).toFixed(2)}× (goal, issue 21: rss within 1.5×)`);
  if (watchedUp !== jobsets || replayedUp !== jobsets) throw new Error(`expected ${jobsets} JobSets up in both, got ${watchedUp} watched and ${replayedUp} replayed`);
} catch (error) {
  process.stderr.write(`bench:watch failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
} finally {
  await cleanUp();
}
