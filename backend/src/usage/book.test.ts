// The book: one history per JobSet, retention forgetting a JobSet left with nothing.

import { min } from '../../../test/support/scenario.ts';
import { UsageBook } from './book.ts';
import { USAGE_METRICS, type UsageMetric } from './jobset-usage.ts';

const values = Object.fromEntries(USAGE_METRICS.map((m) => [m, 1])) as Record<UsageMetric, number>;
const usage = (owner: string, minutes: number) => ({ owner, namespace: 'ml', name: owner, at: min(minutes), values });

describe('UsageBook', () => {
  it('keeps a history per JobSet and counts what it kept', () => {
    const book = new UsageBook();
    expect(book.record([usage('a', 0), usage('b', 0)])).toBe(2);
    expect(book.record([usage('a', 0), usage('a', 1)])).toBe(1);
    expect(book.get('a')!.history.size).toEqual({ raw: 2, folded: 0 });
    expect([...book.entries()].map((e) => e.owner)).toEqual(['a', 'b']);
  });

  it('forgets a JobSet whose whole history is past retention', () => {
    const book = new UsageBook();
    book.record([usage('a', 0), usage('b', 0)]);
    book.record([usage('b', 60)]);
    book.compact(min(61), min(30));
    expect(book.get('a')).toBeUndefined();
    expect(book.get('b')!.history.size).toEqual({ raw: 1, folded: 0 });
  });
});
