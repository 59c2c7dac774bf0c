// The engine's timeline object (run-timeline.ts) reads as the plain object it stands for, field by
// field, through every change a writer makes, sealed into the arena or not; its creation time read
// from its first transition unless it was given another.

import fc from 'fast-check';
import { internLabels } from './intern.ts';
import { RunTimeline, type RunFields } from './run-timeline.ts';
import { sealClosed, timelineAsRead, timelineFields, transitionsOf, unsealClosed, type Transition } from './types.ts';
import { arbCanonicalUid, arbOtherUid } from '../../../test/support/arbitraries.ts';
import { runArena } from './arena.ts';
import { intoArena, pack } from './columns.ts';
import { encodeUid, UID_WORDS } from './uids.ts';

const T0 = Date.UTC(2026, 10, 27);

const LABELS: Record<string, string>[] = [{}, { team: 'a' }, { team: 'a', queue: 'q' }, { team: 'b' }];
/** A label set, shared (intern.ts, as the engine keeps them) or a copy of its own. */
const arbLabels = fc.tuple(fc.constantFrom(...LABELS), fc.boolean()).map(([l, shared]): Record<string, string> => (shared ? (internLabels(l) as Record<string, string>) : { ...l }));
const arbText = fc.constantFrom<string>('ml', 'research', 'null', 'u', 's2:ml', '');
const arbNullable = fc.oneof(fc.constant(null), arbText);
const arbCount = fc.oneof(fc.constant(undefined), fc.constantFrom(0, 1, 8, 64, 256));
const arbInterval = fc.oneof(fc.constant(undefined), fc.constant(null), fc.constantFrom(0, 600_000));
const arbCluster = fc.oneof(fc.constant(undefined), fc.constantFrom('east', 'west'));

/** Transitions from `at` on, closed or not; none at all now and then (a store's run before its first update). */
const arbTransitions = fc.tuple(fc.integer({ min: 0, max: 4 }), fc.boolean()).map(([n, closed]): Transition[] => {
  const list: Transition[] = [];
  for (let i = 0; i < n; i++) list.push({ at: T0 + i * 1000, state: i % 2 === 0 ? 'provisioning' : 'up' });
  if (n > 0 && closed) list.push({ at: T0 + n * 1000, state: 'completed' });
  return list;
});

const arbFields = fc
  .record({
    uid: fc.uuid(),
    namespace: arbText,
    name: arbText,
    labels: arbLabels,
    accelerator: arbNullable,
    topology: arbNullable,
    accelerators: arbCount,
    checkpointIntervalMs: arbInterval,
    pods: arbCount,
    cluster: arbCluster,
    transitions: arbTransitions,
    apart: fc.boolean(),
  })
  .map(({ apart, cluster, ...f }): RunFields & { transitions: Transition[] } => {
    const fields: RunFields & { transitions: Transition[] } = { ...f, createdAt: apart || f.transitions.length === 0 ? T0 - 5_000 : f.transitions[0]!.at };
    if (cluster !== undefined) fields.cluster = cluster;
    return fields;
  });

/** A change a writer makes: a field given a new value. */
const arbChange = fc.oneof(
  fc.tuple(fc.constant('namespace' as const), arbText),
  fc.tuple(fc.constant('name' as const), arbText),
  fc.tuple(fc.constant('labels' as const), arbLabels),
  fc.tuple(fc.constant('accelerator' as const), arbNullable),
  fc.tuple(fc.constant('topology' as const), arbNullable),
  fc.tuple(fc.constant('accelerators' as const), arbCount),
  fc.tuple(fc.constant('checkpointIntervalMs' as const), arbInterval),
  fc.tuple(fc.constant('pods' as const), arbCount),
  fc.tuple(fc.constant('cluster' as const), fc.constantFrom('east', 'west')),
  fc.tuple(fc.constant('createdAt' as const), fc.constantFrom(T0, T0 - 1, T0 + 0.5)),
);

const FIELDS = ['uid', 'cluster', 'namespace', 'name', 'labels', 'accelerator', 'topology', 'accelerators', 'checkpointIntervalMs', 'pods', 'createdAt'] as const;

/** Every field as read (not the object's own keys). */
const read = (tl: RunFields): unknown[] => FIELDS.map((k) => tl[k]);

test('reads every field as the plain object, through every change a writer makes (property)', () => {
  fc.assert(
    fc.property(arbFields, fc.array(arbChange, { maxLength: 8 }), (fields, changes) => {
      const plain: RunFields = { ...fields, transitions: fields.transitions.slice() };
      const run = new RunTimeline({ ...fields, transitions: fields.transitions.slice() });
      expect(read(run)).toEqual(read(plain));
      for (const [field, value] of changes) {
        (plain as unknown as Record<string, unknown>)[field] = value;
        (run as unknown as Record<string, unknown>)[field] = value;
        expect(read(run)).toEqual(read(plain));
      }
      // Every field as a plain object's own, with its transitions; the label set the very object.
      expect(timelineFields(run)).toEqual(plain);
      expect(timelineFields(run).labels).toBe(plain.labels);
      expect(JSON.stringify(timelineAsRead(run))).toBe(JSON.stringify(timelineAsRead(timelineFields(run))));
    }),
    { numRuns: 500 },
  );
});

test('its creation time is its first transition’s unless given another, sealed into the arena and out of it again', () => {
  const transitions: Transition[] = [
    { at: T0, state: 'provisioning' },
    { at: T0 + 1000, state: 'up' },
    { at: T0 + 2000, state: 'completed' },
  ];
  const fields = { uid: 'u', namespace: 'ns', name: 'n', labels: {}, accelerator: null, topology: null };
  const same = new RunTimeline({ ...fields, createdAt: T0, transitions: transitions.slice() });
  const apart = new RunTimeline({ ...fields, createdAt: T0 - 7, transitions: transitions.slice() });
  // A store's run given its identity before its transitions.
  const first = new RunTimeline({ ...fields, createdAt: T0, transitions: [] });
  expect(first.createdAt).toBe(T0);
  (first.transitions as Transition[]).push(...transitions);
  for (const tl of [same, apart, first]) {
    const createdAt = tl.createdAt;
    sealClosed(tl);
    expect(typeof tl.transitions).toBe('number');
    expect(tl.createdAt).toBe(createdAt);
    unsealClosed(tl);
    expect(tl.createdAt).toBe(createdAt);
    expect(transitionsOf(tl)).toEqual(transitions);
  }
  expect([same.createdAt, apart.createdAt, first.createdAt]).toEqual([T0, T0 - 7, T0]);
  // Given its first transition's time after all: read from there again.
  apart.createdAt = T0;
  expect(apart.createdAt).toBe(T0);
});

test('a spread copies only what a run does not share; timelineFields copies every field', () => {
  const run = new RunTimeline({ uid: 'u', namespace: 'ns', name: 'n', labels: { team: 'a' }, accelerator: 'tpu', topology: null, accelerators: 8, pods: 2, checkpointIntervalMs: null, createdAt: T0, transitions: [{ at: T0, state: 'provisioning' }] });
  expect(Object.keys({ ...run }).sort()).toEqual(['transitions']);
  expect(Object.keys(timelineFields(run)).sort()).toEqual(['accelerator', 'accelerators', 'checkpointIntervalMs', 'createdAt', 'labels', 'name', 'namespace', 'pods', 'topology', 'transitions', 'uid']);
  run.cluster = 'east';
  expect(timelineFields(run).cluster).toBe('east');
});

test('sealed into the arena, a canonical UID is held there as words and reads back byte for byte; any other stays a string; out of the arena, a string again', () => {
  const transitions: Transition[] = [
    { at: T0, state: 'provisioning' },
    { at: T0 + 1000, state: 'completed' },
  ];
  fc.assert(
    fc.property(fc.oneof(arbCanonicalUid, arbOtherUid), fc.boolean(), (uid, readSealed) => {
      const fields = { uid, namespace: 'ns', name: 'n', labels: {}, accelerator: null, topology: null, createdAt: T0 };
      const run = new RunTimeline({ ...fields, transitions: transitions.slice() });
      const canonical = encodeUid(uid, new Uint32Array(UID_WORDS));
      expect(run.uidRecord).toBe(-1);
      sealClosed(run);
      const record = run.transitions as unknown as number;
      expect(run.uidRecord).toBe(canonical ? record : -1);
      expect(run.uid).toBe(uid);
      expect(timelineFields(run).uid).toBe(uid);
      // Its record let go and taken by another run: it reads its own UID still.
      unsealClosed(run);
      const other = new RunTimeline({ ...fields, uid: '00000000-0000-0000-0000-000000000000', transitions: transitions.slice() });
      sealClosed(other);
      expect(run.uidRecord).toBe(-1);
      expect(run.uid).toBe(uid);
      expect(other.uid).toBe('00000000-0000-0000-0000-000000000000');
      unsealClosed(other);
      // Made on a record already (a snapshot's closed run, read into the arena): held there at once.
      if (readSealed) {
        const read = new RunTimeline({ ...fields, transitions: intoArena(pack(transitions.slice())) });
        expect(read.uidRecord >= 0).toBe(canonical);
        expect(read.uid).toBe(uid);
        unsealClosed(read);
        expect(read.uid).toBe(uid);
      }
    }),
    { numRuns: 1000 },
  );
});

test('a run whose arena record was let go without unsealing it says so when its UID is read, not another run’s', () => {
  const run = new RunTimeline({ uid: '2c5ea4c0-4067-11e9-8bad-9b1deb4d3b7d', namespace: 'ns', name: 'n', labels: {}, accelerator: null, topology: null, createdAt: T0, transitions: [{ at: T0, state: 'completed' }] });
  sealClosed(run);
  runArena.release(run.transitions as unknown as number);
  expect(() => run.uid).toThrow(/no longer has/);
});

test('sealed into the arena and out again, it reads as the plain object through every change, its UID and name too (property)', () => {
  const closed: Transition[] = [
    { at: T0, state: 'provisioning' },
    { at: T0 + 1000, state: 'completed' },
  ];
  const arbWrite = fc.oneof(arbChange, fc.tuple(fc.constant('uid' as const), fc.oneof(arbCanonicalUid, arbOtherUid)));
  fc.assert(
    fc.property(arbFields, fc.oneof(arbCanonicalUid, arbOtherUid), fc.array(arbWrite, { maxLength: 6 }), fc.array(arbWrite, { maxLength: 6 }), (f, uid, sealed, after) => {
      const fields: RunFields = { ...f, uid, createdAt: f.createdAt === T0 - 5_000 ? T0 - 5_000 : T0, transitions: closed.slice() };
      const plain: RunFields = { ...fields, transitions: closed.slice() };
      const run = new RunTimeline(fields);
      sealClosed(run);
      expect(typeof run.transitions).toBe('number');
      const write = ([field, value]: readonly [string, unknown]): void => {
        (plain as unknown as Record<string, unknown>)[field] = value;
        (run as unknown as Record<string, unknown>)[field] = value;
        expect(read(run)).toEqual(read(plain));
      };
      expect(read(run)).toEqual(read(plain));
      sealed.forEach(write);
      expect(run.uidRecord >= 0).toBe(encodeUid(plain.uid, new Uint32Array(UID_WORDS)));
      unsealClosed(run);
      expect(read(run)).toEqual(read(plain));
      after.forEach(write);
      expect(timelineFields(run)).toEqual({ ...plain, transitions: run.transitions });
    }),
    { numRuns: 1000 },
  );
});
