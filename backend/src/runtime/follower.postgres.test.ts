// Followers against a real PostgreSQL (test/postgres/server.ts): what a leader writes reaches a
// follower within about two seconds, its horizon is the leader's observed mark, its readiness follows
// the database, retention reaches it, one follower can serve several clusters, and usage holds as its leader's.

import { startPostgres, type PostgresServer } from '../../../test/postgres/server.ts';
import { simulateFleet } from '../sources/simulator/index.ts';
import { MIGRATIONS } from '../store/migrations/index.ts';
import { migrate } from '../store/postgres-migrate.ts';
import { newPool, withClient } from '../store/postgres-rows.ts';
import { PostgresStore } from '../store/postgres.ts';
import { TimelineEngine } from '../timeline/engine.ts';
import type { Observation } from '../observation/types.ts';
import { transitionCount, transitionsOf, type Timeline } from '../timeline/types.ts';
import { UPNESS_VERSION } from '../store/version.ts';
import { figures } from '../series/figures.ts';
import { min, Scenario } from '../../../test/support/scenario.ts';
import { plainTimelines } from '../../../test/support/store/scenes.ts';
import { FollowerView, ReplicaView } from './follower.ts';
import { EngineView } from './served-view.ts';
import { USAGE_METRICS, type JobSetUsage } from '../usage/jobset-usage.ts';
import { usageRecords } from './usage-store.ts';
import { UsageBook } from '../usage/book.ts';

let server: PostgresServer;
let databases = 0;
const database = (): Promise<string> => server.createDatabase(`follower_${++databases}`);
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const log = (message: string): void => void process.stderr.write(`${message}\n`);

beforeAll(async () => {
  server = await startPostgres();
}, 600_000);
afterAll(() => server?.destroy());

const followers: FollowerView[] = [];
afterEach(async () => {
  await Promise.all(followers.splice(0).map((f) => f.close()));
});
function follow(url: string, options: ConstructorParameters<typeof FollowerView>[1] = {}): FollowerView {
  const f = new FollowerView(url, { pollMs: 1000, ...options });
  followers.push(f);
  return f;
}

async function until(what: string, check: () => boolean, timeoutMs = 5000): Promise<number> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await sleep(20);
  }
  return Date.now() - started;
}

/** A leader: an engine writing to a PostgresStore of `cluster`. */
async function leader(url: string, cluster = 'default'): Promise<{ engine: TimelineEngine; store: PostgresStore; feed: (os: Observation[]) => Promise<void> }> {
  const { store } = await PostgresStore.open(url, { cluster });
  const engine = new TimelineEngine({ onUpdate: (u, m) => store.record(u, m) });
  return {
    engine,
    store,
    feed: async (os) => {
      for (const o of os) engine.observe(o);
      store.observed(engine.horizon);
      await store.flushed();
    },
  };
}

describe('a follower', () => {
  it('serves what the leader writes within about two seconds, up to the leader’s observed mark', async () => {
    const url = await database();
    const lead = await leader(url);
    const observations = [...simulateFleet({ jobsets: 20, days: 2, seed: 1 }).observations()];
    const quarter = Math.floor(observations.length / 4);
    await lead.feed(observations.slice(0, quarter));

    const follower = follow(url);
    expect(follower.readiness()).toEqual({ ready: false, reason: 'loading the timelines from PostgreSQL' });
    follower.start();
    await follower.loaded();
    expect(follower.readiness()).toEqual({ ready: true });
    expect(plainTimelines(follower.timelines())).toEqual(plainTimelines(lead.engine.timelines()));
    expect(follower.horizon(Date.now())).toBe(lead.engine.horizon);
    expect(new Set(follower.timelines().map((tl) => tl.cluster))).toEqual(new Set(['default']));

    // The rest, in three steps: each one reaches the follower within about two seconds.
    const lags: number[] = [];
    for (let step = 1; step < 4; step++) {
      await lead.feed(observations.slice(step * quarter, step === 3 ? observations.length : (step + 1) * quarter));
      const horizon = lead.engine.horizon;
      lags.push(await until('the follower caught up', () => follower.horizon(Date.now()) === horizon, 2500));
      expect(plainTimelines(follower.timelines())).toEqual(plainTimelines(lead.engine.timelines()));
    }
    log(`follower lag after a commit: ${lags.join(', ')} ms (poll every 1000 ms)`);
    expect(follower.clusters()).toEqual([
      expect.objectContaining({ cluster: 'default', epoch: 1, observedUntil: lead.engine.horizon, timelines: lead.engine.timelines().length }),
    ]);
    await lead.store.close();
  });

  it('is not ready while the database is unreachable, says why, and catches up when it is back', async () => {
    const url = await database();
    const lead = await leader(url);
    const observations = [...simulateFleet({ jobsets: 10, days: 2, seed: 2 }).observations()];
    const half = Math.floor(observations.length / 2);
    await lead.feed(observations.slice(0, half));
    const errors: (string | null)[] = [];
    const follower = follow(url, { pollMs: 250, onError: (e) => errors.push(e?.message ?? null) }).start();
    await follower.loaded();
    expect(follower.readiness().ready).toBe(true);

    const stoppedAt = Date.now();
    await server.stop('fast');
    await until('readiness false', () => !follower.readiness().ready, 3000);
    const notReadyAfter = Date.now() - stoppedAt;
    const readiness = follower.readiness();
    expect(readiness.ready).toBe(false);
    expect(!readiness.ready && readiness.reason).toMatch(/^cannot read the timelines from PostgreSQL: /);
    // Still serving what it has: stale is better than nothing for dashboards; /readyz tells the load balancer.
    expect(follower.timelines().length).toBeGreaterThan(0);

    // Meanwhile the leader keeps recording: it commits once the database is back.
    for (const o of observations.slice(half)) lead.engine.observe(o);
    lead.store.observed(lead.engine.horizon);
    await server.start();
    const horizon = lead.engine.horizon;
    const caughtUp = await until('caught up', () => follower.readiness().ready && follower.horizon(Date.now()) === horizon, 15_000);
    log(`follower: not ready ${notReadyAfter} ms after the database stopped; ready and caught up ${caughtUp} ms after it was back (${readiness.ready ? '' : readiness.reason})`);
    expect(plainTimelines(follower.timelines())).toEqual(plainTimelines(lead.engine.timelines()));
    // The first error says the database went away: refused, or a read under way reset or ended as it stopped.
    expect(errors[0]).toMatch(/ECONNREFUSED|ECONNRESET|terminat|shutting down/i);
    expect(errors.at(-1)).toBeNull();
    await lead.store.close();
  }, 60_000);

  it('is not ready while the database does not answer at all (hung, or the network dropped), and recovers', async () => {
    const url = await database();
    const lead = await leader(url);
    await lead.feed([...simulateFleet({ jobsets: 3, days: 1, seed: 3 }).observations()]);
    await lead.store.close();
    const follower = follow(url, { pollMs: 200, stallMs: 1500 }).start();
    await follower.loaded();
    await server.pause();
    const pausedAt = Date.now();
    try {
      await until('not ready', () => !follower.readiness().ready, 5000);
      const r = follower.readiness();
      log(`follower: not ready ${Date.now() - pausedAt} ms after the database froze (${r.ready ? '' : r.reason})`);
      // Whichever comes first: the stall, or the client's query timeout.
      expect(!r.ready && r.reason).toMatch(/^(PostgreSQL has not answered for \d+ s|cannot read the timelines from PostgreSQL: no answer within the query timeout)$/);
    } finally {
      await server.resume();
    }
    await until('ready again', () => follower.readiness().ready, 5000);
  }, 30_000);

  it('drops what retention deleted', async () => {
    const url = await database();
    const lead = await leader(url);
    await lead.feed([...simulateFleet({ jobsets: 10, days: 3, seed: 4 }).observations()]);
    const follower = follow(url, { pollMs: 200 }).start();
    await follower.loaded();
    const closed = lead.engine.timelines().filter((tl) => ['completed', 'failed', 'deleted'].includes(transitionsOf(tl).at(-1)!.state));
    expect(closed.length).toBeGreaterThan(0);
    lead.engine.forget(closed.map((tl) => tl.uid));
    await lead.store.snapshot(lead.engine.machines(), lead.engine.horizon);
    await until('pruned', () => follower.timelines().length === lead.engine.timelines().length, 2500);
    expect(plainTimelines(follower.timelines())).toEqual(plainTimelines(lead.engine.timelines()));
    await lead.store.close();
  });

  it('serves several clusters, each timeline with its cluster, or only those asked for', async () => {
    const url = await database();
    const east = await leader(url, 'east');
    const west = await leader(url, 'west');
    // The same seed: the same UIDs in both clusters.
    await east.feed([...simulateFleet({ jobsets: 5, days: 1, seed: 9 }).observations()]);
    await west.feed([...simulateFleet({ jobsets: 5, days: 2, seed: 9 }).observations()]);
    const all = follow(url).start();
    const onlyWest = follow(url, { clusters: ['west'] }).start();
    const missing = follow(url, { clusters: ['north'] }).start();
    await Promise.all([all.loaded(), onlyWest.loaded(), missing.loaded()]);
    const of = (f: FollowerView, cluster: string): Timeline[] => f.timelines().filter((tl) => tl.cluster === cluster);
    expect(plainTimelines(of(all, 'east'))).toEqual(plainTimelines(east.engine.timelines()));
    expect(plainTimelines(of(all, 'west'))).toEqual(plainTimelines(west.engine.timelines()));
    expect(all.timelines().length).toBe(east.engine.timelines().length + west.engine.timelines().length);
    expect(plainTimelines(onlyWest.timelines())).toEqual(plainTimelines(west.engine.timelines()));
    expect(all.horizons()).toEqual(new Map([['east', east.engine.horizon], ['west', west.engine.horizon]]));
    expect(all.horizon(Date.now())).toBe(Math.min(east.engine.horizon!, west.engine.horizon!));
    expect(missing.readiness()).toEqual({ ready: false, reason: 'no timelines of cluster "north" in the database yet: has its leader started?' });
    await Promise.all([east.store.close(), west.store.close()]);
  });

  it("reads usage with its leader's hold (twice its --usage-interval, kept with the cluster), and again with a new leader's", async () => {
    const url = await database();
    const at = Date.now() - 60_000;
    const sampling = (t: number) => [{ owner: 'a', namespace: 'team', name: 'js-a', at: t, values: { ...Object.fromEntries(USAGE_METRICS.map((m) => [m, null])), cpuCores: 1.5 } as JobSetUsage['values'] }];
    const first = await PostgresStore.open(url, { cluster: 'default', usageHoldMs: 2000 });
    first.store.usage(usageRecords(sampling(at)));
    await first.store.close();
    const f = follow(url, { clusters: ['default'] });
    await f.poll();
    // One sampling: a step of 1.5 cores from its time for the hold, and no longer.
    const steps = (): number[] => {
      const s = f.usage()!.book.get('a')!.history.segments('cpuCores');
      return [...s.starts, ...s.ends, ...s.values];
    };
    expect(steps()).toEqual([at, at + 2000, 1.5]);
    // A leader that does not say (no --watch-usage) leaves the hold as it was.
    const second = await PostgresStore.open(url, { cluster: 'default' });
    await second.store.close();
    await f.poll();
    expect(steps()).toEqual([at, at + 2000, 1.5]);
    // A leader with another interval: the follower reads the usage again with its hold.
    const third = await PostgresStore.open(url, { cluster: 'default', usageHoldMs: 10_000 });
    await third.store.close();
    await f.poll();
    await f.poll();
    expect(steps()).toEqual([at, at + 10_000, 1.5]);
  });

  it('on an empty database: is not ready until a leader has created the schema and written', async () => {
    const url = await database();
    const follower = follow(url, { pollMs: 200 }).start();
    await until('an error', () => follower.status().error !== null, 2000);
    expect(follower.readiness()).toEqual({
      ready: false,
      reason: 'the database has no Upness schema yet: a leader (a replica with the PostgreSQL store that writes) creates it when it starts',
    });
    // Migrated, but nothing written yet.
    const pool = newPool(url);
    await withClient(pool, (client) => migrate(client));
    await pool.end();
    await follower.loaded();
    expect(follower.readiness()).toEqual({ ready: false, reason: 'no cluster has written to the database yet: has a leader started?' });
    const lead = await leader(url);
    await lead.feed([...simulateFleet({ jobsets: 2, days: 1, seed: 1 }).observations()]);
    await until('ready', () => follower.readiness().ready, 2000);
    await lead.store.close();
  });

  it('refuses a database whose schema is newer than it knows, in its readiness', async () => {
    const url = await database();
    const lead = await leader(url);
    await lead.store.close();
    await server.query("INSERT INTO upness_schema_migrations (version, name) VALUES (99, 'from the future')", [], url.split('/').pop());
    const follower = follow(url).start();
    await until('an error', () => follower.status().error !== null, 3000);
    const r = follower.readiness();
    expect(!r.ready && r.reason).toBe(
      `the database's Upness schema is at version 99, newer than this Upness knows (${MIGRATIONS.length}): it was migrated by a newer Upness, and this is Upness ${UPNESS_VERSION}; upgrade this replica to the version that migrated it`,
    );
    // A newer Upness that records its version is named.
    await server.query("UPDATE upness_schema_migrations SET upness_version = '9.9.9' WHERE version = 99", [], url.split('/').pop());
    await until('the version named', () => follower.status().error?.includes('it was migrated by Upness 9.9.9') === true, 3000);
  });
});

// The node layer and the causes, as a follower reads them: the store contract (test/support/store/contract.ts).

describe('goodput inputs and suspension reasons (migration 3)', () => {
  // 2 replicated jobs × 2 pods × 4 TPU chips = 16 accelerators; checkpoint every 30 min.
  //   0 ─suspended (Preempted)─ 10 ─prov─ 15 ─up─ 40 ─down─ 45 ─up─ 60 ─suspended (QueueFull, no message; spec.suspend seen first, the condition at 61)─ 70
  //   wall 70 min; up 25 + 15 = 40 min; 1 interruption: ETTR = (40 − 30/2) / 70 = 25/70
  //   accelerator-seconds up 16 × 40 × 60 = 38 400; lost (provisioning 5 + down 5 min) 16 × 600 = 9 600
  const js = (): Scenario =>
    new Scenario({ uid: 'g', name: 'llama', replicas: [2, 2], limits: { 'google.com/tpu': '4' }, annotations: { 'upness.dev/checkpoint-interval': '30m' } }, min(0), {
      suspend: true,
      suspended: { status: 'True', at: min(0), reason: 'Preempted', message: 'Preempted to accommodate a higher priority Workload' },
    })
      .created()
      .at(min(10), { suspend: false, suspended: { status: 'False', at: min(10), reason: 'ResumeJobs' } })
      .up(min(15))
      .down(min(40), { restarts: 1 })
      .up(min(45))
      .at(min(60), { suspend: true, ready: 0 })
      .at(min(61), { suspended: { status: 'True', at: min(60), reason: 'QueueFull' } })
      .at(min(70));
  const why = (tl: Timeline | undefined): unknown[] => (tl === undefined ? [] : transitionsOf(tl)).map((t) => (t.suspension ? [t.state, t.suspension.reason, t.suspension.message] : t.state));
  const EXPECTED = [['suspended', 'Preempted', 'Preempted to accommodate a higher priority Workload'], 'provisioning', 'up', 'down', 'up', ['suspended', 'QueueFull', null]];

  it('a follower and a restarted leader answer the accelerators, ETTR and suspension reasons the leader answered', async () => {
    const url = await database();
    const { engine, store, feed } = await leader(url);
    const follower = follow(url).start();
    const observations = js().observations;
    // Up to the suspension at 60, before its reason is known: the follower has it without one.
    await feed(observations.slice(0, -2));
    await until('the suspension at 60', () => transitionCount(follower.timelines()[0] ?? { transitions: [] }) === 6, 5000);
    expect(transitionsOf(follower.timelines()[0]!)[5]).toEqual({ at: min(60), state: 'suspended' });
    await feed(observations.slice(-2));
    const truth = engine.timeline('g')!;
    expect(why(truth)).toEqual(EXPECTED);
    const f = figures(truth, engine.horizon!, min(0), min(70));
    expect(truth.accelerators).toBe(16);
    // Its pods (2 replicated jobs × 2), kept since migration 5: its job size without accelerators.
    expect(truth.pods).toBe(4);
    expect(f.acceleratorSecondsUp).toBe(38_400);
    expect(f.acceleratorSecondsLost).toBe(9_600);
    expect(f.estimatedEffectiveTrainingRatio).toBeCloseTo(25 / 70, 12);
    await until('the reason learned at 61', () => transitionsOf(follower.timelines()[0] ?? { transitions: [] })[5]?.suspension !== undefined, 5000);
    const followed = follower.timelines()[0]!;
    expect(why(followed)).toEqual(EXPECTED);
    expect(figures(followed, engine.horizon!, min(0), min(70))).toEqual(f);
    expect(plainTimelines(follower.timelines())).toEqual(plainTimelines([truth]));
    await store.close();
    const next = await PostgresStore.open(url, { cluster: 'default' });
    await next.store.close();
    const restored = next.recovery.machines[0]!.timeline;
    expect(why(restored)).toEqual(EXPECTED);
    expect([restored.accelerators, restored.pods]).toEqual([16, 4]);
    expect(figures(restored, engine.horizon!, min(0), min(70))).toEqual(f);
  });
});

describe('a replica source', () => {
  it('serves the follower, then the engine it switched to', async () => {
    const url = await database();
    const lead = await leader(url);
    await lead.feed([...simulateFleet({ jobsets: 3, days: 1, seed: 1 }).observations()]);
    const follower = follow(url).start();
    await follower.loaded();
    const replica = new ReplicaView(follower);
    expect(replica.timelines()).toBe(follower.timelines());
    expect(replica.nodeLayer(0)).toBeNull();
    // No usage written: none served.
    expect(replica.usage()).toBeNull();
    const own = new EngineView('kubernetes', lead.engine, true);
    own.setReadiness({ ready: false, reason: 'first sync' });
    const book = new UsageBook();
    own.setUsage(book);
    replica.use(own);
    expect(replica.readiness()).toEqual({ ready: false, reason: 'first sync' });
    // The leader's own usage book (it was not served through the replica before).
    expect(replica.usage()?.book).toBe(book);
    expect(plainTimelines(replica.timelines())).toEqual(plainTimelines(lead.engine.timelines()));
    expect(replica.current).toBe(own);
    await lead.store.close();
  });
});
