// The per-JobSet families of /metrics, written as text (prom-text.ts), against prom-client's own
// writing of the same samples worked out the plain way: every timeline held asked whether it is
// published, every timeline of the list summed for a published name. Over generated fleets with
// recreated names, a second cluster, and label values that need escaping; the engine's sorted list
// (read on its run columns, a name's runs found around its published ones) and the same timelines
// in no order must both write the reference's samples, family by family.

import fc from 'fast-check';
import client from 'prom-client';
import { namedFleet, timesAround } from '../../../test/support/arbitraries.ts';
import { timelineEvents } from '../series/events.ts';
import { definitionOf, FIGURES } from '../series/figure-definitions.ts';
import { figuresFromTotals, firstUp, stateAt, timeToFirstUpAt } from '../series/figures.ts';
import { INTERRUPTED_UP, INTERRUPTION_DOWN, PROVISIONING, RECOVERED_DOWN, SUSPENDED, UNKNOWN, UP, windowTotals } from '../series/totals.ts';
import { byNamespaceNameUid, markSorted } from '../timeline/order.ts';
import { closedAt, type Timeline } from '../timeline/types.ts';
import { jobSetMetricsText } from './jobset-metrics.ts';
import { Family, labelValue, sampleValue } from './prom-text.ts';

/** Each family's HELP and TYPE lines in order, and its samples as a set (prom-client keeps its own order of label sets). */
function families(text: string): { headers: string[]; samples: Map<string, string[]> } {
  const headers: string[] = [];
  const samples = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('#')) {
      headers.push(line);
      continue;
    }
    const name = line.slice(0, line.search(/[{ ]/));
    samples.set(name, [...(samples.get(name) ?? []), line]);
  }
  for (const lines of samples.values()) lines.sort();
  return { headers, samples };
}

/**
 * The families as the service wrote them through prom-client (before they were written directly),
 * the plain way: the names and helps read from `written`'s HELP lines (the family list is not under test here).
 */
async function reference(written: string, list: readonly Timeline[], horizon: number, t: number, graceMs: number): Promise<string> {
  const registry = new client.Registry();
  const helps = new Map<string, string>();
  for (const line of written.split('\n')) {
    const help = /^# HELP (\S+) (.*)$/.exec(line);
    if (help !== null) helps.set(help[1]!, help[2]!);
  }
  const jobset = new Map<string, client.Gauge>();
  const slo = new Map<string, client.Counter>();
  for (const [name, help] of helps) {
    if (name.endsWith('_seconds_total')) slo.set(name, new client.Counter({ name, help, labelNames: ['jobset_name', 'jobset_namespace', 'cluster'], registers: [registry] }));
    else jobset.set(name, new client.Gauge({ name, help, labelNames: ['jobset_name', 'jobset_namespace', 'jobset_uid', 'tpu_topology', 'tpu_accelerator'], registers: [registry] }));
  }
  const published = (tl: Timeline): boolean => !(closedAt(tl) < t - graceMs);
  for (const tl of list) {
    if (!published(tl)) continue;
    const state = stateAt(tl, t);
    if (state === null) continue;
    const labels = { jobset_name: tl.name, jobset_namespace: tl.namespace, jobset_uid: tl.uid, tpu_topology: tl.topology ?? '', tpu_accelerator: tl.accelerator ?? '' };
    const totals = windowTotals(tl, horizon, tl.createdAt, t);
    const f = figuresFromTotals(totals, timeToFirstUpAt(firstUp(tl), t));
    jobset.get('megamon_jobset_up')!.set(labels, state === 'up' ? 1 : 0);
    for (const figure of FIGURES) {
      const gauge = definitionOf(figure).gauge;
      if (gauge !== undefined && f[figure] !== null) jobset.get(gauge.name)!.set(labels, f[figure]);
    }
    jobset.get('megamon_jobset_down_time_between_recovery_seconds')!.set(labels, totals[RECOVERED_DOWN]! / 1000);
    jobset.get('megamon_jobset_up_time_between_interruption_seconds')!.set(labels, totals[INTERRUPTED_UP]! / 1000);
    const events = timelineEvents(tl);
    const recovery = events.filter((e) => e.kind === 'recovery').at(-1);
    const interruption = events.filter((e) => e.kind !== 'recovery').at(-1);
    if (recovery !== undefined) jobset.get('megamon_jobset_down_time_between_recovery_latest_seconds')!.set(labels, (recovery.at - recovery.periodStart) / 1000);
    if (interruption !== undefined) jobset.get('megamon_jobset_up_time_between_interruption_latest_seconds')!.set(labels, (interruption.at - interruption.periodStart) / 1000);
  }
  // A name is published when one of its timelines created by t is; its sums are over all of them created by t, in the list's order.
  const key = (tl: Timeline): string => JSON.stringify([tl.cluster ?? '', tl.namespace, tl.name]);
  const names = new Set(list.filter((tl) => tl.createdAt <= t && published(tl)).map(key));
  const sums = new Map<string, { labels: Record<string, string>; up: number; down: number; other: number }>();
  for (const tl of list) {
    if (tl.createdAt > t || !names.has(key(tl))) continue;
    const totals = windowTotals(tl, horizon, tl.createdAt, t);
    const sum = sums.get(key(tl)) ?? { labels: { jobset_name: tl.name, jobset_namespace: tl.namespace, cluster: tl.cluster ?? '' }, up: 0, down: 0, other: 0 };
    sums.set(key(tl), sum);
    sum.up += totals[UP]!;
    sum.down += totals[PROVISIONING]! + totals[INTERRUPTION_DOWN]!;
    sum.other += totals[SUSPENDED]! + totals[UNKNOWN]!;
  }
  for (const { labels, up, down, other } of sums.values()) {
    slo.get('upness_jobset_up_seconds_total')!.inc(labels, up / 1000);
    slo.get('upness_jobset_down_seconds_total')!.inc(labels, down / 1000);
    slo.get('upness_jobset_counted_seconds_total')!.inc(labels, (up + down) / 1000);
    slo.get('upness_jobset_wall_seconds_total')!.inc(labels, (up + down + other) / 1000);
  }
  return registry.metrics();
}

/** Label values a JobSet's annotations may hold: quotes, backslashes, newlines, letters beyond ASCII. */
const ODD_VALUES = [null, '2x2x4', 'say "hi"', 'back\\slash', 'two\nlines', 'tpu-v5ü', '\\"\n'];

describe('the per-JobSet families of /metrics', () => {
  it("write prom-client's samples of the same figures, for the sorted list and in no order, over 300 generated fleets", async () => {
    let sampled = 0;
    let sloSampled = 0;
    await fc.assert(
      fc.asyncProperty(
        namedFleet(40, 3).chain((fleet) =>
          fc.tuple(
            fc.constant(fleet),
            fc.array(fc.tuple(fc.constantFrom(...ODD_VALUES), fc.constantFrom(...ODD_VALUES)), { minLength: fleet.length, maxLength: fleet.length }),
            timesAround(fleet),
            fc.integer({ min: -3_600_000, max: 3_600_000 }),
            fc.constantFrom(0, 1, 600_000, 3_600_000, 50_000_000),
          ),
        ),
        async ([fleet, odd, t, toHorizon, graceMs]) => {
          const runs = fleet.map((tl, i) => ({ ...tl, topology: odd[i]![0], accelerator: odd[i]![1] }));
          const sorted = markSorted([...runs].sort(byNamespaceNameUid));
          const horizon = t + toHorizon;
          const text = jobSetMetricsText(sorted, horizon, t, graceMs);
          const unordered = jobSetMetricsText([...runs].reverse(), horizon, t, graceMs);
          const expected = families(await reference(text, sorted, horizon, t, graceMs));
          const got = families(text);
          expect(got.headers).toEqual(expected.headers);
          expect(got.samples).toEqual(expected.samples);
          expect(families(unordered)).toEqual(expected);
          if (got.samples.size > 0) sampled++;
          if (got.samples.has('upness_jobset_up_seconds_total')) sloSampled++;
        },
      ),
      { numRuns: 300, seed: 21 },
    );
    // The fleets published samples (not only empty families).
    expect(sampled).toBeGreaterThan(150);
    expect(sloSampled).toBeGreaterThan(150);
  });
});

describe('the text format', () => {
  it("writes a label's value and a sample's value as prom-client does", async () => {
    const values = [0, -0, 1, 0.1 + 0.2, 1e21, 1e-7, -12.5, NaN, Infinity, -Infinity, 2 ** 53 + 2];
    const labels = ['', 'plain', 'say "hi"', 'back\\slash', 'two\nlines', '\\"\n', 'ü€😀'];
    const registry = new client.Registry();
    const gauge = new client.Gauge({ name: 'g', help: 'a help with a back\\slash\nand a newline', labelNames: ['l'], registers: [registry] });
    const family = new Family('g', 'a help with a back\\slash\nand a newline', 'gauge');
    labels.forEach((l, i) => {
      gauge.set({ l }, values[i % values.length]!);
      family.add(`{l="${labelValue(l)}"}`, values[i % values.length]!);
    });
    for (const v of values.slice(labels.length)) {
      gauge.set({ l: String(v) }, v);
      family.add(`{l="${labelValue(String(v))}"}`, v);
    }
    expect(family.text()).toBe(await registry.metrics().then((text) => text.replace(/\n$/, '')));
    expect(sampleValue(NaN)).toBe('Nan');
    expect(labelValue('a"b\\c\nd')).toBe('a\\"b\\\\c\\nd');
  });

  it('writes HELP and TYPE lines alone for a family without samples, as prom-client does', async () => {
    const registry = new client.Registry();
    new client.Counter({ name: 'c_total', help: 'none yet', labelNames: ['l'], registers: [registry] });
    expect(new Family('c_total', 'none yet', 'counter').text()).toBe((await registry.metrics()).replace(/\n$/, ''));
  });
});
