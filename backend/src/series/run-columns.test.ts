// A list's run columns are kept while the list lives, and the columns of an owner's latest list
// (the engine's) while the owner lives, so its next list takes their rows over. A list with no owner
// (the node layer's, made again on demand and held weakly) must not be kept alive by its columns,
// nor evict the owner's: one module-wide "latest" once kept a replayed fleet's whole node layer.

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { markSorted } from '../timeline/order.ts';
import { packClosed, type Timeline } from '../timeline/types.ts';
import { OPEN, runColumns } from './run-columns.ts';

// The test runner has no --expose-gc: V8's gc is reached through its flag, as the service does.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as (options?: { type: 'major'; execution: 'sync' }) => void;

const T0 = Date.parse('2026-01-01T00:00:00Z');

/** A closed run: provisioning, up after 1 s, completed 10 s later (packed, as the engine holds it). */
function closedRun(i: number): Timeline {
  const tl: Timeline = {
    uid: `u-${i}`,
    namespace: 'ns',
    name: `js-${String(i).padStart(4, '0')}`,
    labels: {},
    accelerator: null,
    topology: null,
    createdAt: T0 + i,
    transitions: [
      { at: T0 + i, state: 'provisioning' },
      { at: T0 + i + 1_000, state: 'up' },
      { at: T0 + i + 11_000, state: 'completed' },
    ],
  };
  packClosed(tl);
  return tl;
}

/** Whether what `ref` points to is gone after the current job ends and two full collections run. */
async function collected(ref: WeakRef<object>): Promise<boolean> {
  // A WeakRef's target is kept until the job that made or read it ends.
  await new Promise((resolve) => setImmediate(resolve));
  gc({ type: 'major', execution: 'sync' });
  gc({ type: 'major', execution: 'sync' });
  return ref.deref() === undefined;
}

describe('runColumns', () => {
  it('fills a row per closed run of the list, in its order', () => {
    const list = markSorted([closedRun(0), closedRun(1)]);
    const rc = runColumns(list);
    expect(Array.from(rc.created)).toEqual([T0, T0 + 1]);
    expect(Array.from(rc.end)).toEqual([T0 + 11_000, T0 + 11_001]);
    expect(Array.from(rc.timeToFirstUp)).toEqual([1, 1]);
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
    expect(Array.from(rc.end)).toEqual(runs.map((_, i) => T0 + i + 11_000));
    // Its own latest is now the next list: the first one goes.
    expect(await collected(first)).toBe(true);
  });
});
