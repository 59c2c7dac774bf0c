// The engine's closed runs held as arena records (arena.ts, types.ts sealClosed) must read exactly
// as the same runs packed in columns of their own (packClosed): every transition, extras and all,
// every figure, before and after writers give them extras, and after records around them were
// released, placed again and compacted.

import fc from 'fast-check';
import { arbTimeline, T0, timelines } from '../../../test/support/arbitraries.ts';
import { cumulativeAt, FIELDS, sweptWindowTotals, windowTotals } from '../series/totals.ts';
import { min, Scenario } from '../../../test/support/scenario.ts';
import { RunArena, runArena } from './arena.ts';
import { isArenaRecord } from './columns.ts';
import { TimelineEngine } from './engine.ts';
import { heldTransition, isPackedTimeline, packClosed, sealClosed, setCauses, setLastUnobserved, timelineColumns, transitionsOf, unsealClosed, type Cause, type Timeline, type Transition } from './types.ts';
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
