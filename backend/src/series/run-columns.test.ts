// A list's run columns are kept while the list lives, and the columns of an owner's latest list
// (the engine's) while the owner lives, so its next list takes their rows over. A list with no owner
// (the node layer's, made again on demand and held weakly) must not be kept alive by its columns,
// nor evict the owner's: one module-wide "latest" once kept a replayed fleet's whole node layer.

import fc from 'fast-check';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { timelines as arbTimelines } from '../../../test/support/arbitraries.ts';
import type { State } from '../timeline/types.ts';
import { closedRun, T0 } from '../../../test/support/closed-run.ts';
import { byNamespaceNameUid, markSorted } from '../timeline/order.ts';
import { lastAt, packClosed, transitionsOf, type Timeline } from '../timeline/types.ts';
import { CLOSED_FROM, codeAt, timeAt, timelineColumns, timeToFirstUpFrom } from './columns.ts';
import { holdsLife, isClosedRow, LONG_LIFE, OPEN, rowEnd, rowLifeInto, rowTimeToFirstUp, runColumns, SLO_LIFE, SLO_LIFE_PARTS, sloLifeAt } from './run-columns.ts';
import { FIELDS, windowTotals } from './totals.ts';
import { ACCELERATOR_UP, PROVISIONING, UP } from './totals-layout.ts';

// The test runner has no --expose-gc: V8's gc is reached through its flag, as the service does.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as (options?: { type: 'major'; execution: 'sync' }) => void;

/** Whether what `ref` points to is gone after the current job ends and two full collections run. */
async function collected(ref: WeakRef<object>): Promise<boolean> {
  // A WeakRef's target is kept until the job that made or read it ends.
  await new Promise((resolve) => setImmediate(resolve));
  gc({ type: 'major', execution: 'sync' });
  gc({ type: 'major', execution: 'sync' });
  return ref.deref() === undefined;
}

/**
 * A closed row's SLO numbers (sloLifeAt's answer `o`) are the sums of its life's parts, `whole`
 * as the timeline gives it, in 4 bytes each; kept apart (-1) only when 4 bytes cannot hold one.
 */
function expectSloLife(rc: ReturnType<typeof runColumns>, i: number, o: number, whole: ArrayLike<number>): 'narrow' | 'apart' {
  const parts = SLO_LIFE_PARTS.map((fields) => fields.reduce<number>((sum, f) => sum + whole[f]!, 0));
  if (o >= 0) {
    expect(o).toBe(i * SLO_LIFE);
    expect(Array.from(rc.sloLives.values!.subarray(o, o + SLO_LIFE))).toEqual(parts);
  } else {
    expect(o).toBe(-1);
    expect(parts.some((v) => !Number.isInteger(v) || v < 0 || v >= 0xffff_fffe)).toBe(true);
  }
  // Asked again: the same place (kept, not worked out again).
  expect(sloLifeAt(rc, i)).toBe(o);
  return o >= 0 ? 'narrow' : 'apart';
}

describe('runColumns', () => {
  it('fills a row per closed run of the list, in its order', () => {
    const list = markSorted([closedRun(0), closedRun(1)]);
    const rc = runColumns(list);
    expect(Array.from(rc.created)).toEqual([T0, T0 + 1]);
    expect([rowEnd(rc, 0), rowEnd(rc, 1)]).toEqual([T0 + 11_000, T0 + 11_001]);
    expect([rowTimeToFirstUp(rc, 0), rowTimeToFirstUp(rc, 1)]).toEqual([1, 1]);
    expect(rc.state[0]).not.toBe(OPEN);
    expect(runColumns(list)).toBe(rc);
  });

  it('keeps no list without an owner alive (the node layer is made again on demand)', async () => {
    const made = (): WeakRef<object> => {
      const list = markSorted(Array.from({ length: 50 }, (_, i) => closedRun(i)));
      runColumns(list);
      return new WeakRef(list);
    };
    expect(await collected(made())).toBe(true);
  });

  it("keeps an owner's latest list for its next one, whatever other lists come between", async () => {
    const engine = {};
    const runs = Array.from({ length: 50 }, (_, i) => closedRun(i));
    const first = ((): WeakRef<object> => {
      const list = markSorted(runs.slice(0, 40), engine);
      runColumns(list);
      return new WeakRef(list);
    })();
    // A list of another kind in between (a node layer's), then dropped.
    const other = ((): WeakRef<object> => {
      const list = markSorted(runs.slice(10, 50));
      runColumns(list);
      return new WeakRef(list);
    })();
    expect(await collected(other)).toBe(true);
    // The engine's latest list is still there for its next list to take its rows over.
    expect(await collected(first)).toBe(false);
    const next = markSorted(runs, engine);
    const rc = runColumns(next);
    expect(runs.map((_, i) => rowEnd(rc, i))).toEqual(runs.map((_, i) => T0 + i + 11_000));
    // Its own latest is now the next list: the first one goes.
    expect(await collected(first)).toBe(true);
  });

  it("keeps a closed run's end as its life's length in 4 bytes, and any end that length cannot give back exactly apart, in this list and the next", () => {
    /** A closed run created at `created`, up 1 ms later, completed at `end`. */
    const run = (i: number, created: number, end: number): Timeline => {
      const tl: Timeline = {
        ...closedRun(i),
        createdAt: created,
        transitions: [
          { at: created, state: 'provisioning' },
          { at: created + 1, state: 'up' },
          { at: end, state: 'completed' },
        ],
      };
      packClosed(tl);
      return tl;
    };
    const lives: [created: number, end: number][] = [
      [T0, T0 + 11_000],
      // The longest life 4 bytes hold (49.7 days less 2 ms), and the first that they do not.
      [T0, T0 + LONG_LIFE - 1],
      [T0, T0 + LONG_LIFE],
      [T0, T0 + 90 * 86_400_000],
      // Times with a fraction of a millisecond; an end at -0, which created + life gives back as 0.
      [T0 + 0.25, T0 + 1_000.5],
      [-5, -0],
    ];
    const runs = lives.map(([created, end], i) => run(i, created, end));
    const engine = {};
    const rc = runColumns(markSorted(runs.slice(0, 4), engine));
    expect(runs.slice(0, 4).map((_, i) => rowEnd(rc, i))).toEqual(runs.slice(0, 4).map(lastAt));
    expect(Array.from(rc.life)).toEqual([11_000, LONG_LIFE - 1, LONG_LIFE, LONG_LIFE]);
    expect(rc.longEnds.size).toBe(2);
    // The next list takes the rows over, long ends too.
    const next = runColumns(markSorted([...runs.slice(1), runs[0]!].sort(byNamespaceNameUid), engine));
    expect(next.list.map((_, i) => rowEnd(next, i))).toEqual(next.list.map(lastAt));
    expect(next.longEnds.size).toBe(4);
    // A window that ends a millisecond before the end does not hold the life; one that ends at it does.
    for (let i = 0; i < next.list.length; i++) {
      const tl = next.list[i]!;
      expect(holdsLife(next, i, tl.createdAt - 1, lastAt(tl) - 1)).toBe(false);
      expect(holdsLife(next, i, tl.createdAt - 1, lastAt(tl))).toBe(true);
    }
  });

  it('works a closed run\'s life out when first read, into a store no longer than the closed rows, and hands it to the next list', () => {
    // Lists of up to 150 runs (past the store's first 64 slots), their lives read in any order, some twice.
    const arbList = fc.array(arbTimelines(8), { minLength: 1, maxLength: 150 }).map((tls) =>
      tls.map((tl, i): Timeline => ({ ...tl, uid: `u${String(i).padStart(3, '0')}`, name: `js${i % 7}`, namespace: `ns${i % 3}`, transitions: transitionsOf(tl).slice() })).sort(byNamespaceNameUid),
    );
    fc.assert(
      fc.property(arbList, fc.array(fc.nat(), { maxLength: 300 }), fc.array(fc.nat(), { maxLength: 300 }), (runs, reads, nextReads) => {
        const engine = {};
        const check = (list: readonly Timeline[], order: readonly number[]): void => {
          const rc = runColumns(list);
          const out = new Float64Array(FIELDS);
          for (const k of order) {
            const i = k % list.length;
            const tl = list[i]!;
            // A closed row whose life a window from its creation to its end holds: its totals are that window's, as the timeline gives them.
            if (!holdsLife(rc, i, rc.created[i]!, rowEnd(rc, i))) continue;
            expect(rowEnd(rc, i)).toBe(lastAt(tl));
            rowLifeInto(rc, i, out, 0);
            expect(Array.from(out)).toEqual(Array.from(windowTotals(tl, rowEnd(rc, i), rc.created[i]!, rowEnd(rc, i))));
            expect(rowTimeToFirstUp(rc, i)).toBe(timeToFirstUpFrom(timelineColumns(tl), Infinity));
          }
          let closed = 0;
          for (let i = 0; i < list.length; i++) if (rc.state[i] !== OPEN) closed++;
          // Only the lives read are worked out (or taken over), and the store holds no more than the closed rows.
          expect(rc.lives.count).toBeLessThanOrEqual(closed);
          expect(rc.lives.slots).toBeLessThanOrEqual(closed);
        };
        const first = markSorted(runs.filter((_, i) => i % 5 !== 4), engine);
        if (first.length > 0) {
          check(first, reads);
          expect(runColumns(first).lives.count).toBeLessThanOrEqual(new Set(reads.map((k) => k % first.length)).size);
        }
        // The engine's next list: a run dropped, the held-back ones added; the lives read before are taken over, the rest worked out.
        const next = markSorted(runs.filter((_, i) => i !== 0), engine);
        if (next.length > 0) check(next, [...reads, ...nextReads]);
      }),
      { numRuns: 300 },
    );
  });
  it('keeps a life and its SLO numbers in 4 bytes a number where they give them back, and apart where they do not (any timelines)', () => {
    /** Ways a life leaves 4 bytes: a fraction of a millisecond, a life of 49.7 days or more, a fractional accelerator count or checkpoint interval. */
    const twists = ['none', 'fraction', 'long', 'accelerators', 'checkpoint'] as const;
    const twisted = (tl: Timeline, twist: (typeof twists)[number], i: number): Timeline => {
      const at = (t: number): number => (twist === 'fraction' ? t + 0.25 : twist === 'long' ? tl.createdAt + (t - tl.createdAt) * 1_000 : t);
      return {
        ...tl,
        uid: `u${String(i).padStart(3, '0')}`,
        name: `js${i}`,
        createdAt: at(tl.createdAt),
        transitions: transitionsOf(tl).map((t) => ({ ...t, at: at(t.at) })),
        accelerators: twist === 'accelerators' ? 2.5 : tl.accelerators,
        checkpointIntervalMs: twist === 'checkpoint' ? 1_000.5 : tl.checkpointIntervalMs,
      };
    };
    const seen = { narrow: 0, apart: 0 };
    fc.assert(
      fc.property(fc.array(fc.tuple(arbTimelines(8), fc.constantFrom(...twists)), { minLength: 1, maxLength: 40 }), (drawn) => {
        const runs = drawn.map(([tl, twist], i) => twisted(tl, twist, i)).sort(byNamespaceNameUid);
        const engine = {};
        const check = (list: readonly Timeline[]): void => {
          const rc = runColumns(list);
          const out = new Float64Array(FIELDS);
          for (let i = 0; i < list.length; i++) {
            const tl = list[i]!;
            if (!holdsLife(rc, i, rc.created[i]!, rowEnd(rc, i))) continue;
            const whole = windowTotals(tl, rowEnd(rc, i), rc.created[i]!, rowEnd(rc, i));
            // The SLO numbers read before the life is worked out (from the timeline) on even rows, after it (from the life) on odd ones.
            const slo = i % 2 === 0 ? sloLifeAt(rc, i) : -2;
            rowLifeInto(rc, i, out, 0);
            expect(Array.from(out)).toEqual(Array.from(whole));
            expect(rowTimeToFirstUp(rc, i)).toBe(timeToFirstUpFrom(timelineColumns(tl), Infinity));
            seen[expectSloLife(rc, i, slo === -2 ? sloLifeAt(rc, i) : slo, whole)]++;
          }
          // 4 bytes a number; only the lives they cannot hold are kept whole, apart.
          expect(rc.lives.values.BYTES_PER_ELEMENT).toBe(4);
          expect(rc.lives.wide.size).toBeLessThanOrEqual(rc.lives.count);
        };
        check(markSorted(runs, engine));
        // The engine's next list (the first run dropped) takes the lives over, the whole ones too.
        check(markSorted(runs.slice(1), engine));
      }),
      { numRuns: 300 },
    );
    // Both ways of keeping a row's SLO numbers were taken.
    expect(seen.narrow).toBeGreaterThan(0);
    expect(seen.apart).toBeGreaterThan(0);
    // Lives with and without a twist: the plain one narrow, the others whole.
    const plain = closedRun(0);
    // Times with a fraction of a millisecond still give whole totals: narrow. Half accelerators: whole.
    const fraction = { ...closedRun(1), createdAt: T0 + 1.5, transitions: [{ at: T0 + 1.5, state: 'provisioning' as const }, { at: T0 + 1_001.5, state: 'up' as const }, { at: T0 + 11_001.5, state: 'completed' as const }] };
    const half = { ...closedRun(2), accelerators: 2.5 };
    const rc = runColumns(markSorted([plain, fraction, half]));
    expect([0, 1, 2].map((i) => rowTimeToFirstUp(rc, i))).toEqual([1, 1, 1]);
    expect(rc.lives.count).toBe(3);
    expect(rc.lives.wide.size).toBe(1);
    const out = new Float64Array(FIELDS);
    rowLifeInto(rc, 2, out, 0);
    // Up 10 s, provisioning 1 s, accelerator time up 2.5 × 10 s (hand-computed).
    expect([out[UP], out[PROVISIONING], out[ACCELERATOR_UP]]).toEqual([10_000, 1_000, 25_000]);
    rowLifeInto(rc, 1, out, 0);
    expect([out[UP], out[PROVISIONING]]).toEqual([10_000, 1_000]);
  });

  it("fills a row when its run has closed, read from its columns; an open run's row stays open until it closes (any timelines)", () => {
    /** The rule written plainly: a closed run whose first transition is at its creation, its end its last transition. */
    const closedRow = (tl: Timeline): number | null => {
      const c = timelineColumns(tl);
      const n = c.length;
      return n > 0 && (codeAt(c, n - 1) & 7) >= CLOSED_FROM && timeAt(c, 0) === tl.createdAt ? timeAt(c, n - 1) : null;
    };
    fc.assert(
      fc.property(fc.array(arbTimelines(8), { minLength: 1, maxLength: 20 }), fc.constantFrom<State>('completed', 'failed', 'deleted'), (runs, end) => {
        // Creation moved off the first transition now and then (a store's run given its identity apart).
        const list: Timeline[] = runs.map((tl, i) => ({ ...tl, uid: `u${i}`, createdAt: i % 4 === 3 ? tl.createdAt - 1 : tl.createdAt, transitions: transitionsOf(tl).slice() }));
        const rc = runColumns(list);
        const check = (): void => {
          for (let i = 0; i < list.length; i++) {
            const truth = closedRow(list[i]!);
            expect(isClosedRow(rc, i)).toBe(truth !== null);
            if (truth !== null) expect(rowEnd(rc, i)).toBe(truth);
          }
        };
        check();
        // The open runs close: their rows fill when next asked.
        for (const tl of list) {
          const transitions = tl.transitions as { at: number; state: State }[];
          const last = transitions[transitions.length - 1]!;
          if (!['completed', 'failed', 'deleted'].includes(last.state)) transitions.push({ at: last.at + 1000, state: end });
        }
        check();
      }),
      { numRuns: 200 },
    );
  });
});
