// The served view's own metrics (observations, timelines by state, readiness, and for a Kubernetes
// source its watches), registered on the service's registry and read from the view at scrape.

import client from 'prom-client';
import { stateAt } from '../series/figures.ts';
import { OPEN, rowEnd, runColumns } from '../series/run-columns.ts';
import { stateOfCode } from '../timeline/columns.ts';
import { isMarkedSorted } from '../timeline/order.ts';
import { closedAt, lastState, type State, type Timeline } from '../timeline/types.ts';
import type { ServedView } from './served-view.ts';

export function registerViewMetrics(registry: client.Registry, view: ServedView, now: () => number): void {
  new client.Counter({
    name: 'upness_observations_total',
    help: 'Observations received from the source, read from the engine at scrape.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(view.counts().observations);
    },
  });
  new client.Gauge({
    name: 'upness_timelines',
    help: 'JobSet timelines held, by current state.',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [state, n] of statesAt(view.timelines(), now())) this.set({ state }, n);
    },
  });
  new client.Gauge({
    name: 'upness_ready',
    help: '1 when the source has synced and the data is being kept current, else 0.',
    labelNames: ['source'] as const,
    registers: [registry],
    collect() {
      this.reset();
      this.set({ source: view.kind }, view.readiness().ready ? 1 : 0);
    },
  });
  if (view.keptSelections !== undefined) {
    const kept = view.keptSelections.bind(view);
    new client.Counter({
      name: 'upness_kept_selections_total',
      help: "Queries' selections of JobSets by whether a kept one answered (hit) or one was made (made): dashboards' panels of one refresh select alike.",
      labelNames: ['result'] as const,
      registers: [registry],
      collect() {
        this.reset();
        const counts = kept()?.counts;
        this.inc({ result: 'hit' }, counts?.hits ?? 0);
        this.inc({ result: 'made' }, counts?.made ?? 0);
      },
    });
  }
  if (view.watches !== undefined) registerWatchMetrics(registry, view.watches.bind(view), now);
  if (view.usage !== undefined) registerUsageMetrics(registry, view.usage.bind(view));
}

/** The usage sampler (--watch-usage): samplings, and nodes skipped by reason. Read at scrape; nothing while usage is off. */
function registerUsageMetrics(registry: client.Registry, usage: NonNullable<ServedView['usage']>): void {
  new client.Counter({
    name: 'upness_usage_samplings_total',
    help: 'Usage samplings of every node that runs a JobSet pod (--watch-usage).',
    registers: [registry],
    collect() {
      this.reset();
      const u = usage();
      if (u?.sampler) this.inc(u.sampler.samplings);
    },
  });
  new client.Counter({
    name: 'upness_usage_node_failures_total',
    help: "Nodes skipped by a usage sampling, by reason: forbidden (RBAC: get nodes/proxy), unreachable (the apiserver could not reach the kubelet), timeout, invalid (not a stats/summary answer), error.",
    labelNames: ['reason'] as const,
    registers: [registry],
    collect() {
      this.reset();
      const sampler = usage()?.sampler;
      if (!sampler) return;
      for (const [reason, n] of Object.entries(sampler.failures)) this.inc({ reason }, n);
    },
  });
}

/** The Kubernetes watches (kubernetes source only): restarts by cause, staleness, cache size. */
function registerWatchMetrics(registry: client.Registry, watches: NonNullable<ServedView['watches']>, now: () => number): void {
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

/**
 * How many of the timelines are in each state at `t` (none for one not created by then), in the
 * order each state is first met. A run that ended by `t` is in its last state: in a sorted list (the
 * engine's) read from its row of the run columns the queries share, else its end read alone (most
 * runs held have ended).
 */
export function statesAt(list: readonly Timeline[], t: number): Map<State, number> {
  const counts = new Map<State, number>();
  const count = (s: State | null): void => {
    if (s !== null) counts.set(s, (counts.get(s) ?? 0) + 1);
  };
  const rc = isMarkedSorted(list) ? runColumns(list) : null;
  for (let i = 0; i < list.length; i++) {
    if (rc !== null && rc.state[i] !== OPEN && rowEnd(rc, i) <= t) {
      count(stateOfCode(rc.state[i]!));
      continue;
    }
    const tl = list[i]!;
    count(closedAt(tl) <= t ? lastState(tl) : stateAt(tl, t));
  }
  return counts;
}
