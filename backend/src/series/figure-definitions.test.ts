// The figure definitions: complete, honest about what they read and whether they add up, and the
// fleet index's pooled value of a fleet of one JobSet is that JobSet's own value, for every figure.

import fc from 'fast-check';
import { arbTimeline, T0 } from '../../../test/support/arbitraries.ts';
import { METRICS, unitOf, USAGE_DEFINITIONS, USAGE_METRICS } from '../query/types.ts';
import { definitionOf, FIGURE_DEFINITIONS, FIGURE_GROUPS, FIGURES, type FigureDefinition, type FigureName } from './figure-definitions.ts';
import { figures, figureValue } from './figures.ts';
import { FleetIndex } from './fleet-index.ts';
import { livedIn } from './summary.ts';
import { COLUMN_NAMES, FIELDS } from './totals-layout.ts';

const definitions = Object.entries(FIGURE_DEFINITIONS) as [FigureName, FigureDefinition][];

/** A totals vector such as a window or a fleet gives: whole milliseconds and counts, zeros often. */
const arbTotals = fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 1e10 })), { minLength: FIELDS, maxLength: FIELDS }).map((t) => Float64Array.from(t));
const arbFirstUp = fc.option(fc.integer({ min: 0, max: 1e7 }));

describe('figure definitions', () => {
  it.each(definitions)('%s has a label, a unit, a group, a description and the columns it reads', (_name, d) => {
    expect(d.label.trim()).not.toBe('');
    expect(d.description.trim()).not.toBe('');
    expect(['s', 'percentunit', 'none']).toContain(d.unit);
    expect(FIGURE_GROUPS).toContain(d.group);
    expect(typeof d.additive).toBe('boolean');
    for (const c of d.columns) expect(c >= 0 && c < FIELDS && Number.isInteger(c)).toBe(true);
    // A figure reads totals, or it is the time to first up: never neither.
    expect(d.columns.length > 0 || d.firstUp === true).toBe(true);
  });

  it('are the query model\'s figures, in order, with their units', () => {
    // Then the resource usage metrics (usage/metrics.ts), series only.
    expect(METRICS).toEqual([...FIGURES, 'up', ...USAGE_METRICS]);
    for (const m of USAGE_METRICS) expect(unitOf(m)).toBe(USAGE_DEFINITIONS[m].unit);
    for (const f of FIGURES) expect(unitOf(f)).toBe(FIGURE_DEFINITIONS[f].unit);
    expect(new Set(FIGURES.map((f) => FIGURE_DEFINITIONS[f].label)).size).toBe(FIGURES.length);
    const gauges = FIGURES.flatMap((f) => definitionOf(f).gauge?.name ?? []);
    expect(new Set(gauges).size).toBe(gauges.length);
  });

  it.each(definitions)('%s reads only the columns it declares', (_name, d) => {
    fc.assert(
      fc.property(arbTotals, arbTotals, arbFirstUp, (totals, other, firstUp) => {
        // The declared columns kept, every other one changed: the value cannot move.
        const changed = Float64Array.from(other);
        for (const c of d.columns) changed[c] = totals[c]!;
        expect(d.value(changed, 0, firstUp)).toBe(d.value(totals, 0, firstUp));
        // And at an offset, as the series read a vector of windows.
        const two = new Float64Array(2 * FIELDS);
        two.set(totals, FIELDS);
        expect(d.value(two, FIELDS, firstUp)).toBe(d.value(totals, 0, firstUp));
      }),
      { numRuns: 200 },
    );
    // Every declared column matters somewhere (a list that says more than the value reads misleads).
    for (const c of d.columns) {
      const moves = fc.sample(fc.tuple(arbTotals, fc.integer({ min: 1, max: 1e9 })), { numRuns: 300, seed: c }).some(([t, delta]) => {
        const changed = Float64Array.from(t);
        changed[c]! += delta;
        return d.value(changed, 0, null) !== d.value(t, 0, null);
      });
      expect([COLUMN_NAMES[c], moves]).toEqual([COLUMN_NAMES[c], true]);
    }
  });

  it.each(definitions.filter(([, d]) => d.additive))('%s is additive: its value of summed totals is the sum of its values', (_name, d) => {
    fc.assert(
      fc.property(arbTotals, arbTotals, (a, b) => {
        const sum = a.map((x, i) => x + b[i]!);
        expect(d.value(sum, 0, null)!).toBeCloseTo(d.value(a, 0, null)! + d.value(b, 0, null)!, 3);
      }),
      { numRuns: 200 },
    );
  });

  it('the fleet index pools a fleet of one JobSet to its own value, for every figure', () => {
    fc.assert(
      fc.property(arbTimeline, fc.integer({ min: -1_000_000, max: 120_000_000 }), fc.nat(60_000_000), fc.nat(10_000_000), (tl, a, length, beyond) => {
        const index = new FleetIndex();
        index.grew(tl);
        const horizon = tl.transitions[tl.transitions.length - 1]!.at + beyond;
        const from = T0 + a;
        const to = from + length;
        const partitions = index.partitions();
        expect(index.covers(partitions, horizon)).toBe(true);
        const pooled = index.window(partitions, horizon, from, to);
        const own = figures(tl, horizon, from, to);
        // A pooled value is over the JobSets that lived in the window; this one did or did not.
        expect(pooled.count).toBe(livedIn(tl, horizon, from, to) ? 1 : 0);
        if (pooled.count === 0) return;
        for (const f of FIGURES) expect([f, figureValue(pooled.totals, 0, f, pooled.timeToFirstUpSeconds)]).toEqual([f, own[f]]);
      }),
      { numRuns: 1000 },
    );
  });
});
