// The PostgreSQL store against a real PostgreSQL (test/postgres/server.ts): migrations applied once
// however many replicas start together, a newer schema refused, everything recorded comes back, group
// commit under load, a database that goes away in the middle loses and duplicates nothing, several
// clusters share one database, a replaced writer is fenced off, and usage is folded and cut by retention.

import { startPostgres, type PostgresServer } from '../../../test/postgres/server.ts';
import { simulateFleet } from '../sources/simulator/index.ts';
import { TimelineEngine } from '../timeline/engine.ts';
import { feedFleet, plainMachines } from '../../../test/support/store/scenes.ts';
import { min, Scenario, workloadObject } from '../../../test/support/scenario.ts';
import type { MachineState } from '../timeline/machine.ts';
import { openTransitions, transitionsOf, type Transition } from '../timeline/types.ts';
import { DEFAULT_SIZE_BUCKETS, sizeBucketOf, sizeOf } from '../series/sizes.ts';
import { StoreError } from './embedded.ts';
import { MIGRATIONS } from './migrations/index.ts';
import { migrate } from './postgres-migrate.ts';
import { newPool } from './postgres-rows.ts';
import { UPNESS_VERSION } from './version.ts';
import { describeUrl, isPostgresUrl, PostgresStore } from './postgres.ts';
import { UsageBook } from '../usage/book.ts';
import { USAGE_METRICS, type JobSetUsage } from '../usage/jobset-usage.ts';
import { usageRecords } from '../runtime/usage-store.ts';

let server: PostgresServer;
let databases = 0;
const database = (): Promise<string> => server.createDatabase(`store_${++databases}`);
const log = (message: string): void => void process.stderr.write(`${message}\n`);

beforeAll(async () => {
  server = await startPostgres();
  log(`postgres ${server.version}: install ${server.timings.installMs} ms, initdb ${server.timings.initdbMs} ms, start ${server.timings.startMs} ms`);
}, 600_000);
afterAll(() => server?.destroy());

const transitionCount = (machines: Iterable<MachineState>): number => [...machines].reduce((n, m) => n + transitionsOf(m.timeline).length, 0);

async function count(url: string, sql: string): Promise<number> {
  const pool = newPool(url);
  try {
    return Number((await pool.query<{ n: string }>(sql)).rows[0]!.n);
  } finally {
    await pool.end();
  }
}

describe('schema migrations', () => {
  it('are applied once, and a second start finds nothing to do', async () => {
    const url = await database();
    const pool = newPool(url);
    const client = await pool.connect();
    expect(await migrate(client)).toEqual({ from: 0, to: MIGRATIONS.length, applied: MIGRATIONS.map((m) => m.version) });
    expect(await migrate(client)).toEqual({ from: MIGRATIONS.length, to: MIGRATIONS.length, applied: [] });
    client.release();
    await pool.end();
    const { store, recovery } = await PostgresStore.open(url, { cluster: 'default' });
    expect(recovery.migration.applied).toEqual([]);
    expect(recovery.machines).toEqual([]);
    await store.close();
  });

  it('are applied exactly once when eight replicas start at the same moment', async () => {
    const url = await database();
    const opened = await Promise.all(Array.from({ length: 8 }, (_, i) => PostgresStore.open(url, { cluster: `c${i}` })));
    const applied = opened.map((o) => o.recovery.migration.applied);
    expect(applied.filter((a) => a.length > 0)).toEqual([MIGRATIONS.map((m) => m.version)]);
    expect(await count(url, 'SELECT count(*) AS n FROM upness_schema_migrations')).toBe(MIGRATIONS.length);
    await Promise.all(opened.map((o) => o.store.close()));
  });

  it('keep history: a database written at version 1 (causes inline in transitions) is migrated, its causes kept as facts, and every migration records the Upness that applied it', async () => {
    const url = await database();
    const db = url.split('/').pop();
    // The version-1 schema, and rows as version 1 wrote them (b77beaa: causes in upness_transitions.causes).
    const pool = newPool(url);
    const client = await pool.connect();
    await migrate(client, MIGRATIONS.slice(0, 1));
    client.release();
    await pool.end();
    const cause = { kind: 'NodeNotReady', at: Date.parse('2026-01-01T00:10:00Z'), node: 'n2', reason: 'KubeletNotReady' };
    await server.query("INSERT INTO upness_clusters (cluster, epoch, observed_until) VALUES ('default', 1, '2026-01-01T00:20:00Z')", [], db);
    await server.query("INSERT INTO upness_timelines (cluster, uid, namespace, name, created_at, ever_up, restarts) VALUES ('default', 'u1', 'ml', 'train', '2026-01-01T00:00:00Z', true, 0)", [], db);
    await server.query(
      `INSERT INTO upness_transitions (cluster, uid, seq, at, state, causes) VALUES
        ('default', 'u1', 0, '2026-01-01T00:00:00Z', 'provisioning', NULL), ('default', 'u1', 1, '2026-01-01T00:03:00Z', 'up', NULL),
        ('default', 'u1', 2, '2026-01-01T00:10:30Z', 'down', $1::jsonb)`,
      [JSON.stringify([cause])],
      db,
    );
    const { store, recovery } = await PostgresStore.open(url, { cluster: 'default' });
    await store.close();
    expect(recovery.migration).toEqual({ from: 1, to: MIGRATIONS.length, applied: MIGRATIONS.slice(1).map((m) => m.version) });
    expect(transitionsOf(recovery.machines[0]!.timeline).map((t) => [t.state, t.causes])).toEqual([
      ['provisioning', undefined],
      ['up', undefined],
      ['down', [cause]],
    ]);
    const applied = await server.query<{ version: number; upness_version: string | null }>('SELECT version, upness_version FROM upness_schema_migrations ORDER BY version', [], db);
    expect(applied.rows).toEqual(MIGRATIONS.map((m) => ({ version: m.version, upness_version: UPNESS_VERSION })));
  });

  //   0 ─prov─ 10 ─up─ 20 ─suspended (spec.suspend first; QueueFull learned at 21)─ 30 ─prov─ 35 ─up─ 40 ─suspended (the same, Preempted at 41)─
  it('keep history: timelines written at version 4 (before pod counts) read 0 pods after migration 5: their size is their accelerators, or unknown', async () => {
    const url = await database();
    const db = url.split('/').pop();
    const pool = newPool(url);
    const client = await pool.connect();
    await migrate(client, MIGRATIONS.slice(0, 4));
    client.release();
    await pool.end();
    await server.query("INSERT INTO upness_clusters (cluster, epoch, observed_until) VALUES ('default', 1, '2026-01-01T00:20:00Z')", [], db);
    await server.query(
      `INSERT INTO upness_timelines (cluster, uid, namespace, name, created_at, ever_up, restarts, accelerators) VALUES
        ('default', 'gpu', 'ml', 'train', '2026-01-01T00:00:00Z', true, 0, 8), ('default', 'cpu', 'ml', 'etl', '2026-01-01T00:00:00Z', true, 0, 0)`,
      [],
      db,
    );
    await server.query(
      "INSERT INTO upness_transitions (cluster, uid, seq, at, state) VALUES ('default', 'gpu', 0, '2026-01-01T00:00:00Z', 'provisioning'), ('default', 'cpu', 0, '2026-01-01T00:00:00Z', 'provisioning')",
      [],
      db,
    );
    const { store, recovery } = await PostgresStore.open(url, { cluster: 'default' });
    await store.close();
    expect(recovery.migration).toEqual({ from: 4, to: MIGRATIONS.length, applied: MIGRATIONS.slice(4).map((m) => m.version) });
    const byUid = Object.fromEntries(recovery.machines.map((m) => [m.timeline.uid, m.timeline]));
    expect([byUid.gpu!.pods, byUid.cpu!.pods]).toEqual([0, 0]);
    expect([sizeOf(byUid.gpu!), sizeOf(byUid.cpu!)]).toEqual([8, 0]);
    expect(sizeBucketOf(sizeOf(byUid.cpu!), DEFAULT_SIZE_BUCKETS).label).toBe('unknown');
  });

  it('keep history: a suspension reason that version 3 wrote into its transition row is still read after migration 4, and one learned now is a row of its own; the written transition is not changed', async () => {
    const url = await database();
    const db = url.split('/').pop();
    const pool = newPool(url);
    const client = await pool.connect();
    await migrate(client, MIGRATIONS.slice(0, 3));
    client.release();
    await pool.end();
    const at = (m: number): string => new Date(Date.parse('2026-01-01T00:00:00Z') + m * 60_000).toISOString();
    await server.query("INSERT INTO upness_clusters (cluster, epoch, observed_until) VALUES ('default', 1, $1)", [at(39)], db);
    await server.query("INSERT INTO upness_timelines (cluster, uid, namespace, name, created_at, ever_up, restarts) VALUES ('default', 'u1', 'ml', 'train', $1, true, 0)", [at(0)], db);
    // As version 3 wrote them: the reason learned at 21 set on the suspension's row by UPDATE_SUSPENSIONS.
    await server.query(
      `INSERT INTO upness_transitions (cluster, uid, seq, at, state, suspended_reason, suspended_message) VALUES
        ('default', 'u1', 0, $1, 'provisioning', NULL, NULL), ('default', 'u1', 1, $2, 'up', NULL, NULL),
        ('default', 'u1', 2, $3, 'suspended', 'QueueFull', NULL), ('default', 'u1', 3, $4, 'provisioning', NULL, NULL), ('default', 'u1', 4, $5, 'up', NULL, NULL)`,
      [at(0), at(10), at(20), at(30), at(35)],
      db,
    );
    const { store, recovery } = await PostgresStore.open(url, { cluster: 'default' });
    expect(recovery.migration.applied).toEqual(MIGRATIONS.slice(3).map((m) => m.version));
    expect(transitionsOf(recovery.machines[0]!.timeline).map((t) => t.suspension ?? null)).toEqual([null, null, { reason: 'QueueFull', message: null }, null, null]);
    // A suspension at 40 written without its reason, the reason learned at 41: a new row, and the transition's row as it was.
    const machine = recovery.machines[0]!;
    const suspended: Transition = { at: Date.parse(at(40)), state: 'suspended' };
    openTransitions(machine.timeline).push(suspended);
    store.record({ timeline: machine.timeline, added: [suspended] }, machine);
    await store.flushed();
    const before = await server.query('SELECT id, suspended_reason FROM upness_transitions WHERE seq = 5', [], db);
    suspended.suspension = { reason: 'Preempted', message: 'Preempted to accommodate a higher priority Workload' };
    store.record({ timeline: machine.timeline, added: [], suspension: { seq: 5, suspension: suspended.suspension } }, machine);
    await store.close();
    expect((await server.query('SELECT id, suspended_reason FROM upness_transitions WHERE seq = 5', [], db)).rows).toEqual(before.rows);
    expect(before.rows[0]!.suspended_reason).toBeNull();
    expect((await server.query('SELECT uid, seq, reason, message FROM upness_suspensions', [], db)).rows).toEqual([{ uid: 'u1', seq: 5, reason: 'Preempted', message: 'Preempted to accommodate a higher priority Workload' }]);
    const { store: again, recovery: read } = await PostgresStore.open(url, { cluster: 'default' });
    await again.close();
    expect(transitionsOf(read.machines[0]!.timeline).map((t) => t.suspension?.reason ?? null)).toEqual([null, null, 'QueueFull', null, null, 'Preempted']);
  });

  //   0 ─prov─ 10 ─up─ 40 ─suspended (the controller's SuspendedJobs, written with the transition; the Workload's Preempted seen at 41)
  it("keep a Kueue Workload's reason learned after its suspension's generic one as a row of upness_suspensions; recovery reads the Workload's (issue 20 §5)", async () => {
    const url = await database();
    const { store } = await PostgresStore.open(url, { cluster: 'default' });
    const engine = new TimelineEngine({ onUpdate: (u, m) => store.record(u, m), onFact: (f) => store.fact(f) });
    const js = new Scenario({ uid: 'k1', labels: { 'kueue.x-k8s.io/queue-name': 'team' } }, min(0))
      .created()
      .up(min(10))
      .at(min(40), { suspend: true, suspended: { status: 'True', at: min(40), reason: 'SuspendedJobs', message: 'jobset is suspended' }, ready: 0 });
    const evicted = workloadObject('w1', 'k1', [{ type: 'Evicted', status: 'True', at: min(40), reason: 'Preempted', message: 'Preempted to accommodate a workload' }]);
    for (const o of [...js.observations, { receivedAt: min(41), type: 'MODIFIED' as const, object: evicted }]) engine.observe(o);
    await store.close();
    const db = url.split('/').pop();
    expect((await server.query('SELECT seq, suspended_reason FROM upness_transitions WHERE uid = $1 AND seq = 2', ['k1'], db)).rows).toEqual([{ seq: 2, suspended_reason: 'SuspendedJobs' }]);
    expect((await server.query('SELECT uid, seq, reason, message FROM upness_suspensions', [], db)).rows).toEqual([{ uid: 'k1', seq: 2, reason: 'Preempted', message: 'Preempted to accommodate a workload' }]);
    const { store: again, recovery } = await PostgresStore.open(url, { cluster: 'default' });
    await again.close();
    expect(transitionsOf(recovery.machines[0]!.timeline)[2]!.suspension).toEqual({ reason: 'Preempted', message: 'Preempted to accommodate a workload' });
  });

  it('refuse a database whose schema is newer than the code', async () => {
    const url = await database();
    await (await PostgresStore.open(url, { cluster: 'default' })).store.close();
    await server.query("INSERT INTO upness_schema_migrations (version, name) VALUES ($1, 'from the future')", [MIGRATIONS.length + 1], url.split('/').pop());
    const open = PostgresStore.open(url, { cluster: 'default' });
    await expect(open).rejects.toThrow(StoreError);
    await expect(open).rejects.toThrow(`the database's Upness schema is at version ${MIGRATIONS.length + 1}, newer than this Upness knows (${MIGRATIONS.length})`);
  });
});

describe('the PostgreSQL store', () => {
  // What comes back and how a store carries on after a restart: the store contract (test/support/store/contract.ts).
  it('a store opened again is the next writer: its epoch, and the writer before it', async () => {
    const url = await database();
    const { store } = await PostgresStore.open(url, { cluster: 'default' });
    const engine = new TimelineEngine({ onUpdate: (u, m) => store.record(u, m) });
    feedFleet(engine, store, { jobsets: 4, days: 1 });
    await store.close();
    const { store: again, recovery } = await PostgresStore.open(url, { cluster: 'default', replica: 'second' });
    expect(recovery.epoch).toBe(2);
    expect(recovery.previousWriter).toBeNull();
    expect(await count(url, 'SELECT count(*) AS n FROM upness_transitions')).toBe(transitionCount(engine.machines()));
    await again.close();
    const { store: third, recovery: last } = await PostgresStore.open(url, { cluster: 'default' });
    expect(last.epoch).toBe(3);
    expect(last.previousWriter).toBe('second');
    await third.close();
  });

  it('commits in groups: many records, few transactions', async () => {
    const url = await database();
    const { store } = await PostgresStore.open(url, { cluster: 'default' });
    const statements = async (): Promise<number> =>
      count(url, "SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()");
    const engine = new TimelineEngine({ onUpdate: (u, m) => store.record(u, m) });
    const fleet = simulateFleet({ jobsets: 200, days: 3, seed: 3 });
    const observations = [...fleet.observations()];
    const before = await statements();
    const started = performance.now();
    let records = 0;
    const waits: Promise<void>[] = [];
    // Observations arrive in bursts of 50, each burst's reader waits for its records to be durable, and
    // the event loop turns between bursts (as between the chunks of a watch stream): records pile up
    // while a commit runs, and the next commit takes them all.
    for (let i = 0; i < observations.length; i += 50) {
      for (const o of observations.slice(i, i + 50)) {
        const u = engine.observe(o);
        if (u !== null && u.added.length > 0) records++;
      }
      store.observed(engine.horizon);
      waits.push(store.flushed());
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(waits);
    const seconds = (performance.now() - started) / 1000;
    const transactions = (await statements()) - before;
    const transitions = transitionCount(engine.machines());
    log(
      `group commit: ${observations.length} observations, ${records} records with transitions, ${transitions} transitions in ${seconds.toFixed(2)} s ` +
        `(${Math.round(transitions / seconds)} transitions/s) in about ${transactions} transactions`,
    );
    expect(await count(url, 'SELECT count(*) AS n FROM upness_transitions')).toBe(transitions);
    expect(transactions).toBeLessThan(records / 5);
    await store.close();

    // The same observations without a store: what the engine alone costs.
    const alone = new TimelineEngine();
    const t0 = performance.now();
    for (const o of observations) alone.observe(o);
    log(`group commit: the engine alone takes ${((performance.now() - t0) / 1000).toFixed(2)} s for the same observations`);
  });

  it('writes tens of thousands of transitions a second when records come faster than commits', async () => {
    const url = await database();
    const { store } = await PostgresStore.open(url, { cluster: 'default' });
    const machines: MachineState[] = Array.from({ length: 2000 }, (_, i) => ({
      timeline: { uid: `uid-${i}`, namespace: 'load', name: `js-${i}`, labels: { team: `t${i % 7}` }, accelerator: 'tpu-v5p', topology: '4x4x4', createdAt: 0, transitions: [{ at: 0, state: 'provisioning' }] },
      everUp: false,
      restarts: 0,
      resourceVersion: '1',
      deletedAt: null,
    }));
    const total = 100_000;
    const started = performance.now();
    for (let i = 0; i < total; i++) {
      const m = machines[i % machines.length]!;
      const added = { at: 1 + i, state: transitionsOf(m.timeline).length % 2 === 1 ? ('up' as const) : ('down' as const) };
      openTransitions(m.timeline).push(added);
      m.everUp = true;
      store.record({ timeline: m.timeline, added: [added] }, m);
      if (i % 1000 === 999) {
        store.observed(1 + i);
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    await store.flushed();
    const seconds = (performance.now() - started) / 1000;
    log(`group commit: ${total} records of one transition each in ${seconds.toFixed(2)} s: ${Math.round(total / seconds)} records/s`);
    expect(await count(url, "SELECT count(*) AS n FROM upness_transitions")).toBe(total);
    await store.close();
  });

  it('keeps accepting records while PostgreSQL is down, says so, and writes each exactly once when it is back', async () => {
    const url = await database();
    const errors: (string | null)[] = [];
    const { store } = await PostgresStore.open(url, { cluster: 'default', retryMs: 100, maxRetryMs: 400, onError: (e) => errors.push(e?.message ?? null) });
    const engine = new TimelineEngine({ onUpdate: (u, m) => store.record(u, m) });
    const observations = [...simulateFleet({ jobsets: 30, days: 2, seed: 5 }).observations()];
    const third = Math.floor(observations.length / 3);
    const run = async (from: number, to: number): Promise<void> => {
      for (let i = from; i < to; i++) {
        engine.observe(observations[i]!);
        if (i % 50 === 0) {
          store.observed(engine.horizon);
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
      }
      store.observed(engine.horizon);
    };

    await run(0, third);
    await store.flushed();
    // A crash of the server (immediate shutdown: no checkpoint, recovery from WAL at the next start).
    const stopping = Date.now();
    await server.stop('immediate');
    const downAt = Date.now();
    const stopMs = downAt - stopping;
    await run(third, 2 * third);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const status = store.status();
    expect(status.error).toMatch(/^cannot write to PostgreSQL: /);
    expect(status.pendingRecords).toBeGreaterThan(0);
    // flushed() does not hold readers up while the database is away.
    await store.flushed();
    log(`while down: ${status.pendingRecords} records waiting, ${status.errors} failed attempts, error: ${status.error}`);

    const starting = Date.now();
    await server.start();
    const upAt = Date.now();
    log(`database: immediate shutdown took ${stopMs} ms, the start (with crash recovery) ${upAt - starting} ms`);
    await run(2 * third, observations.length);
    while (store.status().error !== null || store.status().pendingRecords > 0) await new Promise((resolve) => setTimeout(resolve, 20));
    await store.flushed();
    log(`database down ${upAt - downAt} ms; everything committed ${Date.now() - upAt} ms after it was back`);
    expect(errors[0]).toMatch(/^cannot write to PostgreSQL/);
    expect(errors.at(-1)).toBeNull();

    const transitions = transitionCount(engine.machines());
    expect(await count(url, 'SELECT count(*) AS n FROM upness_transitions')).toBe(transitions);
    await store.close();
    const { store: again, recovery } = await PostgresStore.open(url, { cluster: 'default' });
    expect(plainMachines(recovery.machines)).toEqual(plainMachines(engine.machines()));
    expect(recovery.observedUntil).toBe(engine.horizon);
    await again.close();
  }, 120_000);

  it('counts a commit that gets no answer (a hung server) as failing, and does not hold readers up meanwhile', async () => {
    const url = await database();
    const errors: (string | null)[] = [];
    const { store } = await PostgresStore.open(url, { cluster: 'default', stallMs: 1000, onError: (e) => errors.push(e?.message ?? null) });
    const engine = new TimelineEngine({ onUpdate: (u, m) => store.record(u, m) });
    const observations = [...simulateFleet({ jobsets: 10, days: 1, seed: 6 }).observations()];
    const half = Math.floor(observations.length / 2);
    for (const o of observations.slice(0, half)) engine.observe(o);
    await store.flushed();
    await server.pause();
    try {
      for (const o of observations.slice(half)) engine.observe(o);
      store.observed(engine.horizon);
      const waited = performance.now();
      await store.flushed();
      const ms = performance.now() - waited;
      log(`hung database: flushed() gave up waiting after ${Math.round(ms)} ms; status: ${store.status().error}`);
      // It gives up after stallMs (1 s), not never; room for a loaded 2-core machine.
      expect(ms).toBeLessThan(5000);
      expect(store.status().error).toBe('cannot write to PostgreSQL: no answer for 1 s');
    } finally {
      await server.resume();
    }
    // The commit that hung completes once the server answers again.
    while (store.status().error !== null || store.status().pendingRecords > 0) await new Promise((resolve) => setTimeout(resolve, 20));
    await store.flushed();
    expect(errors).toEqual(['cannot write to PostgreSQL: no answer for 1 s', null]);
    await store.close();
    const { store: again, recovery } = await PostgresStore.open(url, { cluster: 'default' });
    expect(plainMachines(recovery.machines)).toEqual(plainMachines(engine.machines()));
    await again.close();
  }, 30_000);

  it('keeps clusters apart in one database, even where their UIDs are the same', async () => {
    const url = await database();
    const a = await PostgresStore.open(url, { cluster: 'east' });
    const b = await PostgresStore.open(url, { cluster: 'west' });
    const ea = new TimelineEngine({ onUpdate: (u, m) => a.store.record(u, m) });
    const eb = new TimelineEngine({ onUpdate: (u, m) => b.store.record(u, m) });
    // The same seed: the same UIDs in both clusters, but west runs for longer.
    feedFleet(ea, a.store, { days: 1, seed: 11 });
    feedFleet(eb, b.store, { days: 2, seed: 11 });
    await Promise.all([a.store.close(), b.store.close()]);
    const uidsA = new Set([...ea.machines()].map((m) => m.timeline.uid));
    expect([...eb.machines()].filter((m) => uidsA.has(m.timeline.uid)).length).toBeGreaterThan(0);
    expect(plainMachines(ea.machines())).not.toEqual(plainMachines(eb.machines()));

    const east = await PostgresStore.open(url, { cluster: 'east' });
    const west = await PostgresStore.open(url, { cluster: 'west' });
    expect(plainMachines(east.recovery.machines)).toEqual(plainMachines(ea.machines()));
    expect(plainMachines(west.recovery.machines)).toEqual(plainMachines(eb.machines()));
    expect(east.recovery.observedUntil).toBe(ea.horizon);
    expect(west.recovery.observedUntil).toBe(eb.horizon);
    await Promise.all([east.store.close(), west.store.close()]);
  });

  it('fences off a writer that was replaced: it stops at its next commit, and the new one is unaffected', async () => {
    const url = await database();
    const fenced: string[] = [];
    const old = await PostgresStore.open(url, { cluster: 'default', replica: 'pod-a', onFenced: (e) => fenced.push(e.message) });
    const engine = new TimelineEngine({ onUpdate: (u, m) => old.store.record(u, m) });
    const observations = [...simulateFleet({ jobsets: 5, days: 1, seed: 2 }).observations()];
    const half = Math.floor(observations.length / 2);
    for (const o of observations.slice(0, half)) engine.observe(o);
    old.store.observed(engine.horizon);
    await old.store.flushed();

    const replacement = await PostgresStore.open(url, { cluster: 'default', replica: 'pod-b' });
    expect(replacement.recovery.previousWriter).toBe('pod-a');
    for (const o of observations.slice(half)) engine.observe(o);
    old.store.observed(engine.horizon);
    await old.store.flushed();
    expect(fenced).toEqual(['another replica (pod-b) took over writing cluster "default": this one stopped writing']);
    expect(old.store.fenced).toBe(true);
    expect(old.store.status().error).toBe(fenced[0]);
    const { recovery } = await PostgresStore.open(url, { cluster: 'default' });
    expect(plainMachines(recovery.machines)).toEqual(plainMachines(replacement.recovery.machines));
    await old.store.close();
    await replacement.store.close();
  });

  it('retention deletes the closed timelines the engine let go of, and no open one', async () => {
    const url = await database();
    const { store } = await PostgresStore.open(url, { cluster: 'default' });
    const engine = new TimelineEngine({ onUpdate: (u, m) => store.record(u, m) });
    feedFleet(engine, store, { days: 3, seed: 4 });
    await store.flushed();
    const machines = [...engine.machines()];
    const closed = machines.filter((m) => transitionsOf(m.timeline).at(-1)!.state.match(/completed|failed|deleted/));
    const open = machines.filter((m) => !closed.includes(m));
    expect(closed.length).toBeGreaterThan(1);
    // The engine forgets every closed timeline but one; an open one missing from the engine is kept all the same.
    const keep = [closed[0]!, ...open.slice(1)];
    expect(await store.prune(keep)).toBe(closed.length - 1);
    await store.close();
    const { store: again, recovery } = await PostgresStore.open(url, { cluster: 'default' });
    expect(plainMachines(recovery.machines)).toEqual(plainMachines([closed[0]!, ...open]));
    expect(await count(url, 'SELECT count(*) AS n FROM upness_transitions')).toBe(transitionCount([closed[0]!, ...open]));
    expect(await count(url, 'SELECT pruned AS n FROM upness_clusters')).toBe(1);
    await again.close();
  });

  it('usage: a snapshot folds the samplings older than a day into 5-minute rows of their means, retention deletes rows, and followers are told only when rows changed', async () => {
    const url = await database();
    const { store } = await PostgresStore.open(url, { cluster: 'default' });
    const base = Math.floor(Date.now() / 300_000) * 300_000;
    // Every minute from 26 to 25 hours ago (CPU: the minute's number, 0 to 59), then the last 10 minutes (CPU 100).
    const at = [...Array.from({ length: 60 }, (_, i) => base - 26 * 3_600_000 + i * 60_000), ...Array.from({ length: 10 }, (_, i) => base - 600_000 + i * 60_000)];
    const usages = at.map((t, i) => ({ owner: 'a', namespace: 'team', name: 'js-a', at: t, values: { ...Object.fromEntries(USAGE_METRICS.map((m) => [m, null])), cpuCores: i < 60 ? i : 100 } as JobSetUsage['values'] }));
    const book = new UsageBook();
    book.record(usages);
    store.usage(usageRecords(usages));
    // Written twice (a retried write): one row each.
    store.usage(usageRecords(usages.slice(60)));
    await store.flushed();
    const rows = (): Promise<number> => count(url, 'SELECT count(*) AS n FROM upness_usage');
    expect(await rows()).toBe(70);
    book.compact(Date.now());
    await store.snapshot([], null, [], [], book.dump());
    // 12 buckets of 5 samplings, and the 10 recent samplings as they were.
    expect(await rows()).toBe(22);
    const pool = newPool(url);
    try {
      const folded = await pool.query<{ cpu: number }>('SELECT v[1] AS cpu FROM upness_usage WHERE folded ORDER BY at');
      expect(folded.rows.map((r) => r.cpu)).toEqual([2, 7, 12, 17, 22, 27, 32, 37, 42, 47, 52, 57]);
    } finally {
      await pool.end();
    }
    expect(await count(url, 'SELECT pruned AS n FROM upness_clusters')).toBe(1);
    // Nothing changed: followers are not made to read again.
    await store.snapshot([], null, [], [], book.dump());
    expect(await count(url, 'SELECT pruned AS n FROM upness_clusters')).toBe(1);
    // Retention from 25.5 hours ago: the first 6 buckets go.
    book.compact(Date.now(), base - 25.5 * 3_600_000);
    await store.snapshot([], null, [], [], book.dump());
    expect(await rows()).toBe(16);
    expect(await count(url, 'SELECT pruned AS n FROM upness_clusters')).toBe(2);
    await store.close();
  });

  it('tells a database URL from a data dir, and keeps passwords out of logs', () => {
    expect(['postgres://h/db', 'postgresql://u:p@h:5432/db', 'POSTGRES://h', './data', '/var/lib/upness'].map(isPostgresUrl)).toEqual([true, true, true, false, false]);
    expect(describeUrl('postgres://upness:s3cret@db.example:5432/upness?sslmode=require')).toBe('postgres://upness:***@db.example:5432/upness?sslmode=require');
    expect(describeUrl('postgres://db.example/upness')).toBe('postgres://db.example/upness');
  });

  it('refuses a cluster name it could not tell apart', async () => {
    await expect(PostgresStore.open('postgres://127.0.0.1:1/x', { cluster: '' })).rejects.toThrow('the cluster name must be 1 to 253 characters');
    await expect(PostgresStore.open('postgres://127.0.0.1:1/x', { cluster: ' a' })).rejects.toThrow(StoreError);
  });
});
