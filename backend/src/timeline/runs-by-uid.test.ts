// The engine's runs by UID (runs-by-uid.ts) answer as the Map<string, run> they replace, over
// generated runs and operations: every get, has, delete and the order of values, with UIDs canonical
// (held as words once sealed) and not (held as strings), sealed runs and open ones, plain timelines
// beside the engine's own, thousands of runs (growth, deletions that move runs back, compaction).
// Then the engine itself, with such UIDs: found by them, listed in the order of their strings.

import fc from 'fast-check';
import { jobSetObject } from '../../../test/support/scenario.ts';
import type { Observation } from '../observation/types.ts';
import { arbCanonicalUid, arbOtherUid } from '../../../test/support/arbitraries.ts';
import { TimelineEngine } from './engine.ts';
import { keptTimeline } from './machine.ts';
import { byNamespaceNameUid } from './order.ts';
import { RunTimeline } from './run-timeline.ts';
import { RunsByUid, type KeptRun } from './runs-by-uid.ts';
import { sealClosed, unsealClosed, type Timeline } from './types.ts';

const T0 = Date.UTC(2026, 10, 27);

/** A run bearing `uid`: the engine's timeline, sealed (closed, its UID in the arena when canonical) or open, or a plain timeline. */
function runOf(uid: string, kind: number): Timeline {
  const fields = { uid, namespace: 'ns', name: `n-${kind}`, labels: {}, accelerator: null, topology: null, createdAt: T0 };
  const closed = [
    { at: T0, state: 'provisioning' as const },
    { at: T0 + 1000, state: 'completed' as const },
  ];
  if (kind === 0) return { ...fields, transitions: closed };
  const run = new RunTimeline({ ...fields, transitions: kind === 1 ? closed.slice(0, 1) : closed });
  if (kind === 2) sealClosed(run);
  return run;
}

const arbUid = fc.oneof({ arbitrary: arbCanonicalUid, weight: 4 }, { arbitrary: arbOtherUid, weight: 1 });

type Op = { op: 'add' | 'set' | 'delete' | 'get'; uid: number; kind: number };
const arbOps = fc.array(
  fc.record({ op: fc.constantFrom<Op['op']>('add', 'add', 'set', 'delete', 'get'), uid: fc.nat(), kind: fc.integer({ min: 0, max: 2 }) }),
  { maxLength: 300 },
);

test('answers every operation as a Map of the same runs does, in the same order', () => {
  fc.assert(
    fc.property(fc.uniqueArray(arbUid, { minLength: 1, maxLength: 60 }), arbOps, (uids, ops) => {
      const table = new RunsByUid();
      const map = new Map<string, KeptRun>();
      const made: Timeline[] = [];
      try {
        for (const { op, uid: i, kind } of ops) {
          const uid = uids[i % uids.length]!;
          if (op === 'add' || op === 'set') {
            const run = runOf(uid, kind);
            made.push(run);
            if (op === 'add') table.add(run);
            else table.set(uid, run);
            map.set(uid, run);
          } else if (op === 'delete') expect(table.delete(uid)).toBe(map.delete(uid));
          for (const u of [uid, uids[(i + 1) % uids.length]!]) {
            expect(table.get(u)).toBe(map.get(u));
            expect(table.has(u)).toBe(map.has(u));
          }
          expect(table.size).toBe(map.size);
        }
        expect([...table.values()]).toEqual([...map.values()]);
        for (const run of map.values()) expect(table.getOf(keptTimeline(run))).toBe(run);
        for (const run of made) expect(table.getOf(run)).toBe(map.get(run.uid));
      } finally {
        for (const run of made) unsealClosed(run);
      }
    }),
    { numRuns: 300 },
  );
});

test('thousands of runs: grown, most deleted (runs moved back, numbers compacted), added again, in order', () => {
  const table = new RunsByUid();
  const map = new Map<string, KeptRun>();
  const made: Timeline[] = [];
  const uids = fc.sample(arbUid, { numRuns: 6000, seed: 42 });
  try {
    uids.forEach((uid, k) => {
      const run = runOf(uid, k % 3);
      made.push(run);
      table.add(run);
      map.set(uid, run);
    });
    uids.forEach((uid, k) => {
      if (k % 5 !== 0) expect(table.delete(uid)).toBe(map.delete(uid));
    });
    uids.slice(0, 500).forEach((uid, k) => {
      const run = runOf(uid, (k + 1) % 3);
      made.push(run);
      table.set(uid, run);
      map.set(uid, run);
    });
    expect(table.size).toBe(map.size);
    expect([...table.values()]).toEqual([...map.values()]);
    for (const uid of uids) expect(table.get(uid)).toBe(map.get(uid));
  } finally {
    for (const run of made) unsealClosed(run);
  }
});

test('a run is kept under its own UID only', () => {
  const table = new RunsByUid();
  const run = runOf('2c5ea4c0-4067-11e9-8bad-9b1deb4d3b7d', 2);
  try {
    expect(() => table.set('2c5ea4c0-4067-11e9-8bad-9b1deb4d3b7e', run)).toThrow(/its own UID/);
    expect(() => table.set('2C5EA4C0-4067-11E9-8BAD-9B1DEB4D3B7D', run)).toThrow(/its own UID/);
    table.set('2c5ea4c0-4067-11e9-8bad-9b1deb4d3b7d', run);
    expect(table.get('2c5ea4c0-4067-11e9-8bad-9b1deb4d3b7d')).toBe(run);
    expect(table.get('2C5EA4C0-4067-11E9-8BAD-9B1DEB4D3B7D')).toBeUndefined();
  } finally {
    unsealClosed(run);
  }
});

/** A JobSet's observation: created (running), or completed. */
function jobset(uid: string, name: string, at: number, completed: boolean): Observation {
  const object = jobSetObject({ uid, name, namespace: 'ns' }, T0, { ready: 2, succeeded: 0, restarts: 0, suspend: false, ...(completed ? { completedAt: at } : {}) });
  return { receivedAt: at, type: completed ? 'MODIFIED' : 'ADDED', object };
}

test('the engine finds its runs by UIDs of every form, sealed or open, and lists them in the order of their strings', () => {
  fc.assert(
    fc.property(fc.uniqueArray(arbUid, { minLength: 1, maxLength: 40 }), fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }), (uids, closes) => {
      const engine = new TimelineEngine();
      // Two names only: most runs tie on their name, and are ordered by UID.
      uids.forEach((uid, k) => engine.observe(jobset(uid, `n${k % 2}`, T0 + k, false)));
      uids.forEach((uid, k) => closes[k] && engine.observe(jobset(uid, `n${k % 2}`, T0 + 100 + k, true)));
      try {
        for (const uid of uids) expect(engine.timeline(uid)?.uid).toBe(uid);
        expect(engine.timeline(`${uids[0]!}x`)).toBeUndefined();
        const listed = engine.timelines().map((tl) => `${tl.name} ${tl.uid}`);
        expect(listed).toEqual(uids.map((uid, k) => `n${k % 2} ${uid}`).sort());
        expect([...engine.machines()].map((m) => m.timeline.uid)).toEqual(engine.timelines().map((tl) => tl.uid));
        // Sorted again from scratch, by the same comparator, as its list.
        expect([...engine.timelines()].sort(byNamespaceNameUid)).toEqual(engine.timelines());
      } finally {
        engine.forget(uids);
      }
      for (const uid of uids) expect(engine.timeline(uid)).toBeUndefined();
    }),
    { numRuns: 150 },
  );
});
