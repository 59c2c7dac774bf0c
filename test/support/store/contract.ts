// The store contract: one list of scenarios that every store (the embedded log, PostgreSQL) and the
// PostgreSQL follower must pass the same way. Each runner (backend/src/store/contract.service.test.ts, the embedded store, in the service tier,
// test/postgres/store-contract.test.ts and test/postgres/follower-contract.test.ts in the postgres
// tier) gives a Subject: how to open the store as its writer, how a reader reads back what is durable
// (a store opened again, a follower's answers), how to crash it for real after a flush, and how its
// format or schema is made newer than this code. Store-specific behaviour (a torn tail, fencing, a
// full disk, retries) stays in the stores' own test files.

import type { MachineState } from '../../../backend/src/timeline/machine.ts';
import { transitionsOf, type Timeline } from '../../../backend/src/timeline/types.ts';
import { TimelineEngine } from '../../../backend/src/timeline/engine.ts';
import { simulateFleet } from '../../../backend/src/sources/simulator/index.ts';
import { allNodeLayers, type Recovery, type TimelineStore } from '../../../backend/src/store/store.ts';
import { UsageBook } from '../../../backend/src/usage/book.ts';
import type { JobSetUsage } from '../../../backend/src/usage/jobset-usage.ts';
import { restoreUsage, usageRecords } from '../../../backend/src/runtime/usage-store.ts';
import { clusterEngine, clusterTrace, crashFleet, drawn, feedFleet, JOBSET, lateCause, NODES, plainMachines, plainTimelines, suspensions, why, WHY } from './scenes.ts';

/** What a reader gets back of everything durable. */
export interface ReadBack {
  timelines: readonly Timeline[];
  nodeLayers: readonly Timeline[];
  /** The node pools' timelines, where the reader has them (a store's recovery, a follower's poolLayer). */
  pools?: readonly Timeline[];
  observedUntil: number | null;
  /** The machines' memory too, where the reader has it (a store's recovery; a follower has only timelines). */
  machines?: readonly MachineState[];
  /** The JobSets' usage: a store's recovery restored into a book as a leader's start does, a follower's book. */
  usage: UsageBook;
}

export interface Subject {
  /** Opens the store as its writer (again, after a close or a crash). */
  open(): Promise<{ store: TimelineStore; recovery: Recovery }>;
  /** Reads back what is durable, without disturbing the writer. */
  read(): Promise<ReadBack>;
  /**
   * Writes crashFleet, waits until it is flushed, then crashes for real (kills the writing process, or
   * the database server with an immediate shutdown) and brings the store back up to be read.
   */
  crashAfterFlush(): Promise<void>;
  /** Makes the stored format or schema newer than this code, written by Upness 9.9.9; resolves to how a reader refuses it. */
  refuseNewer(): Promise<string>;
  dispose(): Promise<void>;
}

export const fromRecovery = (recovery: Recovery): ReadBack => ({
  timelines: recovery.machines.map((m) => m.timeline),
  nodeLayers: allNodeLayers(recovery),
  pools: recovery.pools ?? [],
  observedUntil: recovery.observedUntil,
  machines: recovery.machines,
  usage: usageBookOf(recovery),
});

/** A store's recovered usage in a book, as a leader's start restores it (no retention: the store's own). */
export function usageBookOf(recovery: Recovery): UsageBook {
  const book = new UsageBook();
  restoreUsage(book, recovery.usage, Date.now());
  return book;
}

/** A usage book as plain data, JobSet by JobSet in owner order (stores read them back in any order). */
const usageOf = (book: UsageBook): ReturnType<UsageBook['dump']> => book.dump().sort((a, b) => (a.owner < b.owner ? -1 : 1));

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/**
 * One sampling of the JobSets `owners` at `at`: values with fractions (thirds, which a store must
 * keep exactly), network received not reported every third sampling.
 */
function sampling(at: number, owners: readonly string[]): JobSetUsage[] {
  return owners.map((owner, j) => {
    const i = Math.round(at / (2 * MINUTE)) + j;
    return {
      owner,
      namespace: 'team',
      name: `js-${owner}`,
      at,
      values: {
        cpuCores: (i % 7) / 3,
        memoryBytes: 2 ** 30 + (i % 11) * 1_000_003,
        networkReceiveBytesPerSecond: i % 3 === 0 ? null : (i % 5) * 1e6 + 0.1,
        networkTransmitBytesPerSecond: (i % 4) * 5e5,
        ephemeralStorageBytes: 4096 * (i % 9),
        volumeBytes: null,
        pods: 2 + (i % 2),
      },
    };
  });
}

/** Compares what was read with the engine that wrote it: timelines, and the memory where the reader has it. */
function expectSame(read: ReadBack, machines: Iterable<MachineState>): void {
  const all = [...machines];
  expect(plainTimelines(read.timelines)).toEqual(plainTimelines(all.map((m) => m.timeline)));
  if (read.machines !== undefined) expect(plainMachines(read.machines)).toEqual(plainMachines(all));
}

/** `pools`: whether the subject keeps the node pools (false: skip that scenario). */
export function storeContract(name: string, fresh: () => Promise<Subject>, options: { pools?: boolean } = {}): void {
  describe(`the store contract: ${name}`, () => {
    let subject: Subject;
    beforeEach(async () => {
      subject = await fresh();
    });
    afterEach(async () => {
      await subject.dispose();
    });

    it('record: gives back every timeline, transition (unobserved events included) and memory, and where observing stopped', async () => {
      const { store } = await subject.open();
      const engine = new TimelineEngine({ onUpdate: (u, m) => store.record(u, m) });
      feedFleet(engine, store, { jobsets: 12, days: 2, seed: 1, gap: 6 * 3_600_000 });
      await store.flushed();
      expect([...engine.machines()].some((m) => transitionsOf(m.timeline).some((t) => t.unobserved !== undefined))).toBe(true);
      const read = await subject.read();
      expectSame(read, engine.machines());
      expect(read.observedUntil).toBe(engine.horizon);
      await store.close();
    });

    it('observed mark: moves forward only, and is what a reader gets back', async () => {
      const { store } = await subject.open();
      const engine = new TimelineEngine({ onUpdate: (u, m) => store.record(u, m) });
      feedFleet(engine, store, { jobsets: 2, days: 1, seed: 3 });
      const horizon = engine.horizon!;
      store.observed(horizon + 60_000);
      store.observed(horizon + 30_000);
      await store.flushed();
      expect((await subject.read()).observedUntil).toBe(horizon + 60_000);
      store.observed(horizon + 120_000);
      await store.flushed();
      expect((await subject.read()).observedUntil).toBe(horizon + 120_000);
      await store.close();
    });

    it('fact: a cause found after its transition was written is joined to it, the node layer is kept, and a cause written twice is read once', async () => {
      const { store } = await subject.open();
      const engine = clusterEngine(store);
      const observations = clusterTrace();
      const late = lateCause(observations);
      // Up to the down at 45, written before its cause is known.
      for (const o of observations.slice(0, late)) engine.observe(o);
      store.observed(engine.horizon);
      await store.flushed();
      expect((await subject.read()).timelines.map(drawn)).toEqual([[...JOBSET.slice(0, 6), '45:down']]);
      for (const o of observations.slice(late)) engine.observe(o);
      store.observed(engine.horizon);
      await store.flushed();
      expect(drawn(engine.timeline('js-train'))).toEqual(JOBSET);
      let read = await subject.read();
      expect(read.timelines.map(drawn)).toEqual([JOBSET]);
      expect(read.nodeLayers.map(drawn)).toEqual([NODES]);
      // Written again (as around a crash): read once.
      const cause = transitionsOf(engine.timeline('js-train')!)[6]!.causes![0]!;
      store.fact({ kind: 'cause', uid: 'js-train', layer: 'jobset', seq: 6, cause: { ...cause } });
      await store.flushed();
      read = await subject.read();
      expect(read.timelines.map(drawn)).toEqual([JOBSET]);
      expect(read.nodeLayers.map(drawn)).toEqual([NODES]);
      await store.close();
    });

    (options.pools === false ? it.skip : it)('fact: node pool timelines are kept with their causes and JobSets, a fact written twice is read once, and a snapshot keeps them', async () => {
      const { store } = await subject.open();
      const cluster = clusterEngine(store);
      const fleet = simulateFleet({ jobsets: 4, days: 1.5, seed: 21, nodes: true });
      for (const o of fleet.observations()) cluster.observe(o);
      store.observed(cluster.horizon);
      await store.flushed();
      const pools = cluster.poolTimelines();
      // The fleet's pools break (their nodes' causes), end as planned, and ran JobSets.
      expect(pools.some((p) => transitionsOf(p).some((t) => t.causes !== undefined))).toBe(true);
      expect(pools.some((p) => transitionsOf(p).at(-1)!.state === 'completed')).toBe(true);
      expect(pools.some((p) => (p.jobsets ?? []).length > 0)).toBe(true);
      const byUid = (timelines: readonly Timeline[] | undefined): Timeline[] => [...(timelines ?? [])].sort((a, b) => (a.uid < b.uid ? -1 : 1));
      expect(byUid((await subject.read()).pools)).toEqual(byUid(pools));
      // Written again (as around a crash): read once.
      const broken = pools.find((p) => transitionsOf(p).some((t) => t.causes !== undefined))!;
      const seq = transitionsOf(broken).findIndex((t) => t.causes !== undefined);
      store.fact({ kind: 'pool-cause', uid: broken.uid, seq, cause: { ...transitionsOf(broken)[seq]!.causes![0]! } });
      store.fact({ kind: 'pool-transition', uid: broken.uid, seq: 0, transition: { ...transitionsOf(broken)[0]!, causes: undefined } as never, pool: { name: broken.name, createdAt: broken.createdAt, accelerator: broken.accelerator, topology: broken.topology } });
      await store.flushed();
      expect(byUid((await subject.read()).pools)).toEqual(byUid(pools));
      // A snapshot holds them (the embedded store drops the log before it).
      await store.snapshot(cluster.machines(), cluster.horizon, cluster.nodeTimelines(), pools);
      await store.flushed();
      expect(byUid((await subject.read()).pools)).toEqual(byUid(pools));
      await store.close();
      // A store opened again gives them back.
      const again = await subject.open();
      expect(byUid(again.recovery.pools)).toEqual(byUid(pools));
      // Retention: a snapshot without an ended pool drops it.
      const ended = pools.find((p) => transitionsOf(p).at(-1)!.state === 'completed')!;
      const kept = pools.filter((p) => p !== ended);
      await again.store.snapshot(cluster.machines(), cluster.horizon, cluster.nodeTimelines(), kept);
      await again.store.flushed();
      expect(byUid((await subject.read()).pools)).toEqual(byUid(kept));
      await again.store.close();
    });

    it('fact: why a suspension happened, with its transition or learned after it was written, and a reason written twice is read once', async () => {
      const { store } = await subject.open();
      const engine = new TimelineEngine({ onUpdate: (u, m) => store.record(u, m) });
      const { first, more } = suspensions();
      for (const o of [...first, ...more.slice(0, -2)]) engine.observe(o);
      store.observed(engine.horizon);
      await store.flushed();
      // The suspension at 70 is written before its reason is known.
      expect(why((await subject.read()).timelines[0])).toEqual([...WHY.slice(0, 6), null]);
      for (const o of more.slice(-2)) engine.observe(o);
      store.observed(engine.horizon);
      await store.flushed();
      expect(why(engine.timeline('a'))).toEqual(WHY);
      expectSame(await subject.read(), engine.machines());
      store.fact({ kind: 'suspension', uid: 'a', seq: 6, suspension: { reason: 'QueueFull', message: null } });
      await store.flushed();
      const read = await subject.read();
      expect(why(read.timelines[0])).toEqual(WHY);
      expectSame(read, engine.machines());
      await store.close();
    });

    it('snapshot: holds everything before it, facts joined, and retention drops a closed timeline it no longer holds', async () => {
      const { store } = await subject.open();
      const cluster = clusterEngine(store);
      for (const o of clusterTrace()) cluster.observe(o);
      const suspended = new TimelineEngine({ onUpdate: (u, m) => store.record(u, m) });
      const { first, more } = suspensions();
      for (const o of [...first, ...more.slice(0, -2)]) suspended.observe(o);
      const fleet = new TimelineEngine({ onUpdate: (u, m) => store.record(u, m) });
      feedFleet(fleet, store, { jobsets: 12, days: 3, seed: 4 });
      const all = (): MachineState[] => [...cluster.machines(), ...suspended.machines(), ...fleet.machines()];
      await store.snapshot(all(), fleet.horizon, cluster.nodeTimelines());
      // After the snapshot: the suspension's late reason, and more of the fleet.
      for (const o of more.slice(-2)) suspended.observe(o);
      feedFleet(fleet, store, { jobsets: 2, days: 1, seed: 9, start: fleet.horizon! + 1 });
      await store.flushed();
      let read = await subject.read();
      expectSame(read, all());
      expect(why(read.timelines.find((tl) => tl.uid === 'a'))).toEqual(WHY);
      expect(read.nodeLayers.map(drawn)).toEqual([NODES]);
      // Retention: the engine let go of a closed timeline; the next snapshot drops it.
      const closed = all().find((m) => /^(completed|failed|deleted)$/.test(transitionsOf(m.timeline).at(-1)!.state));
      expect(closed).toBeDefined();
      const kept = all().filter((m) => m !== closed);
      await store.snapshot(kept, fleet.horizon, cluster.nodeTimelines());
      await store.flushed();
      read = await subject.read();
      expectSame(read, kept);
      expect(read.nodeLayers.map(drawn)).toEqual([NODES]);
      await store.close();
    });

    it('usage: samplings and their 5-minute means come back as the leader holds them, after a snapshot, retention and a restart', async () => {
      // Sampled every 2 minutes, far from the day after which a book folds (so readers that fold a
      // little later fold the same): a, b and c 36 to 30 hours ago, a and b 30 to 25 hours ago, and
      // in the last two hours.
      const base = Math.floor(Date.now() / (5 * MINUTE)) * 5 * MINUTE;
      const { store } = await subject.open();
      const book = new UsageBook();
      const write = (usages: JobSetUsage[]): void => {
        book.record(usages);
        store.usage!(usageRecords(usages));
      };
      for (let at = base - 36 * HOUR; at < base - 30 * HOUR; at += 2 * MINUTE) write(sampling(at, ['a', 'b', 'c']));
      for (let at = base - 30 * HOUR; at < base - 25 * HOUR; at += 2 * MINUTE) write(sampling(at, ['a', 'b']));
      for (let at = base - 2 * HOUR; at < base; at += 2 * MINUTE) write(sampling(at, ['a', 'b']));
      // A sampling written again (a retried write) is read once.
      store.usage!(usageRecords(sampling(base - 2 * HOUR, ['a', 'b'])));
      book.compact(Date.now());
      expect(book.get('a')!.history.size).toEqual({ raw: 60, folded: (11 * HOUR) / (5 * MINUTE) });
      await store.flushed();
      expect(usageOf((await subject.read()).usage)).toEqual(usageOf(book));
      // A snapshot keeps what the book holds.
      await store.snapshot([], null, [], [], book.dump());
      expect(usageOf((await subject.read()).usage)).toEqual(usageOf(book));
      // Retention: what began before the cutoff goes, c altogether.
      book.compact(Date.now(), base - 27 * HOUR);
      expect(book.get('c')).toBeUndefined();
      await store.snapshot([], null, [], [], book.dump());
      let read = (await subject.read()).usage;
      expect(read.get('c')).toBeUndefined();
      expect(usageOf(read)).toEqual(usageOf(book));
      // One more sampling, then a restart: the store opened again gives back the same book, and a reader too.
      write(sampling(base - MINUTE, ['a', 'b']));
      await store.close();
      const again = await subject.open();
      expect(usageOf(usageBookOf(again.recovery))).toEqual(usageOf(book));
      read = (await subject.read()).usage;
      expect(usageOf(read)).toEqual(usageOf(book));
      await again.store.close();
    });

    it('close: what was recorded just before close() is durable', async () => {
      const { store } = await subject.open();
      const engine = new TimelineEngine({ onUpdate: (u, m) => store.record(u, m) });
      feedFleet(engine, store, { jobsets: 6, days: 1, seed: 8 });
      await store.close();
      const read = await subject.read();
      expectSame(read, engine.machines());
      expect(read.observedUntil).toBe(engine.horizon);
    });

    it('recover: a store opened again gives back what it wrote, and carries on writing only what is new', async () => {
      const first = await subject.open();
      expect(first.recovery.machines).toEqual([]);
      const engine = new TimelineEngine({ onUpdate: (u, m) => first.store.record(u, m) });
      feedFleet(engine, first.store, { jobsets: 8, days: 1, seed: 2, gap: 3 * 3_600_000 });
      await first.store.close();
      const again = await subject.open();
      expect(plainMachines(again.recovery.machines)).toEqual(plainMachines(engine.machines()));
      expect(again.recovery.observedUntil).toBe(engine.horizon);
      const restored = new TimelineEngine({ onUpdate: (u, m) => again.store.record(u, m) });
      restored.restore(again.recovery.machines, again.recovery.observedUntil);
      restored.endGap(again.recovery.observedUntil!);
      feedFleet(restored, again.store, { jobsets: 3, days: 1, seed: 7, start: again.recovery.observedUntil! + 1 });
      await again.store.close();
      expectSame(await subject.read(), restored.machines());
    });

    it('crash after flush: everything flushed before a real crash is there afterwards', async () => {
      await subject.crashAfterFlush();
      // The same fleet in memory: what the crashed writer had flushed.
      const truth = crashFleet(null);
      const read = await subject.read();
      expectSame(read, truth.machines());
      expect(read.observedUntil).toBe(truth.horizon);
    });

    it('format and schema steps: a store of a newer format or schema is refused, naming the Upness that wrote it', async () => {
      const { store } = await subject.open();
      const engine = new TimelineEngine({ onUpdate: (u, m) => store.record(u, m) });
      feedFleet(engine, store, { jobsets: 2, days: 1, seed: 3 });
      await store.close();
      expect(await subject.refuseNewer()).toMatch(/Upness 9\.9\.9/);
    });
  });
}
