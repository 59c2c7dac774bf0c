// Upgrades keep history: a data dir written by every released format (./fixtures/) is migrated in
// place by the current code and gives the same answers through the API as the release that wrote
// it; a migration stopped half-way is finished at the next start. `upness serve` runs as a process,
// as a user upgrades it: the old data dir, a new binary, an (empty) trace.

import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ready, startServe } from '../../../test/support/serve.ts';
import { EmbeddedStore } from './embedded.ts';
import { FORMAT } from './records.ts';
import { UPNESS_VERSION } from './version.ts';

const FIXTURES = join(import.meta.dirname, 'fixtures');

/** A copy of a fixture's data dir in a fresh place; the fixture itself is never changed. */
function copy(fixture: string): { dir: string; parent: string } {
  const parent = mkdtempSync(join(tmpdir(), 'upness-format-'));
  const dir = join(parent, 'data');
  cpSync(join(FIXTURES, fixture), dir, { recursive: true });
  return { dir, parent };
}

/** `value` with only the object fields that `shape` has, at every depth (arrays element by element). */
function onlyFieldsOf(shape: unknown, value: unknown): unknown {
  if (Array.isArray(shape) && Array.isArray(value)) return value.map((v, i) => onlyFieldsOf(shape[i], v));
  if (shape !== null && typeof shape === 'object' && value !== null && typeof value === 'object' && !Array.isArray(shape) && !Array.isArray(value)) {
    const fields = value as Record<string, unknown>;
    return Object.fromEntries(Object.entries(shape).map(([k, v]) => [k, k in fields ? onlyFieldsOf(v, fields[k]) : undefined]).filter(([, v]) => v !== undefined));
  }
  return value;
}

const CASES = [
  { fixture: 'format-1/fleet', answers: 'format-1/fleet.answers.json', path: '/api/v1/jobsets?from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z' },
  { fixture: 'format-1/cluster', answers: 'format-1/cluster.answers.json', path: '/api/v1/jobsets/ml/train?from=2026-01-01T00:00:00Z&to=2026-01-01T01:00:00Z' },
];

describe('a data dir written by an older format', () => {
  it.each(CASES)('$fixture is migrated in place and answers as the release that wrote it', async ({ fixture, answers, path }) => {
    const { dir, parent } = copy(fixture);
    const empty = join(parent, 'empty.jsonl');
    writeFileSync(empty, '');
    const service = await startServe(['--trace', empty, '--data-dir', dir]);
    try {
      await ready(service);
      const body = await (await fetch(service.url + path)).json();
      // Later releases may add fields (the goodput figures did); every field the old release gave is the same.
      const recorded: unknown = JSON.parse(readFileSync(join(FIXTURES, answers), 'utf8'));
      expect(onlyFieldsOf(recorded, body)).toEqual(recorded);
      expect(service.logs()).toContain(`"msg":"migrated the data dir from format 1 to ${FORMAT}`);
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
    expect(second.recovery.machines).toEqual(first.recovery.machines);
    // Format 1 kept the causes known when a transition was written; they are still there.
    expect(second.recovery.machines[0]!.timeline.transitions.filter((t) => t.causes !== undefined).map((t) => t.causes!.map((c) => c.kind))).toEqual([
      ['NodeNotReady'],
      ['JobSetRestart'],
      ['NodeNotReady'],
    ]);
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
    expect(recovery.machines).toEqual(expected.recovery.machines);
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
