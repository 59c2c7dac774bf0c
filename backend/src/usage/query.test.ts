// The book read for a query's JobSets: by UID or by namespace/name, per JobSet and summed per group.

import { min } from '../../../test/support/scenario.ts';
import type { State } from '../timeline/types.ts';
import { UsageBook } from './book.ts';
import { USAGE_METRICS, type UsageMetric } from './jobset-usage.ts';
import { groupUsageSeries, jobsetUsageByState, jobsetUsageSeries } from './query.ts';

function usage(owner: string, name: string, minutes: number, cpu: number) {
  const values = Object.fromEntries(USAGE_METRICS.map((m) => [m, m === 'cpuCores' ? cpu : null])) as Record<UsageMetric, number | null>;
  return { owner, namespace: 'ml', name, at: min(minutes), values };
}

const timeline = (uid: string, name: string, ...steps: [number, State][]) => ({ uid, namespace: 'ml', name, transitions: steps.map(([m, state]) => ({ at: min(m), state })) });

//   a (by UID):          cpu 2 every minute from 0 to 9 (each holds a minute)
//   b (by name only):    cpu 1 at 5, 6, 7
const book = new UsageBook({ holdMs: 60_000 });
for (let m = 0; m < 10; m++) book.record([usage('uid-a', 'a', m, 2)]);
for (const m of [5, 6, 7]) book.record([usage('name:ml/b', 'b', m, 1)]);
const a = timeline('uid-a', 'a', [0, 'provisioning'], [4, 'up']);
const b = timeline('uid-b', 'b', [0, 'up']);
const none = timeline('uid-c', 'c', [0, 'up']);
const points = [5, 10].map((m) => min(m));

describe('usage for a query', () => {
  it('finds a JobSet by its UID, else by namespace/name; one without usage is all null', () => {
    expect(jobsetUsageSeries(book, a, 'cpuCores', points, 5 * 60_000)).toEqual([2, 2]);
    // b: (5,10] holds 1 over 5─8 (3 min): the mean of what is covered is 1.
    expect(jobsetUsageSeries(book, b, 'cpuCores', points, 5 * 60_000)).toEqual([null, 1]);
    expect(jobsetUsageSeries(book, none, 'cpuCores', points, 5 * 60_000)).toEqual([null, null]);
    expect(jobsetUsageSeries(book, a, 'memoryBytes', points, 5 * 60_000)).toEqual([null, null]);
  });

  it('sums a group', () => {
    expect(groupUsageSeries(book, [a, b, none], 'cpuCores', points, 5 * 60_000)).toEqual([2, 3]);
  });

  it('splits by state', () => {
    const split = jobsetUsageByState(book, a, 'cpuCores', min(10), min(0), min(10));
    expect(split.provisioning).toEqual({ mean: 2, coveredSeconds: 240, stateSeconds: 240 });
    expect(split.up).toEqual({ mean: 2, coveredSeconds: 360, stateSeconds: 360 });
    expect(jobsetUsageByState(book, none, 'cpuCores', min(10), min(0), min(10)).up).toEqual({ mean: null, coveredSeconds: 0, stateSeconds: 600 });
  });
});
