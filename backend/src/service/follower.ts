// The follower source: serves timelines from the PostgreSQL store without watching any cluster. It
// loads every timeline of the clusters it serves, then tails what their writers (the leaders) add:
// every second, the timeline rows and transitions numbered above the last it has read, in one
// consistent snapshot of the database, along with each cluster's observed mark (its horizon).
//
// The numbers (transitions.id, timelines.rev) of one cluster grow in commit order, because its
// writer's transactions are serialised by the cluster's row (backend/src/store/postgres.ts), so "above
// the last read" misses nothing. When retention deleted timelines (the cluster's `pruned` counter
// moved), that cluster is read again from scratch. The facts (node-layer transitions, causes of either
// layer, suspension reasons learned later) are numbered the same way and tailed the same way, then
// joined to the timelines they refer to (FactJoin, as a leader's recovery joins them).
//
// ReplicaSource, below, is what a replica serves: the follower, until it becomes the leader and
// serves its own engine.

import { z } from 'zod';
import type pg from 'pg';
import type { EngineCounts } from '../timeline/engine.ts';
import type { Timeline } from '../timeline/types.ts';
import type { StoreStatus } from '../store/store.ts';
import { checkSchema } from '../store/postgres-migrate.ts';
import { FactJoin } from '../timeline/facts.ts';
import {
  CAUSE_COLUMNS,
  causeFactOf,
  decodeTimeline,
  NODE_TRANSITION_COLUMNS,
  nodeTransitionFactOf,
  SUSPENSION_COLUMNS,
  suspensionFactOf,
  describePgError,
  newPool,
  place,
  TIMELINE_COLUMNS,
  TRANSITION_COLUMNS,
  withClient,
  type CauseRowIn,
  type ClusterTimeline,
  type SuspensionRowIn,
  type TimelineRowIn,
  type TransitionRowIn,
} from '../store/postgres-rows.ts';
import type { LayerView, Readiness, SourceKind, TimelineSource, WatchHealth } from './source.ts';

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
  /** Passed to node-postgres' Pool. */
  pool?: pg.PoolConfig;
}

/** What a follower knows of one cluster's writer. */
export interface ClusterStatus {
  cluster: string;
  /** The current writer (the leader's replica id) and its fencing number. */
  writer: string | null;
  epoch: number;
  /** Up to when the writer vouches for every timeline: the follower's horizon for this cluster. */
  observedUntil: number | null;
  /** When the writer last committed anything (its observed mark moves every second while it watches). */
  writtenAt: number;
  timelines: number;
}

interface ClusterState {
  status: ClusterStatus;
  pruned: number;
  /** The highest row number read. */
  rev: number;
  timelines: Map<string, ClusterTimeline>;
  /** The node layers, the causes and the suspension reasons, joined to the timelines above. */
  facts: FactJoin;
}

interface ClusterRow {
  cluster: string;
  epoch: string;
  writer: string | null;
  observed_until: number | null;
  pruned: string;
  updated_at: number;
}

const ms = (column: string): string => `(extract(epoch from ${column}) * 1000)::float8`;

export class FollowerSource implements TimelineSource {
  readonly kind: SourceKind = 'kubernetes';
  readonly #pool: pg.Pool;
  readonly #options: FollowerOptions;
  readonly #timings: z.infer<typeof followTimings>;
  readonly #clusters = new Map<string, ClusterState>();
  #list: ClusterTimeline[] | null = null;
  #nodeList: Timeline[] | null = null;
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
    const wanted = this.#options.clusters;
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    try {
      // Every time: a newer leader may have migrated the schema during a rolling upgrade. Followers do
      // not migrate (they need only SELECT): a leader creates and migrates the schema.
      await checkSchema(client);
      const clusters = await client.query<ClusterRow>(
        `SELECT cluster, epoch, writer, ${ms('observed_until')} AS observed_until, pruned, ${ms('updated_at')} AS updated_at
         FROM upness_clusters ${wanted === undefined ? '' : 'WHERE cluster = ANY($1::text[])'} ORDER BY cluster`,
        wanted === undefined ? [] : [wanted],
      );
      let timelines = 0;
      let transitions = 0;
      let reasons = 0;
      const reloaded: string[] = [];
      const reads: { row: ClusterRow; state: ClusterState; full: boolean; tl: TimelineRowIn[]; tr: TransitionRowIn[]; nodes: TransitionRowIn[]; causes: CauseRowIn[]; suspensions: SuspensionRowIn[] }[] = [];
      for (const row of clusters.rows) {
        const existing = this.#clusters.get(row.cluster);
        const full = existing === undefined || existing.pruned !== Number(row.pruned);
        const since = full ? 0 : existing.rev;
        const tl = await client.query<TimelineRowIn>(`SELECT ${TIMELINE_COLUMNS} FROM upness_timelines WHERE cluster = $1 AND rev > $2`, [row.cluster, since]);
        const tr = await client.query<TransitionRowIn>(`SELECT ${TRANSITION_COLUMNS} FROM upness_transitions WHERE cluster = $1 AND id > $2 ORDER BY id`, [row.cluster, since]);
        const nodes = await client.query<TransitionRowIn>(`SELECT ${NODE_TRANSITION_COLUMNS} FROM upness_node_transitions WHERE cluster = $1 AND id > $2 ORDER BY id`, [row.cluster, since]);
        const causes = await client.query<CauseRowIn>(`SELECT ${CAUSE_COLUMNS} FROM upness_causes WHERE cluster = $1 AND id > $2 ORDER BY id`, [row.cluster, since]);
        const suspensions = await client.query<SuspensionRowIn>(`SELECT ${SUSPENSION_COLUMNS} FROM upness_suspensions WHERE cluster = $1 AND id > $2 ORDER BY id`, [row.cluster, since]);
        reads.push({ row, state: existing ?? newState(row.cluster), full, tl: tl.rows, tr: tr.rows, nodes: nodes.rows, causes: causes.rows, suspensions: suspensions.rows });
      }
      await client.query('COMMIT');
      // Applied only once everything was read: a read that failed half-way changes nothing.
      for (const { row, state, full, tl, tr, nodes, causes, suspensions } of reads) {
        if (full && this.#clusters.has(row.cluster)) reloaded.push(row.cluster);
        if (nodes.length + causes.length > 0 || full) this.#nodeList = null;
        if (!this.#apply(row, full ? newState(row.cluster) : state, tl, tr, nodes, causes, suspensions)) {
          // Rows missing in between (changed by hand?): read the cluster again from scratch next time.
          this.#clusters.get(row.cluster)!.pruned = -1;
        }
        timelines += tl.length;
        transitions += tr.length;
        // A reason learned later changes a transition served already.
        reasons += suspensions.length;
      }
      if (timelines + transitions + reasons + reloaded.length > 0) this.#list = null;
      return { timelines, transitions, reloaded };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  }

  /** Applies one cluster's new rows; false when a transition has a gap before it. */
  #apply(row: ClusterRow, state: ClusterState, tl: TimelineRowIn[], tr: TransitionRowIn[], nodes: TransitionRowIn[], causes: CauseRowIn[], suspensions: SuspensionRowIn[]): boolean {
    this.#clusters.set(row.cluster, state);
    state.pruned = Number(row.pruned);
    let ok = true;
    for (const r of tl) {
      const existing = state.timelines.get(r.uid);
      if (existing === undefined) {
        state.timelines.set(r.uid, decodeTimeline(r, row.cluster) as ClusterTimeline);
      } else {
        Object.assign(existing, { namespace: r.namespace, name: r.name, labels: r.labels, accelerator: r.accelerator, topology: r.topology, createdAt: r.created_at, accelerators: r.accelerators, checkpointIntervalMs: r.checkpoint_interval_ms });
      }
      state.rev = Math.max(state.rev, r.rev);
    }
    for (const r of tr) {
      const timeline = state.timelines.get(r.uid);
      if (timeline === undefined || !place(timeline, r)) ok = false;
      state.rev = Math.max(state.rev, r.id);
    }
    // Facts after the transitions they refer to (a fact commits with or after its transition).
    for (const r of nodes) {
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
    state.status = {
      cluster: row.cluster,
      writer: row.writer,
      epoch: Number(row.epoch),
      observedUntil: row.observed_until,
      writtenAt: row.updated_at,
      timelines: state.timelines.size,
    };
    return ok;
  }

  timelines(): readonly ClusterTimeline[] {
    if (this.#list === null) {
      const list: ClusterTimeline[] = [];
      for (const state of this.#clusters.values()) {
        // A timeline is served once it has its first transition (they commit together; this is a guard).
        for (const tl of state.timelines.values()) if (tl.transitions.length > 0) list.push(tl);
      }
      this.#list = list;
    }
    return this.#list;
  }

  /** The node layers the leaders wrote (null when none has any: not a cluster's, or written before they were kept). */
  nodeLayer(now: number): LayerView | null {
    if (this.#nodeList === null) {
      const list: Timeline[] = [];
      for (const state of this.#clusters.values()) for (const tl of state.facts.layers.values()) if (tl.transitions.length > 0) list.push(tl);
      this.#nodeList = list;
    }
    return this.#nodeList.length === 0 ? null : { timelines: this.#nodeList, horizon: this.horizon(now) };
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
    for (const tl of this.timelines()) last = Math.max(last ?? 0, tl.transitions[tl.transitions.length - 1]!.at);
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

function newState(cluster: string): ClusterState {
  const timelines = new Map<string, ClusterTimeline>();
  return {
    status: { cluster, writer: null, epoch: 0, observedUntil: null, writtenAt: 0, timelines: 0 },
    pruned: 0,
    rev: 0,
    timelines,
    facts: new FactJoin((uid) => timelines.get(uid)),
  };
}

/**
 * What a replica serves: the follower while another replica leads, its own engine's source once it
 * leads. The HTTP app is given this one source; use() switches what is behind it.
 */
export class ReplicaSource implements TimelineSource {
  #current: TimelineSource;

  constructor(initial: TimelineSource) {
    this.#current = initial;
  }

  use(source: TimelineSource): void {
    this.#current = source;
  }

  get current(): TimelineSource {
    return this.#current;
  }

  get kind(): SourceKind {
    return this.#current.kind;
  }

  timelines(): ReturnType<TimelineSource['timelines']> {
    return this.#current.timelines();
  }

  horizon(now: number): number {
    return this.#current.horizon(now);
  }

  index(): ReturnType<NonNullable<TimelineSource['index']>> {
    return this.#current.index?.() ?? null;
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

  watches(): readonly WatchHealth[] {
    return this.#current.watches?.() ?? [];
  }
}

/** A store status for /metrics while following (nothing is written). */
export function followerStoreStatus(follower: FollowerSource): StoreStatus {
  return { error: follower.status().error, pendingRecords: 0, recordsSinceSnapshot: 0, bytesWritten: 0, errors: 0 };
}
