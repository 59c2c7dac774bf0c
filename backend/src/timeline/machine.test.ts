// A closed run's machine kept as its timeline alone (machine.ts settledMachine): its memory
// (restarts, ever up, deletion) comes back exactly, and one that does not fit keeps its machine.

import fc from 'fast-check';
import { machineOf, settledMachine, type MachineState } from './machine.ts';
import { packClosed, type Timeline, type Transition } from './types.ts';

const T0 = Date.UTC(2026, 10, 27);

function closed(end: number): Timeline {
  const transitions: Transition[] = [
    { at: T0, state: 'provisioning' },
    { at: T0 + 1000, state: 'up' },
    { at: end, state: 'completed' },
  ];
  const timeline: Timeline = { uid: 'u', namespace: 'ns', name: 'n', labels: {}, accelerator: null, topology: null, createdAt: T0, transitions };
  packClosed(timeline);
  return timeline;
}

test('a closed machine kept as its timeline gives back its memory exactly; one whose memory does not fit, or an open one, is kept as it is (property)', () => {
  const deletedAfter = fc.oneof(fc.constant(null), fc.integer({ min: -(2 ** 29) - 2, max: 2 ** 29 + 2 }), fc.integer({ min: -(2 ** 45), max: 2 ** 45 }), fc.constant(0.5));
  const restarts = fc.oneof(fc.integer({ min: 0, max: 2 ** 29 + 2 }), fc.constant(-1), fc.constant(2 ** 40), fc.constant(1.5));
  fc.assert(
    fc.property(fc.integer({ min: T0 + 1000, max: T0 + 2 ** 40 }), restarts, fc.boolean(), deletedAfter, (end, restarts, everUp, after) => {
      const machine: MachineState = { timeline: closed(end), everUp, restarts, resourceVersion: null, deletedAt: after === null ? null : end + after };
      const copy = { ...machine };
      const kept = settledMachine(machine);
      const fits = Number.isInteger(restarts) && restarts >= 0 && restarts < 2 ** 29 && (after === null || (Number.isInteger(after) && Math.abs(after) < 2 ** 29));
      expect(kept).toBe(fits ? machine.timeline : machine);
      expect(machineOf(kept)).toEqual(copy);
    }),
    { numRuns: 2000 },
  );
  const open: MachineState = { timeline: { ...closed(T0 + 5000), transitions: [{ at: T0, state: 'up' }] }, everUp: true, restarts: 0, resourceVersion: null, deletedAt: null };
  expect(settledMachine(open)).toBe(open);
});
