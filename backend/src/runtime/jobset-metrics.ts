// The per-JobSet metrics: MegaMon's gauges under MegaMon's names and labels (so dashboards built for
// MegaMon work unchanged against a Prometheus that scrapes Upness), Upness's additions, and the
// counters SLO tools read, computed from the served view's timelines at scrape. Written here in
// Prometheus's text format rather than through prom-client's label-set objects: at 10,000 open
// JobSets a scrape is ~184,000 samples, and hashing each label set and formatting each sample's
// labels took ~2.5 s of the service's only thread a scrape. A JobSet's labels are written once for
// all its families.

import { timelineEvents } from '../series/events.ts';
import { definitionOf, FIGURES } from '../series/figure-definitions.ts';
import { figuresFromTotals, firstUp, stateAt, timeToFirstUpAt } from '../series/figures.ts';
import { OPEN, rowEnd, runColumns } from '../series/run-columns.ts';
import { INTERRUPTED_UP, INTERRUPTION_DOWN, PROVISIONING, RECOVERED_DOWN, SUSPENDED, UNKNOWN, UP, windowTotals } from '../series/totals.ts';
import { isMarkedSorted } from '../timeline/order.ts';
import { closedAt, type Timeline } from '../timeline/types.ts';
import { Family, labelValue } from './prom-text.ts';
import type { ServedView } from './served-view.ts';

/** A JobSet's labels, as written in each of its samples. */
function jobsetLabels(tl: Timeline): string {
  return `{jobset_name="${labelValue(tl.name)}",jobset_namespace="${labelValue(tl.namespace)}",jobset_uid="${labelValue(tl.uid)}",tpu_topology="${labelValue(tl.topology ?? '')}",tpu_accelerator="${labelValue(tl.accelerator ?? '')}"}`;
}

/** The lengths of the last down period that ended in a recovery and of the last up period that ended in an interruption. */
function latestPeriods(tl: Timeline): { recovered: number | null; interrupted: number | null } {
  let recovered: number | null = null;
  let interrupted: number | null = null;
  for (const e of timelineEvents(tl)) {
    if (e.kind === 'recovery') recovered = (e.at - e.periodStart) / 1000;
    else interrupted = (e.at - e.periodStart) / 1000;
  }
  return { recovered, interrupted };
}

export interface JobSetMetricsOptions {
  view: ServedView;
  now: () => number;
  /** How long a terminal JobSet's final figures stay published, ms. */
  terminalGraceMs: number;
}

/**
 * The per-JobSet families' text at each call (a scrape): every figure over each JobSet's whole life
 * up to now, and the SLO counters per JobSet name, all at one instant.
 */
export function jobSetMetrics({ view, now, terminalGraceMs }: JobSetMetricsOptions): () => string {
  return () => {
    const t = now();
    return jobSetMetricsText(view.timelines(), view.horizon(t), t, terminalGraceMs);
  };
}

/** jobSetMetrics' text of `list` at `t` (the horizon: where open runs end). */
export function jobSetMetricsText(list: readonly Timeline[], horizon: number, t: number, terminalGraceMs: number): string {
  // MegaMon's per-JobSet family (and Upness's additions), each figure over the JobSet's whole life up to `t`.
  const up = new Family('megamon_jobset_up', '1 when the JobSet is up, else 0.', 'gauge');
  // Each figure that has a gauge in its definition (series/figure-definitions.ts), in their order.
  const figureGauges = FIGURES.flatMap((figure) => {
    const named = definitionOf(figure).gauge;
    return named === undefined ? [] : [{ figure, gauge: new Family(named.name, named.help, 'gauge') }];
  });
  // MegaMon's sums and latest lengths of the periods behind MTTR and MTBI: not figures of their own.
  const recoveredDown = new Family('megamon_jobset_down_time_between_recovery_seconds', 'Total length of the down periods that ended in a recovery.', 'gauge');
  const recoveredDownLatest = new Family('megamon_jobset_down_time_between_recovery_latest_seconds', 'Length of the latest down period that ended in a recovery.', 'gauge');
  const interruptedUp = new Family('megamon_jobset_up_time_between_interruption_seconds', 'Total length of the up periods that ended in an interruption.', 'gauge');
  const interruptedUpLatest = new Family('megamon_jobset_up_time_between_interruption_latest_seconds', 'Length of the latest up period that ended in an interruption.', 'gauge');

  // A finished JobSet keeps its final figures published for a grace period, then goes.
  const published = publishedRows(list, t, terminalGraceMs);
  for (const i of published) {
    const tl = list[i]!;
    const state = stateAt(tl, t);
    if (state === null) continue;
    const labels = jobsetLabels(tl);
    // One sweep of its life for both its figures and the totals behind MegaMon's sums.
    const totals = windowTotals(tl, horizon, tl.createdAt, t);
    const f = figuresFromTotals(totals, timeToFirstUpAt(firstUp(tl), t));
    const latest = latestPeriods(tl);
    up.add(labels, state === 'up' ? 1 : 0);
    for (const { figure, gauge } of figureGauges) {
      const value = f[figure];
      if (value !== null) gauge.add(labels, value);
    }
    recoveredDown.add(labels, totals[RECOVERED_DOWN]! / 1000);
    interruptedUp.add(labels, totals[INTERRUPTED_UP]! / 1000);
    if (latest.recovered !== null) recoveredDownLatest.add(labels, latest.recovered);
    if (latest.interrupted !== null) interruptedUpLatest.add(labels, latest.interrupted);
  }
  const families = [up, ...figureGauges.map(({ gauge }) => gauge), recoveredDown, recoveredDownLatest, interruptedUp, interruptedUpLatest, ...sloCounters(list, published, horizon, t)];
  return families.map((family) => family.text()).join('\n\n');
}

/**
 * The rows of `list` whose JobSet is published at `t`: not finished longer ago than the grace (told
 * by its end alone: asked of every timeline held, most of them long finished). A sorted list (the
 * engine's) is read on its run columns, shared with the queries, without a visit to each timeline.
 */
function publishedRows(list: readonly Timeline[], t: number, terminalGraceMs: number): Int32Array {
  const since = t - terminalGraceMs;
  const rows = new Int32Array(list.length);
  let n = 0;
  if (isMarkedSorted(list)) {
    const rc = runColumns(list);
    const { state } = rc;
    for (let i = 0; i < list.length; i++) {
      if (state[i] !== OPEN ? rowEnd(rc, i) >= since : closedAt(list[i]!) >= since) rows[n++] = i;
    }
  } else {
    for (let i = 0; i < list.length; i++) {
      if (closedAt(list[i]!) >= since) rows[n++] = i;
    }
  }
  return rows.subarray(0, n);
}

/**
 * Counters for Prometheus-based SLO tools (issue 13 §5): per JobSet *name* and namespace (a name's
 * recreations add up, so cardinality stays one series per name), the seconds up, down and counted
 * (up + down) over every timeline held of the name, each from creation to `t`. Excluded time
 * (suspended, queued, unknown, after the end) adds to none of those three; the wall seconds count it
 * (all but after the end), for the scheduling goodput SLI. rate() over any window gives the exact up
 * fraction.
 * Published while a name has a JobSet created by `t` and published (publishedRows), as the per-JobSet family is: a
 * name whose JobSets all finished earlier no longer changes, and Prometheus keeps the samples it
 * scraped (rate() and increase() over a window read them). Every name the history holds would be
 * one series each: at 10,000 JobSets × 30 days 600,304 names, a 313 MB answer.
 */
function sloCounters(list: readonly Timeline[], published: Int32Array, horizon: number, t: number): Family[] {
  const counter = (name: string, help: string): Family => new Family(name, help, 'counter');
  const upSeconds = counter('upness_jobset_up_seconds_total', 'Seconds up, over every JobSet of this name and namespace since its creation (suspended, queued and unknown time excluded).');
  const downSeconds = counter('upness_jobset_down_seconds_total', 'Seconds down (provisioning + interruption downtime), over every JobSet of this name and namespace since its creation.');
  const countedSeconds = counter('upness_jobset_counted_seconds_total', 'Seconds counted by the uptime ratio (up + down), over every JobSet of this name and namespace since its creation.');
  // The scheduling goodput SLI's denominator: up ÷ wall, where queued, suspended and unknown time spend the budget too.
  const wallSeconds = counter(
    'upness_jobset_wall_seconds_total',
    'Wall seconds (up + down + suspended, queued included + unknown: creation to the end or now), over every JobSet of this name and namespace; the scheduling goodput SLI is up ÷ wall.',
  );
  const key = (tl: Timeline): string => `${tl.cluster ?? ''}\u0000${tl.namespace}\u0000${tl.name}`;
  const names = new Set<string>();
  for (const i of published) if (list[i]!.createdAt <= t) names.add(key(list[i]!));
  const sums = new Map<string, { tl: Timeline; up: number; down: number; other: number }>();
  // Every timeline of a published name, in the list's order (the sums' order of addition).
  for (const i of namesRows(list, published)) {
    const tl = list[i]!;
    if (tl.createdAt > t) continue;
    const k = key(tl);
    if (!names.has(k)) continue;
    const totals = windowTotals(tl, horizon, tl.createdAt, t);
    let sum = sums.get(k);
    if (sum === undefined) sums.set(k, (sum = { tl, up: 0, down: 0, other: 0 }));
    sum.up += totals[UP]!;
    sum.down += totals[PROVISIONING]! + totals[INTERRUPTION_DOWN]!;
    // Queued time is part of the suspended total (totals-layout.ts).
    sum.other += totals[SUSPENDED]! + totals[UNKNOWN]!;
  }
  // Whole milliseconds summed, then seconds: they agree exactly (counted = up + down, wall = counted + the rest).
  for (const { tl, up, down, other } of sums.values()) {
    const labels = `{jobset_name="${labelValue(tl.name)}",jobset_namespace="${labelValue(tl.namespace)}",cluster="${labelValue(tl.cluster ?? '')}"}`;
    upSeconds.add(labels, up / 1000);
    downSeconds.add(labels, down / 1000);
    countedSeconds.add(labels, (up + down) / 1000);
    wallSeconds.add(labels, (up + down + other) / 1000);
  }
  return [upSeconds, downSeconds, countedSeconds, wallSeconds];
}

/**
 * The rows that may hold a published name's timelines, ascending: in a list sorted by namespace and
 * name (the engine's), the runs of the published rows' namespace and name, which lie together around
 * them; in any other list, every row.
 */
function namesRows(list: readonly Timeline[], published: Int32Array): Iterable<number> {
  if (!isMarkedSorted(list)) return list.keys();
  const rows: number[] = [];
  const same = (a: Timeline, b: Timeline): boolean => a.namespace === b.namespace && a.name === b.name;
  let end = 0;
  for (const i of published) {
    // A published row within the runs already taken: its namespace and name's are taken.
    if (i < end) continue;
    const tl = list[i]!;
    let lo = i;
    while (lo > end && same(list[lo - 1]!, tl)) lo--;
    let hi = i + 1;
    while (hi < list.length && same(list[hi]!, tl)) hi++;
    for (let r = lo; r < hi; r++) rows.push(r);
    end = hi;
  }
  return rows;
}
