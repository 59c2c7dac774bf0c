// The embedded store on real files, beyond the store contract (test/support/store/contract.ts: record, facts,
// observed mark, snapshot, close, recover, crash): it writes only what changed, a torn tail is cut and
// reported, anything worse is refused with a message that says what to do, a late cause is a record of
// its own, the node layer goes with retention, and a full disk loses nothing.

import { execFileSync } from 'node:child_process';
import { appendFileSync, closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simulateFleet } from '../sources/simulator/index.ts';
import { TimelineEngine } from '../timeline/engine.ts';
import { ClusterEngine } from '../nodes/engine.ts';
import { EmbeddedStore, lineBlocks, StoreError } from './embedded.ts';
import { clusterEngine, clusterTrace, drawn, feedFleet, JOBSET, NODES, plainMachines } from '../../../test/support/store/scenes.ts';
import { transitionsOf, TERMINAL_STATES, type Cause, type Timeline, type Transition } from '../timeline/types.ts';
import { machineAsRead, machineOf, type MachineState } from '../timeline/machine.ts';
import { derivedTransitions } from '../timeline/never-up.ts';
import { FORMAT, parseSnapshot, parseSnapshotBlocks, snapshotOf, snapshotText, type Snapshot, type UsageSnapshotEntry } from './records.ts';
import { FleetIndex } from '../series/fleet-index.ts';
import { poolTimeline } from '../timeline/facts.ts';
import { UPNESS_VERSION } from './version.ts';

const fresh = (): string => mkdtempSync(join(tmpdir(), 'upness-store-'));

/** Runs a simulated fleet through an engine whose every update goes to the store. */
async function fill(dir: string, seed = 1, days = 1): Promise<{ engine: TimelineEngine; store: EmbeddedStore }> {
  const { store } = await EmbeddedStore.open(dir);
  const engine = new TimelineEngine({ onUpdate: (u, m) => store.record(u, m) });
  for (const o of simulateFleet({ jobsets: 8, days, seed }).observations()) engine.observe(o);
  store.observed(engine.horizon);
  await store.flushed();
  return { engine, store };
}

function segments(dir: string): string[] {
  return readdirSync(dir).filter((f) => f.startsWith('log-')).sort();
}

describe('the embedded store', () => {
  it('writes a timeline again only when its identity or memory changed, and keeps the latest labels', async () => {
    const dir = fresh();
    const { store } = await EmbeddedStore.open(dir);
    const engine = new TimelineEngine({ onUpdate: (u, m) => store.record(u, m) });
    const object = (labels: Record<string, string>, rv: string) => ({
      apiVersion: 'jobset.x-k8s.io/v1alpha2',
      kind: 'JobSet',
      metadata: { uid: 'u1', name: 'train', namespace: 'ml', labels, resourceVersion: rv, creationTimestamp: '2026-01-01T00:00:00Z' },
      spec: { replicatedJobs: [{ name: 'w', replicas: 1 }] },
      status: {},
    });
    const t0 = Date.parse('2026-01-01T00:00:00Z');
    const lines = async (): Promise<number> => {
      await store.flushed();
      return segments(dir).reduce((n, f) => n + readFileSync(join(dir, f), 'utf8').split('\n').filter(Boolean).length, 0);
    };
    engine.observe({ receivedAt: t0, type: 'ADDED', object: object({ team: 'a' }, '1') });
    const first = await lines();
    // A new resourceVersion, the same copy of the same labels: nothing to write.
    engine.observe({ receivedAt: t0 + 1000, type: 'MODIFIED', object: object({ team: 'a' }, '2') });
    expect(await lines()).toBe(first);
    // The labels changed: the identity is written again.
    engine.observe({ receivedAt: t0 + 2000, type: 'MODIFIED', object: object({ team: 'b' }, '3') });
    expect(await lines()).toBe(first + 1);
    await store.close();
    const { recovery, store: reopened } = await EmbeddedStore.open(dir);
    await reopened.close();
    expect(recovery.machines[0]!.timeline.labels).toEqual({ team: 'b' });
  });

  it('a snapshot holds everything before it, and the log before it is deleted', async () => {
    const dir = fresh();
    const { engine, store } = await fill(dir);
    await store.snapshot(engine.machines(), engine.horizon);
    // More after the snapshot: they go to the next segment.
    const more = simulateFleet({ jobsets: 2, days: 1, seed: 9, start: engine.horizon! + 1 });
    for (const o of more.observations()) engine.observe(o);
    store.observed(engine.horizon);
    await store.close();
    await (await EmbeddedStore.open(dir)).store.close();
    const { store: again } = await EmbeddedStore.open(dir);
    await again.snapshot(engine.machines(), engine.horizon);
    await again.close();
    expect(segments(dir).length).toBeLessThanOrEqual(2);
    const { recovery, store: reopened } = await EmbeddedStore.open(dir);
    await reopened.close();
    expect(plainMachines(recovery.machines)).toEqual(plainMachines(engine.machines()));
  });

  it('cuts a torn last record (a crash in the middle of a write), reports it, and keeps everything before it', async () => {
    const dir = fresh();
    const { engine, store } = await fill(dir);
    await store.close();
    const last = join(dir, segments(dir).at(-1)!);
    const before = readFileSync(last, 'utf8');
    appendFileSync(last, 'deadbeef {"k":"update","uid":"x","add":[[1,"u');
    const { recovery, store: reopened } = await EmbeddedStore.open(dir);
    expect(recovery.cut).toEqual({ file: last, line: before.split('\n').length, bytes: 45 });
    expect(readFileSync(last, 'utf8')).toBe(before);
    expect(plainMachines(recovery.machines)).toEqual(plainMachines(engine.machines()));
    await reopened.close();
  });

  it('cuts a last line whose checksum does not match', async () => {
    const dir = fresh();
    const { store } = await fill(dir);
    await store.close();
    const last = join(dir, segments(dir).at(-1)!);
    const text = readFileSync(last, 'utf8');
    const lines = text.trimEnd().split('\n');
    lines[lines.length - 1] = lines[lines.length - 1]!.replace(/"at":\d/, '"at":9');
    writeFileSync(last, lines.join('\n') + '\n');
    const { recovery, store: reopened } = await EmbeddedStore.open(dir);
    await reopened.close();
    expect(recovery.cut?.line).toBe(lines.length);
  });

  it('refuses a corrupt record in the middle of the log, naming the file and line, and changes nothing', async () => {
    const dir = fresh();
    const { store } = await fill(dir);
    await store.close();
    const path = join(dir, segments(dir).at(-1)!);
    const lines = readFileSync(path, 'utf8').split('\n');
    lines[3] = lines[3]!.replace('"k":', '"K":');
    writeFileSync(path, lines.join('\n'));
    const before = readdirSync(dir).map((f) => [f, readFileSync(join(dir, f), 'utf8')]);
    await expect(EmbeddedStore.open(dir)).rejects.toThrow(StoreError);
    await expect(EmbeddedStore.open(dir)).rejects.toThrow(new RegExp(`${path.replace(/[.]/g, '\\.')}, line 4: a corrupt record with more after it`));
    expect(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f), 'utf8')])).toEqual(before);
  });

  it('refuses a log whose snapshot is missing', async () => {
    const dir = fresh();
    const { engine, store } = await fill(dir);
    // Two snapshots: the second compacts away the first segment, which only the snapshot now holds.
    await store.snapshot(engine.machines(), engine.horizon);
    for (const o of simulateFleet({ jobsets: 2, days: 1, seed: 9, start: engine.horizon! + 1 }).observations()) engine.observe(o);
    await store.flushed();
    await store.snapshot(engine.machines(), engine.horizon);
    await store.close();
    expect(segments(dir)[0]).not.toBe('log-000001.jsonl');
    rmSync(join(dir, 'snapshot.json'));
    await expect(EmbeddedStore.open(dir)).rejects.toThrow(/snapshot\.json is missing, and the log starts at log-0000\d\d\.jsonl/);
  });

  it('starts from the log alone when there never was a snapshot', async () => {
    const dir = fresh();
    const { engine, store } = await fill(dir);
    await store.close();
    expect(readdirSync(dir)).not.toContain('snapshot.json');
    const again = await EmbeddedStore.open(dir);
    await again.store.close();
    expect(plainMachines(again.recovery.machines)).toEqual(plainMachines(engine.machines()));
  });

  it('writes a snapshot an element a line: the same JSON document as one line, and reads both layouts', async () => {
    const dir = fresh();
    const { engine, store } = await fill(dir);
    await store.snapshot(engine.machines(), engine.horizon);
    await store.close();
    const text = readFileSync(join(dir, 'snapshot.json'), 'utf8');
    const written = JSON.parse(text) as { nextSegment: number; machines: unknown[] };
    expect(written).toEqual(JSON.parse(JSON.stringify(snapshotOf(engine.machines(), written.nextSegment, engine.horizon, UPNESS_VERSION))));
    // The header, a line per timeline, the lists' separators: never the whole on one line.
    const lines = text.split('\n');
    expect(lines.length).toBe(written.machines.length + 3);
    expect(lines[0]).toMatch(/^\{"format":\d+,"upness":"[^"]+","nextSegment":\d+,"observedUntil":\d+,"machines":\[$/);
    expect(lines.slice(-2)).toEqual(['],"nodeLayers":[', ']}']);
    const fromLines = await EmbeddedStore.open(dir);
    await fromLines.store.close();
    expect(plainMachines(fromLines.recovery.machines)).toEqual(plainMachines(engine.machines()));
    // The one-line layout that earlier versions wrote reads the same.
    writeFileSync(join(dir, 'snapshot.json'), JSON.stringify(written));
    const fromOneLine = await EmbeddedStore.open(dir);
    await fromOneLine.store.close();
    expect(plainMachines(fromOneLine.recovery.machines)).toEqual(plainMachines(engine.machines()));
  });

  it('writes node pools and usage histories in the line layout as in one line, and reads them back', () => {
    const [tl] = simulateFleet({ jobsets: 1, days: 1, seed: 3 }).truth();
    const pool = { ...poolTimeline('pool-a', { name: 'a', createdAt: 5, accelerator: 'tpu', topology: '2x2' }), jobsets: [tl!.uid], transitions: [{ at: 5, state: 'up' as const }] };
    const usage: UsageSnapshotEntry[] = [{ owner: tl!.uid, namespace: tl!.namespace, name: tl!.name, history: { raw: { t: [1, 2], v: [[0.5, null]] }, folded: { t: [], v: [[]] } } }];
    const machine = { timeline: tl!, everUp: true, restarts: 0, resourceVersion: '7', deletedAt: null };
    const nodeLayer = { ...tl!, transitions: [{ at: tl!.createdAt, state: 'provisioning' as const, causes: [{ kind: 'NodeNotReady' as const, at: 1 }] }] };
    const args = [[machine], 3, 99, UPNESS_VERSION, [nodeLayer], FORMAT, [pool], usage] as const;
    const text = [...snapshotText(...args)].join('');
    const whole = JSON.parse(JSON.stringify(snapshotOf(...args))) as Record<string, unknown[]>;
    expect(JSON.parse(text)).toEqual(whole);
    // The header, an element of each list, the three lists' separators after the first, the end.
    expect(text.split('\n')).toHaveLength(1 + 4 + 3 + 1);
    const { header, parts } = parseSnapshot(Buffer.from(text));
    expect(header).toEqual({ format: FORMAT, upness: UPNESS_VERSION, nextSegment: 3, observedUntil: 99 });
    const lists = [...parts].map((p) => [p.list, JSON.parse(JSON.stringify(p.item))]);
    expect(lists).toEqual([
      ['machines', whole.machines![0]],
      ['nodeLayers', whole.nodeLayers![0]],
      ['pools', whole.pools![0]],
      ['usage', whole.usage![0]],
    ]);
  });

  it('reads a snapshot of many elements in batches of lines: the same elements as the whole document parsed at once', () => {
    const engine = new ClusterEngine();
    feedFleet(engine, null, { jobsets: 20, days: 6, seed: 8 });
    const text = [...snapshotText(engine.machines(), 2, engine.horizon, UPNESS_VERSION, engine.nodeTimelines())].join('');
    // Several batches (records.ts PARSED_TOGETHER, 64 KiB), the last cut at the end of its list.
    expect(text.length).toBeGreaterThan(2 * 65_536);
    const whole = JSON.parse(text) as Snapshot;
    const { parts } = parseSnapshot(Buffer.from(text));
    const read = [...parts];
    expect(read.filter((p) => p.list === 'machines').map((p) => p.item)).toEqual(whole.machines);
    expect(read.filter((p) => p.list === 'nodeLayers').map((p) => p.item)).toEqual(whole.nodeLayers);
    expect(read.length).toBe(whole.machines.length + whole.nodeLayers!.length);
  });

  it('reads a snapshot file a block of whole lines at a time, into one buffer again and again: the same elements', () => {
    const engine = new ClusterEngine();
    feedFleet(engine, null, { jobsets: 20, days: 6, seed: 8 });
    const text = [...snapshotText(engine.machines(), 2, engine.horizon, UPNESS_VERSION, engine.nodeTimelines())].join('');
    const path = join(fresh(), 'snapshot.json');
    writeFileSync(path, text);
    const expected = [...parseSnapshot(Buffer.from(text)).parts].map((p) => JSON.stringify(p));
    // Blocks smaller than most lines (the buffer grows), and a few lines each.
    for (const size of [64, 4096]) {
      const fd = openSync(path, 'r');
      try {
        // Each block read before the next is asked for: the buffer is read into again.
        const blocks: string[] = [];
        for (const block of lineBlocks(fd, size)) blocks.push(block.toString());
        expect(blocks.join('')).toBe(text);
        expect(blocks.length).toBeGreaterThan(10);
        expect(blocks.slice(0, -1).every((b) => b.endsWith('\n'))).toBe(true);
      } finally {
        closeSync(fd);
      }
      const fd2 = openSync(path, 'r');
      try {
        expect([...parseSnapshotBlocks(lineBlocks(fd2, size)).parts].map((p) => JSON.stringify(p))).toEqual(expected);
      } finally {
        closeSync(fd2);
      }
    }
    // A block a line: the lines that close a list each begin a block.
    const lines = text.split(/(?<=\n)/).map((l) => Buffer.from(l));
    expect([...parseSnapshotBlocks(lines[Symbol.iterator]()).parts].map((p) => JSON.stringify(p))).toEqual(expected);
    expect(() => [...parseSnapshotBlocks([...lines, Buffer.from('\n{}')][Symbol.iterator]()).parts]).toThrow('the snapshot goes on after its end');
    expect(() => [...parseSnapshotBlocks(lines.slice(0, -1)[Symbol.iterator]()).parts]).toThrow('the snapshot ends before its last line');
  });

  it('refuses a snapshot cut short, or with anything after its end', async () => {
    const dir = fresh();
    const { engine, store } = await fill(dir);
    await store.snapshot(engine.machines(), engine.horizon);
    await store.close();
    const path = join(dir, 'snapshot.json');
    const text = readFileSync(path, 'utf8');
    writeFileSync(path, text.slice(0, text.lastIndexOf('\n')));
    await expect(EmbeddedStore.open(dir)).rejects.toThrow(/snapshot\.json is not valid JSON \(the snapshot ends before its last line\)/);
    writeFileSync(path, text.slice(0, text.indexOf('\n', text.indexOf('\n') + 1) - 5) + text.slice(text.indexOf('\n', text.indexOf('\n') + 1)));
    await expect(EmbeddedStore.open(dir)).rejects.toThrow(/snapshot\.json is not valid JSON/);
    writeFileSync(path, `${text}\n{}`);
    await expect(EmbeddedStore.open(dir)).rejects.toThrow(/snapshot\.json is not valid JSON \(the snapshot goes on after its end\)/);
  });

  it('a snapshot is of the moment it was asked for, while the engine goes on observing', async () => {
    const dir = fresh();
    const { engine, store } = await fill(dir);
    const taking = store.snapshot(engine.machines(), engine.horizon);
    // Observed (and recorded) before the snapshot is on disk: in the next segment, not in the snapshot too.
    const before = [...engine.machines()].reduce((n, m) => n + transitionsOf(m.timeline).length, 0);
    for (const o of simulateFleet({ jobsets: 2, days: 1, seed: 9, start: engine.horizon! + 1 }).observations()) engine.observe(o);
    expect([...engine.machines()].reduce((n, m) => n + transitionsOf(m.timeline).length, 0)).toBeGreaterThan(before);
    await taking;
    await store.close();
    const { recovery, store: reopened } = await EmbeddedStore.open(dir);
    await reopened.close();
    expect(plainMachines(recovery.machines)).toEqual(plainMachines(engine.machines()));
  });

  it('refuses a data dir of a newer format, naming the Upness that wrote it, and one of a format no Upness wrote', async () => {
    const dir = fresh();
    writeFileSync(join(dir, 'snapshot.json'), JSON.stringify({ format: 0, nextSegment: 1, observedUntil: null, machines: [] }));
    await expect(EmbeddedStore.open(dir)).rejects.toThrow(/snapshot\.json is in format 0, which no Upness wrote: not an Upness data dir/);
    const newer = fresh();
    writeFileSync(join(newer, 'snapshot.json'), JSON.stringify({ format: FORMAT + 1, upness: '9.9.9', nextSegment: 1, observedUntil: null, machines: [] }));
    await expect(EmbeddedStore.open(newer)).rejects.toThrow(
      `snapshot.json is in format ${FORMAT + 1}, written by Upness 9.9.9; this Upness (${UPNESS_VERSION}) reads formats 1 to ${FORMAT}. Run that version or a newer one, or start with an empty --data-dir.`,
    );
    const other = fresh();
    writeFileSync(join(other, 'log-000001.jsonl'), '');
    const { store } = await EmbeddedStore.open(other);
    await store.close();
    const path = join(other, segments(other).at(-1)!);
    // What this version writes says which it is.
    expect(readFileSync(path, 'utf8')).toMatch(new RegExp(`^\\w{8} \\{"k":"header","format":${FORMAT},"upness":"${UPNESS_VERSION.replace(/\./g, '\\.')}"\\}\n`));
    const header = `{"k":"header","format":${FORMAT + 1},"upness":"9.9.9"}`;
    const { crc32 } = await import('node:zlib');
    writeFileSync(path, `${crc32(header).toString(16).padStart(8, '0')} ${header}\n`);
    rmSync(join(other, 'log-000001.jsonl'));
    await expect(EmbeddedStore.open(other)).rejects.toThrow(`is in format ${FORMAT + 1}, written by Upness 9.9.9`);
  });

  it('never says less in a snapshot than the observed marks it replaces (a stop after quiet seconds: the last mark, not the last transition)', async () => {
    const dir = fresh();
    const { engine, store } = await fill(dir);
    const lastTransition = engine.horizon!;
    // Watched on while nothing changed: the marks pass the last transition.
    store.observed(lastTransition + 3_000);
    await store.flushed();
    const before = await EmbeddedStore.open(dir);
    await before.store.close();
    expect(before.recovery.observedUntil).toBe(lastTransition + 3_000);
    // The stop's snapshot is given the engine's horizon (its last transition) and deletes the log.
    await store.snapshot(engine.machines(), engine.horizon);
    await store.close();
    const reopened = await EmbeddedStore.open(dir);
    await reopened.store.close();
    expect(reopened.recovery.records).toBe(0);
    expect(reopened.recovery.observedUntil).toBe(lastTransition + 3_000);
  });

  it('keeps the node layer and the causes found after a transition was written, in the log, a snapshot and through retention', async () => {
    const dir = fresh();
    const { store } = await EmbeddedStore.open(dir);
    const engine = clusterEngine(store);
    for (const o of clusterTrace()) engine.observe(o);
    store.observed(engine.horizon);
    await store.close();
    expect(drawn(engine.timeline('js-train'))).toEqual(JOBSET);
    expect(drawn(engine.nodeLayer.timeline('js-train'))).toEqual(NODES);
    // The late cause is a record of its own after the transition's, which is not rewritten.
    const log = readFileSync(join(dir, segments(dir).at(-1)!), 'utf8');
    expect(log).toMatch(/"k":"update","uid":"js-train","add":\[\[1767228300000,"down"\]\][^\n]*\n[^\n]*"k":"cause","uid":"js-train","layer":"jobset","seq":6,"cause":\{"kind":"NodeNotReady","at":1767228300000/);

    // From the log alone.
    const first = await EmbeddedStore.open(dir);
    expect(first.recovery.machines.map((m) => drawn(m.timeline))).toEqual([JOBSET]);
    expect(first.recovery.nodeLayers.map((tl) => drawn(tl))).toEqual([NODES]);
    // From a snapshot (the log before it deleted).
    const restored = new ClusterEngine();
    restored.restore(first.recovery.machines, first.recovery.observedUntil);
    restored.restoreNodeLayer(first.recovery.nodeLayers, first.recovery.observedUntil);
    expect(drawn(restored.nodeLayer.timeline('js-train'))).toEqual(NODES);
    await first.store.snapshot(restored.machines(), restored.horizon, restored.nodeTimelines());
    await first.store.close();
    const second = await EmbeddedStore.open(dir);
    await second.store.close();
    expect(second.recovery.records).toBe(0);
    expect(second.recovery.nodeLayers.map((tl) => drawn(tl))).toEqual([NODES]);
    expect(second.recovery.machines.map((m) => drawn(m.timeline))).toEqual([JOBSET]);
    // Retention drops the node layer with its JobSet.
    restored.forget(['js-train']);
    const third = await EmbeddedStore.open(dir);
    await third.store.snapshot(restored.machines(), restored.horizon, restored.nodeTimelines());
    await third.store.close();
    const fourth = await EmbeddedStore.open(dir);
    await fourth.store.close();
    expect(fourth.recovery.machines).toEqual([]);
    expect(fourth.recovery.nodeLayers).toEqual([]);
  });

  it('hands the engine its map of the machines by UID: restored from it, the engine holds and goes on as one restored from the list', async () => {
    const dir = fresh();
    const { engine, store } = await fill(dir, 5, 2);
    await store.snapshot(engine.machines(), engine.horizon);
    // More after the snapshot, in the log: runs grown and new ones.
    const later = [...simulateFleet({ jobsets: 3, days: 1, seed: 12, start: engine.horizon! + 60_000 }).observations()];
    for (const o of later.slice(0, later.length >> 1)) engine.observe(o);
    store.observed(engine.horizon);
    await store.close();
    const restoredFrom = async (mapped: boolean): Promise<TimelineEngine> => {
      const { store: s, recovery } = await EmbeddedStore.open(dir);
      await s.close();
      // The map holds exactly the runs as kept, in their order; the list is their machines.
      expect([...recovery.byUid!.values()].every((m, i) => m === recovery.kept![i])).toBe(true);
      expect(recovery.byUid!.size).toBe(recovery.kept!.length);
      expect(recovery.machines.map(machineAsRead)).toEqual(recovery.kept!.map((k) => machineAsRead(machineOf(k))));
      const restored = new TimelineEngine();
      restored.restore(mapped ? recovery.byUid! : recovery.machines, recovery.observedUntil);
      return restored;
    };
    const fromList = await restoredFrom(false);
    const fromMap = await restoredFrom(true);
    const same = (): void => {
      expect(fromMap.timelines().map(drawn)).toEqual(fromList.timelines().map(drawn));
      // A closed run's transitions are a record of the arena (its number differs between two engines): compared as read.
      const read = (e: TimelineEngine): unknown[] => [...e.machines()].map(machineAsRead);
      expect(read(fromMap)).toEqual(read(fromList));
      expect([fromMap.counts, fromMap.machinesKept, fromMap.horizon]).toEqual([fromList.counts, fromList.machinesKept, fromList.horizon]);
      for (const tl of fromList.timelines()) expect(fromMap.timeline(tl.uid)).toBe(fromMap.timelines().find((t) => t.uid === tl.uid));
    };
    expect(fromList.timelines().length).toBe(engine.timelines().length);
    same();
    // Observed on from there (the rest of the later fleet, and a relist's end): both alike.
    for (const restored of [fromList, fromMap]) {
      for (const o of later.slice(later.length >> 1)) restored.observe(o);
      restored.endGap(restored.horizon!);
    }
    same();
  });

  it('keeps no record of what it wrote of a run closed when read: observed again, its identity and memory are written once more, then only what changes', async () => {
    const dir = fresh();
    const { store } = await EmbeddedStore.open(dir);
    const engine = new TimelineEngine({ onUpdate: (u, m) => store.record(u, m) });
    feedFleet(engine, store, { jobsets: 4, days: 2, seed: 5 });
    await store.snapshot(engine.machines(), engine.horizon);
    await store.close();
    const { store: again, recovery } = await EmbeddedStore.open(dir);
    const closed = recovery.machines.find((m) => TERMINAL_STATES.has(transitionsOf(m.timeline).at(-1)!.state))!;
    const open = recovery.machines.find((m) => !TERMINAL_STATES.has(transitionsOf(m.timeline).at(-1)!.state))!;
    expect(closed).toBeDefined();
    expect(open).toBeDefined();
    // Observed again without a change: the open run writes nothing; the closed one its identity and memory, once.
    for (let i = 0; i < 2; i++) for (const m of [open, closed]) again.record({ timeline: m.timeline, added: [] }, m);
    closed.timeline.labels = { ...closed.timeline.labels, relabelled: 'yes' };
    again.record({ timeline: closed.timeline, added: [] }, closed);
    await again.close();
    const records = readFileSync(join(dir, segments(dir).at(-1)!), 'utf8')
      .split('\n')
      .filter((l) => l.includes('"uid"'))
      .map((l) => JSON.parse(l.slice(9)) as { k: string; uid: string; labels?: object });
    expect(records.map((r) => [r.k, r.uid])).toEqual([
      ['meta', closed.timeline.uid],
      ['update', closed.timeline.uid],
      ['meta', closed.timeline.uid],
    ]);
    expect(records[2]!.labels).toMatchObject({ relabelled: 'yes' });
    // Read back, it is the same run.
    const third = await EmbeddedStore.open(dir);
    await third.store.close();
    expect(plainMachines(third.recovery.machines)).toEqual(plainMachines(recovery.machines));
  });

  it.each(['in the order of the machines', 'in another order'])('reads back every derived node layer of a snapshot that holds more than one element of them (%s)', async (order) => {
    // Closed runs never up: each node layer is what its JobSet layer derives, kept only by its place,
    // 4,096 places to an element, each given as the difference from the place before.
    const t0 = Date.UTC(2026, 0, 1);
    const machines = Array.from({ length: 4096 * 2 + 10 }, (_, i): MachineState => {
      const timeline: Timeline = {
        uid: `u-${String(i).padStart(5, '0')}`,
        namespace: 'ml',
        name: `run-${i}`,
        labels: {},
        accelerator: null,
        topology: null,
        createdAt: t0 + i,
        accelerators: 0,
        checkpointIntervalMs: null,
        pods: 1,
        transitions: [
          { at: t0 + i, state: 'provisioning' },
          { at: t0 + i + 60_000, state: 'failed' },
        ],
      };
      return { timeline, everUp: false, restarts: 0, resourceVersion: null, deletedAt: null };
    });
    const layers = machines.map((m) => ({ ...m.timeline, transitions: derivedTransitions(m.timeline) }));
    if (order === 'in another order') layers.reverse();
    const dir = fresh();
    const { store } = await EmbeddedStore.open(dir);
    await store.snapshot(machines, t0 + 86_400_000, layers);
    await store.close();
    const snapshot = parseSnapshot(readFileSync(join(dir, 'snapshot.json')));
    expect([...snapshot.parts].filter((p) => p.list === 'nodeLayers').length).toBe(3);
    const { store: again, recovery } = await EmbeddedStore.open(dir);
    await again.close();
    expect(recovery.derivedNodeLayers!.slice().sort()).toEqual(machines.map((m) => m.timeline.uid));
  });

  it('keeps no line for a closed node layer its JobSet layer derives: restored, it is derived again; a cause found later makes it kept', async () => {
    const dir = fresh();
    const { store } = await EmbeddedStore.open(dir);
    const engine = clusterEngine(store);
    feedFleet(engine, store, { jobsets: 6, days: 2, seed: 3 });
    await store.snapshot(engine.machines(), engine.horizon, engine.nodeTimelines());
    const derived = engine.nodeTimelines().filter((tl) => TERMINAL_STATES.has(transitionsOf(tl).at(-1)!.state));
    expect(derived.length).toBeGreaterThan(10);
    expect(engine.nodeLayer.derivedCount).toBe(derived.length);
    // A node's cause found after the snapshot, on the last transition of a derived node layer.
    const late = derived[0]!;
    const cause: Cause = { kind: 'NodeNotReady', at: transitionsOf(late).at(-1)!.at, node: 'n9', reason: 'KubeletNotReady' };
    store.fact({ kind: 'cause', uid: late.uid, layer: 'nodes', seq: transitionsOf(late).length - 1, cause });
    await store.close();
    const snapshot = parseSnapshot(readFileSync(join(dir, 'snapshot.json')));
    const layers = [...snapshot.parts].filter((p) => p.list === 'nodeLayers').map((p) => p.item);
    expect(layers.filter((l) => 'uid' in l).length).toBe(engine.nodeTimelines().length - derived.length);
    expect(layers.flatMap((l) => ('derived' in l ? l.derived : [])).length).toBe(derived.length);

    const { store: again, recovery } = await EmbeddedStore.open(dir);
    await again.close();
    expect(new Set(recovery.derivedNodeLayers)).toEqual(new Set(derived.filter((tl) => tl !== late).map((tl) => tl.uid)));
    expect(transitionsOf(recovery.nodeLayers.find((tl) => tl.uid === late.uid)!).at(-1)!.causes).toEqual([cause]);
    const restored = new ClusterEngine();
    restored.restore(recovery.machines, recovery.observedUntil);
    restored.restoreNodeLayer(recovery.nodeLayers, recovery.observedUntil, [], recovery.derivedNodeLayers);
    expect(restored.nodeLayer.derivedCount).toBe(derived.length - 1);
    const byUid = (tls: readonly Timeline[]): Map<string, readonly Transition[]> => new Map(tls.map((tl) => [tl.uid, transitionsOf(tl)]));
    const expected = byUid(engine.nodeTimelines());
    expected.set(late.uid, transitionsOf(late).map((t, i) => (i === transitionsOf(late).length - 1 ? { ...t, causes: [cause] } : t)));
    expect(byUid(restored.nodeTimelines())).toEqual(expected);
  });

  // A real full disk: a tiny tmpfs (needs root to mount; CI and the dev machines run as root).
  const root = process.getuid?.() === 0;
  (root ? it : it.skip)('on a full disk: says so, keeps serving, loses nothing written, and catches up when space returns', async () => {
    const mount = mkdtempSync(join(tmpdir(), 'upness-tiny-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=192k', 'tmpfs', mount]);
    try {
      const dir = join(mount, 'data');
      const errors: (string | null)[] = [];
      const { store } = await EmbeddedStore.open(dir, { onError: (e) => errors.push(e?.message ?? null), retryMs: 50 });
      const engine = new TimelineEngine({ onUpdate: (u, m) => store.record(u, m) });
      const stream = simulateFleet({ jobsets: 20, days: 4, seed: 3 }).observations();
      // Fill the disk: keep observing until a write fails.
      let filler = 0;
      for (const o of stream) {
        engine.observe(o);
        if (++filler % 200 === 0) await store.flushed();
        if (store.status().error !== null) break;
      }
      expect(store.status().error).toMatch(/ENOSPC/);
      expect(errors[0]).toMatch(/ENOSPC/);
      // Serving goes on: flushed() does not hang while the disk is full.
      await store.flushed();
      // More observations arrive while the disk is full; they wait in memory.
      let more = 0;
      for (const o of stream) {
        engine.observe(o);
        if (++more === 300) break;
      }
      expect(store.status().pendingRecords).toBeGreaterThan(0);
      // Space returns (another file on the same disk is deleted): the store catches up by itself.
      writeFileSync(join(mount, 'ballast'), '');
      rmSync(join(mount, 'ballast'));
      execFileSync('mount', ['-o', 'remount,size=4m', mount]);
      for (let i = 0; i < 100 && (store.status().error !== null || store.status().pendingRecords > 0); i++) await new Promise((r) => setTimeout(r, 50));
      expect(store.status()).toMatchObject({ error: null, pendingRecords: 0 });
      expect(errors.at(-1)).toBeNull();
      store.observed(engine.horizon);
      await store.close();
      const reopened = await EmbeddedStore.open(dir);
      await reopened.store.close();
      expect(reopened.recovery.cut).toBeNull();
      expect(plainMachines(reopened.recovery.machines)).toEqual(plainMachines(engine.machines()));
    } finally {
      execFileSync('umount', ['--lazy', mount]);
    }
  });
});

describe('the fleet index kept with the snapshot', () => {
  /** A store filled from a simulated fleet, and the index a service keeps of its timelines. */
  async function indexed(dir: string): Promise<{ engine: TimelineEngine; store: EmbeddedStore; index: FleetIndex }> {
    const { engine, store } = await fill(dir, 3, 2);
    const index = new FleetIndex();
    engine.subscribe(index);
    return { engine, store, index };
  }
  const image = (index: FleetIndex) => (placeOf: (tl: Timeline) => number | undefined) => index.image(placeOf);
  /** What a dashboard asks of an index: each namespace's pooled window over a few ranges, as a series;
   *  namespaces by name, as an answer's groups are (frames/pooled.ts), not in the order the index met them. */
  const answers = (index: FleetIndex, horizon: number): unknown[] => {
    const times = Array.from({ length: 13 }, (_, k) => horizon - (12 - k) * 4 * 3_600_000);
    return [null, ...[...new Set(index.partitions().map((p) => p.namespace))].sort()].map((ns) => {
      const partitions = index.partitions(undefined, ns === null ? undefined : [ns]);
      return index.windows(partitions, horizon, times, [0, 0, 6, 11], [12, 6, 12, 12]).map((w) => [Array.from(w.totals), w.count, w.timeToFirstUpSeconds]);
    });
  };
  /** The index built again from the recovered timelines, as before it was kept. */
  const rebuilt = (machines: readonly { timeline: Timeline }[]): FleetIndex => {
    const index = new FleetIndex();
    for (const m of machines) index.grew(m.timeline);
    return index;
  };

  it('is read back with the snapshot and answers every fleet question as the index built again, with the log after it taken in', async () => {
    const dir = fresh();
    const { engine, store, index } = await indexed(dir);
    await store.snapshot(engine.machines(), engine.horizon, [], [], [], image(index));
    expect(readdirSync(dir)).toContain('snapshot.fleet-index');
    expect(JSON.parse(readFileSync(join(dir, 'snapshot.json'), 'utf8').split('\n')[0]!.replace(/,"machines":\[$/, '}')).fleetIndex).toMatchObject({ file: 'snapshot.fleet-index' });
    // More after the snapshot: in the log, not in the part.
    for (const o of simulateFleet({ jobsets: 3, days: 1, seed: 11, start: engine.horizon! - 3_600_000 }).observations()) engine.observe(o);
    store.observed(engine.horizon);
    await store.close();

    const { store: again, recovery } = await EmbeddedStore.open(dir);
    await again.close();
    const kept = recovery.fleetIndex;
    if (kept === undefined || 'refused' in kept) throw new Error(`no part read: ${JSON.stringify(kept)}`);
    const fromLog = recovery.machines.filter((m, i) => i >= kept.held.length || kept.held[i]! < transitionsOf(m.timeline).length);
    expect(fromLog.length).toBeGreaterThan(0);
    const restored = new FleetIndex();
    expect(restored.adopt(kept.part, recovery.machines.map((m) => m.timeline), kept.held, kept.resum)).toBeNull();
    const built = rebuilt(recovery.machines);
    expect(restored.events()).toBe(built.events());
    expect(answers(restored, engine.horizon!)).toEqual(answers(built, engine.horizon!));
    // And as the live index answered before the restart.
    expect(answers(restored, engine.horizon!)).toEqual(answers(index, engine.horizon!));
  });

  it('is refused, saying why, when damaged, of another snapshot or missing; a snapshot without one names none', async () => {
    const dir = fresh();
    const { engine, store, index } = await indexed(dir);
    await store.snapshot(engine.machines(), engine.horizon, [], [], [], image(index));
    const part = join(dir, 'snapshot.fleet-index');
    const older = readFileSync(part);
    await store.snapshot(engine.machines(), engine.horizon, [], [], [], image(index));
    const good = readFileSync(part);
    await store.close();
    const refusal = async (): Promise<string | undefined> => {
      const { store: s, recovery } = await EmbeddedStore.open(dir);
      await s.close();
      // The snapshot's timelines are read all the same.
      expect(recovery.machines.length).toBe(engine.counts.jobsets);
      const kept = recovery.fleetIndex;
      return kept !== undefined && 'refused' in kept ? kept.refused : undefined;
    };
    expect(await refusal()).toBeUndefined();
    const damaged = Buffer.from(good);
    damaged[damaged.length >> 1]! ^= 1;
    writeFileSync(part, damaged);
    expect(await refusal()).toBe('its checksum is wrong');
    writeFileSync(part, good.subarray(0, good.length - 100));
    expect(await refusal()).toBe('its checksum is wrong');
    writeFileSync(part, older);
    expect(await refusal()).toMatch(/^it is of another snapshot/);
    rmSync(part);
    expect(await refusal()).toMatch(/snapshot\.fleet-index cannot be read \(ENOENT\)$/);
    // Without an index given, the snapshot names no part, and none is read.
    const { store: plain } = await EmbeddedStore.open(dir);
    await plain.snapshot(engine.machines(), engine.horizon);
    await plain.close();
    const { store: last, recovery } = await EmbeddedStore.open(dir);
    await last.close();
    expect(recovery.fleetIndex).toBeUndefined();
  });

  it('is taken with the sums redone where the log changed a timeline’s goodput inputs', async () => {
    const dir = fresh();
    const { engine, store, index } = await indexed(dir);
    await store.snapshot(engine.machines(), engine.horizon, [], [], [], image(index));
    // After it, the first timeline with other accelerators (as a JobSet resized would be): a meta record in the log.
    const first = [...engine.machines()][0]!;
    first.timeline.accelerators = (first.timeline.accelerators ?? 0) + 16;
    store.record({ timeline: first.timeline, added: [] }, first);
    await store.close();
    const { store: again, recovery } = await EmbeddedStore.open(dir);
    await again.close();
    const kept = recovery.fleetIndex;
    if (kept === undefined || 'refused' in kept) throw new Error(`no part read: ${JSON.stringify(kept)}`);
    expect([...kept.resum]).toEqual([0]);
    const restored = new FleetIndex();
    expect(restored.adopt(kept.part, recovery.machines.map((m) => m.timeline), kept.held, kept.resum)).toBeNull();
    expect(answers(restored, engine.horizon!)).toEqual(answers(rebuilt(recovery.machines), engine.horizon!));
  });
});
