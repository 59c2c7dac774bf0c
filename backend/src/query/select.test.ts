// Selecting one JobSet by name bisects the engine's sorted list; it must pick what a scan picks.

import fc from 'fast-check';
import { T0 } from '../../../test/support/arbitraries.ts';
import { TimelineEngine } from '../timeline/engine.ts';
import { isMarkedSorted } from '../timeline/order.ts';
import type { Timeline } from '../timeline/types.ts';
import { select } from './select.ts';

const NAMESPACES = ['', 'a', 'ab', 'b', 'team-a'];
const NAMES = ['x', 'x-1', 'x1', 'y', 'train'];

const arbList = fc.array(fc.tuple(fc.constantFrom(...NAMESPACES), fc.constantFrom(...NAMES), fc.integer({ min: 0, max: 1000 })), { maxLength: 60 });

function timeline(namespace: string, name: string, i: number, created: number): Timeline {
  return { uid: `u${String(i).padStart(3, '0')}`, namespace, name, labels: {}, accelerator: null, topology: null, createdAt: T0 + created, transitions: [{ at: T0 + created, state: 'provisioning' }] };
}

/** The engine's sorted list, built the way the engine keeps it. */
function sortedList(timelines: Timeline[]): readonly Timeline[] {
  const engine = new TimelineEngine();
  engine.restore(timelines.map((timeline) => ({ timeline, everUp: false, restarts: 0, resourceVersion: null, deletedAt: null })), null);
  return engine.timelines();
}

describe('selecting by one name', () => {
  it('bisects the sorted list to exactly what a scan selects, in the same order', () => {
    fc.assert(
      fc.property(arbList, fc.constantFrom(...NAMES), fc.subarray(NAMESPACES), (specs, name, namespaces) => {
        const list = sortedList(specs.map(([ns, n, created], i) => timeline(ns, n, i, created)));
        expect(isMarkedSorted(list)).toBe(true);
        const selection = { name, namespaces };
        const fast = select(list, selection, T0 + 2000, T0, T0 + 2000);
        const scanned = select([...list], selection, T0 + 2000, T0 + 0, T0 + 2000);
        expect(fast.map((t) => t.uid)).toEqual(scanned.map((t) => t.uid));
        expect(scanned.every((t) => t.name === name && (namespaces.length === 0 || namespaces.includes(t.namespace)))).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('selecting by namespaces', () => {
  it('bisects the sorted list to exactly what a scan selects, in the same order, and keeps it marked sorted', () => {
    fc.assert(
      fc.property(arbList, fc.subarray(NAMESPACES), fc.integer({ min: 0, max: 1000 }), (specs, namespaces, from) => {
        const list = sortedList(specs.map(([ns, n, created], i) => timeline(ns, n, i, created)));
        // A namespace asked twice, and one no JobSet has, change nothing.
        const selection = { namespaces: [...namespaces, ...namespaces.slice(0, 1), 'none'] };
        const fast = select(list, selection, T0 + 2000, T0 + from, T0 + 2000);
        const scanned = select([...list], selection, T0 + 2000, T0 + from, T0 + 2000);
        expect(fast.map((t) => t.uid)).toEqual(scanned.map((t) => t.uid));
        expect(scanned.every((t) => namespaces.includes(t.namespace) && t.createdAt <= T0 + 2000)).toBe(true);
        expect(isMarkedSorted(fast)).toBe(true);
        expect(isMarkedSorted(scanned)).toBe(false);
      }),
      { numRuns: 1000 },
    );
  });
});
