// Upgrades keep history: a data dir written by every released format (./fixtures/) is migrated in
// place by the current code and gives the same answers through the API as the release that wrote
// it; a migration stopped half-way is finished at the next start. `upness serve` runs as a process,
// as a user upgrades it: the old data dir, a new binary, an (empty) trace.

import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ready, startServe } from '../../../test/support/serve.ts';
import { EmbeddedStore } from './embedded.ts';
import { ClusterEngine } from '../nodes/engine.ts';
import { decodeTransition, FORMAT, type EncodedTransition, type Snapshot } from './records.ts';
import { allNodeLayers } from './store.ts';
import { UPNESS_VERSION } from './version.ts';
import { transitionsOf } from '../timeline/types.ts';
import { machineAsRead, type MachineState } from '../timeline/machine.ts';

/** Machines with their transitions as read: a closed run read from a snapshot is an arena record, numbered per read (timeline/arena.ts). */
const asRead = (machines: readonly MachineState[]): unknown[] => machines.map(machineAsRead);

const FIXTURES = join(import.meta.dirname, 'fixtures');

/** A copy of a fixture's data dir in a fresh place; the fixture itself is never changed. */
function copy(fixture: string): { dir: string; parent: string } {
  const parent = mkdtempSync(join(tmpdir(), 'upness-format-'));
  const dir = join(parent, 'data');
  cpSync(join(FIXTURES, fixture), dir, { recursive: true });
  return { dir, parent };
}

const FLEET = '/api/v1/jobsets?from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z';
const CLUSTER = '/api/v1/jobsets/ml/train?from=2026-01-01T00:00:00Z&to=2026-01-01T01:00:00Z';
const CASES = [
  { fixture: 'format-1/fleet', from: 1, answers: 'format-1/fleet.answers.json', path: FLEET },
  { fixture: 'format-1/cluster', from: 1, answers: 'format-1/cluster.answers.json', path: CLUSTER },
  { fixture: 'format-2/fleet', from: 2, answers: 'format-2/fleet.answers.json', path: FLEET },
  { fixture: 'format-2/cluster', from: 2, answers: 'format-2/cluster.answers.json', path: CLUSTER },
  { fixture: 'format-3/fleet', from: 3, answers: 'format-3/fleet.answers.json', path: FLEET },
  { fixture: 'format-3/cluster', from: 3, answers: 'format-3/cluster.answers.json', path: CLUSTER },
  { fixture: 'format-4/fleet', from: 4, answers: 'format-4/fleet.answers.json', path: FLEET },
  { fixture: 'format-4/cluster', from: 4, answers: 'format-4/cluster.answers.json', path: CLUSTER },
];

describe('a data dir written by an older format', () => {
  it.each(CASES)('$fixture is migrated in place and answers as the release that wrote it', async ({ fixture, from, answers, path }) => {
    const { dir, parent } = copy(fixture);
    const empty = join(parent, 'empty.jsonl');
    writeFileSync(empty, '');
    const service = await startServe(['--trace', empty, '--data-dir', dir]);
    try {
      await ready(service);
      const body = await (await fetch(service.url + path)).json();
      // Every figure that release gave is the same; figures added since (goodput, ...) come beside them.
      expect(body).toMatchObject(JSON.parse(readFileSync(join(FIXTURES, answers), 'utf8')));
      expect(service.logs()).toContain(`"msg":"migrated the data dir from format ${from} to ${FORMAT}`);
    } finally {
      service.child.kill('SIGTERM');
      await new Promise((r) => service.child.once('exit', r));
    }
    // Migrated: written in the current format by this version; the copy kept during the migration is gone.
    expect(JSON.parse(readFileSync(join(dir, 'snapshot.json'), 'utf8'))).toMatchObject({ format: FORMAT, upness: UPNESS_VERSION });
    expect(readdirSync(parent).sort()).toEqual(['data', 'empty.jsonl']);
  }, 60_000);

  it('is migrated once: the next start reads the current format', async () => {
    const { dir } = copy('format-1/cluster');
    const first = await EmbeddedStore.open(dir);
    await first.store.close();
    expect(first.migration).toMatchObject({ from: 1, to: FORMAT, backup: `${dir}.format-1.bak` });
    const second = await EmbeddedStore.open(dir);
    await second.store.close();
    expect(second.migration).toBeNull();
    expect(asRead(second.recovery.machines)).toEqual(asRead(first.recovery.machines));
    // Format 1 kept the causes known when a transition was written; they are still there.
    expect(transitionsOf(second.recovery.machines[0]!.timeline).filter((t) => t.causes !== undefined).map((t) => t.causes!.map((c) => c.kind))).toEqual([
      ['NodeNotReady'],
      ['JobSetRestart'],
      ['NodeNotReady'],
    ]);
  });

  it('a format-2 data dir: its meta records gain the goodput inputs (none known), its suspensions no reason, nothing else changes', async () => {
    const { dir } = copy('format-2/fleet');
    const { store, recovery, migration } = await EmbeddedStore.open(dir);
    await store.close();
    expect(migration).toMatchObject({ from: 2, to: FORMAT, backup: `${dir}.format-2.bak` });
    expect(migration!.changes).toEqual([expect.stringMatching(/^2 → 3: /), expect.stringMatching(/^3 → 4: /), expect.stringMatching(/^4 → 5: /)]);
    // As the migrated snapshot holds them.
    const migrated = await EmbeddedStore.open(dir);
    await migrated.store.close();
    expect(migrated.recovery.records).toBe(0);
    expect(migrated.recovery.machines.length).toBeGreaterThan(0);
    for (const m of migrated.recovery.machines) expect(m.timeline).toMatchObject({ accelerators: 0, checkpointIntervalMs: null });
    const transitions = recovery.machines.flatMap((m) => transitionsOf(m.timeline));
    expect(transitions.filter((t) => t.state === 'suspended').length).toBeGreaterThan(0);
    expect(transitions.filter((t) => t.suspension !== undefined)).toEqual([]);
  });

  it('a format-3 data dir: its meta records gain the pod count (0: not known), the goodput inputs it wrote are kept', async () => {
    const { dir } = copy('format-3/fleet');
    const before = readFileSync(join(FIXTURES, 'format-3/fleet/log-000001.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l.includes('"k":"meta"'))
      .map((l) => JSON.parse(l.slice(9)) as { uid: string; accelerators: number; checkpointIntervalMs: number | null });
    const { store, recovery, migration } = await EmbeddedStore.open(dir);
    await store.close();
    expect(migration).toMatchObject({ from: 3, to: FORMAT, backup: `${dir}.format-3.bak` });
    expect(migration!.changes).toEqual([expect.stringMatching(/^3 → 4: /), expect.stringMatching(/^4 → 5: /)]);
    // As the migrated snapshot holds them.
    const migrated = await EmbeddedStore.open(dir);
    await migrated.store.close();
    expect(migrated.recovery.records).toBe(0);
    expect(migrated.recovery.machines.length).toBe(new Set(before.map((m) => m.uid)).size);
    // The simulated fleet's JobSets all hold accelerators: their size stays known (the accelerators).
    expect(before.every((m) => m.accelerators > 0)).toBe(true);
    for (const { timeline } of migrated.recovery.machines) {
      const last = before.filter((b) => b.uid === timeline.uid).at(-1)!;
      expect(timeline).toMatchObject({ pods: 0, accelerators: last.accelerators, checkpointIntervalMs: last.checkpointIntervalMs });
    }
    expect(recovery.machines.every((m) => m.timeline.pods === 0)).toBe(true);
  });

  it('a format-4 data dir: the node layers its JobSet layers derive are kept by place, and restored as format 4 kept them', async () => {
    const { dir } = copy('format-4/fleet');
    const before = JSON.parse(readFileSync(join(FIXTURES, 'format-4/fleet/snapshot.json'), 'utf8')) as { nodeLayers: { uid: string; add: EncodedTransition[] }[] };
    const { store, recovery, migration } = await EmbeddedStore.open(dir);
    await store.close();
    expect(migration).toMatchObject({ from: 4, to: FORMAT, backup: `${dir}.format-4.bak` });
    expect(migration!.changes).toEqual([expect.stringMatching(/^4 → 5: /)]);
    // Most of this fleet's node layers are closed and never saw a pod: no line of their own.
    const after = JSON.parse(readFileSync(join(dir, 'snapshot.json'), 'utf8')) as Snapshot;
    const kept = after.nodeLayers!.filter((l) => 'uid' in l);
    expect(recovery.derivedNodeLayers!.length).toBeGreaterThan(kept.length);
    expect(kept.length + recovery.derivedNodeLayers!.length).toBe(before.nodeLayers.length);
    // Restored, every node layer is what format 4 held.
    const engine = new ClusterEngine();
    engine.restore(recovery.machines, recovery.observedUntil);
    engine.restoreNodeLayer(recovery.nodeLayers, recovery.observedUntil, recovery.pools ?? [], recovery.derivedNodeLayers);
    expect(engine.nodeLayer.derivedCount).toBe(recovery.derivedNodeLayers!.length);
    for (const layer of before.nodeLayers) expect(transitionsOf(engine.nodeLayer.timeline(layer.uid)!)).toEqual(layer.add.map(decodeTransition));
    expect(engine.nodeTimelines().length).toBe(before.nodeLayers.length);
    // And so are those allNodeLayers makes of the recovery (a migration's next step, the store contract).
    const all = new Map(allNodeLayers(recovery).map((tl) => [tl.uid, transitionsOf(tl)]));
    expect(before.nodeLayers.map((l) => all.get(l.uid))).toEqual(before.nodeLayers.map((l) => l.add.map(decodeTransition)));
  });

  it('a migration stopped between its two renames (the data dir moved to the backup) is finished at the next start', async () => {
    const { dir, parent } = copy('format-1/fleet');
    const expected = await EmbeddedStore.open(copy('format-1/fleet').dir);
    await expected.store.close();
    // The crash: <dir> renamed to its backup, the migrated copy half-written beside it.
    renameSync(dir, `${dir}.format-1.bak`);
    cpSync(join(FIXTURES, 'format-1/cluster'), `${dir}.format-2.tmp`, { recursive: true });
    const { store, recovery, migration } = await EmbeddedStore.open(dir);
    await store.close();
    expect(migration).toMatchObject({ from: 1, to: FORMAT });
    expect(asRead(recovery.machines)).toEqual(asRead(expected.recovery.machines));
    expect(readdirSync(parent)).toEqual(['data']);
  });

  it('a migration that finished its renames but not the deletion of the backup deletes it at the next start', async () => {
    const { dir, parent } = copy('format-1/fleet');
    await (await EmbeddedStore.open(dir)).store.close();
    cpSync(join(FIXTURES, 'format-1/fleet'), `${dir}.format-1.bak`, { recursive: true });
    const { store, migration } = await EmbeddedStore.open(dir);
    await store.close();
    expect(migration).toBeNull();
    expect(existsSync(`${dir}.format-1.bak`)).toBe(false);
    expect(readdirSync(parent)).toEqual(['data']);
  });
});
