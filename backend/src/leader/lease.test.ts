// Leader election on a real kube-apiserver (test/kube/cluster.ts): one leader at a time, a released
// Lease is taken over at once, a crashed leader's after its lease duration, a leader that cannot renew
// steps down within its renew deadline, and races end in a 409 for the loser.

import { KubeConfig } from '@kubernetes/client-node';
import { startCluster, type Cluster } from '../../../test/kube/cluster.ts';
import { kubeLeaseApi, LeaderElector, LeaseApiError, LeaseConflictError, microTime, type Lease, type LeaderElectorOptions } from './lease.ts';

let cluster: Cluster;
let leases = 0;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const log = (message: string): void => void process.stderr.write(`${message}\n`);

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

interface Candidate {
  elector: LeaderElector;
  events: string[];
  startedAt: number[];
  stoppedAt: number[];
}

const electors: LeaderElector[] = [];
afterEach(async () => {
  await Promise.all(electors.splice(0).map((e) => e.stop()));
});

function candidate(lease: string, identity: string, options: Partial<LeaderElectorOptions> = {}): Candidate {
  const c: Candidate = { elector: null as unknown as LeaderElector, events: [], startedAt: [], stoppedAt: [] };
  c.elector = new LeaderElector({
    lease: api(lease),
    identity,
    leaseDurationMs: 3000,
    renewDeadlineMs: 2000,
    retryPeriodMs: 400,
    onStartedLeading: () => {
      c.events.push('started');
      c.startedAt.push(Date.now());
    },
    onStoppedLeading: () => {
      c.events.push('stopped');
      c.stoppedAt.push(Date.now());
    },
    ...options,
  });
  electors.push(c.elector);
  return c;
}

async function until(what: string, check: () => boolean, timeoutMs: number): Promise<number> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await sleep(10);
  }
  return Date.now() - started;
}

/** Samples both electors every 5 ms while `during` runs: never may both lead at once. */
async function neverBoth(a: Candidate, b: Candidate, during: Promise<unknown>): Promise<void> {
  let both = 0;
  let done = false;
  void during.finally(() => (done = true));
  while (!done) {
    if (a.elector.leading && b.elector.leading) both++;
    await sleep(5);
  }
  expect(both).toBe(0);
}

describe('leader election on a Lease', () => {
  it('creates the Lease, holds it and renews it', async () => {
    const name = `lease-${++leases}`;
    const a = candidate(name, 'pod-a');
    a.elector.start();
    await until('leading', () => a.elector.leading, 5000);
    const first = (await api(name).get())!;
    expect(first.spec).toMatchObject({ holderIdentity: 'pod-a', leaseDurationSeconds: 3, leaseTransitions: 0 });
    expect(first.spec!.renewTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    await sleep(1000);
    const later = (await api(name).get())!;
    expect(later.spec!.renewTime! > first.spec!.renewTime!).toBe(true);
    expect(later.spec!.acquireTime).toBe(first.spec!.acquireTime);
    expect(a.elector.status()).toMatchObject({ identity: 'pod-a', leading: true, leader: 'pod-a' });
    expect(a.events).toEqual(['started']);
  });

  it('lets one of two lead, and the other take over at once when the leader releases the Lease', async () => {
    const name = `lease-${++leases}`;
    const a = candidate(name, 'pod-a');
    const b = candidate(name, 'pod-b');
    a.elector.start();
    b.elector.start();
    await until('one leads', () => a.elector.leading || b.elector.leading, 5000);
    await sleep(1500);
    const [leader, other] = a.elector.leading ? [a, b] : [b, a];
    expect(other.elector.leading).toBe(false);
    expect(other.elector.status().leader).toBe(leader.elector.identity);

    const stopping = Date.now();
    const takeover = (async () => {
      await leader.elector.stop();
      await until('the other leads', () => other.elector.leading, 3000);
    })();
    await neverBoth(a, b, takeover);
    await takeover;
    const ms = other.startedAt[0]! - stopping;
    log(`lease: released, taken over after ${ms} ms (retry period 400 ms, jitter up to 1.2×)`);
    // A release is taken at the other's next retry (400 ms, jitter up to 1.2×); the bound is the lease's
    // duration, what waiting for expiry would have cost, with room for a loaded 2-core machine.
    expect(ms).toBeLessThan(3000);
    expect(leader.events).toEqual(['started', 'stopped']);
    // Counted as client-go does: a change of holder, here from nobody (released) to the other.
    expect((await api(name).get())!.spec).toMatchObject({ holderIdentity: other.elector.identity, leaseTransitions: 1 });
  });

  it('a crashed leader (it stops renewing) is replaced within the lease duration, with client-go’s timings', async () => {
    const name = `lease-${++leases}`;
    const timings = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2000 };
    const a = candidate(name, 'pod-a', timings);
    a.elector.start();
    await until('a leads', () => a.elector.leading, 5000);
    const b = candidate(name, 'pod-b', timings);
    b.elector.start();
    await sleep(3000);
    expect(b.elector.leading).toBe(false);
    const lastRenew = Date.parse((await api(name).get())!.spec!.renewTime!);
    await a.elector.stop({ release: false });
    const killedAt = Date.now();
    await until('b leads', () => b.elector.leading, 20_000);
    log(`lease: leader killed ${killedAt - lastRenew} ms after its last renewal; taken over ${b.startedAt[0]! - killedAt} ms after the kill, ${b.startedAt[0]! - lastRenew} ms after the last renewal (lease duration 15 s, retry 2 s)`);
    // It saw the last renewal at its next try (within 2.2 retry periods), and took over once that had
    // not changed for the lease duration by its own clock.
    expect(b.startedAt[0]! - lastRenew).toBeLessThan(15_000 + 2000 * 2.2 + 500);
    expect(b.startedAt[0]! - lastRenew).toBeGreaterThanOrEqual(12_000);
    expect((await api(name).get())!.spec).toMatchObject({ holderIdentity: 'pod-b', leaseTransitions: 1 });
  }, 60_000);

  it('a leader that cannot reach the apiserver stops leading within its renew deadline, before anyone may take over', async () => {
    const name = `lease-${++leases}`;
    const errors: string[] = [];
    const a = candidate(name, 'pod-a', { onError: (e) => errors.push(e.message) });
    const b = candidate(name, 'pod-b');
    a.elector.start();
    await until('a leads', () => a.elector.leading, 5000);
    b.elector.start();
    await sleep(800);
    cluster.pauseApiserver();
    const pausedAt = Date.now();
    try {
      await until('a steps down', () => !a.elector.leading, 4000);
      log(`lease: apiserver paused; the leader stepped down after ${a.stoppedAt[0]! - pausedAt} ms (renew deadline 2000 ms)`);
      expect(a.stoppedAt[0]! - pausedAt).toBeLessThanOrEqual(2000 + 400 + 200);
      expect(b.elector.leading).toBe(false);
    } finally {
      cluster.resumeApiserver();
    }
    await until('someone leads again', () => a.elector.leading || b.elector.leading, 8000);
    expect(a.elector.leading && b.elector.leading).toBe(false);
    // The renewal that timed out was reported.
    expect(errors[0]).toMatch(/abort|timeout/i);
  }, 30_000);

  it('of two writes from the same resourceVersion, the apiserver takes one and answers 409 to the other', async () => {
    const name = `lease-${++leases}`;
    const lease = api(name);
    const created = await lease.create({ metadata: { name }, spec: { holderIdentity: 'x', leaseDurationSeconds: 15, renewTime: microTime(Date.now()) } });
    const write = (holder: string): Promise<Lease> => lease.replace({ metadata: created.metadata, spec: { ...created.spec, holderIdentity: holder } });
    const results = await Promise.allSettled([write('pod-a'), write('pod-b')]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(rejected.reason).toBeInstanceOf(LeaseConflictError);
    await expect(lease.create({ metadata: { name }, spec: {} })).rejects.toBeInstanceOf(LeaseConflictError);
  });

  it('five candidates racing for a new Lease: exactly one leads', async () => {
    const name = `lease-${++leases}`;
    const all = Array.from({ length: 5 }, (_, i) => candidate(name, `pod-${i}`, { random: () => 0 }));
    for (const c of all) c.elector.start();
    await until('one leads', () => all.some((c) => c.elector.leading), 5000);
    for (let i = 0; i < 100; i++) {
      expect(all.filter((c) => c.elector.leading)).toHaveLength(1);
      await sleep(20);
    }
  });

  it('keeps what others put on the Lease (labels, annotations) when it replaces it', async () => {
    const name = `lease-${++leases}`;
    await api(name).create({ metadata: { name, labels: { team: 'ml' }, annotations: { note: 'kept' } }, spec: {} });
    const a = candidate(name, 'pod-a');
    a.elector.start();
    await until('a leads', () => a.elector.leading, 5000);
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
