// /metrics: the service's own metrics, and per-JobSet gauges under MegaMon's names and labels so
// dashboards built for MegaMon work unchanged against a Prometheus that scrapes Upness.

import client from 'prom-client';
import { timelineEvents } from '../series/events.ts';
import { definitionOf, FIGURES } from '../series/figure-definitions.ts';
import { figures, stateAt } from '../series/figures.ts';
import { endOf, INTERRUPTED_UP, INTERRUPTION_DOWN, PROVISIONING, RECOVERED_DOWN, UP, windowTotals } from '../series/totals.ts';
import type { TimelineSource } from '../service/source.ts';
import type { StoreStatus } from '../store/embedded.ts';
import { TERMINAL_STATES, type State, type Timeline } from '../timeline/types.ts';

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

export interface MetricsOptions {
  source: TimelineSource;
  now: () => number;
  /** How long a terminal JobSet's final figures stay published, ms. */
  terminalGraceMs: number;
  store?: (() => StoreStatus) | undefined;
}

export function createMetrics(options: MetricsOptions): { registry: client.Registry; httpDuration: client.Histogram } {
  const { source, now, terminalGraceMs } = options;
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });

  const httpDuration = new client.Histogram({
    name: 'upness_http_request_duration_seconds',
    help: 'Time to answer HTTP requests, by method, route and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });

  new client.Gauge({
    name: 'upness_observations_total',
    help: 'Observations received from the source (a counter, read from the engine at scrape).',
    registers: [registry],
    collect() {
      this.set(source.counts().observations);
    },
  });
  new client.Gauge({
    name: 'upness_timelines',
    help: 'JobSet timelines held, by current state.',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      this.reset();
      const t = now();
      const counts = new Map<State, number>();
      for (const tl of source.timelines()) {
        const s = stateAt(tl, t);
        if (s !== null) counts.set(s, (counts.get(s) ?? 0) + 1);
      }
      for (const [state, n] of counts) this.set({ state }, n);
    },
  });
  const store = options.store;
  if (store !== undefined) {
    new client.Gauge({
      name: 'upness_store_write_errors_total',
      help: 'Failed writes to the data dir (disk full, unwritable); a counter, read from the store at scrape.',
      registers: [registry],
      collect() {
        this.set(store().errors);
      },
    });
    new client.Gauge({
      name: 'upness_store_failing',
      help: '1 while the last write to the data dir failed: new records wait in memory and are retried.',
      registers: [registry],
      collect() {
        this.set(store().error === null ? 0 : 1);
      },
    });
    new client.Gauge({
      name: 'upness_store_pending_records',
      help: 'Records waiting to be written to the data dir.',
      registers: [registry],
      collect() {
        this.set(store().pendingRecords);
      },
    });
    new client.Gauge({
      name: 'upness_store_written_bytes_total',
      help: 'Bytes written to the log since start (a counter).',
      registers: [registry],
      collect() {
        this.set(store().bytesWritten);
      },
    });
  }
  new client.Gauge({
    name: 'upness_ready',
    help: '1 when the source has synced and the data is being kept current, else 0.',
    labelNames: ['source'] as const,
    registers: [registry],
    collect() {
      this.reset();
      this.set({ source: source.kind }, source.readiness().ready ? 1 : 0);
    },
  });

  // The Kubernetes watches (kubernetes source only): restarts by cause, staleness, cache size.
  if (source.watches !== undefined) {
    const watches = source.watches.bind(source);
    new client.Counter({
      name: 'upness_watch_restarts_total',
      help: 'Restarts of a watch (JobSets, Pods, Nodes), by cause: connection, timeout, watchdog (silent too long), gone (relist after 410), forbidden, http-<status>, error.',
      labelNames: ['resource', 'cause'] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const w of watches()) for (const [cause, n] of Object.entries(w.restarts)) this.inc({ resource: w.resource, cause }, n ?? 0);
      },
    });
    new client.Gauge({
      name: 'upness_watch_seconds_since_last_event',
      help: 'Seconds since the last sign of life (event, bookmark, connect or list) of the stalest watch of a resource.',
      labelNames: ['resource'] as const,
      registers: [registry],
      collect() {
        this.reset();
        const t = now();
        for (const w of watches()) if (w.lastEventAt !== null) this.set({ resource: w.resource }, Math.max(0, (t - w.lastEventAt) / 1000));
      },
    });
    new client.Counter({
      name: 'upness_watch_reconnects_total',
      help: 'Watches reopened after the apiserver closed them or they timed out: routine, nothing is lost (failures are restarts).',
      labelNames: ['resource'] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const w of watches()) this.inc({ resource: w.resource }, w.reconnects ?? 0);
      },
    });
    new client.Gauge({
      name: 'upness_watch_objects',
      help: 'Objects of a resource held by the watch.',
      labelNames: ['resource'] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const w of watches()) this.set({ resource: w.resource }, w.objects);
      },
    });
  }

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

  function fill(): void {
    const t = now();
    const horizon = source.horizon(t);
    for (const m of family) m.reset();
    for (const tl of source.timelines()) {
      const state = stateAt(tl, t);
      if (state === null) continue;
      // A finished JobSet keeps its final figures published for a grace period, then goes.
      if (TERMINAL_STATES.has(state) && endOf(tl, horizon) < t - terminalGraceMs) continue;
      const labels = jobsetLabels(tl);
      const f = figures(tl, horizon, tl.createdAt, t);
      const totals = windowTotals(tl, horizon, tl.createdAt, t);
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
  // unknown, after the end) adds to none. rate() over any window gives the exact up fraction. One
  // collect fills all three, so a scrape sees one instant.
  const SLO_LABELS = ['jobset_name', 'jobset_namespace', 'cluster'] as const;
  const sloCounter = (name: string, help: string, collect?: () => void): client.Counter<(typeof SLO_LABELS)[number]> =>
    new client.Counter({ name, help, labelNames: SLO_LABELS, registers: [registry], ...(collect ? { collect } : {}) });
  const slo = {
    up: sloCounter('upness_jobset_up_seconds_total', 'Seconds up, over every JobSet of this name and namespace since its creation (suspended, queued and unknown time excluded).', () =>
      fillSlo(),
    ),
    down: sloCounter('upness_jobset_down_seconds_total', 'Seconds down (provisioning + interruption downtime), over every JobSet of this name and namespace since its creation.'),
    counted: sloCounter('upness_jobset_counted_seconds_total', 'Seconds counted by the uptime ratio (up + down), over every JobSet of this name and namespace since its creation.'),
  };

  function fillSlo(): void {
    const t = now();
    const horizon = source.horizon(t);
    const sums = new Map<string, { labels: Record<(typeof SLO_LABELS)[number], string>; up: number; down: number }>();
    for (const tl of source.timelines()) {
      if (tl.createdAt > t) continue;
      const totals = windowTotals(tl, horizon, tl.createdAt, t);
      const key = `${tl.cluster ?? ''}\u0000${tl.namespace}\u0000${tl.name}`;
      let sum = sums.get(key);
      if (sum === undefined) sums.set(key, (sum = { labels: { jobset_name: tl.name, jobset_namespace: tl.namespace, cluster: tl.cluster ?? '' }, up: 0, down: 0 }));
      sum.up += totals[UP]!;
      sum.down += totals[PROVISIONING]! + totals[INTERRUPTION_DOWN]!;
    }
    slo.up.reset();
    slo.down.reset();
    slo.counted.reset();
    // Whole milliseconds summed, then seconds: the three agree exactly (counted = up + down).
    for (const { labels, up, down } of sums.values()) {
      slo.up.inc(labels, up / 1000);
      slo.down.inc(labels, down / 1000);
      slo.counted.inc(labels, (up + down) / 1000);
    }
  }
  return { registry, httpDuration };
}
