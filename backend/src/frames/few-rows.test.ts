// A sorted, limited per-JobSet table of the engine's list ("worst 15 by uptime ratio" of ~200,000
// runs) picks its rows by the sort's figure alone, then works out the rows picked in full
// (query-types/summary.ts fewRows). Over simulated fleets, every figure, both directions, windows
// that cut runs and hold open ones: its rows are the first N of the full table sorted by that figure,
// cell for cell, and its meta counts every row with the same totals.

import { FIGURE_NAMES } from '../series/figures.ts';
import { simulateFleet } from '../sources/simulator/index.ts';
import { TimelineEngine } from '../timeline/engine.ts';
import type { FrameJSON } from './frame.ts';
import { runQueries, type Observed } from './run-request.ts';

const HOUR = 3_600_000;

function rowsOf(frames: readonly FrameJSON[]): unknown[][] {
  const values = frames[0]!.data.values;
  return (values[0] ?? []).map((_, i) => values.map((column) => column[i]));
}

describe('a few rows of many, sorted by a figure', () => {
  it.each([4, 9])('are the first rows of the whole table sorted by it (seed %i)', (seed) => {
    const fleet = simulateFleet({ jobsets: 80, days: 2, seed });
    const engine = new TimelineEngine({});
    for (const o of fleet.observations()) engine.observe(o);
    const horizon = engine.horizon!;
    const observed: Observed = { timelines: engine.timelines(), horizon };
    let compared = 0;
    for (const [from, to] of [
      [fleet.start, horizon],
      [fleet.start + 9 * HOUR + 1234, horizon - 5 * HOUR],
      [horizon - 3 * HOUR, horizon],
    ] as const) {
      for (const by of FIGURE_NAMES) {
        for (const direction of ['asc', 'desc']) {
          const ask = (extra: Record<string, unknown>, figures: string[] = []) =>
            runQueries({ from: String(from), to: String(to), queries: [{ refId: 'A', queryType: 'summary', figures, sort: { by, direction }, ...extra }] }, observed, horizon).results.A!;
          const full = ask({});
          expect(full.status).toBe(200);
          const count = rowsOf(full.frames!).length;
          for (const limit of [1, 3, Math.floor(count / 17)]) {
            if (limit < 1 || limit * 16 >= count) continue;
            const few = ask({ limit });
            expect(few.status).toBe(200);
            expect(rowsOf(few.frames!)).toEqual(rowsOf(full.frames!).slice(0, limit));
            const meta = (r: typeof full) => r.frames![0]!.schema.meta!.custom as { rows: number; shown: number; totals: unknown };
            expect(meta(few)).toEqual({ ...meta(full), shown: limit });
            // A sort by a figure not returned picks the same rows.
            const other = by === 'uptimeRatio' ? 'interruptions' : 'uptimeRatio';
            const narrow = ask({ limit }, [other]);
            expect(rowsOf(narrow.frames!).map((r) => r.slice(0, 4))).toEqual(rowsOf(full.frames!).slice(0, limit).map((r) => r.slice(0, 4)));
            compared++;
          }
        }
      }
    }
    expect(compared).toBeGreaterThan(200);
  });
});
