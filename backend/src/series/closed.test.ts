// A closed timeline's transitions read from its columns and the side table of those with extras
// (closed.ts): every one read back exactly, extras and all.

import { atOf, closedTransitions, countOf, extrasOf, stateOf, transitionsOf } from './closed.ts';
import type { Transition } from '../timeline/types.ts';

const T0 = Date.UTC(2026, 10, 26);

const transitions: Transition[] = [
  { at: T0, state: 'suspended', suspension: { reason: 'Preempted', message: null } },
  { at: T0 + 60_000, state: 'provisioning' },
  { at: T0 + 120_000, state: 'up' },
  { at: T0 + 120_000, state: 'down', causes: [{ kind: 'JobSetRestart', at: T0 + 120_000, restarts: 1, reason: 'FailurePolicyRestart' }] },
  { at: T0 + 180_001, state: 'unknown' },
  { at: T0 + 240_000, state: 'up', unobserved: { interruptions: 1, recoveries: 1 } },
  { at: T0 + 300_000, state: 'failed', causes: [{ kind: 'JobSetFailed', at: T0 + 299_000, reason: 'FailedJobs' }] },
];

test('reads every transition back: its time, its state, and the very object of one with extras', () => {
  const closed = closedTransitions(transitions);
  expect(countOf(closed)).toBe(transitions.length);
  expect(transitions.map((_, i) => [atOf(closed, i), stateOf(closed, i)])).toEqual(transitions.map((t) => [t.at, t.state]));
  expect(extrasOf(closed, 0)).toBe(transitions[0]);
  expect(extrasOf(closed, 1)).toBeUndefined();
  expect(extrasOf(closed, 5)).toBe(transitions[5]);
  expect(transitionsOf(closed)).toEqual(transitions);
  expect(closed.extras).toHaveLength(8);
});

test('every state; a timeline without extras has no side table', () => {
  const states: Transition['state'][] = ['provisioning', 'up', 'down', 'suspended', 'unknown', 'completed'];
  const plain = states.map((state, i) => ({ at: T0 + i, state }));
  const closed = closedTransitions(plain);
  expect(closed.extras).toBeNull();
  expect(transitionsOf(closed)).toEqual(plain);
  for (const end of ['failed', 'deleted'] as const) expect(transitionsOf(closedTransitions([{ at: T0, state: 'up' }, { at: T0 + 1, state: end }]))).toEqual([{ at: T0, state: 'up' }, { at: T0 + 1, state: end }]);
});
