// The leader elector's timing rules (lease.ts), on Jest's fake clock against the in-memory Lease API
// (test/support/leader/memory-lease.ts, a stand-in for the apiserver's optimistic concurrency): one leader at a
// time, a released Lease is taken over at the next retry, a crashed leader's after its lease
// duration, a leader that cannot renew steps down within its renew deadline, and races end in a
// conflict for the losers. The times asserted are the fake clock's, so they are exact rules rather
// than wall-clock bounds. The same calls against the real kube-apiserver: lease.kube.test.ts (kube tier).

import { LeaderElector, type LeaderElectorOptions } from './lease.ts';
import { microTime, type LeaseApi } from './lease-api.ts';
import { MemoryLeases } from '../../../test/support/leader/memory-lease.ts';

let leases: MemoryLeases;
let lease = 0;
const electors: LeaderElector[] = [];

beforeEach(() => {
  jest.useFakeTimers({ now: Date.parse('2026-03-02T10:00:00Z') });
  leases = new MemoryLeases();
});
afterEach(async () => {
  const stopping = Promise.all(electors.splice(0).map((e) => e.stop()));
  await jest.runOnlyPendingTimersAsync();
  await stopping;
  jest.useRealTimers();
});

const api = (name: string): LeaseApi => leases.api(name);
/** Lets `ms` of fake time pass, running the timers and the promises they settle. */
const pass = (ms: number): Promise<void> => jest.advanceTimersByTimeAsync(ms);

interface Candidate {
  elector: LeaderElector;
  events: string[];
  startedAt: number[];
  stoppedAt: number[];
}

function candidate(name: string, identity: string, options: Partial<LeaderElectorOptions> = {}): Candidate {
  const c: Candidate = { elector: null as unknown as LeaderElector, events: [], startedAt: [], stoppedAt: [] };
  c.elector = new LeaderElector({
    lease: api(name),
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

/** Fake time passes in steps of 10 ms until `check` holds; how much passed. */
async function until(what: string, check: () => boolean, timeoutMs: number): Promise<number> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await pass(10);
  }
  return Date.now() - started;
}

/** Samples both electors every 5 ms of fake time while `during` runs: never may both lead at once. */
async function neverBoth(a: Candidate, b: Candidate, during: Promise<unknown>): Promise<void> {
  let both = 0;
  let done = false;
  void during.finally(() => (done = true));
  while (!done) {
    if (a.elector.leading && b.elector.leading) both++;
    await pass(5);
  }
  expect(both).toBe(0);
}

describe('the leader elector’s timing rules (fake clock, in-memory Lease)', () => {
  it('creates the Lease, holds it and renews it every retry period', async () => {
    const name = `lease-${++lease}`;
    const a = candidate(name, 'pod-a');
    const startedAt = Date.now();
    a.elector.start();
    await until('leading', () => a.elector.leading, 5000);
    const first = (await api(name).get())!;
    expect(first.spec).toMatchObject({ holderIdentity: 'pod-a', leaseDurationSeconds: 3, leaseTransitions: 0, acquireTime: microTime(startedAt), renewTime: microTime(startedAt) });
    await pass(1000);
    const later = (await api(name).get())!;
    // Renewed at 400 and 800 ms: the record says the last of them.
    expect(later.spec!.renewTime).toBe(microTime(Date.parse(first.spec!.renewTime!) + 800));
    expect(later.spec!.acquireTime).toBe(first.spec!.acquireTime);
    expect(a.elector.status()).toMatchObject({ identity: 'pod-a', leading: true, leader: 'pod-a' });
    expect(a.events).toEqual(['started']);
  });

  it('lets one of two lead, and the other take over at its next retry when the leader releases the Lease', async () => {
    const name = `lease-${++lease}`;
    const a = candidate(name, 'pod-a');
    const b = candidate(name, 'pod-b');
    a.elector.start();
    b.elector.start();
    await until('one leads', () => a.elector.leading || b.elector.leading, 5000);
    await pass(1500);
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
    // At the other's next retry: one retry period with jitter up to 1.2× (400 × 2.2 ms), not the lease's duration.
    expect(other.startedAt[0]! - stopping).toBeLessThanOrEqual(400 * 2.2 + 10);
    expect(leader.events).toEqual(['started', 'stopped']);
    // Counted as client-go does: a change of holder, here from nobody (released) to the other.
    expect((await api(name).get())!.spec).toMatchObject({ holderIdentity: other.elector.identity, leaseTransitions: 1 });
  });

  it('a crashed leader (it stops renewing) is replaced after the lease duration, with client-go’s timings', async () => {
    const name = `lease-${++lease}`;
    const timings = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2000 };
    const a = candidate(name, 'pod-a', timings);
    a.elector.start();
    await until('a leads', () => a.elector.leading, 5000);
    const b = candidate(name, 'pod-b', timings);
    b.elector.start();
    await pass(3000);
    expect(b.elector.leading).toBe(false);
    const lastRenew = Date.parse((await api(name).get())!.spec!.renewTime!);
    await a.elector.stop({ release: false });
    await until('b leads', () => b.elector.leading, 20_000);
    // b first saw the last renewal at its next try (within 2.2 retry periods), and took over once
    // that record had not changed for the lease duration by its own clock.
    const waited = b.startedAt[0]! - lastRenew;
    expect(waited).toBeGreaterThanOrEqual(15_000);
    expect(waited).toBeLessThanOrEqual(15_000 + 2000 * 2.2 + 10);
    expect((await api(name).get())!.spec).toMatchObject({ holderIdentity: 'pod-b', leaseTransitions: 1 });
  });

  it('a leader that cannot reach the apiserver stops leading within its renew deadline, before anyone may take over', async () => {
    const name = `lease-${++lease}`;
    const errors: string[] = [];
    const a = candidate(name, 'pod-a', { onError: (e) => errors.push(e.message) });
    const b = candidate(name, 'pod-b');
    a.elector.start();
    await until('a leads', () => a.elector.leading, 5000);
    b.elector.start();
    await pass(800);
    leases.reachable = false;
    const cutAt = Date.now();
    await until('a steps down', () => !a.elector.leading, 4000);
    // Its last renewal was at most a retry period before the cut; it stops renewDeadline after that.
    expect(a.stoppedAt[0]! - cutAt).toBeLessThanOrEqual(2000);
    expect(b.elector.leading).toBe(false);
    leases.reachable = true;
    await until('someone leads again', () => a.elector.leading || b.elector.leading, 8000);
    expect(a.elector.leading && b.elector.leading).toBe(false);
    // The renewal that timed out was reported.
    expect(errors[0]).toMatch(/abort|timeout|timed out/i);
  });

  it('five candidates racing for a new Lease: exactly one leads', async () => {
    const name = `lease-${++lease}`;
    const all = Array.from({ length: 5 }, (_, i) => candidate(name, `pod-${i}`, { random: () => 0 }));
    for (const c of all) c.elector.start();
    await until('one leads', () => all.some((c) => c.elector.leading), 5000);
    for (let i = 0; i < 100; i++) {
      expect(all.filter((c) => c.elector.leading)).toHaveLength(1);
      await pass(20);
    }
  });

  it('keeps what others put on the Lease (labels, annotations) when it replaces it', async () => {
    const name = `lease-${++lease}`;
    await api(name).create({ metadata: { name, labels: { team: 'ml' }, annotations: { note: 'kept' } }, spec: {} });
    const a = candidate(name, 'pod-a');
    a.elector.start();
    await until('a leads', () => a.elector.leading, 5000);
    const held = (await api(name).get())!;
    expect(held.metadata).toMatchObject({ labels: { team: 'ml' }, annotations: { note: 'kept' } });
    expect(held.spec).toMatchObject({ holderIdentity: 'pod-a', leaseTransitions: 1 });
  });
});
