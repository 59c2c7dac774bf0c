// A closed run as the engine holds it, for tests of what is kept of closed runs (run columns, row cells).

import { packClosed, type Timeline } from '../../backend/src/timeline/types.ts';

export const T0 = Date.parse('2026-01-01T00:00:00Z');

/** Closed run i, named apart and in the order of i: provisioning from T0 + i ms, up 1 s later, completed 10 s after that (packed). */
export function closedRun(i: number): Timeline {
  const tl: Timeline = {
    uid: `u-${i}`,
    namespace: 'ns',
    name: `js-${String(i).padStart(5, '0')}`,
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
