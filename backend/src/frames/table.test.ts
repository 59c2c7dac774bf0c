// Tables that send what a panel shows (issue 21 §2), through the query stage as the API runs it: a
// summary's and an slo answer's rows sorted and limited in the service, against an order and a
// top N worked out by hand on a drawn fleet (ties, nulls, both directions, a limit over the row
// count); the meta's row count and totals, which do not move with the limit; the 400s that name
// the field; and, over random fleets, the limited answer as the first N rows of the full sorted one.

import fc from 'fast-check';
import { parseScript } from '../../../test/support/query-script.ts';
import { timelines as arbTimelines, T0 } from '../../../test/support/arbitraries.ts';
import { FIGURE_NAMES } from '../series/figures.ts';
import { FleetIndex } from '../series/fleet-index.ts';
import type { Timeline } from '../timeline/types.ts';
import type { FrameJSON } from './frame.ts';
import { runQueries, type Observed } from './run-request.ts';
import { pickRows, pickRowsOfValues } from './table.ts';

const H = 3600;

// Hours; horizon 12 h. uptimeRatio = up / (up + down):
//   alpha/a  up 9 down 3   9/12 = 0.75     one interruption
//   alpha/b  up 6 down 1   6/7  ≈ 0.857    completed at 9
//   beta/c   up 10 down 2  10/12 ≈ 0.833
//   beta/d   up 0 down 12  0               never up
//   gamma/e  up 10 down 2  10/12 ≈ 0.833   ties with beta/c
//   gamma/f  suspended from its creation: nothing counted, its ratio null
const [drawn] = parseScript(`
timelines horizon=12h
                       |0         1 |
                       |012345678901|
  alpha/a team=ml      |PUUUUDDUUUUU|
  alpha/b team=ml      |..PUUUUUUC  |
  beta/c  team=web     |PPUUUUUUUUUU|
  beta/d  team=web     |PPPPPPPPPPPP|
  gamma/e team=ml      |PPUUUUUUUUUU|
  gamma/f team=ml      |..SSSSSSSSSS|
query whole from=0h to=12h {}
`);
const observed: Observed = { timelines: drawn!.timelines, horizon: drawn!.horizon, retentionMs: 30 * 86_400_000 };

function run(query: Record<string, unknown>, obs: Observed = observed, from = drawn!.from, to = drawn!.to): { status: number; frames?: FrameJSON[]; error?: string } {
  return runQueries({ from: String(from), to: String(to), queries: [{ refId: 'A', ...query }] }, obs, obs.horizon).results.A!;
}

/** A one-frame table's column by name. */
function column(frames: readonly FrameJSON[], name: string): unknown[] {
  const f = frames[0]!;
  return f.data.values[f.schema.fields.findIndex((x) => x.name === name)]!;
}

const names = (frames: readonly FrameJSON[]): unknown[] => column(frames, 'name');

describe('a summary table, sorted and limited in the service', () => {
  const summary = (extra: Record<string, unknown>) => run({ queryType: 'summary', figures: ['upSeconds', 'downSeconds', 'uptimeRatio'], ...extra });

  it('answers every row in its own order (namespace, name) when neither is asked, with no meta', () => {
    const r = summary({});
    expect(names(r.frames!)).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    expect(r.frames![0]!.schema.meta).toBeUndefined();
  });

  it('sorts descending by default and ascending when asked; ties in the table order, nulls last both ways', () => {
    expect(names(summary({ sort: { by: 'uptimeRatio' } }).frames!)).toEqual(['b', 'c', 'e', 'a', 'd', 'f']);
    expect(names(summary({ sort: { by: 'uptimeRatio', direction: 'desc' } }).frames!)).toEqual(['b', 'c', 'e', 'a', 'd', 'f']);
    expect(names(summary({ sort: { by: 'uptimeRatio', direction: 'asc' } }).frames!)).toEqual(['d', 'a', 'c', 'e', 'b', 'f']);
    // Up seconds: e and c tie at 10 h, d and f at 0 (f's 0 is a number, not a null).
    expect(column(summary({ sort: { by: 'upSeconds', direction: 'asc' } }).frames!, 'upSeconds')).toEqual([0, 0, 6 * H, 9 * H, 10 * H, 10 * H]);
    expect(names(summary({ sort: { by: 'upSeconds', direction: 'asc' } }).frames!)).toEqual(['d', 'f', 'b', 'a', 'c', 'e']);
  });

  it('keeps the first N rows, each row whole (its name, state and figures stay together)', () => {
    const r = summary({ sort: { by: 'uptimeRatio', direction: 'asc' }, limit: 2 });
    expect(names(r.frames!)).toEqual(['d', 'a']);
    expect(column(r.frames!, 'namespace')).toEqual(['beta', 'alpha']);
    expect(column(r.frames!, 'state')).toEqual(['provisioning', 'up']);
    expect(column(r.frames!, 'uptimeRatio')).toEqual([0, 0.75]);
    expect(column(r.frames!, 'downSeconds')).toEqual([12 * H, 3 * H]);
  });

  it('says in the meta how many rows the table had, and the totals over all of them, whatever the limit', () => {
    // Totals pooled over the six JobSets: up 35 h, down 20 h, ratio 35/55.
    const totals = { jobsets: 6, upSeconds: 35 * H, downSeconds: 20 * H, uptimeRatio: 35 / 55 };
    const limited = summary({ sort: { by: 'uptimeRatio', direction: 'asc' }, limit: 2 });
    expect(limited.frames![0]!.schema.meta).toEqual({ custom: { rows: 6, shown: 2, totals }, notices: [{ severity: 'info', text: '2 of 6 rows' }] });
    for (const limit of [1, 5, 6, 7, 100]) {
      const meta = summary({ sort: { by: 'uptimeRatio' }, limit }).frames![0]!.schema.meta!;
      expect({ limit, custom: meta.custom }).toEqual({ limit, custom: { rows: 6, shown: Math.min(limit, 6), totals } });
    }
    // A limit over the row count: every row, and no notice.
    const all = summary({ limit: 100 });
    expect(names(all.frames!)).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    expect(all.frames![0]!.schema.meta!.notices).toBeUndefined();
    // A limit alone: the first rows in the table's own order.
    expect(names(summary({ limit: 3 }).frames!)).toEqual(['a', 'b', 'c']);
  });

  it('has the same totals when the fleet index pools them as when the JobSets are visited one by one', () => {
    const index = new FleetIndex();
    for (const tl of observed.timelines) index.grew(tl);
    for (const groupBy of ['none', 'namespace']) {
      const query = { queryType: 'summary', groupBy, aggregate: 'pooled', sort: { by: 'uptimeRatio' }, limit: 1 };
      expect({ groupBy, meta: run(query, { ...observed, index }).frames![0]!.schema.meta }).toEqual({ groupBy, meta: run(query).frames![0]!.schema.meta });
    }
  });

  it('sorts and limits grouped rows, by a figure or by the JobSets counted', () => {
    // Pooled by namespace: alpha 15/19, beta 10/24, gamma 10/12.
    const grouped = (extra: Record<string, unknown>) => summary({ groupBy: 'namespace', aggregate: 'pooled', ...extra });
    expect(column(grouped({ sort: { by: 'uptimeRatio', direction: 'asc' } }).frames!, 'namespace')).toEqual(['beta', 'alpha', 'gamma']);
    const worst = grouped({ sort: { by: 'uptimeRatio', direction: 'asc' }, limit: 1 });
    expect(column(worst.frames!, 'namespace')).toEqual(['beta']);
    expect(column(worst.frames!, 'uptimeRatio')).toEqual([10 / 24]);
    expect(worst.frames![0]!.schema.meta!.custom).toEqual({ rows: 3, shown: 1, totals: { jobsets: 6, upSeconds: 35 * H, downSeconds: 20 * H, uptimeRatio: 35 / 55 } });
    // By team: ml has a, b, e, f (4), web c, d (2).
    expect(column(summary({ groupBy: 'label:team', aggregate: 'sum', sort: { by: 'jobsets', direction: 'asc' } }).frames!, 'team')).toEqual(['web', 'ml']);
  });

  it('refuses, with a 400 naming the field, a column the table has not and a limit that is not a whole number from 1', () => {
    // Every figure may be sorted by, whichever `figures` returns (issue 21 §4): the message lists them all.
    expect(summary({ sort: { by: 'bogus' } })).toEqual({
      status: 400,
      error: `queries[0].sort.by: "bogus" is not a number column of this table: sort by one of ${FIGURE_NAMES.join(', ')}`,
    });
    // `jobsets`, which only grouped rows carry.
    expect(summary({ sort: { by: 'jobsets' } }).error).toMatch(/^queries\[0\]\.sort\.by: "jobsets" is not a number column/);
    expect(summary({ sort: { by: 'name' } }).error).toMatch(/^queries\[0\]\.sort\.by: "name" is not a number column/);
    expect(summary({ sort: { by: 'uptimeRatio', direction: 'down' } })).toEqual({ status: 400, error: 'queries[0].sort.direction: must be desc (largest first) or asc (smallest first)' });
    expect(summary({ sort: 'uptimeRatio' })).toEqual({ status: 400, error: 'queries[0].sort: must be an object such as {"by": "burnRate", "direction": "desc"}' });
    expect(summary({ sort: {} })).toEqual({ status: 400, error: 'queries[0].sort.by: missing' });
    expect(summary({ sort: { by: 7 } }).error).toBe('queries[0].sort.by: must be the name of a number column of the table, such as burnRate');
    for (const limit of [0, -1, 2.5, '5', null, Number.MAX_SAFE_INTEGER]) {
      expect({ limit, ...summary({ limit }) }).toEqual({ limit, status: 400, error: expect.stringMatching(/^queries\[0\]\.limit: must be (a whole number of rows from 1|at most 1000000)$/) });
    }
  });
});

describe('an slo table (a frame per JobSet name), sorted and limited in the service', () => {
  // Burn rate over the last 6 h (6 → 12) at 0.95: a down 1 of 6 h → (1/6)/0.05 = 10/3; d down 6 of
  // 6 → 20; b (3 h up, completed), c, e all up → 0; f counted nothing → null.
  const slo = (extra: Record<string, unknown>) => run({ queryType: 'slo', sloAnswer: 'burnRate', period: '12h', burnWindow: '6h', ...extra });
  const frameNames = (r: { frames?: FrameJSON[] }) => r.frames!.map((f) => f.schema.name);
  const lastValues = (r: { frames?: FrameJSON[] }, field: string) =>
    r.frames!.map((f) => f.data.values[f.schema.fields.findIndex((x) => x.name === field)]!.at(-1));

  it('orders the frames by the column at `to`, fastest first, ties by name, nulls last', () => {
    expect(frameNames(slo({}))).toEqual(['alpha/a', 'alpha/b', 'beta/c', 'beta/d', 'gamma/e', 'gamma/f']);
    const desc = slo({ sort: { by: 'burnRate' } });
    expect(frameNames(desc)).toEqual(['beta/d', 'alpha/a', 'alpha/b', 'beta/c', 'gamma/e', 'gamma/f']);
    expect(lastValues(desc, 'burnRate')).toEqual([expect.closeTo(20, 12), expect.closeTo(10 / 3, 12), 0, 0, 0, null]);
    expect(frameNames(slo({ sort: { by: 'burnRate', direction: 'asc' } }))).toEqual(['alpha/b', 'beta/c', 'gamma/e', 'alpha/a', 'beta/d', 'gamma/f']);
  });

  it('sends the top N frames; the first says how many there were and the totals of all, at the query objective', () => {
    // Pooled over the burn window: down 1 + 6 = 7 h of 27 h counted (up 5 + 3 + 6 + 6 = 20).
    const totals = { burnRate: expect.closeTo(7 / 27 / 0.05, 12) };
    const top = slo({ sort: { by: 'burnRate' }, limit: 2 });
    expect(frameNames(top)).toEqual(['beta/d', 'alpha/a']);
    expect(top.frames![0]!.schema.meta).toEqual({ type: 'timeseries-wide', notices: [{ severity: 'info', text: '2 of 6 rows' }], custom: { rows: 6, shown: 2, totals } });
    expect(top.frames![1]!.schema.meta).toEqual({ type: 'timeseries-wide' });
    for (const limit of [1, 6, 50]) {
      expect({ limit, custom: slo({ sort: { by: 'burnRate' }, limit }).frames![0]!.schema.meta!.custom }).toEqual({ limit, custom: { rows: 6, shown: Math.min(limit, 6), totals } });
    }
  });

  it("sorts by any column of the answer and refuses one the answer has not, naming the answer's columns", () => {
    const budget = slo({ sloAnswer: 'errorBudget', sort: { by: 'remainingFraction', direction: 'asc' }, limit: 1 });
    expect(frameNames(budget)).toEqual(['beta/d']);
    expect(budget.frames![0]!.schema.meta!.custom).toMatchObject({ rows: 6, shown: 1 });
    expect(Object.keys((budget.frames![0]!.schema.meta!.custom as { totals: object }).totals)).toEqual([
      'allowedSeconds',
      'consumedSeconds',
      'remainingSeconds',
      'remainingFraction',
      'burnRate',
      'timeToExhaustionSeconds',
    ]);
    expect(slo({ sort: { by: 'sli' } })).toEqual({ status: 400, error: 'queries[0].sort.by: "sli" is not a number column of this table: sort by one of burnRate' });
    expect(slo({ sloAnswer: 'alert', sort: { by: 'alert' }, limit: 0 }).error).toBe('queries[0].limit: must be a whole number of rows from 1');
  });
});

describe('only the columns a panel shows (issue 21 §4): summary `figures`, slo `columns`', () => {
  const full = run({ queryType: 'summary' });
  const fullSlo = (extra: Record<string, unknown>) => run({ queryType: 'slo', sloAnswer: 'errorBudget', period: '12h', burnWindow: '6h', ...extra });
  const fieldNames = (frame: FrameJSON) => frame.schema.fields.map((f) => f.name);

  it('returns the identity columns and the figures asked, each equal to the full table\'s column', () => {
    const one = run({ queryType: 'summary', figures: ['interruptions'] });
    expect(fieldNames(one.frames![0]!)).toEqual(['namespace', 'name', 'uid', 'state', 'interruptions']);
    for (const name of ['namespace', 'name', 'uid', 'state', 'interruptions']) expect([name, column(one.frames!, name)]).toEqual([name, column(full.frames!, name)]);
    expect(column(one.frames!, 'interruptions')).toEqual([1, 0, 0, 0, 0, 0]);
  });

  it('sorts by a figure it does not return, in the order the full table sorted by it has', () => {
    for (const [by, direction] of [
      ['uptimeRatio', 'asc'],
      ['timeToFirstUpSeconds', 'desc'],
      ['downSeconds', 'desc'],
    ] as const) {
      const narrow = run({ queryType: 'summary', figures: ['interruptions'], sort: { by, direction }, limit: 4 });
      const wide = run({ queryType: 'summary', sort: { by, direction }, limit: 4 });
      expect({ by, names: names(narrow.frames!), interruptions: column(narrow.frames!, 'interruptions') }).toEqual({ by, names: names(wide.frames!), interruptions: column(wide.frames!, 'interruptions') });
      expect(fieldNames(narrow.frames![0]!)).toEqual(['namespace', 'name', 'uid', 'state', 'interruptions']);
      // The row count is the table's; the totals are those of the columns returned.
      expect(narrow.frames![0]!.schema.meta!.custom).toEqual({ rows: 6, shown: 4, totals: { jobsets: 6, interruptions: 1 } });
    }
    // Grouped: by the pooled ratio, not returned (beta 10/24, alpha 15/19, gamma 10/12).
    const grouped = run({ queryType: 'summary', groupBy: 'namespace', aggregate: 'pooled', figures: ['upSeconds'], sort: { by: 'uptimeRatio', direction: 'asc' } });
    expect(column(grouped.frames!, 'namespace')).toEqual(['beta', 'alpha', 'gamma']);
    expect(column(grouped.frames!, 'upSeconds')).toEqual([10 * H, 15 * H, 10 * H]);
    expect(fieldNames(grouped.frames![0]!)).toEqual(['namespace', 'jobsets', 'upSeconds']);
  });

  it('refuses a figure it does not know with a 400 that names it and lists the figures', () => {
    expect(run({ queryType: 'summary', figures: ['uptimeRatio', 'uptime'] })).toEqual({ status: 400, error: `queries[0].figures[1]: "uptime" is not a figure: one of ${FIGURE_NAMES.join(', ')}` });
    expect(run({ queryType: 'summary', figures: [7] }).error).toBe(`queries[0].figures[0]: must be the name of a figure: one of ${FIGURE_NAMES.join(', ')}`);
  });

  it('returns the slo answer\'s columns asked, in the answer\'s order, each equal to the full answer\'s (a table and frames per name)', () => {
    const table = fullSlo({ format: 'table' });
    const narrow = fullSlo({ format: 'table', columns: ['burnRate', 'remainingFraction'] });
    expect(fieldNames(narrow.frames![0]!)).toEqual(['namespace', 'jobset', 'time', 'remainingFraction', 'burnRate']);
    for (const name of fieldNames(narrow.frames![0]!)) expect([name, column(narrow.frames!, name)]).toEqual([name, column(table.frames!, name)]);
    const frames = fullSlo({ columns: ['remainingFraction'] });
    const wide = fullSlo({});
    expect(frames.frames!.map((f) => f.schema.name)).toEqual(wide.frames!.map((f) => f.schema.name));
    frames.frames!.forEach((f, i) => {
      const w = wide.frames![i]!;
      expect(fieldNames(f)).toEqual(['time', 'remainingFraction']);
      expect(f.schema.fields[1]).toEqual(w.schema.fields[fieldNames(w).indexOf('remainingFraction')]);
      expect(f.data.values).toEqual([w.data.values[0], w.data.values[fieldNames(w).indexOf('remainingFraction')]]);
    });
    // Empty: every column, as when absent.
    expect(fullSlo({ format: 'table', columns: [] })).toEqual(table);
  });

  it('sorts an slo answer by a column it does not return; the meta keeps the totals of every column', () => {
    const narrow = fullSlo({ format: 'table', columns: ['remainingFraction'], sort: { by: 'burnRate' }, limit: 3 });
    const wide = fullSlo({ format: 'table', sort: { by: 'burnRate' }, limit: 3 });
    expect(column(narrow.frames!, 'jobset')).toEqual(['d', 'a', 'b']);
    expect(column(narrow.frames!, 'jobset')).toEqual(column(wide.frames!, 'jobset'));
    expect(column(narrow.frames!, 'remainingFraction')).toEqual(column(wide.frames!, 'remainingFraction'));
    expect(narrow.frames![0]!.schema.meta).toEqual(wide.frames![0]!.schema.meta);
  });

  it('refuses an slo column it does not know, or one its answer has not, naming it and the valid ones', () => {
    expect(fullSlo({ columns: ['remaining'] })).toEqual({
      status: 400,
      error: 'queries[0].columns[0]: "remaining" is not a column of an slo answer: one of sli, objective, allowedSeconds, consumedSeconds, remainingSeconds, remainingFraction, burnRate, timeToExhaustionSeconds, budgetConsumed, alert',
    });
    expect(fullSlo({ columns: ['remainingFraction', 'sli'] })).toEqual({
      status: 400,
      error: 'queries[0].columns: "sli" is not a column of the errorBudget answer: ask for any of allowedSeconds, consumedSeconds, remainingSeconds, remainingFraction, burnRate, timeToExhaustionSeconds',
    });
    expect(fullSlo({ columns: 'remainingFraction' }).error).toBe('queries[0].columns: must be a list of the answer\'s columns, such as ["remainingFraction"]');
  });
});

describe('pickRows', () => {
  it('puts nulls and non-finite values last in both directions, keeping the given order among equals', () => {
    const values = [3, null, 1, Number.NaN, 3, Infinity, 2];
    expect(pickRows(values.length, (i) => values[i]!, { by: 'x', direction: 'desc' }, undefined)).toEqual([0, 4, 6, 2, 1, 3, 5]);
    expect(pickRows(values.length, (i) => values[i]!, { by: 'x', direction: 'asc' }, undefined)).toEqual([2, 6, 0, 4, 1, 3, 5]);
    expect(pickRows(values.length, (i) => values[i]!, { by: 'x', direction: 'asc' }, 2)).toEqual([2, 6]);
    expect(pickRows(3, null, undefined, 2)).toEqual([0, 1]);
  });

  it('picks a few rows of many (one pass) exactly as the whole sort would, ties and nulls included', () => {
    const value = fc.oneof(fc.integer({ min: -3, max: 3 }), fc.constant(null), fc.constantFrom(Number.NaN, Infinity, -0, 0.5));
    // Many more rows than the limit (a few of many take the one pass).
    const arbCase = fc.integer({ min: 1, max: 12 }).chain((limit) => fc.tuple(fc.array(value, { minLength: limit * 16 + 1, maxLength: 400 }), fc.constant(limit)));
    fc.assert(
      fc.property(arbCase, fc.constantFrom('asc' as const, 'desc' as const), ([values, limit], direction) => {
        const sort = { by: 'x', direction };
        const all = pickRows(values.length, (i) => values[i]!, sort, undefined);
        expect(pickRows(values.length, (i) => values[i]!, sort, limit)).toEqual(all.slice(0, limit));
      }),
      { numRuns: 500 },
    );
  });

  it('picks from a column of values (NaN for null) as from the function, for few rows of many and for many', () => {
    const value = fc.oneof(fc.integer({ min: -3, max: 3 }), fc.constantFrom(Number.NaN, Infinity, -Infinity, -0, 0.5));
    // A few of many (the one pass over the column), or any number of rows (the whole sort).
    const arbCase = fc
      .tuple(fc.integer({ min: 1, max: 12 }), fc.boolean())
      .chain(([limit, many]) => fc.tuple(fc.array(value, { minLength: many ? limit * 16 + 1 : 0, maxLength: 400 }), fc.constant(limit)));
    fc.assert(
      fc.property(arbCase, fc.constantFrom('asc' as const, 'desc' as const), ([values, limit], direction) => {
        const sort = { by: 'x', direction };
        const all = pickRows(values.length, (i) => values[i]!, sort, undefined);
        expect(pickRowsOfValues(Float64Array.from(values), sort, limit)).toEqual(all.slice(0, limit));
      }),
      { numRuns: 500 },
    );
  });
});

// Random fleets: JobSets in three namespaces on a 5-minute grid.
const arbFleet = fc.array(fc.tuple(arbTimelines(8), fc.constantFrom('a', 'b', 'c')), { minLength: 0, maxLength: 12 }).map((list) =>
  list.map(([tl, namespace], i): Timeline => ({ ...tl, uid: `u${i}`, name: `js${i % 5}`, namespace })),
);

/** A table's rows as arrays of every column's cell (slo: a frame's labels and last values). */
function rowsOf(r: { frames?: FrameJSON[] }): unknown[][] {
  const frames = r.frames!;
  if (frames.length === 1 && frames[0]!.schema.name === 'summary') {
    const values = frames[0]!.data.values;
    return (values[0] ?? []).map((_, i) => values.map((column) => column[i]));
  }
  return frames.filter((f) => f.schema.fields.length > 0).map((f) => [f.schema.name, ...f.data.values.map((column) => column.at(-1))]);
}

describe('over random fleets', () => {
  it('a limited answer is the first N rows of the full sorted answer, with the same row count and totals', () => {
    const arbQuery = fc.oneof(
      fc.record({ queryType: fc.constant('summary'), groupBy: fc.constantFrom('none', 'namespace', 'label:team'), aggregate: fc.constantFrom('pooled', 'mean', 'p90'), by: fc.constantFrom(...FIGURE_NAMES) }),
      fc.record({ queryType: fc.constant('slo'), groupBy: fc.constantFrom('none', 'namespace'), sloAnswer: fc.constant('errorBudget'), period: fc.constant('6h'), by: fc.constantFrom('remainingFraction', 'burnRate', 'consumedSeconds', 'timeToExhaustionSeconds') }),
    );
    fc.assert(
      fc.property(arbFleet, arbQuery, fc.constantFrom('asc', 'desc'), fc.integer({ min: 1, max: 14 }), (fleet, { by, ...q }, direction, limit) => {
        const obs: Observed = { timelines: fleet, horizon: T0 + 16 * 3_600_000, retentionMs: 30 * 86_400_000 };
        const ask = (extra: Record<string, unknown>) => run({ ...q, ...extra }, obs, T0 + 3_600_000, T0 + 8 * 3_600_000);
        const plain = ask({});
        const full = ask({ sort: { by, direction } });
        const limited = ask({ sort: { by, direction }, limit });
        expect([plain.status, full.status, limited.status]).toEqual([200, 200, 200]);
        const fullRows = rowsOf(full);
        expect(rowsOf(limited)).toEqual(fullRows.slice(0, limit));
        // In order: the sorted column's numbers monotone, its nulls after them.
        const sorted = full.frames!.length === 1 && full.frames![0]!.schema.name === 'summary' ? column(full.frames!, by) : full.frames!.map((f) => f.data.values[f.schema.fields.findIndex((x) => x.name === by)]!.at(-1));
        const numbers = sorted.filter((v) => v !== null) as number[];
        expect(sorted.slice(numbers.length).every((v) => v === null)).toBe(true);
        expect(numbers).toEqual([...numbers].sort((x, y) => (direction === 'asc' ? x - y : y - x)));
        // The sort reorders the rows, it does not change them.
        const key = (row: unknown[]) => JSON.stringify(row);
        expect(fullRows.map(key).sort()).toEqual(rowsOf(plain).map(key).sort());
        const metaOf = (r: { frames?: FrameJSON[] }) => r.frames![0]?.schema.meta?.custom as { rows: number; shown: number; totals: unknown } | undefined;
        if (fullRows.length > 0) {
          expect(metaOf(limited)).toEqual({ ...metaOf(full), shown: Math.min(limit, fullRows.length) });
          expect(metaOf(full)!.rows).toBe(fullRows.length);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('an answer narrowed to some columns is the full answer\'s rows with those columns, whatever it is sorted by', () => {
    const arbQuery = fc.oneof(
      fc.record({
        queryType: fc.constant('summary'),
        groupBy: fc.constantFrom('none', 'namespace', 'label:team'),
        aggregate: fc.constantFrom('pooled', 'mean', 'sum'),
        by: fc.constantFrom(...FIGURE_NAMES),
        narrow: fc.subarray([...FIGURE_NAMES], { minLength: 1, maxLength: 3 }),
      }),
      fc.record({
        queryType: fc.constant('slo'),
        groupBy: fc.constantFrom('none', 'namespace'),
        sloAnswer: fc.constant('errorBudget'),
        period: fc.constant('6h'),
        format: fc.constantFrom('table', 'series'),
        by: fc.constantFrom('remainingFraction', 'burnRate', 'consumedSeconds', 'timeToExhaustionSeconds'),
        narrow: fc.subarray(['allowedSeconds', 'consumedSeconds', 'remainingSeconds', 'remainingFraction', 'burnRate', 'timeToExhaustionSeconds'], { minLength: 1, maxLength: 3 }),
      }),
    );
    fc.assert(
      fc.property(arbFleet, arbQuery, fc.constantFrom('asc', 'desc'), fc.integer({ min: 1, max: 14 }), (fleet, { by, narrow, ...q }, direction, limit) => {
        const obs: Observed = { timelines: fleet, horizon: T0 + 16 * 3_600_000, retentionMs: 30 * 86_400_000 };
        const ask = (extra: Record<string, unknown>) => run({ ...q, sort: { by, direction }, limit, ...extra }, obs, T0 + 3_600_000, T0 + 8 * 3_600_000);
        const option = q.queryType === 'summary' ? 'figures' : 'columns';
        const wide = ask({});
        const slim = ask({ [option]: narrow });
        expect([wide.status, slim.status]).toEqual([200, 200]);
        expect(slim.frames!.length).toBe(wide.frames!.length);
        slim.frames!.forEach((f, i) => {
          const w = wide.frames![i]!;
          const names = f.schema.fields.map((x) => x.name);
          // Every field the slim frame has is the wide frame's, schema and values; only the asked numbers are left out.
          const dropped = w.schema.fields.map((x) => x.name).filter((n) => !names.includes(n));
          expect(dropped.every((n) => !(narrow as string[]).includes(n) && w.schema.fields.find((x) => x.name === n)!.type === 'number' && n !== 'jobsets')).toBe(true);
          names.forEach((n, k) => {
            const j = w.schema.fields.findIndex((x) => x.name === n);
            expect([n, f.schema.fields[k], f.data.values[k]]).toEqual([n, w.schema.fields[j], w.data.values[j]]);
          });
          expect(f.schema.name).toBe(w.schema.name);
          // The same rows, row count and (for an slo answer, every column's) totals; a summary's totals are of its returned columns.
          const custom = (x: FrameJSON) => x.schema.meta?.custom as { rows: number; shown: number; totals: Record<string, unknown> } | undefined;
          if (i === 0 && custom(w) !== undefined) {
            expect({ rows: custom(f)!.rows, shown: custom(f)!.shown }).toEqual({ rows: custom(w)!.rows, shown: custom(w)!.shown });
            if (q.queryType === 'slo') expect(custom(f)!.totals).toEqual(custom(w)!.totals);
            else for (const [k, v] of Object.entries(custom(f)!.totals)) expect([k, v]).toEqual([k, custom(w)!.totals[k]]);
          }
        });
      }),
      { numRuns: 150 },
    );
  });
});

describe('a summary table\'s identity columns (read in one visit to each row, issue 21 §4)', () => {
  const arbClustered = fc
    .array(fc.tuple(arbTimelines(6), fc.constantFrom('a', 'b'), fc.option(fc.constantFrom('east', 'west'), { nil: undefined })), { minLength: 0, maxLength: 10 })
    .map((list) => list.map(([tl, namespace, cluster], i): Timeline => ({ ...tl, uid: `u${i}`, name: `js${i % 4}`, namespace, ...(cluster !== undefined ? { cluster } : {}) })));

  it('are each row\'s own cluster, namespace, name and UID, a cluster column only when a row has one ("" for the others), sorted or not', () => {
    fc.assert(
      fc.property(arbClustered, fc.option(fc.record({ by: fc.constantFrom(...FIGURE_NAMES), direction: fc.constantFrom('asc', 'desc') }), { nil: undefined }), (fleet, sort) => {
        const obs: Observed = { timelines: fleet, horizon: T0 + 16 * 3_600_000 };
        const r = run({ queryType: 'summary', groupBy: 'none', figures: ['uptimeRatio'], ...(sort !== undefined ? { sort, limit: 5 } : {}) }, obs, T0 + 3_600_000, T0 + 8 * 3_600_000);
        expect(r.status).toBe(200);
        const frame = r.frames![0]!;
        const names = frame.schema.fields.map((f) => f.name);
        const uids = column(r.frames!, 'uid') as string[];
        const rows = uids.map((uid) => fleet.find((tl) => tl.uid === uid)!);
        const clustered = rows.some((tl) => tl.cluster !== undefined);
        expect(names).toEqual([...(clustered ? ['cluster'] : []), 'namespace', 'name', 'uid', 'state', 'uptimeRatio']);
        if (clustered) expect(column(r.frames!, 'cluster')).toEqual(rows.map((tl) => tl.cluster ?? ''));
        expect(column(r.frames!, 'namespace')).toEqual(rows.map((tl) => tl.namespace));
        expect(column(r.frames!, 'name')).toEqual(rows.map((tl) => tl.name));
        for (const f of frame.schema.fields.filter((x) => x.name !== 'state' && x.type === 'string')) expect(f).toEqual({ name: f.name, type: 'string', typeInfo: { frame: 'string' } });
      }),
      { numRuns: 200 },
    );
  });
});
