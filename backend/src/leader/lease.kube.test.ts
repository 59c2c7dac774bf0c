// Leader election against a real kube-apiserver (test/kube/cluster.ts): the wire. The elector takes,
// holds and renews a real Lease; two writes from the same resourceVersion end in a 409 for the
// loser, as they do on the in-memory Lease API that the timing rules are tested on
// (elector.test.ts, fake clock); what others put on the Lease stays; the apiserver's errors keep
// its status and message.

import { KubeConfig } from '@kubernetes/client-node';
import { startCluster, type Cluster } from '../../../test/kube/cluster.ts';
import { LeaderElector, type LeaderElectorOptions } from './lease.ts';
import { kubeLeaseApi, LeaseApiError, LeaseConflictError, microTime, type Lease, type LeaseApi } from './lease-api.ts';
import { MemoryLeases } from '../../../test/support/leader/memory-lease.ts';

let cluster: Cluster;
let leases = 0;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  cluster = await startCluster({ installJobSetCrd: false });
}, 900_000);
afterAll(() => cluster?.stop());

/** The test cluster's kubeconfig, as `upness serve --kubeconfig` loads one. */
function kubeconfig(): KubeConfig {
  const config = new KubeConfig();
  config.loadFromFile(cluster.kubeconfigPath);
  return config;
}

const api = (name: string, namespace = 'default'): ReturnType<typeof kubeLeaseApi> => kubeLeaseApi(kubeconfig(), namespace, name, 3000);

const electors: LeaderElector[] = [];
afterEach(async () => {
  await Promise.all(electors.splice(0).map((e) => e.stop()));
});

function candidate(lease: string, identity: string, options: Partial<LeaderElectorOptions> = {}): { elector: LeaderElector; events: string[] } {
  const events: string[] = [];
  const elector = new LeaderElector({
    lease: api(lease),
    identity,
    leaseDurationMs: 3000,
    renewDeadlineMs: 2000,
    retryPeriodMs: 400,
    onStartedLeading: () => events.push('started'),
    onStoppedLeading: () => events.push('stopped'),
    ...options,
  });
  electors.push(elector);
  return { elector, events };
}

/** Waits, with a bound, until `check` holds. */
async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await sleep(10);
  }
}

describe('leader election on a real Lease (the wire)', () => {
  it('creates the Lease, holds it and renews it', async () => {
    const name = `lease-${++leases}`;
    // Holding is what this checks, not the timing rules (elector.test.ts, fake clock): a lease long
    // enough that a loaded machine's slow renewal does not lose it (3 s lost it at load 30).
    const a = candidate(name, 'pod-a', { leaseDurationMs: 30_000, renewDeadlineMs: 20_000 });
    a.elector.start();
    await until('leading', () => a.elector.leading, 20_000);
    const first = (await api(name).get())!;
    expect(first.spec).toMatchObject({ holderIdentity: 'pod-a', leaseDurationSeconds: 30, leaseTransitions: 0 });
    expect(first.spec!.renewTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    let later: Lease = first;
    await until('renewed', async () => (later = (await api(name).get())!).spec!.renewTime! > first.spec!.renewTime!, 20_000);
    expect(later.spec!.acquireTime).toBe(first.spec!.acquireTime);
    expect(a.elector.status()).toMatchObject({ identity: 'pod-a', leading: true, leader: 'pod-a' });
    expect(a.events).toEqual(['started']);
  });

  // The in-memory Lease API stands in for this behaviour in elector.test.ts: both must agree.
  it.each([
    ['the real kube-apiserver', (name: string): LeaseApi => api(name)],
    ['the in-memory Lease API', (name: string): LeaseApi => new MemoryLeases().api(name)],
  ])('of two writes from the same resourceVersion, %s takes one and answers 409 to the other', async (_server, leaseApi) => {
    const name = `lease-${++leases}`;
    const lease = leaseApi(name);
    const created = await lease.create({ metadata: { name }, spec: { holderIdentity: 'x', leaseDurationSeconds: 15, renewTime: microTime(Date.now()) } });
    const write = (holder: string): Promise<Lease> => lease.replace({ metadata: created.metadata, spec: { ...created.spec, holderIdentity: holder } });
    const results = await Promise.allSettled([write('pod-a'), write('pod-b')]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(rejected.reason).toBeInstanceOf(LeaseConflictError);
    await expect(lease.create({ metadata: { name }, spec: {} })).rejects.toBeInstanceOf(LeaseConflictError);
    // The winner's write is what the Lease holds, under a new resourceVersion.
    const winner = (results.find((r) => r.status === 'fulfilled') as PromiseFulfilledResult<Lease>).value;
    const now = (await lease.get())!;
    expect(now.spec!.holderIdentity).toBe(winner.spec!.holderIdentity);
    expect(now.metadata.resourceVersion).not.toBe(created.metadata.resourceVersion);
  });

  it('keeps what others put on the Lease (labels, annotations) when it replaces it', async () => {
    const name = `lease-${++leases}`;
    await api(name).create({ metadata: { name, labels: { team: 'ml' }, annotations: { note: 'kept' } }, spec: {} });
    const a = candidate(name, 'pod-a');
    a.elector.start();
    await until('a leads', () => a.elector.leading, 20_000);
    const lease = (await api(name).get())!;
    expect(lease.metadata).toMatchObject({ labels: { team: 'ml' }, annotations: { note: 'kept' } });
    expect(lease.spec).toMatchObject({ holderIdentity: 'pod-a', leaseTransitions: 1 });
  });

  it('an error of the apiserver other than a conflict is a LeaseApiError with its status and message', async () => {
    // No such namespace: the apiserver answers 404 with a Status whose message names it.
    const error: unknown = await api('nowhere', 'no-such-namespace').create({ metadata: { name: 'nowhere' }, spec: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LeaseApiError);
    expect(error).toMatchObject({ statusCode: 404, message: expect.stringMatching(/HTTP 404: namespaces "no-such-namespace" not found/) });
    // A missing Lease is no error: null.
    await expect(api('absent').get()).resolves.toBeNull();
  });
});
