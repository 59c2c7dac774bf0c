// `slo` per JobSet name as columns (issue 21 §4): every group's sums, objectives and figures are
// worked out into typed arrays, names read from the sorted selection's runs and closed runs summed
// from the list's rows. Over generated fleets (names recreated, some labelled with an objective,
// runs open and closed), each answer is held, value for value, to each name's sums worked out alone
// the naive way (test/support/arbitraries.ts's oracle, summed over the name's UIDs) and to the
// figures' own definitions (series/slo.ts sloFigures, alertFiring); and the sorted, marked list
// (rows) answers exactly as the same timelines in no order (objects grouped by key).

import fc from 'fast-check';
import { arbTimeline, oracle, T0 } from '../../../../test/support/arbitraries.ts';
import { alertFiring, sloFigures, type SloWindows } from '../../series/slo.ts';
import { lifeOf, lived, livedIn } from '../../series/summary.ts';
import { byNamespaceNameUid, markSorted } from '../../timeline/order.ts';
import type { OpenTimeline, Timeline } from '../../timeline/types.ts';
import { SLO_ANSWER_COLUMNS, SLO_ANSWERS, SLO_INDICATORS } from '../../query/types.ts';
import type { FrameJSON } from '../frame.ts';
import { runQueries } from '../run-request.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const arbMember = fc.record({
  timeline: arbTimeline,
  namespace: fc.constantFrom('a', 'b'),
  name: fc.constantFrom('x', 'y', 'z'),
  objective: fc.constantFrom(null, '0.9', '0.99', 'high'),
});

/** A fleet of JobSet names recreated under their names, sorted as the engine lists them. */
const arbFleet = fc.array(arbMember, { minLength: 1, maxLength: 12 }).map((members) =>
  members
    .map(({ timeline, namespace, name, objective }, i): OpenTimeline => ({
      ...timeline,
      uid: `u${String(i).padStart(2, '0')}`,
      namespace,
      name,
      labels: objective === null ? {} : { 'upness.dev/objective': objective },
    }))
    .sort(byNamespaceNameUid),
);

const arbQuery = fc.record({
  periodMs: fc.integer({ min: HOUR, max: 2 * DAY }),
  burn: fc.double({ min: 0, max: 1, noNaN: true }),
  short: fc.double({ min: 0, max: 1, noNaN: true }),
  objective: fc.double({ min: 0.5, max: 0.999, noNaN: true }),
  sloAnswer: fc.constantFrom(...SLO_ANSWERS),
  indicator: fc.constantFrom(...SLO_INDICATORS),
  step: fc.option(fc.integer({ min: HOUR, max: 12 * HOUR })),
  budgetThreshold: fc.constantFrom(0.001, 0.02, 0.5),
});

const columnsOf = (f: FrameJSON): Record<string, unknown[]> => Object.fromEntries(f.schema.fields.map((x, i) => [x.name, f.data.values[i]!]));

describe('slo per JobSet name as columns, over generated fleets (property)', () => {
  it("equal each name's sums worked out alone and the figures' definitions, from the sorted list's rows and from objects alike", () => {
    fc.assert(
      fc.property(
        arbFleet,
        arbQuery,
        fc.integer({ min: 0, max: 100_000_000 }),
        fc.integer({ min: 0, max: 100_000_000 }),
        fc.integer({ min: 0, max: 150_000_000 }),
        (fleet, q, fromAt, length, h) => {
          const horizon = T0 + h;
          const from = T0 + fromAt;
          const to = from + length;
          const burnWindowMs = Math.max(1, Math.round(q.periodMs * q.burn));
          const windows: SloWindows = { periodMs: q.periodMs, burnWindowMs, shortWindowMs: Math.max(1, Math.round(burnWindowMs * q.short)) };
          const query = {
            refId: 'A',
            queryType: 'slo',
            sloAnswer: q.sloAnswer,
            indicator: q.indicator,
            objective: q.objective,
            budgetThreshold: q.budgetThreshold,
            period: `${windows.periodMs}ms`,
            burnWindow: `${windows.burnWindowMs}ms`,
            shortWindow: `${windows.shortWindowMs}ms`,
            groupBy: 'none',
            ...(q.step === null ? { window: 'range' } : { window: 'step', intervalMs: q.step, maxDataPoints: 30 }),
          };
          const ask = (timelines: readonly Timeline[], extra: Record<string, unknown>) => {
            const r = runQueries({ from: String(from), to: String(to), queries: [{ ...query, ...extra }] }, { timelines, horizon, index: null, retentionMs: 30 * DAY }, horizon).results.A!;
            expect([r.status, r.error]).toEqual([200, undefined]);
            return r.frames!;
          };
          const sorted = markSorted([...fleet]);
          const [table] = ask(sorted, { format: 'table' });
          if (table === undefined) {
            // Nothing selected: no UID lived in the last point's period at least.
            expect(fleet.filter((tl) => livedIn(tl, horizon, to - windows.periodMs, to))).toEqual([]);
            return;
          }
          const c = columnsOf(table);
          const times = c.time as number[];
          const points = [...new Set(times)].sort((x, y) => x - y);
          const p = points.length;
          // Every name with a UID that lived from the first point's period to `to`, in (namespace, name) order, a row per point.
          const names = [...new Set(fleet.filter((tl) => livedIn(tl, horizon, Math.min(from, points[0]! - windows.periodMs), to)).map((tl) => `${tl.namespace}/${tl.name}`))];
          expect(names.flatMap((n) => points.map(() => n))).toEqual((c.namespace as string[]).map((ns, i) => `${ns}/${(c.jobset as string[])[i]}`));
          names.forEach((key, g) => {
            const members = fleet.filter((tl) => `${tl.namespace}/${tl.name}` === key);
            points.forEach((t, k) => {
              const sum = (x: number, good: boolean): number =>
                members.reduce((acc, tl) => {
                  const d = oracle(tl, horizon, t - x, t).durations;
                  const bad = q.indicator === 'uptime' ? d.provisioning + d.down : d.provisioning + d.down + d.suspended + d.unknown;
                  return acc + (good ? d.up : bad);
                }, 0);
              const totals = {
                periodUp: sum(windows.periodMs, true),
                periodDown: sum(windows.periodMs, false),
                burnUp: sum(windows.burnWindowMs, true),
                burnDown: sum(windows.burnWindowMs, false),
                shortUp: sum(windows.shortWindowMs, true),
                shortDown: sum(windows.shortWindowMs, false),
              };
              // The label of the newest UID that lived in the point's period, else the query's.
              const newest = [...members].sort((x, y) => y.createdAt - x.createdAt).find((tl) => lived(lifeOf(tl, horizon), t - windows.periodMs, t));
              const label = newest === undefined ? undefined : newest.labels['upness.dev/objective'];
              const objective = label === '0.9' || label === '0.99' ? Number(label) : q.objective;
              const figures = sloFigures(totals, objective, windows);
              const expected: Record<string, number | null> = { ...figures, alert: alertFiring(figures, totals, q.budgetThreshold, windows) ? 1 : 0 };
              for (const column of SLO_ANSWER_COLUMNS[q.sloAnswer]) {
                const v = expected[column]!;
                expect([key, t, column, c[column]![g * p + k]]).toEqual([key, t, column, v !== null && Number.isFinite(v) ? v : null]);
              }
            });
          });
          // The frames per name carry the table's values; the same timelines in no order (grouped by key, no rows) answer the same.
          const frames = ask(sorted, {});
          expect(frames.map((f) => f.schema.name)).toEqual(names);
          for (const column of SLO_ANSWER_COLUMNS[q.sloAnswer]) expect(frames.flatMap((f) => columnsOf(f)[column]!)).toEqual(c[column]);
          // Names in reverse order, each name's UIDs in the list's (which UID is newest on a tie of createdAt is the list's order).
          const shuffled = [...fleet].sort((x, y) => (x.namespace === y.namespace && x.name === y.name ? byNamespaceNameUid(x, y) : byNamespaceNameUid(y, x)));
          expect(ask(shuffled, { format: 'table' })).toEqual([table]);
          expect(ask(shuffled, {})).toEqual(frames);
          // Sorted and limited by the answer's first column: the rows shown are rows of the whole table, and it counts them all.
          const by = SLO_ANSWER_COLUMNS[q.sloAnswer][0];
          const [shaped] = ask(sorted, { format: 'table', sort: { by, direction: 'asc' }, limit: 2 });
          const s = columnsOf(shaped!);
          expect((shaped!.schema.meta!.custom as { rows: number }).rows).toBe(names.length);
          (s.jobset as string[]).forEach((jobset, i) => {
            const g = names.indexOf(`${(s.namespace as string[])[i]}/${jobset}`);
            expect(s[by]![i]).toEqual(c[by]![g * p + (i % p)]);
          });
        },
      ),
      { numRuns: 300 },
    );
  });
});
