// The per-JobSet metrics: MegaMon's gauges under MegaMon's names and labels (so dashboards built for
// MegaMon work unchanged against a Prometheus that scrapes Upness), Upness's additions, and the
// counters SLO tools read. Registered on the service's registry; computed from the served view's
// timelines at scrape.

import client from 'prom-client';
import { timelineEvents } from '../series/events.ts';
import { definitionOf, FIGURES } from '../series/figure-definitions.ts';
import { figuresFromTotals, firstUp, stateAt, timeToFirstUpAt } from '../series/figures.ts';
import { INTERRUPTED_UP, INTERRUPTION_DOWN, PROVISIONING, RECOVERED_DOWN, SUSPENDED, UNKNOWN, UP, windowTotals } from '../series/totals.ts';
import { closedAt, type Timeline } from '../timeline/types.ts';
import type { ServedView } from './served-view.ts';

const JOBSET_LABELS = ['jobset_name', 'jobset_namespace', 'jobset_uid', 'tpu_topology', 'tpu_accelerator'] as const;

function jobsetLabels(tl: Timeline): Record<(typeof JOBSET_LABELS)[number], string> {
  return {
    jobset_name: tl.name,
    jobset_namespace: tl.namespace,
    jobset_uid: tl.uid,
    tpu_topology: tl.topology ?? '',
    tpu_accelerator: tl.accelerator ?? '',
  };
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

export function registerJobSetMetrics(registry: client.Registry, { view, now, terminalGraceMs }: JobSetMetricsOptions): void {
  // MegaMon's per-JobSet family (and Upness's additions), each figure over the JobSet's whole life
  // up to now. The first gauge's collect fills them all, so a scrape sees one instant.
  const family: client.Gauge<(typeof JOBSET_LABELS)[number]>[] = [];
  const gauge = (name: string, help: string, collect?: () => void): client.Gauge<(typeof JOBSET_LABELS)[number]> => {
    const made = new client.Gauge({ name, help, labelNames: JOBSET_LABELS, registers: [registry], ...(collect ? { collect } : {}) });
    family.push(made);
    return made;
  };
  const up = gauge('megamon_jobset_up', '1 when the JobSet is up, else 0.', () => fill());
  // Each figure that has a gauge in its definition (series/figure-definitions.ts), in their order.
  const figureGauges = FIGURES.flatMap((figure) => {
    const named = definitionOf(figure).gauge;
    return named === undefined ? [] : [{ figure, gauge: gauge(named.name, named.help) }];
  });
  // MegaMon's sums and latest lengths of the periods behind MTTR and MTBI: not figures of their own.
  const g = {
    recoveredDown: gauge('megamon_jobset_down_time_between_recovery_seconds', 'Total length of the down periods that ended in a recovery.'),
    recoveredDownLatest: gauge('megamon_jobset_down_time_between_recovery_latest_seconds', 'Length of the latest down period that ended in a recovery.'),
    interruptedUp: gauge('megamon_jobset_up_time_between_interruption_seconds', 'Total length of the up periods that ended in an interruption.'),
    interruptedUpLatest: gauge('megamon_jobset_up_time_between_interruption_latest_seconds', 'Length of the latest up period that ended in an interruption.'),
  };

  /**
   * Whether the timeline had finished by `t` longer ago than the grace: its figures are no longer
   * published. Its end alone, not its state at `t` (asked of every timeline held, most of them long finished).
   */
  function finishedBeforeGrace(tl: Timeline, t: number): boolean {
    return closedAt(tl) < t - terminalGraceMs;
  }

  function fill(): void {
    const t = now();
    const horizon = view.horizon(t);
    for (const m of family) m.reset();
    for (const tl of view.timelines()) {
      // A finished JobSet keeps its final figures published for a grace period, then goes.
      if (finishedBeforeGrace(tl, t)) continue;
      const state = stateAt(tl, t);
      if (state === null) continue;
      const labels = jobsetLabels(tl);
      // One sweep of its life for both its figures and the totals behind MegaMon's sums.
      const totals = windowTotals(tl, horizon, tl.createdAt, t);
      const f = figuresFromTotals(totals, timeToFirstUpAt(firstUp(tl), t));
      const latest = latestPeriods(tl);
      up.set(labels, state === 'up' ? 1 : 0);
      for (const { figure, gauge } of figureGauges) {
        const value = f[figure];
        if (value !== null) gauge.set(labels, value);
      }
      g.recoveredDown.set(labels, totals[RECOVERED_DOWN]! / 1000);
      g.interruptedUp.set(labels, totals[INTERRUPTED_UP]! / 1000);
      if (latest.recovered !== null) g.recoveredDownLatest.set(labels, latest.recovered);
      if (latest.interrupted !== null) g.interruptedUpLatest.set(labels, latest.interrupted);
    }
  }
  // Counters for Prometheus-based SLO tools (issue 13 §5): per JobSet *name* and namespace (a name's
  // recreations add up, so cardinality stays one series per name), the seconds up, down and counted
  // (up + down) over every timeline held, each from creation to now. Excluded time (suspended, queued,
  // unknown, after the end) adds to none of those three; the wall seconds count it (all but after
  // the end), for the scheduling goodput SLI. rate() over any window gives the exact up fraction.
  // One collect fills all four, so a scrape sees one instant.
  // Published while a name has a JobSet that is not finished, or finished within the grace, as the
  // per-JobSet family is: a name whose JobSets all finished earlier no longer changes, and Prometheus
  // keeps the samples it scraped (rate() and increase() over a window read them). Every name the
  // history holds would be one series each: at 10,000 JobSets × 30 days 600,304 names, a 313 MB
  // answer and ~30 s of the service's only thread per scrape.
  const SLO_LABELS = ['jobset_name', 'jobset_namespace', 'cluster'] as const;
  const sloCounter = (name: string, help: string, collect?: () => void): client.Counter<(typeof SLO_LABELS)[number]> =>
    new client.Counter({ name, help, labelNames: SLO_LABELS, registers: [registry], ...(collect ? { collect } : {}) });
  const slo = {
    up: sloCounter('upness_jobset_up_seconds_total', 'Seconds up, over every JobSet of this name and namespace since its creation (suspended, queued and unknown time excluded).', () =>
      fillSlo(),
    ),
    down: sloCounter('upness_jobset_down_seconds_total', 'Seconds down (provisioning + interruption downtime), over every JobSet of this name and namespace since its creation.'),
    counted: sloCounter('upness_jobset_counted_seconds_total', 'Seconds counted by the uptime ratio (up + down), over every JobSet of this name and namespace since its creation.'),
    // The scheduling goodput SLI's denominator: up ÷ wall, where queued, suspended and unknown time spend the budget too.
    wall: sloCounter(
      'upness_jobset_wall_seconds_total',
      'Wall seconds (up + down + suspended, queued included + unknown: creation to the end or now), over every JobSet of this name and namespace; the scheduling goodput SLI is up ÷ wall.',
    ),
  };

  function fillSlo(): void {
    const t = now();
    const horizon = view.horizon(t);
    // The names published, by cluster and namespace: asked of every timeline held, without a key made for each.
    const published = new Map<string, Map<string, Set<string>>>();
    for (const tl of view.timelines()) {
      if (tl.createdAt > t || finishedBeforeGrace(tl, t)) continue;
      const cluster = tl.cluster ?? '';
      let namespaces = published.get(cluster);
      if (namespaces === undefined) published.set(cluster, (namespaces = new Map()));
      let names = namespaces.get(tl.namespace);
      if (names === undefined) namespaces.set(tl.namespace, (names = new Set()));
      names.add(tl.name);
    }
    const sums = new Map<string, { labels: Record<(typeof SLO_LABELS)[number], string>; up: number; down: number; other: number }>();
    for (const tl of view.timelines()) {
      if (tl.createdAt > t || published.get(tl.cluster ?? '')?.get(tl.namespace)?.has(tl.name) !== true) continue;
      const key = `${tl.cluster ?? ''}\u0000${tl.namespace}\u0000${tl.name}`;
      const totals = windowTotals(tl, horizon, tl.createdAt, t);
      let sum = sums.get(key);
      if (sum === undefined) sums.set(key, (sum = { labels: { jobset_name: tl.name, jobset_namespace: tl.namespace, cluster: tl.cluster ?? '' }, up: 0, down: 0, other: 0 }));
      sum.up += totals[UP]!;
      sum.down += totals[PROVISIONING]! + totals[INTERRUPTION_DOWN]!;
      // Queued time is part of the suspended total (totals-layout.ts).
      sum.other += totals[SUSPENDED]! + totals[UNKNOWN]!;
    }
    slo.up.reset();
    slo.down.reset();
    slo.counted.reset();
    slo.wall.reset();
    // Whole milliseconds summed, then seconds: they agree exactly (counted = up + down, wall = counted + the rest).
    for (const { labels, up, down, other } of sums.values()) {
      slo.up.inc(labels, up / 1000);
      slo.down.inc(labels, down / 1000);
      slo.counted.inc(labels, (up + down) / 1000);
      slo.wall.inc(labels, (up + down + other) / 1000);
    }
  }
}
