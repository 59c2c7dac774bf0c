// The served view: the read model the API (http/) and the metrics serve, whatever is behind it. An
// engine fed by one source (sources/: a trace replayed at start, the simulator advancing in real time,
// or a live Kubernetes watch) is an EngineView; a cluster's engine (a watch, or a trace of one) is a
// ClusterEngine, which keeps the node layer beside. A follower of PostgreSQL (follower.ts) is another.

import { ClusterEngine } from '../nodes/engine.ts';
import { KeptSelections } from '../series/kept-selections.ts';
import { FleetIndex } from '../series/fleet-index.ts';
import { SelectionIndexes } from '../series/selection-indexes.ts';
import type { EngineCounts, TimelineEngine } from '../timeline/engine.ts';
import type { Timeline } from '../timeline/types.ts';
import type { Readiness } from '../observation/readiness.ts';
import type { UsageBook } from '../usage/book.ts';
import type { UsageSamplerStatus } from './usage-sampler.ts';
import type { Logger } from 'pino';
import { recoveredTimelines, type Recovery } from '../store/store.ts';

/** Which source the timelines come from (a follower serves a cluster's). */
export type SourceKind = 'trace' | 'simulator' | 'kubernetes';

/** The health of one Kubernetes watch (JobSets, Pods or Nodes), for /metrics. */
export interface WatchHealth {
  resource: string;
  /** Restarts so far, by cause (connection, timeout, watchdog, gone, forbidden, http-503, ...). */
  restarts: Partial<Record<string, number>>;
  /** The last sign of life (event, bookmark, connect or list) of its stalest watch; null before any. */
  lastEventAt: number | null;
  objects: number;
  /** Watches reopened after the server closed them or they timed out (nothing lost). */
  reconnects?: number;
}

/** The node layer beside the JobSet layer: one timeline per JobSet, and its own horizon. */
export interface LayerView {
  timelines: readonly Timeline[];
  horizon: number;
  /** The layer's fleet index, when the source keeps one (the node pools' does). */
  index?: FleetIndex | null;
  /** The timelines named `name` in any namespace, sorted and marked (timeline/order.ts), when the layer finds them without listing every timeline. */
  named?(name: string): readonly Timeline[];
}

/** What the API serves: the timelines, up to when they are observed, and whether they may be trusted now. */
export interface ServedView {
  readonly kind: SourceKind;
  timelines(): readonly Timeline[];
  /** The time up to which every timeline is observed, given the wall clock. */
  horizon(now: number): number;
  readiness(): Readiness;
  counts(): EngineCounts;
  /** The node layer, when the source has one (a cluster, or a trace recorded from one). */
  nodeLayer?(now: number): LayerView | null;
  /** The node pools' timelines, when the source has Nodes (as the node layer). */
  poolLayer?(now: number): LayerView | null;
  /** The health of the Kubernetes watches; absent for other sources. */
  watches?(): readonly WatchHealth[];
  /** Pooled sums of whole namespaces at any time (series/fleet-index.ts), when the source keeps them. */
  index?(): FleetIndex | null;
  /** Fleet indexes of the selections queries make (a name, labels, a label's values), when the source keeps them. */
  selections?(): SelectionIndexes | null;
  /** The JobSet layer's selections kept from one request to the next (a refresh's panels select alike), when the source keeps them. */
  keptSelections?(): KeptSelections | null;
  /** The JobSets' resource usage, when the service keeps it, and its sampler (--watch-usage; null: the simulator makes it). */
  usage?(): { book: UsageBook; sampler: UsageSamplerStatus | null } | null;
}

/**
 * The fleet index a store kept with its snapshot (store/index-part.ts), taken in for the timelines
 * restored from `recovery` (call it after the engine's restore, before anything else is observed: the
 * index then holds every timeline the engine does, and EngineView does not tell it of them again);
 * null when none was kept, or when it is not exactly theirs (logged: the index is then built from the
 * timelines as before). The part is dropped from the recovery once read.
 */
export function keptIndex(recovery: Pick<Recovery, 'machines' | 'kept' | 'fleetIndex'> | null, logger: Logger): FleetIndex | null {
  const kept = recovery?.fleetIndex;
  if (recovery === null || kept === undefined || 'refused' in kept) return null;
  delete recovery.fleetIndex;
  const index = new FleetIndex();
  const refused = index.adopt(kept.part, recoveredTimelines(recovery), kept.held, kept.resum);
  if (refused !== null) {
    logger.warn({ why: refused }, 'the fleet index kept with the snapshot is not that of its timelines: it is built again from them');
    return null;
  }
  logger.info({ events: index.events(), resummed: kept.resum.size }, 'fleet index taken from the snapshot');
  return index;
}

/** The view of an engine fed by a source. `live`: observed up to now (a watch or the simulator); else up to the last observation. */
export class EngineView implements ServedView {
  readonly kind: SourceKind;
  readonly engine: TimelineEngine;
  readonly #live: boolean;
  #readiness: Readiness = { ready: false, reason: 'starting' };
  #watches: (() => readonly WatchHealth[]) | null = null;

  readonly #index: FleetIndex;
  readonly #selections: SelectionIndexes;
  readonly #kept = new KeptSelections();
  /** The node pools' own fleet index: their pooled figures without visiting each pool (null without Nodes). */
  readonly #poolIndex: FleetIndex | null;

  /** `index`: one kept with the snapshot the engine was restored from (keptIndex); else built here from the engine's timelines. */
  constructor(kind: SourceKind, engine: TimelineEngine, live: boolean, index: FleetIndex | null = null) {
    this.kind = kind;
    this.engine = engine;
    this.#live = live;
    this.#index = index ?? new FleetIndex();
    // A kept index holds the restored timelines already (keptIndex).
    engine.subscribe(this.#index, index !== null);
    this.#selections = new SelectionIndexes(() => engine.timelines());
    // It holds no index yet (each is built from the timelines when first asked): nothing to tell it of them.
    engine.subscribe(this.#selections, true);
    // Kept only from now on: nothing to tell it of the timelines so far.
    engine.subscribe(this.#kept, true);
    this.#poolIndex = engine instanceof ClusterEngine ? new FleetIndex() : null;
    if (engine instanceof ClusterEngine) engine.poolLayer.subscribe(this.#poolIndex!);
  }

  index(): FleetIndex {
    return this.#index;
  }

  selections(): SelectionIndexes {
    return this.#selections;
  }

  keptSelections(): KeptSelections {
    return this.#kept;
  }

  /** Sorts and sums what has been loaded (a restore, a replay), so the first queries do not pay for it. */
  prepare(): void {
    this.engine.timelines();
    this.#index.prepare();
    this.#poolIndex?.prepare();
  }

  timelines(): readonly Timeline[] {
    return this.engine.timelines();
  }

  horizon(now: number): number {
    const last = this.engine.horizon;
    // A live source vouches for everything up to now, unless its watch is broken.
    if (this.#live && this.engine.gapStart === null) return Math.max(now, last ?? now);
    return last ?? now;
  }

  readonly #checks: (() => Readiness)[] = [];

  /** The feed's own readiness, then every added check (e.g. the store can write): the first that fails says why. */
  readiness(): Readiness {
    if (!this.#readiness.ready) return this.#readiness;
    for (const check of this.#checks) {
      const r = check();
      if (!r.ready) return r;
    }
    return this.#readiness;
  }

  addCheck(check: () => Readiness): void {
    this.#checks.push(check);
  }

  setReadiness(readiness: Readiness): void {
    this.#readiness = readiness;
  }

  counts(): EngineCounts {
    return this.engine.counts;
  }

  nodeLayer(now: number): LayerView | null {
    if (!(this.engine instanceof ClusterEngine)) return null;
    const engine = this.engine;
    const last = engine.nodeHorizon;
    const watching = engine.gapStart === null && engine.nodeLayer.gapStart === null;
    const horizon = this.#live && watching ? Math.max(now, last ?? now) : (last ?? now);
    // Listed when read: a query of one JobSet's node layer (named) or of the pools needs no whole list.
    return {
      get timelines() {
        return engine.nodeTimelines();
      },
      horizon,
      named: (name) => engine.nodeTimelinesNamed(name),
    };
  }

  poolLayer(now: number): LayerView | null {
    const nodes = this.nodeLayer(now);
    // Vouched for as far as the node layer: both come from the Node watch.
    return nodes === null ? null : { timelines: (this.engine as ClusterEngine).poolTimelines(), horizon: nodes.horizon, index: this.#poolIndex };
  }

  watches(): readonly WatchHealth[] {
    return this.#watches?.() ?? [];
  }

  #usage: { book: UsageBook; sampler: UsageSamplerStatus | null } | null = null;

  usage(): { book: UsageBook; sampler: UsageSamplerStatus | null } | null {
    return this.#usage;
  }

  /** Where the usage comes from: the sampler of a Kubernetes source, or (no sampler) the simulator. */
  setUsage(book: UsageBook, sampler: UsageSamplerStatus | null = null): void {
    this.#usage = { book, sampler };
  }

  /** Where the watch health comes from (the Kubernetes watcher). */
  setWatches(watches: () => readonly WatchHealth[]): void {
    this.#watches = watches;
  }
}
