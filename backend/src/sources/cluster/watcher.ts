// Watches a cluster: JobSets (jobset.x-k8s.io/v1alpha2), the Pods that belong to JobSets (label
// jobset.sigs.k8s.io/jobset-name) and Nodes, and on request Kueue's Workloads (kueue.x-k8s.io/v1beta2:
// why Kueue evicted a JobSet; off by default, it needs RBAC to read them), and delivers what it sees as observations, in the order
// received, stamped with a clock that never goes back. It decides nothing about up or down: a
// sink (the timeline engine, or a trace file) gets the observations and the gaps.
//
// Gaps: when the JobSet watch breaks, the `jobsets` gap begins (at the last moment it could vouch
// for); when it has relisted and delivered what changed, it ends. The node layer depends on all
// three watches: its gap (`nodes`) lasts from the first break to the moment all three are synced.
// A broken Workload watch is no gap: it costs only reasons (a relist brings the evictions in effect).
//
// The first sync is held back until all three have listed, then delivered Nodes first, Pods
// second, JobSets third (Workloads, when watched, last), so that the node layer knows a JobSet's pods and nodes when it first sees
// the JobSet (a recorded trace has the same order, so its replay agrees).

import type { Logger } from 'pino';
import type { KubeConfig } from '@kubernetes/client-node';
import { JOBSET_API_GROUP, JOBSET_NAME_LABEL, KUEUE_API_GROUP } from '../../observation/resources.ts';
import type { Readiness } from '../../observation/readiness.ts';
import type { KubeObject, Observation, ObservationType } from '../../observation/types.ts';
import { describeError } from './errors.ts';
import { keepIdentity } from './kept.ts';
import { ResourceWatch, type ResourceDef, type ResourceName, type ResourceStatus, type WatchTimings } from './resource-watch.ts';

export interface GapChange {
  layer: 'jobsets' | 'nodes';
  phase: 'begin' | 'end';
  at: number;
}

export interface WatchSink {
  observe(observation: Observation): void;
  gap?(change: GapChange): void;
  /** The first sync of all three resources has been delivered, at `at`. */
  firstSync?(at: number): void;
}

export interface ClusterWatcherOptions {
  config: KubeConfig;
  /** Namespaces of JobSets and Pods to watch; empty: all. */
  namespaces: string[];
  timings: WatchTimings;
  /** Not ready while a watch has been broken longer than this. */
  readyBrokenMs: number;
  logger: Logger;
  clock?: () => number;
  random?: () => number;
  /** Watch Kueue's Workloads too (kueue.x-k8s.io/v1beta2, in the same namespaces). */
  workloads?: boolean;
}

/** The Workload API version watched: Kueue v0.17's stored one. */
export const WORKLOAD_API_VERSION = `${KUEUE_API_GROUP}/v1beta2`;

export function resourceDefs(namespaces: string[], workloads = false): ResourceDef[] {
  const paths = (group: string, plural: string): string[] =>
    namespaces.length === 0 ? [`${group}/${plural}`] : namespaces.map((ns) => `${group}/namespaces/${encodeURIComponent(ns)}/${plural}`);
  return [
    { resource: 'nodes', apiVersion: 'v1', kind: 'Node', paths: ['/api/v1/nodes'], keep: keepIdentity },
    { resource: 'pods', apiVersion: 'v1', kind: 'Pod', paths: paths('/api/v1', 'pods'), labelSelector: JOBSET_NAME_LABEL, keep: keepIdentity },
    { resource: 'jobsets', apiVersion: `${JOBSET_API_GROUP}/v1alpha2`, kind: 'JobSet', paths: paths(`/apis/${JOBSET_API_GROUP}/v1alpha2`, 'jobsets') },
    ...(workloads ? [{ resource: 'workloads' as const, apiVersion: WORKLOAD_API_VERSION, kind: 'Workload', paths: paths(`/apis/${WORKLOAD_API_VERSION}`, 'workloads') }] : []),
  ];
}

export class ClusterWatcher {
  readonly #sink: WatchSink;
  readonly #logger: Logger;
  readonly #readyBrokenMs: number;
  readonly #watches = new Map<ResourceName, ResourceWatch>();
  readonly #wallClock: () => number;
  #last = -Infinity;
  /** Observations of the first sync, per resource, until all three have listed. */
  /** The resources watched, in the order of a first sync's delivery. */
  readonly #order: ResourceName[];
  #initial: Map<ResourceName, { type: ObservationType; json: string }[]> | null;
  readonly #broken = new Set<ResourceName>();
  #nodeGap = false;
  #startedAt = 0;

  constructor(options: ClusterWatcherOptions, sink: WatchSink) {
    this.#sink = sink;
    this.#logger = options.logger;
    this.#readyBrokenMs = options.readyBrokenMs;
    this.#wallClock = options.clock ?? Date.now;
    const clock = () => this.now();
    const defs = resourceDefs(options.namespaces, options.workloads === true);
    this.#order = defs.map((d) => d.resource);
    this.#initial = new Map(this.#order.map((r) => [r, []]));
    for (const def of defs) {
      const resource = def.resource;
      this.#watches.set(
        resource,
        new ResourceWatch(def, options.config, options.timings, {
          observe: (type, object) => this.#observe(resource, type, object),
          broken: (at) => this.#brokenAt(resource, at),
          synced: () => this.#synced(resource),
          restarted: (info) => {
            const fields = {
              resource,
              cause: info.cause,
              error: describeError(info.error),
              attempt: info.attempt,
              retryInMs: info.delayMs,
              brokenSince: info.brokenSince === null ? null : new Date(info.brokenSince).toISOString(),
            };
            if (info.cause === 'gone') this.#logger.warn(fields, 'watch relisting after 410 Gone');
            else this.#logger.warn(fields, 'watch restarting');
          },
        }, clock, options.random),
      );
    }
  }

  /** The watcher's clock: wall time, never earlier than anything already delivered. */
  now(): number {
    this.#last = Math.max(this.#last, this.#wallClock());
    return this.#last;
  }

  start(): void {
    this.#startedAt = this.now();
    this.#logger.info({ resources: [...this.#watches.values()].map((w) => ({ resource: w.def.resource, paths: w.def.paths })) }, 'watching');
    for (const watch of this.#watches.values()) watch.start();
  }

  async stop(): Promise<void> {
    await Promise.all([...this.#watches.values()].map((w) => w.stop()));
  }

  /** The uids of the objects of `resource` that exist, as far as the watch knows. */
  uids(resource: ResourceName): Set<string> {
    return new Set(this.#watches.get(resource)!.uids());
  }

  /** The objects of `resource` that exist, as far as the watch knows, in the form it keeps them (the usage sampler reads the pods). */
  objects(resource: ResourceName): IterableIterator<KubeObject> {
    return this.#watches.get(resource)!.objects();
  }

  status(): ResourceStatus[] {
    return this.#order.map((r) => this.#watches.get(r)!.status());
  }

  readiness(): Readiness {
    const statuses = this.status();
    if (this.#initial !== null) {
      const waiting = statuses.filter((s) => !s.everSynced).map((s) => (s.lastError ? `${s.resource} (${s.lastError.cause}: ${s.lastError.message})` : s.resource));
      return { ready: false, reason: `first sync: waiting for ${waiting.join(', ')}` };
    }
    const now = this.now();
    const long = statuses.filter((s) => s.brokenSince !== null && now - s.brokenSince > this.#readyBrokenMs);
    if (long.length > 0) {
      const what = long.map((s) => `${s.resource} since ${new Date(s.brokenSince!).toISOString()}${s.lastError ? ` (${s.lastError.cause}: ${s.lastError.message})` : ''}`);
      return { ready: false, reason: `watch broken: ${what.join('; ')}` };
    }
    return { ready: true };
  }

  #observe(resource: ResourceName, type: ObservationType, object: KubeObject): void {
    if (this.#initial !== null) {
      // Held as JSON until all have listed: a fleet's parsed objects all at once would be most of
      // the service's peak memory (and of its RSS after), their text is a fraction of it.
      this.#initial.get(resource)!.push({ type, json: JSON.stringify(object) });
      return;
    }
    this.#sink.observe({ receivedAt: this.now(), type, object });
  }

  #brokenAt(resource: ResourceName, at: number): void {
    if (this.#initial !== null) return; // nothing delivered yet, nothing to vouch for
    if (resource === 'workloads') {
      this.#logger.warn({ resource, since: new Date(Math.min(at, this.now())).toISOString() }, 'watch broken: Kueue reasons seen after this wait for it to resync');
      return;
    }
    const first = this.#broken.size === 0;
    this.#broken.add(resource);
    const when = Math.min(at, this.now());
    if (resource === 'jobsets') this.#sink.gap?.({ layer: 'jobsets', phase: 'begin', at: when });
    if (first && !this.#nodeGap) {
      this.#nodeGap = true;
      this.#sink.gap?.({ layer: 'nodes', phase: 'begin', at: when });
    }
    this.#logger.warn({ resource, since: new Date(when).toISOString() }, 'watch broken: time from here on is not vouched for until it resyncs');
  }

  #synced(resource: ResourceName): void {
    const status = this.#watches.get(resource)!.status();
    if (this.#initial !== null) {
      if (![...this.#watches.values()].every((w) => w.status().everSynced)) return;
      // All listed: deliver the first sync, nodes, then pods, then JobSets, then Workloads.
      const at = this.now();
      const initial = this.#initial;
      this.#initial = null;
      for (const r of this.#order) {
        const held = initial.get(r)!;
        initial.delete(r);
        for (const { type, json } of held) this.#sink.observe({ receivedAt: at, type, object: JSON.parse(json) as KubeObject });
      }
      this.#sink.firstSync?.(at);
      // One that broke again while the others were still listing: its gap begins now.
      for (const w of this.#watches.values()) if (w.status().brokenSince !== null) this.#brokenAt(w.def.resource, at);
      this.#logger.info(
        { seconds: (at - this.#startedAt) / 1000, objects: Object.fromEntries(this.status().map((s) => [s.resource, s.objects])) },
        'first sync complete',
      );
      return;
    }
    const at = this.now();
    if (this.#broken.delete(resource)) {
      if (resource === 'jobsets') this.#sink.gap?.({ layer: 'jobsets', phase: 'end', at });
      this.#logger.info({ resource, objects: status.objects }, 'watch resynced');
    }
    if (this.#broken.size === 0 && this.#nodeGap) {
      this.#nodeGap = false;
      this.#sink.gap?.({ layer: 'nodes', phase: 'end', at });
    }
  }
}
