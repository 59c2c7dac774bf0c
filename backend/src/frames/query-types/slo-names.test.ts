// A table per JobSet name finds its names in the rows its selection holds (nameStarts,
// nameBoundsOfRows), not by visiting every selected timeline's name: checked against the naive
// bounds over many generated lists and selections, and whole answers over a simulated fleet against
// the same timelines in a list that is not marked sorted (grouped by key, the reference path).

import { Rng } from '../../sources/simulator/rng.ts';
import { simulateFleet } from '../../sources/simulator/index.ts';
import { TimelineEngine } from '../../timeline/engine.ts';
import type { Timeline } from '../../timeline/types.ts';
import { runQueries } from '../run-request.ts';
import { nameBoundsOfRows, nameStarts } from '../../series/names.ts';

const HOUR = 3_600_000;

/** Where each name begins among the selected rows, the naive way: the row's (namespace, name) against the selected row before. */
function naiveBounds(list: readonly Timeline[], rows: readonly number[]): number[] | null {
  const bounds: number[] = [];
  for (let k = 0; k < rows.length; k++) {
    const tl = list[rows[k]!]!;
    if (tl.cluster !== undefined) return null;
    const before = k === 0 ? null : list[rows[k - 1]!]!;
    if (before === null || before.name !== tl.name || before.namespace !== tl.namespace) bounds.push(k);
  }
  bounds.push(rows.length);
  return bounds;
}

/** A list sorted by namespace and name (only what the bounds read), from small alphabets so names repeat. */
function sortedList(rng: Rng, length: number, clusters: boolean): Timeline[] {
  const list = Array.from({ length }, () => ({
    namespace: `ns${rng.int(0, 2)}`,
    name: `n${rng.int(0, 5)}`,
    ...(clusters && rng.float() < 0.1 ? { cluster: 'c' } : {}),
  }));
  list.sort((a, b) => (a.namespace !== b.namespace ? (a.namespace < b.namespace ? -1 : 1) : a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return list as unknown as Timeline[];
}

describe('nameBoundsOfRows', () => {
  it('finds the names the naive way finds them, over 2,000 generated lists and selections (empty ones too)', () => {
    const rng = new Rng(21);
    for (let trial = 0; trial < 2000; trial++) {
      const list = sortedList(rng, rng.int(0, 40), trial % 3 === 0);
      const share = rng.float();
      const rows: number[] = [];
      for (let i = 0; i < list.length; i++) if (rng.float() < share) rows.push(i);
      const got = nameBoundsOfRows(nameStarts(list), Int32Array.from(rows));
      expect(got === null ? null : [...got]).toEqual(naiveBounds(list, rows));
    }
  });

  it('refuses rows that are not ascending: the selection is then not in the list order', () => {
    const list = sortedList(new Rng(3), 10, false);
    expect(nameBoundsOfRows(nameStarts(list), Int32Array.of(2, 1))).toBeNull();
    expect(nameBoundsOfRows(nameStarts(list), Int32Array.of(4, 4))).toBeNull();
  });

  it('works a list out once and keeps it while the list lives', () => {
    const list = sortedList(new Rng(4), 20, false);
    expect(nameStarts(list)).toBe(nameStarts(list));
  });
});

describe('slo queries per JobSet name from the selected rows', () => {
  const fleet = simulateFleet({ jobsets: 40, days: 2, seed: 11 });
  const engine = new TimelineEngine({});
  for (const o of fleet.observations()) engine.observe(o);
  const horizon = engine.horizon!;
  const queries = [
    { sloAnswer: 'errorBudget', window: 'range', sort: { by: 'remainingFraction', direction: 'asc' }, limit: 5 },
    { sloAnswer: 'errorBudget', window: 'range', burnWindow: '1h', format: 'table', sort: { by: 'burnRate', direction: 'desc' }, limit: 7 },
    { sloAnswer: 'errorBudget', window: 'range', format: 'table' },
    { sloAnswer: 'sli', window: 'step', indicator: 'schedulingGoodput', format: 'table' },
    { sloAnswer: 'alert', window: 'step', period: '6h', burnWindow: '1h' },
    // Points every 10 minutes: a few names a chunk when a sort picks some (pickedNames), so the chunks' seams are crossed.
    { sloAnswer: 'errorBudget', window: 'step', intervalMs: HOUR / 6, maxDataPoints: 1000, sort: { by: 'budgetConsumed', direction: 'desc' }, limit: 4 },
    { sloAnswer: 'sli', window: 'step', intervalMs: HOUR / 6, maxDataPoints: 1000, format: 'table', sort: { by: 'sli', direction: 'asc' }, limit: 3 },
  ];

  it.each([
    ['the whole history', fleet.start, horizon],
    ['a range that cuts runs', fleet.start + 7 * HOUR + 13_000, horizon - 5 * HOUR],
    ['a range before any run (an empty selection)', fleet.start - 30 * HOUR, fleet.start - 29 * HOUR],
  ])('answers as the same timelines grouped by key do, byte for byte: %s', (_what, from, to) => {
    for (const [i, query] of queries.entries()) {
      for (const namespaces of [[], ['team-a', 'research']]) {
        const body = { from: String(from), to: String(to), queries: [{ refId: 'A', queryType: 'slo', groupBy: 'none', period: '1d', name: '*', namespaces, intervalMs: HOUR, maxDataPoints: 100, ...query }] };
        const marked = runQueries(body, { timelines: engine.timelines(), horizon }, horizon).results.A;
        // A copy is not marked sorted: its names are grouped by key, JobSet by JobSet.
        const grouped = runQueries(body, { timelines: [...engine.timelines()], horizon }, horizon).results.A;
        expect(JSON.stringify(marked)).toEqual(JSON.stringify(grouped));
        if (i === 0 && to > fleet.start) expect(marked?.frames?.length).toBeGreaterThan(0);
      }
    }
  });
});
