// The engine's closed runs held as arena records (arena.ts, types.ts sealClosed) must read exactly
// as the same runs packed in columns of their own (packClosed): every transition, extras and all,
// every figure, before and after writers give them extras, and after records around them were
// released, placed again and compacted.

import fc from 'fast-check';
import { arbTimeline, T0, timelines } from '../../../test/support/arbitraries.ts';
import { cumulativeAt, FIELDS, sweptWindowTotals, windowTotals } from '../series/totals.ts';
import { min, Scenario } from '../../../test/support/scenario.ts';
import { MAX_EXTENT, RunArena, runArena } from './arena.ts';
import { codeWords, isArenaRecord, packColumns, STATE_CODE } from './columns.ts';
import { TimelineEngine } from './engine.ts';
import { heldTransition, isPackedTimeline, packClosed, sealClosed, setCauses, setLastUnobserved, timelineColumns, transitionsOf, transitionTime, unsealClosed, type Cause, type Timeline, type Transition } from './types.ts';
import { machineOf, settledMachine } from './machine.ts';

const restart = (at: number, restarts: number): Cause => ({ kind: 'JobSetRestart', at, restarts, reason: 'FailurePolicyRestart' });

/** A closed timeline with extras now and then: restart causes (kept as numbers), other causes, a suspension's reason. */
const arbClosed = fc
  .tuple(fc.oneof({ arbitrary: arbTimeline, weight: 4 }, { arbitrary: timelines(80, 66), weight: 1 }), fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 3 })), { maxLength: 5 }))
  .filter(([tl]) => ['completed', 'failed', 'deleted'].includes(tl.transitions[tl.transitions.length - 1]!.state))
  .map(([tl, extras]): Timeline => {
    const list = tl.transitions.map((t) => ({ ...t }));
    for (const [at, kind] of extras) {
      const t = list[at % list.length]!;
      if (kind === 0) t.causes = [restart(t.at, at % 7)];
      else if (kind === 1) t.causes = [{ kind: 'NodeNotReady', at: t.at - 5, node: `n${at}` }];
      else if (kind === 2 && t.state === 'suspended') t.suspension = { reason: 'Preempted', message: null };
      else t.causes = [restart(t.at, 1), restart(t.at + 1, 2)];
    }
    return { ...tl, transitions: list };
  });

/** A copy of `tl` with transitions of its own (each object copied: writers change them). */
const copy = (tl: Timeline): Timeline => ({ ...tl, transitions: transitionsOf(tl).map((t) => ({ ...t })) });

/** Everything the read functions say of a timeline, and its figures over some windows. */
function readAll(tl: Timeline, windows: readonly [number, number][]): string {
  const horizon = T0 + 10 ** 9;
  const figures = windows.map(([from, to]) => [Array.from(windowTotals(tl, horizon, from, to)), Array.from(sweptWindowTotals(tl, horizon, from, to))]);
  const times = Float64Array.from(windows.flat()).sort();
  const cumulative = new Float64Array(times.length * FIELDS);
  cumulativeAt(tl, horizon, times, cumulative);
  const c = timelineColumns(tl);
  return JSON.stringify({ transitions: transitionsOf(tl), figures, cumulative: Array.from(cumulative), start: c.startIndex, length: c.length });
}

const arbWindows = fc.array(fc.tuple(fc.integer({ min: -1000, max: 400_000_000 }), fc.integer({ min: 0, max: 400_000_000 })), { minLength: 1, maxLength: 4 });

describe('closed runs as arena records', () => {
  it('read exactly as columns of their own, before and after writers give them extras, and once unsealed (property)', () => {
    fc.assert(
      fc.property(arbClosed, arbWindows, fc.nat(), (tl, spans, pick) => {
        const windows = spans.map(([a, b]): [number, number] => [T0 + Math.min(a, b), T0 + Math.max(a, b)]);
        const plain = copy(tl);
        const sealed = copy(tl);
        const n = transitionsOf(plain).length;
        packClosed(plain);
        sealClosed(sealed);
        expect(isArenaRecord(sealed.transitions as never)).toBe(true);
        // Unobserved events given to the transition that closed it (as the engine does, before anyone reads).
        for (const t of [plain, sealed]) if (pick % 2 === 0) setLastUnobserved(t, heldTransition(t, n - 1)!, { interruptions: 1, recoveries: 2 });
        expect(readAll(sealed, windows)).toBe(readAll(plain, windows));
        // Twice: the first may keep whole-life totals, the second reads them.
        expect(readAll(sealed, windows)).toBe(readAll(plain, windows));
        // Writers after it was read: causes on one transition, a restart cause on another (no figure depends on them).
        for (const t of [plain, sealed]) {
          setCauses(t, pick % n, [{ kind: 'PodFailed', at: T0, pod: 'p' }]);
          heldTransition(t, (pick >> 3) % n)!.causes = [restart(T0 + 7, 3)];
        }
        expect(readAll(sealed, windows)).toBe(readAll(plain, windows));
        unsealClosed(sealed);
        expect(isPackedTimeline(sealed)).toBe(true);
        expect(isArenaRecord(sealed.transitions as never)).toBe(false);
        expect(readAll(sealed, windows)).toBe(readAll(plain, windows));
      }),
      { numRuns: 200 },
    );
  });

  it('keep reading exactly while records around them are released, placed again and compacted', () => {
    const sample = fc.sample(arbClosed, { numRuns: 1200, seed: 21 });
    const windows: [number, number][] = [
      [T0, T0 + 10 ** 8],
      [T0 + 5_000_000, T0 + 6_000_000],
    ];
    const expected = sample.map((tl) => {
      const plain = copy(tl);
      packClosed(plain);
      return readAll(plain, windows);
    });
    const original = expected.slice();
    const sealed = sample.map((tl) => {
      const s = copy(tl);
      sealClosed(s);
      return s;
    });
    const liveBefore = runArena.live;
    // Every other one released (enough garbage for a compaction), then some given extras (placed again).
    for (let i = 0; i < sealed.length; i += 2) unsealClosed(sealed[i]!);
    expect(runArena.live).toBe(liveBefore - sealed.length / 2);
    expect(runArena.garbage * 2).toBeLessThanOrEqual(runArena.used);
    for (let i = 1; i < sealed.length; i += 6) setCauses(sealed[i]!, 0, [restart(T0, 9)]);
    for (let i = 1; i < sealed.length; i += 6) {
      const plain = copy(sample[i]!);
      packClosed(plain);
      setCauses(plain, 0, [restart(T0, 9)]);
      expected[i] = readAll(plain, windows);
    }
    // New records reuse the released numbers, and do not disturb the others.
    const fresh = sample.slice(0, 100).map((tl) => {
      const s = copy(tl);
      sealClosed(s);
      return s;
    });
    for (const [i, tl] of sealed.entries()) expect(readAll(tl, windows)).toBe(expected[i]);
    for (const [i, tl] of fresh.entries()) expect(readAll(tl, windows)).toBe(original[i]);
    for (const tl of [...sealed, ...fresh]) unsealClosed(tl);
  });

  it('hold a closed run machine memory: restarts, ever up, the deletion', () => {
    const list: Transition[] = [
      { at: T0, state: 'provisioning' },
      { at: T0 + 1000, state: 'up' },
      { at: T0 + 2000, state: 'completed' },
    ];
    const tl: Timeline = { uid: 'u', namespace: 'ns', name: 'n', labels: {}, accelerator: null, topology: null, createdAt: T0, transitions: list };
    sealClosed(tl);
    const kept = settledMachine({ timeline: tl, everUp: true, restarts: 12, resourceVersion: null, deletedAt: T0 + 5000 });
    expect(kept).toBe(tl);
    const machine = machineOf(kept);
    expect([machine.everUp, machine.restarts, machine.deletedAt]).toEqual([true, 12, T0 + 5000]);
    // A deletion too far from the close for the record: the machine is kept as it is.
    expect(settledMachine({ timeline: tl, everUp: false, restarts: 1, resourceVersion: null, deletedAt: T0 + 2 ** 40 })).not.toBe(tl);
    unsealClosed(tl);
  });

  it("are released when the engine forgets a run, whose timeline still reads", () => {
    const engine = new TimelineEngine();
    const live = runArena.live;
    for (const o of new Scenario({ uid: 'a' }, min(0)).created().up(min(10)).at(min(20), { completedAt: min(20) }).observations) engine.observe(o);
    const tl = engine.timeline('a')!;
    expect(isArenaRecord(tl.transitions as never)).toBe(true);
    expect(runArena.live).toBe(live + 1);
    const before = JSON.stringify(transitionsOf(tl));
    engine.forget(['a']);
    expect(runArena.live).toBe(live);
    expect(isArenaRecord(tl.transitions as never)).toBe(false);
    expect(JSON.stringify(transitionsOf(tl))).toBe(before);
  });
});

/**
 * Whether a record holds these times exactly, by its rule said plainly: whole milliseconds, none −0,
 * each within [−2^31, 2^31) ms of the whole second at or before the first, that second ≥ 0 and < 2^32.
 */
function fitsByHand(times: readonly number[]): boolean {
  if (times.length === 0) return true;
  const origin = Math.floor(times[0]! / 1000) * 1000;
  if (origin < 0 || origin / 1000 >= 2 ** 32) return false;
  return times.every((t) => Number.isInteger(t) && !Object.is(t, -0) && t - origin >= -(2 ** 31) && t - origin < 2 ** 31);
}

/** `tl` with every time (its transitions' and their causes') moved by `f`. */
function retimed(tl: Timeline, f: (t: number) => number): Timeline {
  return {
    ...tl,
    createdAt: f(tl.createdAt),
    transitions: transitionsOf(tl).map((t) => ({ ...t, at: f(t.at), ...(t.causes === undefined ? {} : { causes: t.causes.map((c) => ({ ...c, at: f(c.at) })) }) })),
  };
}

/** A reader's laid-out columns (packColumns' `at`): the times, then their codes eight to a number. */
function laidOut(list: readonly Transition[]): number[] {
  const at = list.map((t) => t.at);
  const words = new Array<number>(codeWords(list.length)).fill(0);
  list.forEach((t, i) => (words[i >> 3] = (words[i >> 3]! | (STATE_CODE[t.state] << ((i & 7) << 2))) >>> 0));
  return [...at, ...words];
}

describe("a record's times as 4-byte offsets from its origin", () => {
  // Epochs of every kind: today's, one on a whole second, one a millisecond before it, near 0 and near the last origin (2^32 − 1 s).
  const arbRetime = fc.record({
    epoch: fc.oneof(fc.constantFrom(T0, T0 + 999, T0 + 1000, 0, 1, (2 ** 32 - 1) * 1000, (2 ** 32 - 1) * 1000 + 999, 2 ** 32 * 1000), fc.integer({ min: 0, max: 2 ** 42 })),
    // Stretched: a span of a few days as they are, or far beyond the ~24.8 days a record holds.
    stretch: fc.constantFrom(1, 3, 7, 40, 1000),
    // A fraction of a millisecond on one transition, or −0 as a time, now and then.
    odd: fc.option(fc.tuple(fc.nat(), fc.constantFrom(0.5, 0.25, -0)), { freq: 3 }),
  });

  it('read exactly as columns of their own; the runs a record cannot hold exactly stay columns of their own (property)', () => {
    fc.assert(
      fc.property(arbClosed, arbRetime, arbWindows, ({ ...tl }, { epoch, stretch, odd }, spans) => {
        let moved = retimed(tl, (t) => epoch + (t - T0) * stretch);
        if (odd !== null) {
          const list = transitionsOf(moved).map((t) => ({ ...t }));
          const t = list[odd[0] % list.length]!;
          t.at = Object.is(odd[1], -0) ? -0 : t.at + odd[1];
          moved = { ...moved, transitions: list };
        }
        const times = transitionsOf(moved).map((t) => t.at);
        const first = times[0]!;
        const windows = spans.map(([a, b]): [number, number] => [first + Math.min(a, b) * stretch, first + Math.max(a, b) * stretch]);
        const plain = copy(moved);
        const sealed = copy(moved);
        packClosed(plain);
        sealClosed(sealed);
        expect(isArenaRecord(sealed.transitions as never)).toBe(fitsByHand(times));
        expect(readAll(sealed, windows)).toBe(readAll(plain, windows));
        // Every time the very number (−0 too, which JSON does not show).
        times.forEach((t, i) => expect(Object.is(transitionTime(sealed, i), t)).toBe(true));
        // As a store's reader places them (packColumns, from laid-out columns and a side table).
        const list = transitionsOf(moved);
        const extras: (number | Transition)[] = [];
        list.forEach((t, i) => (t.causes !== undefined || t.suspension !== undefined || t.unobserved !== undefined) && extras.push(i, t));
        const read: Timeline = { ...moved, transitions: packColumns(laidOut(list), list.length, extras.length > 0 ? extras : null) as never };
        expect(isArenaRecord(read.transitions as never)).toBe(fitsByHand(times));
        expect(readAll(read, windows)).toBe(readAll(plain, windows));
        times.forEach((t, i) => expect(Object.is(transitionTime(read, i), t)).toBe(true));
        unsealClosed(sealed);
        unsealClosed(read);
        expect(readAll(sealed, windows)).toBe(readAll(plain, windows));
      }),
      { numRuns: 300 },
    );
  });

  it('holds a run up to 2^31 − 1 ms from its origin, and not one ms more', () => {
    const origin = T0 + 7000;
    const run = (first: number, last: number): Timeline => ({
      uid: 'u',
      namespace: 'ns',
      name: 'n',
      labels: {},
      accelerator: null,
      topology: null,
      createdAt: first,
      transitions: [
        { at: first, state: 'provisioning' },
        { at: first + 1, state: 'up' },
        { at: last, state: 'completed' },
      ],
    });
    // Its origin is the whole second at or before its first time: 123 ms before it here.
    const held = run(origin + 123, origin + 2 ** 31 - 1);
    const over = run(origin + 123, origin + 2 ** 31);
    sealClosed(held);
    sealClosed(over);
    expect(isArenaRecord(held.transitions as never)).toBe(true);
    expect(isArenaRecord(over.transitions as never)).toBe(false);
    expect([0, 1, 2].map((i) => transitionTime(held, i))).toEqual([origin + 123, origin + 124, origin + 2 ** 31 - 1]);
    expect([0, 1, 2].map((i) => transitionTime(over, i))).toEqual([origin + 123, origin + 124, origin + 2 ** 31]);
    expect(held.createdAt).toBe(origin + 123);
    unsealClosed(held);
    unsealClosed(over);
  });

  it(`holds a run of up to ${MAX_EXTENT} slots (its count, extent and start 16 bits each); a longer one keeps columns of its own`, () => {
    const run = (n: number, startAt: number): Timeline => {
      const transitions: Transition[] = Array.from({ length: n }, (_, i) => ({ at: T0 + i * 1000, state: i === n - 1 ? 'completed' : i < startAt ? 'suspended' : i % 2 === 0 ? 'up' : 'down' }));
      return { uid: `u${n}`, namespace: 'ns', name: 'n', labels: {}, accelerator: null, topology: null, createdAt: T0, transitions };
    };
    const windows: [number, number][] = [[T0, T0 + 10 ** 8]];
    for (const [n, startAt, record] of [[MAX_EXTENT, MAX_EXTENT - 2, true], [MAX_EXTENT + 1, 3, false], [5, 5, true]] as const) {
      const plain = copy(run(n, startAt));
      const sealed = copy(run(n, startAt));
      packClosed(plain);
      sealClosed(sealed);
      expect(isArenaRecord(sealed.transitions as never)).toBe(record);
      expect(timelineColumns(sealed).startIndex).toBe(timelineColumns(plain).startIndex);
      expect(readAll(sealed, windows)).toBe(readAll(plain, windows));
      // Restart causes given later: behind the times of the short record, in the arena's map for the longest (behind its times they would pass the bound).
      if (record) {
        for (const i of [0, 1, 2]) for (const tl of [plain, sealed]) setCauses(tl, i, [restart(T0 + i * 1000, 1)]);
        expect(runArena.extras.has(sealed.transitions as unknown as number)).toBe(n === MAX_EXTENT);
        expect(readAll(sealed, windows)).toBe(readAll(plain, windows));
      }
      unsealClosed(sealed);
    }
  });

  it('takes 4 bytes a slot: a record of 6 times uses 24 bytes of times, not 48', () => {
    const arena = new RunArena();
    expect(arena.times.BYTES_PER_ELEMENT).toBe(4);
    const r = arena.allocate(6);
    arena.count[r] = 6;
    const times = [T0 + 999, T0 + 60_000, T0 + 3_600_123, T0 + 86_400_000, T0 + 20 * 86_400_000, T0 + 24 * 86_400_000];
    arena.setTimes(r, times, 0, 6);
    expect(arena.originOf(r)).toBe(T0);
    expect(times.map((_, i) => arena.times[arena.base[r]! + i]! + arena.originOf(r))).toEqual(times);
  });
});

test('an arena grows and compacts without losing a record', () => {
  const arena = new RunArena();
  const records: number[] = [];
  for (let k = 0; k < 5000; k++) {
    const r = arena.allocate(3);
    arena.count[r] = 3;
    for (let i = 0; i < 3; i++) {
      arena.times[arena.base[r]! + i] = k * 10 + i;
      arena.codes[arena.base[r]! + i] = (k + i) % 8;
    }
    records.push(r);
  }
  for (let k = 0; k < 5000; k += 3) arena.release(records[k]!);
  for (let k = 1; k < 5000; k += 7) arena.move(records[k]!, 5, 3);
  arena.compact();
  expect(arena.garbage).toBe(0);
  for (let k = 0; k < 5000; k++) {
    if (k % 3 === 0) continue;
    const r = records[k]!;
    for (let i = 0; i < 3; i++) {
      expect(arena.times[arena.base[r]! + i]).toBe(k * 10 + i);
      expect(arena.codes[arena.base[r]! + i]).toBe((k + i) % 8);
    }
  }
  expect(() => arena.release(records[0]!)).toThrow('not live');
});
