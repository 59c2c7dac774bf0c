// A refused query costs the service nothing: counted in reads of the timelines' transitions, not
// timed. A time out of range is refused before any timeline is read; a query that would work out
// too many values is refused after its selection (which reads at most each timeline's first and
// last transition) and before any of the values it would have worked out (which read them again).

import type { Timeline, Transition } from '../timeline/types.ts';
import { runQueries, type Observed } from './run-request.ts';

const MIN = 60_000;
const JOBSETS = 2_001;

/** 2,001 JobSets provisioning from 0 and up from 10 min, each transition list counting its reads. */
function countedFleet(): { observed: Observed; reads: () => number } {
  let reads = 0;
  const timelines: Timeline[] = Array.from({ length: JOBSETS }, (_, i) => {
    const transitions: Transition[] = [
      { at: 0, state: 'provisioning' },
      { at: 10 * MIN, state: 'up' },
    ];
    const counted = new Proxy(transitions, {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
        return Reflect.get(target, key, receiver);
      },
    });
    return { uid: `u-${i}`, namespace: `bulk-${i % 10}`, name: `run-${i}`, labels: {}, accelerator: null, topology: null, createdAt: 0, transitions: counted };
  });
  return { observed: { timelines, horizon: 240 * MIN, index: null }, reads: () => reads };
}

describe('a refused query costs nothing', () => {
  it.each(['series', 'fleet', 'summary', 'states', 'events', 'slo'])('%s with from = to beyond a Date: refused before any timeline is read', (queryType) => {
    const fleet = countedFleet();
    const answer = runQueries({ from: '9999999999999999', to: '9999999999999999', queries: [{ refId: 'A', queryType }] }, fleet.observed, 240 * MIN);
    expect(answer.results.A).toEqual({ status: 400, error: expect.stringMatching(/^queries\[0\]\.from: 9999999999999999 is out of range/) });
    expect(fleet.reads()).toBe(0);
  });

  it('too many values: refused after the selection, before the values', () => {
    const fleet = countedFleet();
    const query = { refId: 'A', metric: 'upSeconds', window: 'step', groupBy: 'all', aggregate: 'mean', intervalMs: 1000, maxDataPoints: 1000 };
    const refused = runQueries({ from: 0, to: 240 * MIN, queries: [query] }, fleet.observed, 240 * MIN);
    expect(refused.results.A!.error).toMatch(/^queries\[0\]\.maxDataPoints: the query would work out 1,922,961 values \(2,001 JobSets × 961 points\)/);
    const selecting = fleet.reads();
    // The selection reads at most each JobSet's first and last transition ...
    expect(selecting).toBeLessThanOrEqual(2 * JOBSETS);
    // ... and working values out reads every JobSet's transitions again: the same question with
    // fewer points, answered, reads at least one more per JobSet. The refused one read none of those.
    const answered = countedFleet();
    const few = runQueries({ from: 0, to: 240 * MIN, queries: [{ ...query, maxDataPoints: 100, intervalMs: 150_000 }] }, answered.observed, 240 * MIN);
    expect(few.results.A!.status).toBe(200);
    expect(answered.reads()).toBeGreaterThanOrEqual(selecting + JOBSETS);
  });
});
