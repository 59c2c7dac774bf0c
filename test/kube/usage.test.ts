// Resource usage through the apiserver's node proxy (issue 20 §4). What is real here: the
// kube-apiserver, its node proxy (GET /api/v1/nodes/{node}/proxy/stats/summary), its kubelet client
// (--kubelet-certificate-authority, --kubelet-client-certificate) and RBAC on nodes/proxy, with
// service-account tokens. What stands in: the kubelet, an HTTPS server of test/kube/kubelet.ts that
// answers /stats/summary with numbers written here, registered as the Node's InternalIP and kubelet
// port. It listens on this machine's non-loopback address because the apiserver does not proxy to
// loopback. The sums and rates are checked against numbers worked out by hand.

import { pino } from 'pino';
import { loadKubeConfig } from '../../backend/src/sources/cluster/config.ts';
import { fetchKubeletSummary } from '../../backend/src/sources/cluster/kubelet-stats.ts';
import { ApiError, listAll } from '../../backend/src/sources/cluster/list.ts';
import { parseKubeletSummary } from '../../backend/src/usage/kubelet-summary.ts';
import { UsageBook } from '../../backend/src/usage/book.ts';
import { UsageSampler } from '../../backend/src/runtime/usage-sampler.ts';
import type { KubeObject } from '../../backend/src/observation/types.ts';
import { startCluster, type Cluster } from './cluster.ts';
import { getJson, jobsetManifest, Kube, metric, podManifest, startServe, waitFor, waitReady, writeKubeconfig, type Meta } from './harness.ts';
import { makeKubeletPki, proxyableAddress, removeKubeletPki, startStandInKubelet, type KubeletPki, type StandInKubelet } from './kubelet.ts';
import { createServer } from 'node:net';
import { join } from 'node:path';

const T = Date.parse('2026-01-01T00:00:00Z');
const iso = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');

let cluster: Cluster;
let kube: Kube;
let kubelet: StandInKubelet;
let pki: KubeletPki;
let jobset: Meta;
const pods: Record<string, Meta> = {};
const logger = pino({ level: 'silent' });

/** A port on `address` that nothing listens on: a node whose kubelet is down. */
async function closedPort(address: string): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, address, () => resolve()));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** node-a's summary: two pods of the JobSet and one of no JobSet, at time `at` with network counters `net`. */
function summary(at: number, net: { a: [number, number]; b: [number, number] }): object {
  const podStats = (name: string, uid: string, cpuNano: number, memory: number, counters: [number, number] | null) => ({
    podRef: { name, namespace: 'ml', uid },
    cpu: { time: iso(at), usageNanoCores: cpuNano },
    memory: { time: iso(at), workingSetBytes: memory },
    ...(counters !== null ? { network: { time: iso(at), name: 'eth0', rxBytes: counters[0], txBytes: counters[1], interfaces: [{ name: 'eth0', rxBytes: counters[0], txBytes: counters[1] }] } } : {}),
  });
  return {
    node: { nodeName: 'node-a' },
    pods: [
      podStats('train-0', pods['train-0']!.uid, 1_500_000_000, 2_000, net.a),
      podStats('train-1', pods['train-1']!.uid, 500_000_000, 1_000, net.b),
      podStats('web', pods.web!.uid, 4_000_000_000, 9_999, null),
    ],
  };
}

async function token(serviceAccount: string): Promise<string> {
  const res = await kube.req('POST', `/api/v1/namespaces/ml/serviceaccounts/${serviceAccount}/token`, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } });
  return res.json<{ status: { token: string } }>().status.token;
}

async function configAs(serviceAccount: string) {
  return loadKubeConfig({ kubeconfig: writeKubeconfig(cluster, join(cluster.tempDir, `kubeconfig-${serviceAccount}`), { token: await token(serviceAccount) }) }).config;
}

beforeAll(async () => {
  const address = proxyableAddress();
  pki = await makeKubeletPki(address);
  kubelet = await startStandInKubelet(pki, address, {});
  cluster = await startCluster({ apiserverFlags: pki.apiserverFlags });
  kube = new Kube(cluster);
  await kube.namespace('ml');
  // node-a: the stand-in kubelet; node-b: a node whose kubelet does not answer.
  await kube.req('POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-a' } });
  await kube.req('PATCH', '/api/v1/nodes/node-a/status', kubelet.nodeStatus());
  await kube.req('POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-b' } });
  await kube.req('PATCH', '/api/v1/nodes/node-b/status', { status: { addresses: [{ type: 'InternalIP', address }], daemonEndpoints: { kubeletEndpoint: { Port: await closedPort(address) } } } });
  jobset = await kube.createJobSet('ml', jobsetManifest('train', { replicas: 3 }));
  pods['train-0'] = await kube.createPod('ml', podManifest({ name: 'train-0', jobset, jobIndex: 0, nodeName: 'node-a' }));
  pods['train-1'] = await kube.createPod('ml', podManifest({ name: 'train-1', jobset, jobIndex: 1, nodeName: 'node-a' }));
  pods['train-2'] = await kube.createPod('ml', podManifest({ name: 'train-2', jobset, jobIndex: 2, nodeName: 'node-b' }));
  const web = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { nodeName: 'node-a', automountServiceAccountToken: false, containers: [{ name: 'web', image: 'web:1' }] } };
  pods.web = await kube.createPod('ml', web);
  kubelet.summary = summary(T, { a: [1_000, 0], b: [500, 500] });
  // RBAC: `sampler` may get nodes/proxy, `nobody` may not.
  for (const name of ['sampler', 'nobody']) await kube.req('POST', '/api/v1/namespaces/ml/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name } });
  await kube.req('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'upness-usage' },
    rules: [{ apiGroups: [''], resources: ['nodes/proxy'], verbs: ['get'] }],
  });
  await kube.req('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'upness-usage' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'upness-usage' },
    subjects: [{ kind: 'ServiceAccount', name: 'sampler', namespace: 'ml' }],
  });
}, 180_000);

afterAll(async () => {
  await cluster?.stop();
  await kubelet?.stop();
  if (pki !== undefined) await removeKubeletPki(pki);
});

describe('the node proxy to a kubelet', () => {
  it('brings the kubelet summary through the apiserver, which authenticates to the kubelet with its client certificate', async () => {
    const admin = loadKubeConfig({ kubeconfig: cluster.kubeconfigPath }).config;
    const answer = await fetchKubeletSummary(admin, 'node-a', AbortSignal.timeout(20_000));
    const parsed = parseKubeletSummary(answer, 'node-a');
    expect(parsed.map((p) => [p.name, p.cpuCores, p.memoryBytes])).toEqual([
      ['train-0', 1.5, 2_000],
      ['train-1', 0.5, 1_000],
      ['web', 4, 9_999],
    ]);
    expect(kubelet.requests.at(-1)).toEqual({ path: '/stats/summary', client: 'kube-apiserver-kubelet-client' });
  });

  it('RBAC: a service account with get on nodes/proxy reads it, one without is refused with 403', async () => {
    const allowed = await configAs('sampler');
    expect(parseKubeletSummary(await fetchKubeletSummary(allowed, 'node-a', AbortSignal.timeout(20_000)), 'node-a')).toHaveLength(3);
    const denied = await configAs('nobody');
    const refusal = await fetchKubeletSummary(denied, 'node-a', AbortSignal.timeout(20_000)).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(ApiError);
    expect((refusal as ApiError).statusCode).toBe(403);
  });
});

describe('the usage sampler', () => {
  async function listPods(): Promise<KubeObject[]> {
    const admin = loadKubeConfig({ kubeconfig: cluster.kubeconfigPath }).config;
    return (await listAll(admin, '/api/v1/pods', { apiVersion: 'v1', kind: 'Pod', signal: AbortSignal.timeout(20_000) })).items;
  }

  it('sums the JobSet pods per JobSet, skips and counts the node that does not answer, and measures network rates', async () => {
    const config = await configAs('sampler');
    const podObjects = await listPods();
    const book = new UsageBook();
    let now = T;
    const sampler = new UsageSampler({
      intervalMs: 30_000,
      fetchSummary: (node, signal) => fetchKubeletSummary(config, node, signal),
      pods: () => podObjects,
      book,
      logger,
      clock: () => now,
      timeoutMs: 20_000,
    });
    kubelet.summary = summary(T, { a: [1_000, 0], b: [500, 500] });
    const first = await sampler.sampleOnce();
    // Nodes with a JobSet pod: node-a and node-b; node-b's kubelet is down.
    expect(first).toEqual({ at: T, nodes: 2, failedNodes: 1, jobsets: 1, pods: 2, unattributedPods: 1 });
    expect(sampler.failures.unreachable).toBe(1);

    //   30 s later: train-0 rx 1 000 → 4 000, tx 0 → 900; train-1 rx 500 → 2 000, tx 500 → 1 100
    //   rx (3 000 + 1 500) / 30 = 150 B/s; tx (900 + 600) / 30 = 50 B/s
    now = T + 30_000;
    kubelet.summary = summary(T + 30_000, { a: [4_000, 900], b: [2_000, 1_100] });
    await sampler.sampleOnce();
    const entry = book.get(jobset.uid)!;
    expect(entry).toMatchObject({ namespace: 'ml', name: 'train' });
    const value = (metric: Parameters<typeof entry.history.points>[0]) => [...entry.history.points(metric).values];
    expect(value('cpuCores')).toEqual([2, 2]);
    expect(value('memoryBytes')).toEqual([3_000, 3_000]);
    expect(value('pods')).toEqual([2, 2]);
    expect(value('networkReceiveBytesPerSecond')).toEqual([Number.NaN, 150]);
    expect(value('networkTransmitBytesPerSecond')).toEqual([Number.NaN, 50]);
    expect(sampler.failures.unreachable).toBe(2);
  });

  it('a service account without nodes/proxy: every node is skipped and counted as forbidden, nothing is kept', async () => {
    const config = await configAs('nobody');
    const podObjects = await listPods();
    const book = new UsageBook();
    const sampler = new UsageSampler({ intervalMs: 30_000, fetchSummary: (node, signal) => fetchKubeletSummary(config, node, signal), pods: () => podObjects, book, logger, timeoutMs: 20_000 });
    const report = await sampler.sampleOnce();
    expect(report).toMatchObject({ nodes: 2, failedNodes: 2, jobsets: 0 });
    expect(sampler.failures.forbidden).toBe(2);
    expect([...book.entries()]).toEqual([]);
  });
});

describe('nodes that fail', () => {
  let other: StandInKubelet;
  afterAll(async () => {
    await other?.stop();
  });

  //   node-c's stand-in answers a page that is not JSON, then a summary that is not one, then never.
  it('an answer that is not a summary, and a kubelet that hangs, are skipped and counted; the other nodes are still sampled', async () => {
    const address = proxyableAddress();
    // Its own server, with the same certificates: the apiserver trusts the kubelet CA it was started with.
    other = await startStandInKubelet(pki, address, {});
    await kube.req('POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-c' } });
    await kube.req('PATCH', '/api/v1/nodes/node-c/status', other.nodeStatus());
    const config = loadKubeConfig({ kubeconfig: cluster.kubeconfigPath }).config;
    // Only node-a and node-c: a JobSet pod on each.
    const objects = (await listAll(config, '/api/v1/pods', { apiVersion: 'v1', kind: 'Pod', signal: AbortSignal.timeout(20_000) })).items.filter((p) => p.metadata.name !== 'train-2');
    objects.push({ apiVersion: 'v1', kind: 'Pod', metadata: { uid: 'pod-on-c', name: 'train-9', namespace: 'ml', labels: { 'jobset.sigs.k8s.io/jobset-name': 'train', 'jobset.sigs.k8s.io/jobset-uid': jobset.uid } }, spec: { nodeName: 'node-c' } });
    const book = new UsageBook();
    let now = T + 60_000;
    const sampler = new UsageSampler({ intervalMs: 30_000, fetchSummary: (node, signal) => fetchKubeletSummary(config, node, signal), pods: () => objects, book, logger, clock: () => (now += 1000), timeoutMs: 8_000 });
    kubelet.summary = summary(T + 60_000, { a: [0, 0], b: [0, 0] });

    other.mode = 'not-json';
    expect(await sampler.sampleOnce()).toMatchObject({ nodes: 2, failedNodes: 1, jobsets: 1, pods: 2 });
    other.mode = 'answer';
    other.summary = { pods: 'none' };
    expect(await sampler.sampleOnce()).toMatchObject({ nodes: 2, failedNodes: 1, jobsets: 1 });
    expect(sampler.failures.invalid).toBe(2);
    other.mode = 'hang';
    expect(await sampler.sampleOnce()).toMatchObject({ nodes: 2, failedNodes: 1, jobsets: 1 });
    expect(sampler.failures).toMatchObject({ invalid: 2, timeout: 1, forbidden: 0, unreachable: 0, error: 0 });
    // node-a was sampled every time: 1.5 + 0.5 cores.
    expect([...book.get(jobset.uid)!.history.points('cpuCores').values]).toEqual([2, 2, 2]);
    await kube.req('DELETE', '/api/v1/nodes/node-c');
  }, 60_000);
});

describe('upness serve --watch-usage', () => {
  it('samples after the first sync, every interval, and counts the node it cannot reach on /metrics', async () => {
    const service = await startServe(['--kubeconfig', cluster.kubeconfigPath, '--watch-usage', '--usage-interval', '1s']);
    try {
      await waitReady(service);
      const text = await waitFor('two usage samplings', async () => {
        const r = await getJson<string>(`${service.url}/metrics`);
        return (metric(r.body, 'upness_usage_samplings_total') ?? 0) >= 2 ? r.body : undefined;
      });
      // Every sampling asks node-b, whose kubelet is down; node-a answers.
      expect(metric(text, 'upness_usage_node_failures_total', { reason: 'unreachable' })).toBeGreaterThanOrEqual(2);
      expect(metric(text, 'upness_usage_node_failures_total', { reason: 'forbidden' })).toBe(0);
    } finally {
      await service.stop();
    }
  });

  it('keeps the usage in the data dir: a restart answers the usage queries as before', async () => {
    const dataDir = join(cluster.tempDir, 'usage-data');
    const args = ['--kubeconfig', cluster.kubeconfigPath, '--data-dir', dataDir, '--watch-usage', '--usage-interval', '1s'];
    const from = Date.now() - 60_000;
    const usageQueries = (to: number) => ({
      from,
      to,
      queries: [
        { refId: 'split', queryType: 'summary', namespaces: ['ml'], figures: ['upSeconds'], usageByState: ['cpuCores', 'memoryBytes'] },
        { refId: 'cpu', queryType: 'series', namespaces: ['ml'], metric: 'cpuCores', window: 'range' },
      ],
    });
    const ask = async (url: string, to: number) => (await getJson<{ results: Record<string, unknown> }>(`${url}/api/v1/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(usageQueries(to)) })).body.results;
    const first = await startServe(args);
    let to = 0;
    let before: Record<string, unknown> = {};
    try {
      await waitReady(first);
      await waitFor('three usage samplings', async () => (metric((await getJson<string>(`${first.url}/metrics`)).body, 'upness_usage_samplings_total') ?? 0) >= 3);
      to = Date.now();
      before = await ask(first.url, to);
      // node-a's two pods: 1.5 cores (summary() above).
      expect(JSON.stringify(before)).toContain('"cpuCores"');
      const cpu = before.cpu as { frames: { data: { values: unknown[][] } }[] };
      expect(cpu.frames[0]!.data.values[1]![0]).toBeGreaterThan(0);
    } finally {
      expect(await first.stop()).toBe(0);
    }
    const second = await startServe(args);
    try {
      await waitReady(second);
      expect(await ask(second.url, to)).toEqual(before);
    } finally {
      await second.stop();
    }
  }, 90_000);
});
