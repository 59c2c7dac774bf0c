// Node pools (`layer: nodepools`) from a real kube-apiserver: the test plays the kubelets and the
// cloud, creating Nodes in two pools (a GKE one and a Karpenter one), flipping their Ready
// conditions, deleting one without warning and creating it again, and cordoning and deleting one
// as a scale-down; the pool timelines the service answers are checked exactly.
//
// Times: a transition timed by a Ready condition has that condition's lastTransitionTime (whole
// seconds, written here); one timed by a deletion has the moment the deletion arrived, which falls
// between the wall clock before and after the write (plus a little slack).

import { startCluster, type Cluster } from './cluster.ts';
import { getJson, Kube, startServe, waitFor, waitReady, type Service, type TimelineJson } from './harness.ts';

const SLACK = 1500;

let cluster: Cluster;
let kube: Kube;
let service: Service;

beforeAll(async () => {
  cluster = await startCluster();
  kube = new Kube(cluster);
  service = await startServe(['--kubeconfig', cluster.kubeconfigPath]);
  await waitReady(service);
}, 120_000);

afterAll(async () => {
  await service?.stop();
  await cluster?.stop();
});

/** Waits into the next whole second, so that a condition time taken after it is later than every change before. */
const nextSecond = (): Promise<void> => new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 20));
/** Now, to the whole second (a condition's resolution). */
const second = (): number => Math.floor(Date.now() / 1000) * 1000;

async function createNode(name: string, labels: Record<string, string>): Promise<void> {
  await kube.req('POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'kubernetes.io/hostname': name, ...labels } } });
  await kube.nodeReady(name, 'False', second());
}

async function deleteNode(name: string): Promise<{ before: number; after: number }> {
  const before = Date.now();
  await kube.req('DELETE', `/api/v1/nodes/${name}`);
  return { before, after: Date.now() };
}

/** Sets the node Ready (or not) as of the next whole second; returns that time. */
async function flip(name: string, ready: 'True' | 'False' | 'Unknown'): Promise<number> {
  await nextSecond();
  const at = second();
  await kube.nodeReady(name, ready, at);
  return at;
}

type Drawn = [string, number, number | null][];

/** Waits until the pool's (single) timeline has these states, and returns it. */
async function pool(name: string, states: string[]): Promise<TimelineJson> {
  return waitFor(`pool ${name} to be ${states.join(' → ')}`, async () => {
    const r = await getJson<{ timelines: TimelineJson[] }>(`${service.url}/api/v1/nodepools/${name}`);
    if (r.status !== 200 || r.body.timelines.length !== 1) return undefined;
    const tl = r.body.timelines[0]!;
    return JSON.stringify(tl.intervals.map((i) => i.state)) === JSON.stringify(states) ? tl : undefined;
  }, 20_000, 50);
}

const drawn = (tl: TimelineJson): Drawn => tl.intervals.map((i) => [i.state, Date.parse(i.from), i.to === null ? null : Date.parse(i.to)]);

it('two pools: readiness flips, a node lost and recreated, a scale-down; the pool timelines exactly', async () => {
  const GKE = { 'cloud.google.com/gke-nodepool': 'pool-a', 'cloud.google.com/gke-accelerator': 'nvidia-h100-80gb' };
  const KARPENTER = { 'karpenter.sh/nodepool': 'pool-b' };
  const created = Date.now();
  await createNode('a1', GKE);
  await createNode('a2', GKE);
  await createNode('b1', KARPENTER);
  await createNode('b2', KARPENTER);
  await createNode('b3', KARPENTER);
  await pool('pool-a', ['provisioning']);
  await pool('pool-b', ['provisioning']);

  // Every node Ready: up once the last of each pool is.
  await flip('a1', 'True');
  const aUp = await flip('a2', 'True');
  await flip('b1', 'True');
  await flip('b2', 'True');
  const bUp = await flip('b3', 'True');

  // pool-b: b2 NotReady, then Ready again.
  const bDown = await flip('b2', 'Unknown');
  const bBack = await flip('b2', 'True');
  // pool-a: a2 vanishes without warning, and is created again (a new UID) and Ready.
  await pool('pool-b', ['provisioning', 'up', 'down', 'up']);
  const lost = await deleteNode('a2');
  await pool('pool-a', ['provisioning', 'up', 'down']);
  await createNode('a2', GKE);
  const aBack = await flip('a2', 'True');
  // pool-b: b1 cordoned (as a drain or a scale-down does), then deleted: no cost.
  await kube.req('PATCH', '/api/v1/nodes/b1', { spec: { unschedulable: true } });
  await nextSecond();
  await deleteNode('b1');

  const a = await pool('pool-a', ['provisioning', 'up', 'down', 'up']);
  const createdA = Date.parse(a.intervals[0]!.from);
  // Created when a1 was (its creationTimestamp, to the second).
  expect(createdA).toBeGreaterThanOrEqual(Math.floor(created / 1000) * 1000);
  expect(createdA).toBeLessThanOrEqual(aUp);
  const downAt = Date.parse(a.intervals[2]!.from);
  expect(downAt).toBeGreaterThanOrEqual(lost.before);
  expect(downAt).toBeLessThanOrEqual(lost.after + SLACK);
  expect(drawn(a)).toEqual([
    ['provisioning', createdA, aUp],
    ['up', aUp, downAt],
    ['down', downAt, aBack],
    ['up', aBack, null],
  ]);
  const interruptionA = a.events.find((e) => e.type === 'interruption')!;
  expect(interruptionA.causes).toEqual([expect.objectContaining({ kind: 'NodeDeleted', node: 'a2' })]);
  expect(a.figures).toMatchObject({ interruptions: 1, recoveries: 1, mttrSeconds: (aBack - downAt) / 1000 });

  // The scale-down has been seen before pool-b is read: a Node created after b1's deletion comes
  // later on the same watch, so once its pool shows, b1's deletion has been taken in.
  await createNode('c1', { 'cloud.google.com/gke-nodepool': 'pool-c' });
  await pool('pool-c', ['provisioning']);
  const b = await pool('pool-b', ['provisioning', 'up', 'down', 'up']);
  const createdB = Date.parse(b.intervals[0]!.from);
  expect(drawn(b)).toEqual([
    ['provisioning', createdB, bUp],
    ['up', bUp, bDown],
    ['down', bDown, bBack],
    ['up', bBack, null],
  ]);
  expect(b.events.find((e) => e.type === 'interruption')!.causes).toEqual([expect.objectContaining({ kind: 'NodeNotReady', node: 'b2' })]);
  expect(b.figures).toMatchObject({ interruptions: 1, interruptionDowntimeSeconds: (bBack - bDown) / 1000 });

  // Both through a query: grouped by pool, with pool-a's accelerator.
  const q = await fetch(`${service.url}/api/v1/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ from: createdA - 60_000, to: Date.now(), queries: [{ refId: 'A', layer: 'nodepools', queryType: 'summary', figures: ['interruptions'] }] }),
  }).then((r) => r.json() as Promise<{ results: { A: { frames: { schema: { fields: { name: string }[] }; data: { values: unknown[][] } }[] } } }>);
  const frame = q.results.A.frames[0]!;
  const column = (n: string): unknown[] => frame.data.values[frame.schema.fields.findIndex((f) => f.name === n)]!;
  expect(column('name')).toEqual(['pool-a', 'pool-b', 'pool-c']);
  expect(column('accelerator')).toEqual(['nvidia-h100-80gb', '', '']);
  expect(column('interruptions')).toEqual([1, 1, 0]);
});
