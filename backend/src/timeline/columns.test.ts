// A closed timeline held packed (columns.ts, types.ts packClosed): read through the read functions,
// every transition comes back exactly, extras and all, and writers that give a transition extras
// after it was packed (a cause, a suspension's reason, unobserved events) are kept.

import fc from 'fast-check';
import { codeAt, columnsOf, isPacked, STATE_CODE, startOf, UNOBSERVED_BIT } from './columns.ts';
import { internSuspension } from './intern.ts';
import type { State } from './types.ts';
import {
  closedAt,
  heldTransition,
  lastAt,
  lastState,
  openTransitions,
  packClosed,
  sealClosed,
  setCauses,
  setLastUnobserved,
  timelineColumns,
  transitionAt,
  transitionCount,
  transitionsOf,
  transitionState,
  transitionTime,
  unobservedAt,
  unsealClosed,
  type Cause,
  type Timeline,
  type Transition,
} from './types.ts';

const T0 = Date.UTC(2026, 10, 26);

const transitions = (): Transition[] => [
  { at: T0, state: 'suspended', suspension: { reason: 'Preempted', message: null } },
  { at: T0 + 60_000, state: 'provisioning' },
  { at: T0 + 120_000, state: 'up' },
  { at: T0 + 120_000, state: 'down', causes: [{ kind: 'JobSetRestart', at: T0 + 120_000, restarts: 1, reason: 'FailurePolicyRestart' }] },
  { at: T0 + 180_001, state: 'unknown' },
  { at: T0 + 240_000, state: 'up', unobserved: { interruptions: 1, recoveries: 1 } },
  {
    at: T0 + 300_000,
    state: 'failed',
    causes: [
      { kind: 'PodFailed', at: T0 + 298_000, pod: 'p', reason: 'OOMKilled', exitCode: 137 },
      { kind: 'JobSetFailed', at: T0 + 299_000, reason: 'FailedJobs' },
    ],
  },
];

const timeline = (list: Transition[]): Timeline => ({ uid: 'u', namespace: 'ns', name: 'n', labels: {}, accelerator: null, topology: null, createdAt: list[0]!.at, transitions: list });

test('a closed timeline is packed and reads back exactly: times, states, and those with extras whole', () => {
  const list = transitions();
  const tl = timeline(list.slice());
  const columnsBefore = timelineColumns(tl);
  packClosed(tl);
  expect(isPacked(tl.transitions)).toBe(true);
  // The cached columns are the packed form (their kept whole-life totals stay).
  expect(timelineColumns(tl)).toBe(columnsBefore);
  expect(transitionCount(tl)).toBe(list.length);
  expect(list.map((_, i) => [transitionTime(tl, i), transitionState(tl, i)])).toEqual(list.map((t) => [t.at, t.state]));
  expect(transitionAt(tl, 0)).toEqual(list[0]);
  expect(transitionAt(tl, 3)).toEqual(list[3]);
  // The side table keeps only its causes (the columns hold its time and state): a restart's as a
  // number (made again equal, its keys in order), the others the very causes.
  expect(JSON.stringify(transitionAt(tl, 3))).toBe(JSON.stringify(list[3]));
  expect(transitionAt(tl, 6).causes).toBe(list[6]!.causes);
  expect(transitionAt(tl, 0).suspension).toBe(list[0]!.suspension);
  // A transition with unobserved events is kept whole (its writer holds it).
  expect(transitionAt(tl, 5)).toBe(list[5]);
  expect(transitionAt(tl, 1)).toEqual({ at: T0 + 60_000, state: 'provisioning' });
  expect(unobservedAt(tl, 5)).toEqual({ interruptions: 1, recoveries: 1 });
  expect(unobservedAt(tl, 4)).toBeUndefined();
  expect(transitionsOf(tl)).toEqual(list);
  expect([lastAt(tl), lastState(tl), closedAt(tl)]).toEqual([T0 + 300_000, 'failed', T0 + 300_000]);
  expect(() => openTransitions(tl)).toThrow('a closed timeline takes no transition');
});

test('an open timeline is not packed; every end state packs', () => {
  const open = timeline([{ at: T0, state: 'provisioning' }, { at: T0 + 1, state: 'up' }]);
  packClosed(open);
  expect(Array.isArray(open.transitions)).toBe(true);
  expect(closedAt(open)).toBe(Infinity);
  for (const end of ['completed', 'failed', 'deleted'] as const) {
    const list: Transition[] = [{ at: T0, state: 'up' }, { at: T0 + 1, state: end }];
    const tl = timeline(list.slice());
    packClosed(tl);
    expect(isPacked(tl.transitions)).toBe(true);
    expect(transitionsOf(tl)).toEqual(list);
  }
});

test('extras given after packing are kept: causes, and unobserved events on the last transition', () => {
  const list: Transition[] = [{ at: T0, state: 'provisioning' }, { at: T0 + 1, state: 'up' }, { at: T0 + 2, state: 'down' }, { at: T0 + 3, state: 'failed' }];
  const tl = timeline(list.slice());
  packClosed(tl);
  heldTransition(tl, 2)!.causes = [{ kind: 'NodeNotReady', at: T0 + 2, node: 'n1' }];
  setCauses(tl, 0, [{ kind: 'PodFailed', at: T0, pod: 'p' }]);
  expect(heldTransition(tl, 2)).toBe(heldTransition(tl, 2));
  expect(heldTransition(tl, 4)).toBeUndefined();
  const last = list[3]!;
  setLastUnobserved(tl, last, { interruptions: 1, recoveries: 0 });
  expect(transitionAt(tl, 3)).toBe(last);
  expect(unobservedAt(tl, 3)).toEqual({ interruptions: 1, recoveries: 0 });
  // The columns say so too (the sweeps read the unobserved bit).
  expect(codeAt(timelineColumns(tl), 3) & 8).toBe(8);
  expect(transitionsOf(tl)).toEqual([
    { at: T0, state: 'provisioning', causes: [{ kind: 'PodFailed', at: T0, pod: 'p' }] },
    { at: T0 + 1, state: 'up' },
    { at: T0 + 2, state: 'down', causes: [{ kind: 'NodeNotReady', at: T0 + 2, node: 'n1' }] },
    { at: T0 + 3, state: 'failed', unobserved: { interruptions: 1, recoveries: 0 } },
  ]);
});

test('the columns of a timeline as it grows, then packed: every time, code and the start, whatever the length', () => {
  // Codes are held eight to a number behind the times: lengths across those bounds, grown one
  // transition at a time and several at once, each state, with and without unobserved events.
  const states: State[] = ['suspended', 'provisioning', 'up', 'down', 'unknown'];
  let seed = 7;
  const next = (m: number): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % m;
  };
  for (let n = 1; n <= 40; n++) {
    const list: Transition[] = [];
    for (let i = 0; i < n; i++) {
      const t: Transition = { at: T0 + i * 1000 + next(3) * 2 ** 40, state: i === n - 1 && n % 3 === 0 ? 'failed' : states[next(states.length)]! };
      if (next(4) === 0) t.unobserved = { interruptions: 1, recoveries: 0 };
      list.push(t);
    }
    list.sort((a, b) => a.at - b.at);
    const open: Transition[] = [];
    const tl: Timeline = { ...timeline(list), transitions: open };
    const check = (): void => {
      const c = isPacked(tl.transitions) ? timelineColumns(tl) : columnsOf(open);
      expect(c.length).toBe(open.length);
      for (const [i, t] of open.entries()) {
        expect(c.times[i]).toBe(t.at);
        expect(codeAt(c, i)).toBe(STATE_CODE[t.state] | (t.unobserved === undefined ? 0 : UNOBSERVED_BIT));
      }
      const first = open.find((t) => STATE_CODE[t.state] <= STATE_CODE.down);
      expect(startOf(c)).toBe(first === undefined ? Infinity : first.at);
    };
    for (let i = 0; i < n; ) {
      const step = 1 + next(10);
      for (const t of list.slice(i, i + step)) open.push(t);
      i += step;
      check();
    }
    packClosed(tl);
    expect(isPacked(tl.transitions)).toBe(list[n - 1]!.state === 'failed');
    check();
    expect(transitionsOf(tl)).toEqual(list);
  }
});

test("a JobSet's restart cause is kept as a number and read back exactly; one that number cannot give back is kept as it is", () => {
  const restart = (at: number, restarts: number): Transition['causes'] => [{ kind: 'JobSetRestart', at, restarts, reason: 'FailurePolicyRestart' }];
  const list: Transition[] = [
    { at: T0, state: 'provisioning' },
    { at: T0 + 1000, state: 'up' },
    { at: T0 + 2000, state: 'down', causes: restart(T0 + 2000, 1) },
    { at: T0 + 3000, state: 'up' },
    // Seen 30 s before the transition it was given to (the node layer's window).
    { at: T0 + 40_000, state: 'down', causes: restart(T0 + 10_000, 1023) },
    { at: T0 + 50_000, state: 'up' },
    // Beyond what the number holds: the restart count, the offset; another key order; another reason.
    { at: T0 + 60_000, state: 'down', causes: restart(T0 + 60_000, 1024) },
    { at: T0 + 61_000, state: 'up' },
    { at: T0 + 10 ** 6, state: 'down', causes: restart(T0, 2) },
    { at: T0 + 10 ** 6 + 1, state: 'up' },
    { at: T0 + 10 ** 6 + 2, state: 'down', causes: [{ kind: 'JobSetRestart', at: T0 + 10 ** 6 + 2, reason: 'FailurePolicyRestart', restarts: 3 }] },
    { at: T0 + 10 ** 6 + 3, state: 'up' },
    { at: T0 + 10 ** 6 + 4, state: 'down', causes: [{ kind: 'JobSetRestart', at: T0 + 10 ** 6 + 4, restarts: 4, reason: 'Other' }] },
    { at: T0 + 10 ** 6 + 5, state: 'failed' },
  ];
  const tl = timeline(list.slice());
  packClosed(tl);
  const extras = timelineColumns(tl).extras!;
  const kept = new Map<number, unknown>();
  for (let k = 0; k < extras.length; k += 2) kept.set(extras[k] as number, extras[k + 1]);
  expect([...kept.keys()]).toEqual([2, 4, 6, 8, 10, 12]);
  expect([2, 4, 6, 8, 10, 12].map((i) => typeof kept.get(i))).toEqual(['number', 'number', 'object', 'object', 'object', 'object']);
  expect(JSON.stringify(transitionsOf(tl))).toBe(JSON.stringify(list));
});

test('restart causes packed read back exactly, whatever their count, offset and the transition they are given to (property)', () => {
  const cause = fc.record({
    offset: fc.oneof(fc.integer({ min: -(2 ** 18) - 2, max: 2 ** 18 + 2 }), fc.integer({ min: -(10 ** 9), max: 10 ** 9 }), fc.constant(0.5)),
    restarts: fc.oneof(fc.integer({ min: 0, max: 1030 }), fc.constant(2 ** 40), fc.constant(-1), fc.constant(1.5)),
  });
  fc.assert(
    fc.property(fc.array(fc.array(cause, { minLength: 1, maxLength: 2 }), { minLength: 1, maxLength: 12 }), fc.integer({ min: 0, max: 2 ** 42 }), (downs, start) => {
      const list: Transition[] = [{ at: start, state: 'provisioning' }];
      let at = start;
      for (const causes of downs) {
        list.push({ at: (at += 1000), state: 'up' });
        at += 1000;
        list.push({ at, state: 'down', causes: causes.map(({ offset, restarts }) => ({ kind: 'JobSetRestart', at: at + offset, restarts, reason: 'FailurePolicyRestart' })) });
      }
      list.push({ at: at + 1, state: 'completed' });
      const expected = JSON.stringify(list);
      const tl = timeline(list.slice());
      packClosed(tl);
      expect(JSON.stringify(transitionsOf(tl))).toBe(expected);
      for (let i = 0; i < list.length; i++) expect(JSON.stringify(transitionAt(tl, i))).toBe(JSON.stringify(list[i]));
    }),
    { numRuns: 500 },
  );
});

test('a side table of numbers alone is held behind the codes, no array of its own; a cause given later that is no number moves it back out', () => {
  const restart = (at: number, restarts: number): Transition => ({ at, state: 'down', causes: [{ kind: 'JobSetRestart', at, restarts, reason: 'FailurePolicyRestart' }] });
  const list: Transition[] = [{ at: T0, state: 'provisioning' }, { at: T0 + 1, state: 'up' }, restart(T0 + 2, 1), { at: T0 + 3, state: 'up' }, restart(T0 + 4, 2), { at: T0 + 5, state: 'failed' }];
  const tl = timeline(list.slice());
  packClosed(tl);
  const c = timelineColumns(tl);
  expect(c.extras).toBeNull();
  // Six times, one number of codes, then two (index, RestartCode) pairs.
  expect(c.times).toHaveLength(6 + 1 + 4);
  expect([c.times[7], c.times[9]]).toEqual([2, 4]);
  expect(JSON.stringify(transitionsOf(tl))).toBe(JSON.stringify(list));
  setCauses(tl, 5, [{ kind: 'JobSetFailed', at: T0 + 5, reason: 'FailedJobs' }]);
  expect(c.times).toHaveLength(7);
  expect(c.extras).toHaveLength(6);
  const failed = { ...list[5], causes: [{ kind: 'JobSetFailed', at: T0 + 5, reason: 'FailedJobs' }] };
  expect(JSON.stringify(transitionsOf(tl))).toBe(JSON.stringify([...list.slice(0, 5), failed]));
  // Given back a number again (a restart cause on another transition): still beside the object.
  setCauses(tl, 1, [{ kind: 'JobSetRestart', at: T0 + 1, restarts: 3, reason: 'FailurePolicyRestart' }]);
  expect(c.times).toHaveLength(7);
  expect(JSON.stringify(transitionAt(tl, 1))).toBe(JSON.stringify({ at: T0 + 1, state: 'up', causes: [{ kind: 'JobSetRestart', at: T0 + 1, restarts: 3, reason: 'FailurePolicyRestart' }] }));
  expect(JSON.stringify(transitionAt(tl, 5))).toBe(JSON.stringify(failed));
});

test('numbers held behind the codes leave every time and code as it was, whatever the length (property)', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 30 }), fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 6 }), (n, restartsAt) => {
      const list: Transition[] = [];
      for (let i = 0; i < n; i++) list.push({ at: T0 + i * 1000, state: i % 2 === 0 ? 'up' : 'down' });
      list.push({ at: T0 + n * 1000, state: 'completed' });
      for (const [k, i] of restartsAt.entries()) if (i < n && list[i]!.causes === undefined) list[i]!.causes = [{ kind: 'JobSetRestart', at: list[i]!.at, restarts: k, reason: 'FailurePolicyRestart' }];
      const expected = JSON.stringify(list);
      const tl = timeline(list.slice());
      packClosed(tl);
      const c = timelineColumns(tl);
      for (let i = 0; i <= n; i++) {
        expect(c.times[i]).toBe(list[i]!.at);
        expect(codeAt(c, i)).toBe(STATE_CODE[list[i]!.state]);
      }
      expect(JSON.stringify(transitionsOf(tl))).toBe(expected);
    }),
    { numRuns: 300 },
  );
});

test('shared suspensions are held as numbers behind the times, read back as the very objects; others as objects, exactly (property)', () => {
  const reason = fc.constantFrom(null, 'Preempted', 'SuspendedJobs', 'InactiveWorkload');
  const message = fc.constantFrom(null, 'evicted for a higher priority workload', 'x');
  // Each suspended transition's reason: shared (intern.ts, as the engine keeps them) or an object of its own; now and then a restart cause beside.
  const extra = fc.record({ shared: fc.boolean(), reason, message, restart: fc.integer({ min: -1, max: 5 }) });
  fc.assert(
    fc.property(fc.array(extra, { minLength: 1, maxLength: 8 }), fc.boolean(), (extras, arena) => {
      const list: Transition[] = [];
      let at = T0;
      for (const e of extras) {
        const s = { reason: e.reason, message: e.message };
        list.push({ at: (at += 1000), state: 'suspended', suspension: e.shared ? internSuspension(s) : s });
        list.push({ at: (at += 1000), state: 'up' });
        if (e.restart >= 0) list.push({ at: (at += 1000), state: 'down', causes: [{ kind: 'JobSetRestart', at, restarts: e.restart, reason: 'FailurePolicyRestart' }] });
      }
      list.push({ at: at + 1, state: 'completed' });
      const expected = JSON.stringify(list);
      const tl = timeline(list.slice());
      if (arena) sealClosed(tl);
      else packClosed(tl);
      expect(JSON.stringify(transitionsOf(tl))).toBe(expected);
      list.forEach((t, i) => {
        expect(JSON.stringify(transitionAt(tl, i))).toBe(JSON.stringify(t));
        if (t.suspension !== undefined && Object.isFrozen(t.suspension)) expect(transitionAt(tl, i).suspension).toBe(t.suspension);
      });
      // No array of objects when every suspension is shared (numbers: the suspensions' and the restarts').
      expect(timelineColumns(tl).extras === null).toBe(extras.every((e) => e.shared));
      // A cause given later to a suspension with a number, then the run out of the arena: still exact.
      setCauses(tl, 0, [{ kind: 'PodDisruption', at: T0, pod: 'p' }]);
      unsealClosed(tl);
      const after = [{ ...list[0]!, causes: [{ kind: 'PodDisruption', at: T0, pod: 'p' }] }, ...list.slice(1)];
      expect(JSON.stringify(transitionsOf(tl))).toBe(JSON.stringify(after));
    }),
    { numRuns: 300 },
  );
});

test("a failure's lone cause (kind, time, reason and message) is held as a number behind the times and read back exactly; near ones stay objects", () => {
  const failed = (cause: Record<string, unknown>): Transition[] => [
    { at: T0, state: 'provisioning' },
    { at: T0 + 1000, state: 'up' },
    { at: T0 + 2000, state: 'failed', causes: [cause as unknown as Cause] },
  ];
  const held = (list: Transition[]): { numbers: boolean; read: string } => {
    const tl = timeline(list.slice());
    packClosed(tl);
    return { numbers: timelineColumns(tl).extras === null, read: JSON.stringify(transitionsOf(tl)) };
  };
  const cases: [Record<string, unknown>, boolean][] = [
    [{ kind: 'JobSetFailed', at: T0 + 2000, reason: 'FailedJobs', message: 'jobset failed due to one or more job failures' }, true],
    [{ kind: 'JobSetFailed', at: T0 + 1500, reason: null, message: null }, true],
    // A time that the number cannot hold, a key more, fewer or in another order: as it is.
    [{ kind: 'JobSetFailed', at: T0 + 2000.5, reason: 'r', message: 'm' }, false],
    [{ kind: 'JobSetFailed', at: T0 + 2000 + 2 ** 19, reason: 'r', message: 'm' }, false],
    [{ kind: 'JobSetFailed', at: T0 + 2000, reason: 'r', message: 'm', node: 'n' }, false],
    [{ kind: 'JobSetFailed', at: T0 + 2000, reason: 'r' }, false],
    [{ kind: 'JobSetFailed', at: T0 + 2000, message: 'm', reason: 'r' }, false],
  ];
  for (const [cause, asNumber] of cases) {
    const list = failed(cause);
    expect(held(list)).toEqual({ numbers: asNumber, read: JSON.stringify(list) });
  }
});

test('lone causes of a kind, time, reason and message packed read back exactly, beside restarts and suspensions, whatever their offset (property)', () => {
  const text = fc.constantFrom<string | null>(null, 'FailedJobs', 'ReachedMaxRestarts', '', 'ü"\\', 'jobset failed due to one or more job failures');
  const cause = fc.record({
    kind: fc.constantFrom('JobSetFailed', 'JobSetRestart', 'PodFailed'),
    offset: fc.oneof(fc.integer({ min: -(2 ** 18) - 2, max: 2 ** 18 + 2 }), fc.integer({ min: -(10 ** 9), max: 10 ** 9 }), fc.constant(0.5)),
    reason: text,
    message: text,
  });
  const extra = fc.oneof(
    cause.map((c) => ({ cause: c })),
    fc.integer({ min: 0, max: 5 }).map((restarts) => ({ restarts })),
    fc.constant({ suspended: true }),
  );
  fc.assert(
    fc.property(fc.array(extra, { minLength: 1, maxLength: 8 }), fc.integer({ min: 0, max: 2 ** 42 }), (extras, start) => {
      const list: Transition[] = [{ at: start, state: 'provisioning' }];
      let at = start;
      for (const x of extras) {
        at += 1000;
        if ('suspended' in x) list.push({ at, state: 'suspended', suspension: internSuspension({ reason: 'Preempted', message: null }) });
        else if ('restarts' in x) list.push({ at, state: 'down', causes: [{ kind: 'JobSetRestart', at, restarts: x.restarts, reason: 'FailurePolicyRestart' }] });
        else list.push({ at, state: 'down', causes: [{ kind: x.cause.kind, at: at + x.cause.offset, reason: x.cause.reason, message: x.cause.message } as unknown as Cause] });
        list.push({ at: (at += 1000), state: 'up' });
      }
      list.push({ at: at + 1, state: 'failed' });
      const expected = JSON.stringify(list);
      const tl = timeline(list.slice());
      packClosed(tl);
      expect(JSON.stringify(transitionsOf(tl))).toBe(expected);
      for (let i = 0; i < list.length; i++) expect(JSON.stringify(transitionAt(tl, i))).toBe(JSON.stringify(list[i]));
      // Sealed into the arena and out again, alike.
      sealClosed(tl);
      expect(JSON.stringify(transitionsOf(tl))).toBe(expected);
      unsealClosed(tl);
      expect(JSON.stringify(transitionsOf(tl))).toBe(expected);
    }),
    { numRuns: 500 },
  );
});
