// A replica's roles, in one process against a real PostgreSQL and a real kube-apiserver: it serves
// the follower until its own engine is ready, a graceful stop commits everything before it hands the
// Lease over, and a writer fenced off by another goes back to following.

import { sharedCluster, sharedPostgres, type SharedCluster, type SharedPostgres } from '../../../test/support/shared-servers.ts';
import { EngineView } from '../runtime/served-view.ts';
import { simulateFleet } from '../sources/simulator/index.ts';
import { PostgresStore, type PostgresRecovery } from '../store/postgres.ts';
import { TimelineEngine } from '../timeline/engine.ts';
import { timelineFields, transitionsOf, type Timeline } from '../timeline/types.ts';
import type { Observation } from '../observation/types.ts';
import { KubeConfig } from '@kubernetes/client-node';
import { kubeLeaseApi } from './lease-api.ts';

const kubeconfig = (path: string): KubeConfig => {
  const config = new KubeConfig();
  config.loadFromFile(path);
  return config;
};
import { Replica, type LeadingSession } from './replica.ts';

let cluster: SharedCluster;
let pg: SharedPostgres;
let databases = 0;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const log = (message: string): void => void process.stderr.write(`${message}\n`);

beforeAll(async () => {
  // The tier's shared servers: a namespace and databases of this file's own.
  [cluster, pg] = await Promise.all([sharedCluster('replica'), sharedPostgres()]);
}, 900_000);
afterAll(async () => {
  await Promise.all([cluster?.stop(), pg?.destroy()]);
});

async function until(what: string, check: () => boolean, timeoutMs: number): Promise<number> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await sleep(10);
  }
  return Date.now() - started;
}

/** Timelines as plain data, their transitions as they read (a closed one held packed or not). */
const plainTimelines = (list: readonly Timeline[]): unknown[] =>
  list.map((tl) => JSON.parse(JSON.stringify({ ...timelineFields(tl), cluster: undefined, transitions: transitionsOf(tl) }))).sort((x, y) => (x.uid < y.uid ? -1 : 1));

/** A `lead` that restores an engine and feeds it `observations` (all at once), with a switch for its readiness. */
function leader(observations: Observation[]): {
  lead: (store: PostgresStore, recovery: PostgresRecovery) => Promise<LeadingSession>;
  engine: () => TimelineEngine | null;
  ready: (ready: boolean) => void;
  stopped: () => number;
} {
  let engine: TimelineEngine | null = null;
  let source: EngineView | null = null;
  let stops = 0;
  return {
    lead: async (store, recovery) => {
      engine = new TimelineEngine({ onUpdate: (u, m) => store.record(u, m) });
      engine.restore(recovery.machines, recovery.observedUntil);
      if (recovery.observedUntil !== null) engine.endGap(recovery.observedUntil);
      for (const o of observations) if (recovery.observedUntil === null || o.receivedAt >= recovery.observedUntil) engine.observe(o);
      store.observed(engine.horizon);
      source = new EngineView('kubernetes', engine, false);
      source.setReadiness({ ready: false, reason: 'first sync' });
      return { view: source, stop: async () => void stops++ };
    },
    engine: () => engine,
    ready: (ready) => source?.setReadiness(ready ? { ready: true } : { ready: false, reason: 'first sync' }),
    stopped: () => stops,
  };
}

describe('a replica', () => {
  it('without a Lease leads at once, serving the follower until its own source is ready', async () => {
    const url = await pg.createDatabase(`replica_${++databases}`);
    // Something to follow first: an earlier writer's timelines.
    const observations = [...simulateFleet({ jobsets: 5, days: 2, seed: 1 }).observations()];
    const half = Math.floor(observations.length / 2);
    const earlier = await PostgresStore.open(url, { cluster: 'default', replica: 'earlier' });
    const first = new TimelineEngine({ onUpdate: (u, m) => earlier.store.record(u, m) });
    for (const o of observations.slice(0, half)) first.observe(o);
    earlier.store.observed(first.horizon);
    await earlier.store.close();

    const l = leader(observations);
    // Lead only once the follower has loaded: with neither ready, the replica rightly serves its own
    // source at once, and this test is about the other case (it raced under load before).
    const lead: typeof l.lead = async (store, recovery) => {
      await until('the follower loaded', () => replica.follower.readiness().ready, 5000);
      return l.lead(store, recovery);
    };
    const replica = new Replica({ url, cluster: 'default', identity: 'solo', lease: null, lead, follower: { pollMs: 100 }, readyPollMs: 20 });
    replica.start();
    try {
      await until('leading', () => replica.role === 'leader', 5000);
      await until('the follower loaded', () => replica.follower.readiness().ready, 5000);
      // Its own source is not ready: the follower's timelines are served.
      await sleep(100);
      expect(replica.view.current).toBe(replica.follower);
      expect(replica.status()).toMatchObject({ role: 'leader', identity: 'solo', leader: 'solo', epoch: 2 });
      l.ready(true);
      await until('serving its own engine', () => replica.view.current !== replica.follower, 1000);
      expect(plainTimelines(replica.view.timelines())).toEqual(plainTimelines(l.engine()!.timelines()));
      await replica.flushed();
      expect(replica.storeStatus().error).toBeNull();
    } finally {
      await replica.stop();
    }
    expect(l.stopped()).toBe(1);
    const { store, recovery } = await PostgresStore.open(url, { cluster: 'default' });
    await store.close();
    expect(recovery.observedUntil).toBe(l.engine()!.horizon);
  });

  it('fenced off by another writer, goes back to following, and serves what the other writes', async () => {
    const url = await pg.createDatabase(`replica_${++databases}`);
    const observations = [...simulateFleet({ jobsets: 5, days: 2, seed: 2 }).observations()];
    const l = leader(observations.slice(0, 100));
    const replica = new Replica({ url, cluster: 'default', identity: 'solo', lease: null, lead: l.lead, follower: { pollMs: 100 } });
    replica.start();
    try {
      await until('leading', () => replica.role === 'leader', 5000);
      await replica.flushed();
      const other = await PostgresStore.open(url, { cluster: 'default', replica: 'intruder' });
      const engine = new TimelineEngine({ onUpdate: (u, m) => other.store.record(u, m) });
      engine.restore(other.recovery.machines, other.recovery.observedUntil);
      engine.endGap(other.recovery.observedUntil!);
      // The fenced replica finds out at its next commit.
      for (const o of observations.slice(100, 200)) l.engine()!.observe(o);
      replica.store!.observed(l.engine()!.horizon);
      await until('following', () => replica.role === 'follower', 5000);
      expect(replica.status().lastStepDown).toBe('fenced off: another replica opened the store of this cluster');
      for (const o of observations.slice(100)) engine.observe(o);
      other.store.observed(engine.horizon);
      await other.store.flushed();
      await until('following the other', () => replica.view.horizon(Date.now()) === engine.horizon, 3000);
      expect(plainTimelines(replica.view.timelines())).toEqual(plainTimelines(engine.timelines()));
      await other.store.close();
    } finally {
      await replica.stop();
    }
  });

  it('stopping hands over: it commits all it recorded, then releases the Lease, and the other takes over at once', async () => {
    const url = await pg.createDatabase(`replica_${++databases}`);
    const observations = [...simulateFleet({ jobsets: 8, days: 2, seed: 3 }).observations()];
    const timings = { leaseDurationMs: 5000, renewDeadlineMs: 3500, retryPeriodMs: 500 };
    const lease = (): ReturnType<typeof kubeLeaseApi> => kubeLeaseApi(kubeconfig(cluster.kubeconfigPath), cluster.namespace, 'handover', 2000);
    const la = leader(observations);
    const lb = leader(observations);
    const a = new Replica({ url, cluster: 'default', identity: 'pod-a', lease: lease(), timings, lead: la.lead });
    a.start();
    await until('a leads', () => a.role === 'leader', 10_000);
    const b = new Replica({ url, cluster: 'default', identity: 'pod-b', lease: lease(), timings, lead: lb.lead });
    b.start();
    try {
      await sleep(1000);
      expect(b.role).toBe('follower');
      // Recorded but (most likely) not yet committed when the stop begins.
      const more = simulateFleet({ jobsets: 2, days: 1, seed: 4, start: la.engine()!.horizon! + 1 });
      for (const o of more.observations()) la.engine()!.observe(o);
      a.store!.observed(la.engine()!.horizon);
      const stopping = Date.now();
      await a.stop();
      const leadsAfter = await until('b leads', () => b.role === 'leader', 5000);
      log(`replica: a graceful stop handed over in ${Date.now() - stopping} ms (b leading ${leadsAfter} ms after a had stopped; retry period 500 ms)`);
      // Handed over, not waited out: less than the lease's duration (typically ~1 s; room for a loaded machine).
      expect(Date.now() - stopping).toBeLessThan(timings.leaseDurationMs);
      // b restored everything a recorded, the last records included.
      const machines = (e: TimelineEngine): unknown[] =>
        [...e.machines()].map((m) => JSON.parse(JSON.stringify({ ...m, resourceVersion: null, timeline: { ...timelineFields(m.timeline), transitions: transitionsOf(m.timeline) } }))).sort((x, y) => (x.timeline.uid < y.timeline.uid ? -1 : 1));
      expect(machines(lb.engine()!)).toEqual(machines(la.engine()!));
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  }, 60_000);
});
