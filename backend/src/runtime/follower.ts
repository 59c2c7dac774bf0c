// The follower: serves timelines from the PostgreSQL store without watching any cluster. It loads
// every timeline of the clusters it serves, then tails what their writers (the leaders) add: every
// second, what store/postgres-tail.ts reads above its cursor (each cluster's last row number read),
// along with each cluster's observed mark (its horizon). A cluster whose timelines retention deleted
// is read again from scratch. The facts (node-layer transitions, causes, suspension reasons learned
// later, node pools) are joined to the timelines they refer to (FactJoin, as a leader's recovery joins them).
// The usage samplings go into a usage book per cluster, folded as the leader folds its own.
//
// ReplicaView, below, is what a replica serves: the follower, until it becomes the leader and
// serves its own engine.

import { z } from 'zod';
import type pg from 'pg';
import type { EngineCounts } from '../timeline/engine.ts';
import { setIdentity } from '../timeline/identity.ts';
import { lastAt, transitionCount, type Timeline } from '../timeline/types.ts';
import type { StoreStatus } from '../store/store.ts';
import {
  causeFactOf,
  decodeIdentity,
  decodeTimeline,
  describePgError,
  newPool,
  nodeTransitionFactOf,
  place,
  suspensionFactOf,
  usageKeptOf,
  withClient,
  type ClusterTimeline,
  type UsageRowIn,
} from '../store/postgres-rows.ts';
import { UsageBook } from '../usage/book.ts';
import { DEFAULT_HISTORY } from '../usage/history.ts';
import type { UsageSamplerStatus } from './usage-sampler.ts';
import { restoreUsage, usageOf } from './usage-store.ts';
import { FactJoin } from '../timeline/facts.ts';
import { tail, type ClusterMark, type ClusterTail } from '../store/postgres-tail.ts';
import type { Readiness } from '../observation/readiness.ts';
import type { LayerView, SourceKind, ServedView, WatchHealth } from './served-view.ts';

export type { ClusterTimeline } from '../store/postgres-rows.ts';

/** The poll and stall timings with their defaults, checked once at construction. */
const followTimings = z.object({
  pollMs: z.number().positive().default(1000),
  stallMs: z.number().positive().default(10_000),
});

export interface FollowerOptions {
  /** The clusters to serve; every cluster in the database when absent. */
  clusters?: readonly string[];
  /** How often to read what is new (default 1000 ms). */
  pollMs?: number;
  /** Readiness turns false when a read has not answered for this long (default 10 s). */
  stallMs?: number;
  /** Called when reading fails, and with null when it works again. */
  onError?: (error: Error | null) => void;
  /** Called after every successful read with what it brought. */
  onPoll?: (poll: { timelines: number; transitions: number; reloaded: string[] }) => void;
  /** How long a usage sampling holds where the cluster's row does not say (written before schema 7's hold); default: that of the default --usage-interval. */
  usageHoldMs?: number;
  /** Passed to node-postgres' Pool. */
  pool?: pg.PoolConfig;
}

/** What a follower knows of one cluster's writer (its observed mark is the follower's horizon for the cluster), and the timelines it holds. */
export type ClusterStatus = Omit<ClusterMark, 'pruned' | 'usageHoldMs'> & { timelines: number };

interface ClusterState {
  status: ClusterStatus;
  pruned: number;
  /** The highest row number read. */
  rev: number;
  timelines: Map<string, ClusterTimeline>;
  /** The node layers, the causes and the suspension reasons, joined to the timelines above. */
  facts: FactJoin;
  /** The JobSets' usage the leader sampled, as the leader's book holds it, and how long its samplings hold. */
  usage: UsageBook;
  usageHoldMs: number;
}

export class FollowerView implements ServedView {
  readonly kind: SourceKind = 'kubernetes';
  readonly #pool: pg.Pool;
  readonly #options: FollowerOptions;
  readonly #timings: z.infer<typeof followTimings>;
  readonly #clusters = new Map<string, ClusterState>();
  #list: ClusterTimeline[] | null = null;
  #nodeList: Timeline[] | null = null;
  #poolList: Timeline[] | null = null;
  /** The usage of every cluster in one book (several clusters), made when asked after a change. */
  #usageMerged: UsageBook | null = null;
  #loaded = false;
  #error: Error | null = null;
  #pollStartedAt: number | null = null;
  #lastPollAt: number | null = null;
  #polls = 0;
  #timer: NodeJS.Timeout | null = null;
  #stopped = true;
  #closed = false;
  #onLoaded: (() => void)[] = [];

  constructor(url: string, options: FollowerOptions = {}) {
    this.#options = options;
    this.#timings = followTimings.parse(options);
    this.#pool = newPool(url, { max: 2, connectionTimeoutMillis: 3000, query_timeout: this.#timings.stallMs, ...options.pool });
  }

  /** Starts reading: the first read loads everything, and the following ones what is new. */
  start(): this {
    if (this.#closed || !this.#stopped) return this;
    this.#stopped = false;
    void this.#loop();
    return this;
  }

  /** Stops reading (a replica that became the leader serves its own engine); start() resumes. */
  stop(): void {
    this.#stopped = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }

  async close(): Promise<void> {
    this.stop();
    this.#closed = true;
    await this.#pool.end();
  }

  /** Resolves once everything has been loaded the first time. */
  loaded(): Promise<void> {
    if (this.#loaded) return Promise.resolve();
    return new Promise((resolve) => this.#onLoaded.push(resolve));
  }

  async #loop(): Promise<void> {
    if (this.#stopped) return;
    await this.poll();
    if (this.#stopped) return;
    this.#timer = setTimeout(() => void this.#loop(), this.#timings.pollMs);
    this.#timer.unref();
  }

  /** One read of what is new (start() does this every pollMs); errors are kept for readiness, not thrown. */
  async poll(): Promise<void> {
    this.#pollStartedAt = Date.now();
    try {
      const result = await withClient(this.#pool, (client) => this.#read(client));
      this.#polls++;
      this.#lastPollAt = Date.now();
      if (this.#error !== null) {
        this.#error = null;
        this.#options.onError?.(null);
      }
      this.#options.onPoll?.(result);
      if (!this.#loaded) {
        this.#loaded = true;
        for (const resolve of this.#onLoaded.splice(0)) resolve();
      }
    } catch (error) {
      const message = describePgError(error);
      const first = this.#error === null || this.#error.message !== message;
      this.#error = error instanceof Error && error.name === 'StoreError' ? error : new Error(message);
      if (first) this.#options.onError?.(this.#error);
    } finally {
      this.#pollStartedAt = null;
    }
  }

  async #read(client: pg.ClientBase): Promise<{ timelines: number; transitions: number; reloaded: string[] }> {
    const tails = await tail(client, (cluster) => this.#clusters.get(cluster), this.#options.clusters);
    let timelines = 0;
    let transitions = 0;
    let reasons = 0;
    const reloaded: string[] = [];
    // Applied only once everything was read: a read that failed half-way changes nothing.
    for (const read of tails) {
      const { mark, full } = read;
      if (full && this.#clusters.has(mark.cluster)) reloaded.push(mark.cluster);
      if (read.nodeTransitions.length + read.causes.length > 0 || full) this.#nodeList = null;
      if (read.poolFacts.length > 0 || full) this.#poolList = null;
      if (read.usage.length > 0 || full) this.#usageMerged = null;
      const hold = mark.usageHoldMs ?? this.#options.usageHoldMs ?? DEFAULT_HISTORY.holdMs;
      if (!this.#apply(full ? newState(mark.cluster, hold) : this.#clusters.get(mark.cluster)!, read)) {
        // Rows missing in between (changed by hand?): read the cluster again from scratch next time.
        this.#clusters.get(mark.cluster)!.pruned = -1;
      }
      // A leader with another --usage-interval took over: the usage is read again with its hold.
      if (this.#clusters.get(mark.cluster)!.usageHoldMs !== hold) this.#clusters.get(mark.cluster)!.pruned = -1;
      timelines += read.timelines.length;
      transitions += read.transitions.length;
      // A reason learned later changes a transition served already.
      reasons += read.suspensions.length;
    }
    if (timelines + transitions + reasons + reloaded.length > 0) this.#list = null;
    return { timelines, transitions, reloaded };
  }

  /** Applies one cluster's new rows; false when a transition has a gap before it. */
  #apply(state: ClusterState, { mark, full, timelines, transitions, nodeTransitions, causes, suspensions, poolFacts, usage }: ClusterTail): boolean {
    this.#clusters.set(mark.cluster, state);
    state.pruned = mark.pruned;
    let ok = true;
    for (const r of timelines) {
      const existing = state.timelines.get(r.uid);
      if (existing === undefined) {
        state.timelines.set(r.uid, decodeTimeline(r, mark.cluster) as ClusterTimeline);
      } else {
        setIdentity(existing, decodeIdentity(r));
      }
      state.rev = Math.max(state.rev, r.rev);
    }
    for (const r of transitions) {
      const timeline = state.timelines.get(r.uid);
      if (timeline === undefined || !place(timeline, r)) ok = false;
      state.rev = Math.max(state.rev, r.id);
    }
    // Facts after the transitions they refer to (a fact commits with or after its transition).
    for (const r of nodeTransitions) {
      if (!state.facts.join(nodeTransitionFactOf(r))) ok = false;
      state.rev = Math.max(state.rev, r.id);
    }
    for (const r of causes) {
      if (!state.facts.join(causeFactOf(r))) ok = false;
      state.rev = Math.max(state.rev, r.id);
    }
    for (const r of suspensions) {
      if (!state.facts.join(suspensionFactOf(r))) ok = false;
      state.rev = Math.max(state.rev, r.id);
    }
    for (const r of poolFacts) {
      if (!state.facts.join(r.fact)) ok = false;
      state.rev = Math.max(state.rev, r.id);
    }
    applyUsage(state.usage, usage, full, Date.now());
    for (const r of usage) state.rev = Math.max(state.rev, r.id);
    const { pruned: _pruned, usageHoldMs: _hold, ...writer } = mark;
    state.status = { ...writer, timelines: state.timelines.size };
    return ok;
  }

  timelines(): readonly ClusterTimeline[] {
    if (this.#list === null) {
      const list: ClusterTimeline[] = [];
      for (const state of this.#clusters.values()) {
        // A timeline is served once it has its first transition (they commit together; this is a guard).
        for (const tl of state.timelines.values()) if (transitionCount(tl) > 0) list.push(tl);
      }
      this.#list = list;
    }
    return this.#list;
  }

  /** The node layers the leaders wrote (null when none has any: not a cluster's, or written before they were kept). */
  nodeLayer(now: number): LayerView | null {
    if (this.#nodeList === null) {
      const list: Timeline[] = [];
      for (const state of this.#clusters.values()) for (const tl of state.facts.layers.values()) if (transitionCount(tl) > 0) list.push(tl);
      this.#nodeList = list;
    }
    return this.#nodeList.length === 0 ? null : { timelines: this.#nodeList, horizon: this.horizon(now) };
  }

  /** The node pools' timelines the leaders wrote (null when none has any). */
  poolLayer(now: number): LayerView | null {
    if (this.#poolList === null) {
      const list: Timeline[] = [];
      for (const state of this.#clusters.values()) for (const tl of state.facts.pools.values()) if (transitionCount(tl) > 0) list.push(tl);
      this.#poolList = list;
    }
    return this.#poolList.length === 0 ? null : { timelines: this.#poolList, horizon: this.horizon(now) };
  }

  /** The JobSets' usage the leaders sampled (null when none kept any); no sampler of its own. */
  usage(): { book: UsageBook; sampler: UsageSamplerStatus | null } | null {
    const states = [...this.#clusters.values()].filter((s) => s.usage.entries().next().done !== true);
    if (states.length === 0) return null;
    if (states.length === 1) return { book: states[0]!.usage, sampler: null };
    if (this.#usageMerged === null) {
      // One book holds one hold: the longest of the clusters' (their leaders' --usage-interval may differ).
      const merged = new UsageBook({ holdMs: Math.max(...states.map((s) => s.usageHoldMs)) });
      for (const s of states) merged.restore(s.usage.dump());
      this.#usageMerged = merged;
    }
    return { book: this.#usageMerged, sampler: null };
  }

  /** Each cluster's horizon: up to when its writer vouches for its timelines. */
  horizons(): ReadonlyMap<string, number | null> {
    return new Map([...this.#clusters].map(([name, s]) => [name, s.status.observedUntil]));
  }

  /**
   * The earliest of the clusters' horizons: nothing after it is vouched for in every cluster. (With one
   * cluster, its writer's observed mark, which lags the wall clock by about two seconds: the writer
   * marks every second, the follower reads every second.)
   */
  horizon(now: number): number {
    let horizon: number | null = null;
    for (const s of this.#clusters.values()) {
      const h = s.status.observedUntil;
      if (h !== null) horizon = horizon === null ? h : Math.min(horizon, h);
    }
    if (horizon !== null) return horizon;
    // No writer has marked anything yet: vouch for no more than the transitions say.
    let last: number | null = null;
    for (const tl of this.timelines()) last = Math.max(last ?? 0, lastAt(tl));
    return last ?? now;
  }

  readiness(): Readiness {
    if (this.#closed) return { ready: false, reason: 'stopped' };
    if (this.#error !== null) {
      return { ready: false, reason: this.#error.name === 'StoreError' ? this.#error.message : `cannot read the timelines from PostgreSQL: ${this.#error.message}` };
    }
    const stalled = this.#pollStartedAt === null ? 0 : Date.now() - this.#pollStartedAt;
    if (stalled > this.#timings.stallMs) return { ready: false, reason: `PostgreSQL has not answered for ${Math.round(stalled / 1000)} s` };
    if (!this.#loaded) return { ready: false, reason: 'loading the timelines from PostgreSQL' };
    const wanted = this.#options.clusters;
    const missing = wanted?.filter((c) => !this.#clusters.has(c)) ?? [];
    if (missing.length > 0) return { ready: false, reason: `no timelines of cluster ${missing.map((c) => `"${c}"`).join(', ')} in the database yet: has its leader started?` };
    if (this.#clusters.size === 0) return { ready: false, reason: 'no cluster has written to the database yet: has a leader started?' };
    return { ready: true };
  }

  counts(): EngineCounts {
    let jobsets = 0;
    for (const s of this.#clusters.values()) jobsets += s.timelines.size;
    return { observations: 0, jobsets, pods: 0, nodes: 0, skipped: 0 };
  }

  /** What the follower knows of each cluster's writer, for logs, metrics and /readyz details. */
  clusters(): ClusterStatus[] {
    return [...this.#clusters.values()].map((s) => ({ ...s.status, timelines: s.timelines.size }));
  }

  /** Reads so far, when the last one succeeded, and the current error. */
  status(): { polls: number; lastPollAt: number | null; error: string | null } {
    return { polls: this.#polls, lastPollAt: this.#lastPollAt, error: this.#error?.message ?? null };
  }
}

/**
 * Usage rows into a cluster's book, as a leader's restart reads them (`full`: the folded buckets,
 * then the samplings) or as they come; then folded at `now` as the leader folds its own (a day).
 * What the leader's retention drops reaches the follower with the next reload (`pruned` moved).
 */
function applyUsage(book: UsageBook, rows: readonly UsageRowIn[], full: boolean, now: number): void {
  if (rows.length === 0) return;
  if (full) {
    const ordered = [...rows].sort((a, b) => (a.owner < b.owner ? -1 : a.owner > b.owner ? 1 : Number(b.folded) - Number(a.folded) || a.at - b.at));
    restoreUsage(book, usageKeptOf(ordered), now);
    return;
  }
  // Between reloads only samplings are added (folding moves `pruned`): in number order, each JobSet's in time order.
  book.record(usageKeptOf(rows).log.map(usageOf));
  book.compact(now);
}

function newState(cluster: string, usageHoldMs: number): ClusterState {
  const timelines = new Map<string, ClusterTimeline>();
  return {
    usage: new UsageBook({ holdMs: usageHoldMs }),
    usageHoldMs,
    status: { cluster, writer: null, epoch: 0, observedUntil: null, writtenAt: 0, timelines: 0 },
    pruned: 0,
    rev: 0,
    timelines,
    facts: new FactJoin((uid) => timelines.get(uid)),
  };
}

/**
 * What a replica serves: the follower while another replica leads, its own engine's view once it
 * leads. The HTTP app is given this one view; use() switches what is behind it.
 */
export class ReplicaView implements ServedView {
  #current: ServedView;

  constructor(initial: ServedView) {
    this.#current = initial;
  }

  use(view: ServedView): void {
    this.#current = view;
  }

  get current(): ServedView {
    return this.#current;
  }

  get kind(): SourceKind {
    return this.#current.kind;
  }

  timelines(): ReturnType<ServedView['timelines']> {
    return this.#current.timelines();
  }

  horizon(now: number): number {
    return this.#current.horizon(now);
  }

  index(): ReturnType<NonNullable<ServedView['index']>> {
    return this.#current.index?.() ?? null;
  }

  selections(): ReturnType<NonNullable<ServedView['selections']>> {
    return this.#current.selections?.() ?? null;
  }

  keptSelections(): ReturnType<NonNullable<ServedView['keptSelections']>> {
    return this.#current.keptSelections?.() ?? null;
  }

  readiness(): Readiness {
    return this.#current.readiness();
  }

  counts(): EngineCounts {
    return this.#current.counts();
  }

  nodeLayer(now: number): LayerView | null {
    return this.#current.nodeLayer?.(now) ?? null;
  }

  poolLayer(now: number): LayerView | null {
    return this.#current.poolLayer?.(now) ?? null;
  }

  usage(): ReturnType<NonNullable<ServedView['usage']>> {
    return this.#current.usage?.() ?? null;
  }

  watches(): readonly WatchHealth[] {
    return this.#current.watches?.() ?? [];
  }
}

/** A store status for /metrics while following (nothing is written). */
export function followerStoreStatus(follower: FollowerView): StoreStatus {
  return { error: follower.status().error, pendingRecords: 0, recordsSinceSnapshot: 0, bytesWritten: 0, errors: 0 };
}
