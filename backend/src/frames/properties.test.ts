// Properties of every number a query gives, over generated fleets, through the query stage as the
// API runs it, with the fleet index and without (which must agree): for every aggregate and every window kind, a
// point computed inside a long range equals the same window asked alone (for `cumulative`, the
// range [from, t] asked as a `range` window), so a point's value never depends on how long the
// dashboard's range is; a cumulative series begins empty at `from`; a `range` point, a summary
// and a fleet distribution over one range agree.

import fc from 'fast-check';
import { timelines as arbTimelines, T0 } from '../../../test/support/arbitraries.ts';
import { AGGREGATES } from '../series/fleet.ts';
import { ADDITIVE_FIGURES, FIGURE_NAMES, type FigureName } from '../series/figures.ts';
import { FleetIndex } from '../series/fleet-index.ts';
import { transitionsOf, type Timeline } from '../timeline/types.ts';
import type { FrameJSON } from './frame.ts';
import { runQueries, type Observed } from './run-request.ts';

const NAMESPACES = ['a', 'b', 'c'];
/** Times on a 5-minute grid, so that windows often begin or end exactly on a creation, an event or an end. */
const GRID = 300_000;
const grid = (t: number): number => T0 + Math.round((t - T0) / GRID) * GRID;

const arbFleet = fc
  .array(fc.tuple(arbTimelines(10), fc.constantFrom(...NAMESPACES)), { minLength: 1, maxLength: 8 })
  .map((list) =>
    list.map(([tl, namespace], i): Timeline => {
      const transitions = transitionsOf(tl).map((t) => ({ ...t, at: grid(t.at) }));
      return { ...tl, uid: `u${i}`, name: `js${i}`, namespace, createdAt: transitions[0]!.at, transitions };
    }),
  );

/** A range and its steps: from on the grid or off it, 1 to 12 steps of 5 to 60 minutes. */
const arbRange = fc.record({
  from: fc.integer({ min: -12, max: 150 }).map((k) => T0 + k * GRID),
  offGrid: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: GRID - 1 })),
  stepMinutes: fc.constantFrom(5, 10, 15, 30, 60),
  steps: fc.integer({ min: 0, max: 12 }),
  rollingMinutes: fc.constantFrom(5, 20, 60, 90, 180),
  horizonAfter: fc.integer({ min: -40, max: 40 }).map((k) => k * GRID),
});

const METRICS = FIGURE_NAMES;
const WINDOWS = ['step', 'rolling', 'cumulative', 'range'] as const;
type Window = (typeof WINDOWS)[number];

/** A group's value in a frame, keyed by its labels. */
function values(frames: readonly FrameJSON[]): Map<string, { time: number[]; value: (number | null)[] }> {
  return new Map(
    frames.map((f) => [JSON.stringify(f.schema.fields[1]!.labels ?? {}), { time: f.data.values[0] as number[], value: f.data.values[1] as (number | null)[] }]),
  );
}

/**
 * Runs a query as the API does, once with the fleet index and once without: the two must give the
 * same frames (the index answers what it can; the per-JobSet path is the reference).
 */
function run(observed: Observed, from: number, to: number, query: Record<string, unknown>): FrameJSON[] {
  const body = { from: String(from), to: String(to), queries: [{ refId: 'A', maxDataPoints: 1000, ...query }] };
  const [fast, slow] = [observed, { ...observed, index: null }].map((o) => {
    const result = runQueries(body, o, o.horizon).results.A!;
    if (result.status !== 200) throw new Error(`${JSON.stringify(query)}: ${result.error}`);
    return result.frames!;
  });
  sameFrames(fast, slow, `${JSON.stringify(query)} over ${from}–${to}, fleet index against per JobSet`);
  return slow!;
}

function sameFrames(a: unknown, b: unknown, what: string): void {
  if (typeof a === 'number' && typeof b === 'number') return same(a, b, what);
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') {
    if (a !== b) throw new Error(`${what}: ${String(a)} ≠ ${String(b)}`);
    return;
  }
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of keys) sameFrames((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${what}.${k}`);
}

/** Equal, or both null; numbers to 1e-9 relative (a mean may be summed in another order). */
function same(a: number | null | undefined, b: number | null | undefined, what: string): void {
  if ((a ?? null) === null || (b ?? null) === null) {
    if ((a ?? null) !== (b ?? null)) throw new Error(`${what}: ${a} ≠ ${b}`);
    return;
  }
  if (Math.abs(a! - b!) > 1e-9 * Math.max(1, Math.abs(b!))) throw new Error(`${what}: ${a} ≠ ${b}`);
}

/** What a group whose JobSets did not live in a window shows there: a sum of nothing is 0, a mean of nothing is none. */
function emptyValue(metric: FigureName, aggregate: string): number | null {
  return (aggregate === 'sum' || aggregate === 'pooled') && ADDITIVE_FIGURES.includes(metric) ? 0 : null;
}

interface Case {
  fleet: Timeline[];
  range: typeof arbRange extends fc.Arbitrary<infer T> ? T : never;
  metric: FigureName;
  groupBy: string;
}

function observedOf(fleet: readonly Timeline[], horizonAfter: number): Observed {
  const last = Math.max(...fleet.map((tl) => transitionsOf(tl)[transitionsOf(tl).length - 1]!.at));
  const horizon = last + horizonAfter;
  // The horizon is never before an observed transition.
  const observedHorizon = Math.max(horizon, last);
  const index = new FleetIndex();
  for (const tl of fleet) index.grew(tl);
  return { timelines: fleet, horizon: observedHorizon, index };
}

const arbCase = fc.record({
  fleet: arbFleet,
  range: arbRange,
  metric: fc.constantFrom(...METRICS),
  groupBy: fc.constantFrom('all', 'namespace', 'none'),
});

describe('every point of every series, over generated fleets', () => {
  it('equals its window asked alone, for every aggregate and window kind', () => {
    fc.assert(
      fc.property(arbCase, ({ fleet, range, metric: drawn, groupBy }: Case) => {
        const observed = observedOf(fleet, range.horizonAfter);
        const stepMs = range.stepMinutes * 60_000;
        const rollingMs = range.rollingMinutes * 60_000;
        const from = range.from + range.offGrid;
        const to = from + range.steps * stepMs;
        // Time to first up, the one figure that is not a window's total, in every run besides the one drawn.
        for (const [metric, aggregate] of [...new Set([drawn, 'timeToFirstUpSeconds' as const])].flatMap((m) => AGGREGATES.map((a) => [m, a] as const))) {
          for (const window of WINDOWS) {
            const query = { queryType: 'series', metric, groupBy, aggregate, window, rolling: `${range.rollingMinutes}m`, intervalMs: stepMs };
            const long = values(run(observed, from, to, query));
            const windowOf = (t: number): [number, number] => {
              const starts: Record<Window, number> = { step: t - stepMs, rolling: t - rollingMs, cumulative: from, range: from };
              return [starts[window], t];
            };
            // Every point of every group, against that window asked alone as a `range` query.
            const points = new Set<number>();
            for (const g of long.values()) for (const t of g.time) points.add(t);
            for (const t of points) {
              const [a, b] = windowOf(t);
              const alone = values(run(observed, a, b, { ...query, window: 'range' }));
              for (const [labels, g] of long) {
                const k = g.time.indexOf(t);
                const expected = alone.has(labels) ? alone.get(labels)!.value[0] : emptyValue(metric, aggregate);
                same(g.value[k], expected, `${aggregate} ${window} ${labels} at ${t} (window ${a}–${b})`);
              }
              // And no group is in the window alone that the long range lacks.
              for (const labels of alone.keys()) if (!long.has(labels)) throw new Error(`${aggregate} ${window}: ${labels} only alone`);
            }
          }
        }
      }),
      { numRuns: 150 },
    );
  });

  it('a cumulative series begins empty at `from`: 0 for sums and counts, none for means and ratios', () => {
    fc.assert(
      fc.property(arbCase, ({ fleet, range, metric, groupBy }: Case) => {
        const observed = observedOf(fleet, range.horizonAfter);
        const stepMs = range.stepMinutes * 60_000;
        // `from` on a step, so that the first point is at `from`.
        const from = Math.ceil(range.from / stepMs) * stepMs;
        const to = from + range.steps * stepMs;
        for (const aggregate of AGGREGATES) {
          const frames = run(observed, from, to, { queryType: 'series', metric, groupBy, aggregate, window: 'cumulative', intervalMs: stepMs });
          for (const [labels, g] of values(frames)) {
            expect(g.time[0]).toBe(from);
            const first = g.value[0]!;
            const what = `${aggregate} ${metric} ${labels}`;
            if (ADDITIVE_FIGURES.includes(metric)) {
              // 0, or none when no JobSet of the group was alive at `from` and the aggregate is a mean, a min…
              if (first !== 0 && !(first === null && emptyValue(metric, aggregate) === null)) throw new Error(`${what}: ${first}`);
            } else if (metric !== 'timeToFirstUpSeconds') {
              // Time to first up is as known at each point; the rest are ratios and means over nothing.
              if (first !== null) throw new Error(`${what}: ${first}`);
            }
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('a range window, a summary and a fleet distribution over one range agree', () => {
    fc.assert(
      fc.property(arbCase, ({ fleet, range, metric, groupBy }: Case) => {
        const observed = observedOf(fleet, range.horizonAfter);
        const from = range.from + range.offGrid;
        const to = from + range.steps * range.stepMinutes * 60_000;
        const fleetTable = run(observed, from, to, { queryType: 'fleet', metric, groupBy })[0]!;
        const columns = Object.fromEntries(fleetTable.schema.fields.map((f, i) => [f.name, fleetTable.data.values[i]!]));
        const dimension = fleetTable.schema.fields[0]!.name === 'jobsets' ? null : fleetTable.schema.fields[0]!.name;
        for (const aggregate of AGGREGATES) {
          const series = values(run(observed, from, to, { queryType: 'series', metric, groupBy, aggregate, window: 'range' }));
          const summary = run(observed, from, to, { queryType: 'summary', groupBy, aggregate, figures: [metric] })[0]!;
          const s = Object.fromEntries(summary.schema.fields.map((f, i) => [f.name, summary.data.values[i]!]));
          const keys = [...series.keys()];
          if (groupBy === 'none') {
            // One row per JobSet that lived in the range, as /api/v1/jobsets lists them.
            expect((s.uid as string[]).map((uid) => keys.find((k) => k.includes(`"uid":"${uid}"`)))).toEqual(keys);
            (s.uid as string[]).forEach((uid, i) => same((s[metric] as (number | null)[])[i], series.get(keys.find((k) => k.includes(`"uid":"${uid}"`))!)!.value[0], `${aggregate} ${uid}`));
          } else {
            expect((s.jobsets as unknown[]).length).toBe(keys.length);
            keys.forEach((labels, i) => same((s[metric] as (number | null)[])[i], series.get(labels)!.value[0], `summary ${aggregate} ${labels}`));
          }
          // The fleet distribution (groupBy none means the whole fleet there) is the series' aggregate.
          if (groupBy !== 'none' && aggregate !== 'sum' && aggregate !== 'pooled') {
            keys.forEach((labels, i) => {
              if (dimension !== null) expect(columns[dimension]![i]).toBe(JSON.parse(labels)[dimension]);
              same((columns[aggregate] as (number | null)[])[i], series.get(labels)!.value[0], `fleet ${aggregate} ${labels}`);
            });
          }
        }
      }),
      { numRuns: 200 },
    );
  });
});
