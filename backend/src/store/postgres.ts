// The PostgreSQL store: the timelines of one cluster in a database that several replicas (a leader that
// writes, followers that serve) and several clusters share. Schema: backend/src/store/migrations.
//
// Group commit: record() only queues; one transaction takes everything queued (up to maxBatch
// records) while the previous one commits. flushed() resolves once what was recorded before it has
// committed. A failed transaction loses nothing: its records go back to the front of the queue and are
// retried with backoff, reported by status().error and onError until a commit succeeds again. Writing
// twice is harmless: transitions are keyed by (cluster, uid, seq) and skipped when already there,
// timelines are upserted. The facts (fact(): node-layer transitions, causes, suspension reasons learned
// later; backend/src/timeline/facts.ts) go with the same group commit, keyed the same way, after what
// they refer to, each kind in a table of its own: no written row is ever updated. The JobSets' usage
// samplings (usage()) go with the same group commit too; a snapshot folds those older than a day into
// 5-minute rows and applies retention (#compactUsage), which followers see as a `pruned` reload.
//
// Fencing: opening the store makes it its cluster's writer by incrementing the cluster's epoch; every
// write transaction first updates the cluster row where the epoch is still its own. A writer that
// another one replaced (a leader that lost its lease but does not know it yet) therefore stops at
// its next commit (FencedError, onFenced) instead of interleaving with the new one; and the cluster
// row's lock orders one cluster's write transactions, which is what lets followers tail by number.

import { z } from 'zod';
import type pg from 'pg';
import { FactJoin, suspensionFact, type Fact } from '../timeline/facts.ts';
import type { TimelineUpdate } from '../timeline/engine.ts';
import type { MachineState } from '../timeline/machine.ts';
import { TERMINAL_STATES, transitionCount, transitionState, transitionTime, type Timeline } from '../timeline/types.ts';
import { StoreError } from './embedded.ts';
import { migrate, type MigrationResult } from './postgres-migrate.ts';
import {
  addFactRow,
  CAUSE_COLUMNS,
  causeFactOf,
  decodeTimeline,
  describePgError,
  factRowCount,
  INSERT_CAUSES,
  INSERT_NODE_TRANSITIONS,
  INSERT_POOL_FACTS,
  INSERT_SUSPENSIONS,
  INSERT_TRANSITIONS,
  INSERT_USAGE,
  insertCausesParams,
  insertNodeTransitionsParams,
  insertPoolFactsParams,
  insertSuspensionsParams,
  insertTransitionsParams,
  insertUsageParams,
  NODE_TRANSITION_COLUMNS,
  newPool,
  nodeTransitionFactOf,
  noFactRows,
  place,
  SUSPENSION_COLUMNS,
  suspensionFactOf,
  TIMELINE_COLUMNS,
  timelineRow,
  TRANSITION_COLUMNS,
  transitionRow,
  UPSERT_TIMELINES,
  upsertTimelinesParams,
  USAGE_COLUMNS,
  usageKeptOf,
  withClient,
  type CauseRowIn,
  type FactRows,
  type SuspensionRowIn,
  type TimelineRowIn,
  type TimelineRowOut,
  type TransitionRowIn,
  type TransitionRowOut,
  type UsageRowIn,
  type UsageRowOut,
} from './postgres-rows.ts';
import type { Recovery, StoreStatus, TimelineStore, UsageRecord, UsageSnapshotEntry } from './store.ts';
import { identityChanged } from '../timeline/identity.ts';
import { memoryChanged, writtenOf, type Written } from './written.ts';

export { describeUrl, isPostgresUrl } from './postgres-url.ts';

/** Another replica became the writer of this cluster: this store writes nothing more. */
export class FencedError extends StoreError {
  constructor(cluster: string, by: string | null) {
    super(`another replica${by ? ` (${by})` : ''} took over writing cluster "${cluster}": this one stopped writing`);
    this.name = 'FencedError';
  }
}

export interface PostgresStoreOptions {
  /** The cluster whose timelines this store writes (`--cluster-name`); JobSet UIDs are unique only within one. */
  cluster: string;
  /** Who writes (pod name, host name): recorded with the cluster for operators. */
  replica?: string;
  /** Called when a write fails, and with null when writing works again. */
  onError?: (error: Error | null) => void;
  /** Called once when another writer took over the cluster (see FencedError): stop leading. */
  onFenced?: (error: FencedError) => void;
  /** The first retry after a failed write comes after this long, then twice as long each time, up to maxRetryMs. */
  retryMs?: number;
  maxRetryMs?: number;
  /**
   * A commit that has not answered for this long (default 10 s: a hung server, a silently dropped
   * network) counts as failing: status().error says so and flushed() stops waiting for it.
   */
  stallMs?: number;
  /** Records per transaction at most (default 5000): a long outage's backlog commits in bounded pieces. */
  maxBatch?: number;
  /** How long a usage sampling holds (twice --usage-interval), recorded with the cluster for followers; absent: left as it was. */
  usageHoldMs?: number;
  /** Passed to node-postgres' Pool (timeouts, TLS, ...). */
  pool?: pg.PoolConfig;
}

/** The write path's timings with their defaults, checked once at construction. */
const writeTimings = z.object({
  retryMs: z.number().positive().default(500),
  maxRetryMs: z.number().positive().default(10_000),
  stallMs: z.number().positive().default(10_000),
  maxBatch: z.number().int().positive().default(5000),
});

export interface PostgresRecovery extends Recovery {
  /** The schema migrations this start applied. */
  migration: MigrationResult;
  /** This store's fencing token: the cluster's writer number, 1 for the first. */
  epoch: number;
  /** Who wrote before this one, and until when it observed. */
  previousWriter: string | null;
}

/** What one record() call queued: committed all together or not at all. */
interface Pending {
  seq: number;
  timeline: TimelineRowOut | null;
  transitions: TransitionRowOut[];
  /** An observed mark (epoch ms), for observed() calls. */
  observed: number | null;
  /** Facts (fact() calls, and a suspension's reason that record() learned), as rows. */
  facts?: FactRows;
  /** Samplings of the JobSets' usage (usage() calls). */
  usage?: UsageRowOut[];
}


export class PostgresStore implements TimelineStore {
  readonly cluster: string;
  readonly epoch: number;
  readonly #pool: pg.Pool;
  readonly #options: PostgresStoreOptions;
  readonly #timings: z.infer<typeof writeTimings>;
  #pending: Pending[] = [];
  #seq = 0;
  #committed = 0;
  #waiters: { seq: number; resolve: () => void }[] = [];
  #flushing = false;
  #retry: NodeJS.Timeout | null = null;
  #attempt = 0;
  #error: Error | null = null;
  #fenced: FencedError | null = null;
  /** The commit in flight has not answered for stallMs. */
  #stalled: StoreError | null = null;
  #errors = 0;
  #bytes = 0;
  #closed = false;
  #observed: number | null;
  /** Of each timeline, what was last queued of its identity and of its machine's memory. */
  readonly #written = new Map<string, Written>();

  private constructor(pool: pg.Pool, epoch: number, observed: number | null, options: PostgresStoreOptions) {
    this.#pool = pool;
    this.cluster = options.cluster;
    this.epoch = epoch;
    this.#observed = observed;
    this.#options = options;
    this.#timings = writeTimings.parse(options);
  }

  /**
   * Connects, applies the schema migrations, becomes the writer of `options.cluster` (fencing off any
   * previous one) and reads back everything stored of it.
   */
  static async open(url: string, options: PostgresStoreOptions): Promise<{ store: PostgresStore; recovery: PostgresRecovery }> {
    checkClusterName(options.cluster);
    const pool = newPool(url, options.pool);
    try {
      const migration = await withClient(pool, (client) => migrate(client));
      // Claim first, then read: whatever the previous writer commits from now on is refused, so the
      // read below holds all it will ever have written.
      // (A subquery in RETURNING sees the table as it was before the statement: the previous writer.)
      const claim = await pool.query<{ epoch: string; previous: string | null }>(
        `INSERT INTO upness_clusters AS c (cluster, epoch, writer, writer_since, usage_hold_ms) VALUES ($1, 1, $2, now(), $3)
         ON CONFLICT (cluster) DO UPDATE SET epoch = c.epoch + 1, writer = EXCLUDED.writer, writer_since = now(), updated_at = now(),
           usage_hold_ms = COALESCE(EXCLUDED.usage_hold_ms, c.usage_hold_ms)
         RETURNING epoch, (SELECT writer FROM upness_clusters WHERE cluster = $1) AS previous`,
        [options.cluster, options.replica ?? null, options.usageHoldMs ?? null],
      );
      const epoch = Number(claim.rows[0]!.epoch);
      const loaded = await loadCluster(pool, options.cluster);
      const store = new PostgresStore(pool, epoch, loaded.observedUntil, options);
      for (const m of loaded.machines) store.#written.set(m.timeline.uid, writtenOf(m.timeline, m));
      const recovery: PostgresRecovery = {
        machines: loaded.machines,
        nodeLayers: loaded.nodeLayers,
        pools: loaded.pools,
        usage: loaded.usage,
        observedUntil: loaded.observedUntil,
        cut: null,
        records: loaded.records,
        migration,
        epoch,
        previousWriter: epoch > 1 ? claim.rows[0]!.previous : null,
      };
      return { store, recovery };
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw error;
    }
  }

  /** Queues what an observation changed (nothing, when it changed nothing durable). */
  record(update: TimelineUpdate, machine: MachineState): void {
    if (this.#closed || this.#fenced !== null) return;
    const tl = machine.timeline;
    const uid = tl.uid;
    const written = this.#written.get(uid);
    // As in the embedded store, a new resourceVersion alone is not written: it changes with every
    // observation, and a stale one after a restart only makes a gap unknown instead of proven unchanged.
    const changed = identityChanged(written, tl) || memoryChanged(written, machine);
    if (update.added.length === 0 && !changed && update.suspension === undefined) return;
    if (changed) this.#written.set(uid, writtenOf(tl, machine));
    // The timeline's row when it changed, or when it closes (closed_at); new transitions alone do not touch it.
    const closing = update.added.some((t) => TERMINAL_STATES.has(t.state));
    // The added transitions are its last ones (a closed timeline holds them packed: by time and state, not identity).
    const base = transitionCount(tl) - update.added.length;
    const rows = update.added.map((t, i) => {
      const seq = base + i;
      if (seq < 0 || transitionTime(tl, seq) !== t.at || transitionState(tl, seq) !== t.state) throw new Error(`a transition of ${uid} is not in its timeline`);
      return transitionRow(uid, seq, t);
    });
    if (rows.length > 0 || changed) this.#pending.push({ seq: ++this.#seq, timeline: changed || closing ? timelineRow(machine) : null, transitions: rows, observed: null });
    // A reason learned after its suspension was written: a fact of its own, never an update of the row.
    if (update.suspension !== undefined) this.fact(suspensionFact(uid, update.suspension));
    this.#schedule();
  }

  /** Queues a fact; committed with the records before it, in the same transaction or a later one. */
  fact(fact: Fact): void {
    if (this.#closed || this.#fenced !== null) return;
    const facts = noFactRows();
    addFactRow(facts, fact);
    this.#pending.push({ seq: ++this.#seq, timeline: null, transitions: [], observed: null, facts });
    this.#schedule();
  }

  /** Queues samplings of the JobSets' usage; committed with the records before them, as the facts are. */
  usage(records: readonly UsageRecord[]): void {
    if (this.#closed || this.#fenced !== null || records.length === 0) return;
    const usage = records.map((r): UsageRowOut => ({ owner: r.owner, folded: false, at: r.at, namespace: r.ns, name: r.name, v: r.v }));
    this.#pending.push({ seq: ++this.#seq, timeline: null, transitions: [], observed: null, usage });
    this.#schedule();
  }

  /** Everything up to `at` has been observed; committed with the records before it. */
  observed(at: number | null): void {
    if (at === null || this.#closed || this.#fenced !== null) return;
    if (this.#observed !== null && at <= this.#observed) return;
    this.#observed = at;
    const last = this.#pending[this.#pending.length - 1];
    // Consecutive marks with no record between them: the newest one says it all.
    if (last !== undefined && last.timeline === null && last.transitions.length === 0 && last.facts === undefined && last.usage === undefined) {
      last.observed = at;
      last.seq = ++this.#seq;
    } else {
      this.#pending.push({ seq: ++this.#seq, timeline: null, transitions: [], observed: at });
    }
    this.#schedule();
  }

  /** Resolves when everything recorded so far has committed (at once while writes are failing: serving goes on). */
  flushed(): Promise<void> {
    if (this.#committed >= this.#seq || this.#error !== null || this.#fenced !== null || this.#stalled !== null) return Promise.resolve();
    const seq = this.#seq;
    return new Promise((resolve) => this.#waiters.push({ seq, resolve }));
  }

  #schedule(): void {
    if (this.#flushing || this.#retry !== null || this.#closed || this.#fenced !== null || this.#pending.length === 0) return;
    this.#flushing = true;
    setImmediate(() => void this.#flush());
  }

  async #flush(): Promise<void> {
    const max = this.#timings.maxBatch;
    let rows = 0;
    let n = 0;
    while (n < this.#pending.length && (n === 0 || rows < max)) {
      const p = this.#pending[n]!;
      rows += p.transitions.length + (p.facts === undefined ? 0 : factRowCount(p.facts)) + (p.usage?.length ?? 0) + 1;
      n++;
    }
    const batch = this.#pending.splice(0, n);
    const stallMs = this.#timings.stallMs;
    const watchdog = setTimeout(() => {
      this.#stalled = new StoreError(`cannot write to PostgreSQL: no answer for ${Math.round(stallMs / 1000)} s`);
      this.#options.onError?.(this.#stalled);
      for (const w of this.#waiters.splice(0)) w.resolve();
    }, stallMs);
    watchdog.unref();
    try {
      await this.#commit(batch);
      this.#committed = batch[batch.length - 1]!.seq;
      this.#attempt = 0;
      if (this.#error !== null || this.#stalled !== null) {
        this.#error = null;
        this.#options.onError?.(null);
      }
    } catch (error) {
      // Nothing of the batch is known to have committed (or it did and a retry is a no-op): all of it again.
      this.#pending = batch.concat(this.#pending);
      if (error instanceof FencedError) {
        this.#fenced = error;
        this.#error = error;
        this.#errors++;
        this.#options.onError?.(error);
        this.#options.onFenced?.(error);
      } else {
        this.#error = new StoreError(`cannot write to PostgreSQL: ${describePgError(error)}`);
        this.#errors++;
        this.#options.onError?.(this.#error);
        const first = this.#timings.retryMs;
        const delay = Math.min(this.#timings.maxRetryMs, first * 2 ** this.#attempt++);
        this.#retry = setTimeout(() => {
          this.#retry = null;
          this.#schedule();
        }, delay);
        this.#retry.unref();
      }
    } finally {
      clearTimeout(watchdog);
      this.#stalled = null;
      this.#waiters = this.#waiters.filter((w) => {
        if (w.seq > this.#committed && this.#error === null) return true;
        w.resolve();
        return false;
      });
      this.#flushing = false;
      if (this.#error === null) this.#schedule();
    }
  }

  /** One transaction: the fence (and the observed mark), the timelines, then their transitions. */
  async #commit(batch: Pending[]): Promise<void> {
    // The newest row of each timeline: later records of it in the batch hold everything earlier ones did.
    const timelines = new Map<string, TimelineRowOut>();
    const transitions: TransitionRowOut[] = [];
    const facts = noFactRows();
    const usage: UsageRowOut[] = [];
    let observed: number | null = null;
    for (const p of batch) {
      if (p.usage !== undefined) usage.push(...p.usage);
      if (p.timeline !== null) timelines.set(p.timeline.uid, p.timeline);
      for (const t of p.transitions) transitions.push(t);
      if (p.facts !== undefined) {
        facts.nodes.push(...p.facts.nodes);
        facts.causes.push(...p.facts.causes);
        facts.suspensions.push(...p.facts.suspensions);
        facts.pools.push(...p.facts.pools);
      }
      if (p.observed !== null) observed = p.observed;
    }
    const { nodes, causes, suspensions, pools } = facts;
    const timelineParams = upsertTimelinesParams(this.cluster, [...timelines.values()]);
    const transitionParams = insertTransitionsParams(this.cluster, transitions);
    const nodeParams = insertNodeTransitionsParams(this.cluster, nodes);
    const causeParams = insertCausesParams(this.cluster, causes);
    const suspensionParams = insertSuspensionsParams(this.cluster, suspensions);
    const poolParams = insertPoolFactsParams(this.cluster, pools);
    const usageParams = insertUsageParams(this.cluster, usage);
    await withClient(this.#pool, async (client) => {
      await client.query('BEGIN');
      try {
        await this.#fence(client, observed);
        if (timelines.size > 0) await client.query(UPSERT_TIMELINES, timelineParams);
        if (transitions.length > 0) await client.query(INSERT_TRANSITIONS, transitionParams);
        // Facts after what they refer to: node-layer transitions, then causes (of either layer), then reasons.
        if (nodes.length > 0) await client.query(INSERT_NODE_TRANSITIONS, nodeParams);
        if (causes.length > 0) await client.query(INSERT_CAUSES, causeParams);
        if (suspensions.length > 0) await client.query(INSERT_SUSPENSIONS, suspensionParams);
        if (pools.length > 0) await client.query(INSERT_POOL_FACTS, poolParams);
        if (usage.length > 0) await client.query(INSERT_USAGE, usageParams);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
    this.#bytes += JSON.stringify(timelineParams).length + JSON.stringify(transitionParams).length;
    if (factRowCount(facts) > 0) this.#bytes += JSON.stringify(nodeParams).length + JSON.stringify(causeParams).length + JSON.stringify(suspensionParams).length + JSON.stringify(poolParams).length;
    if (usage.length > 0) this.#bytes += JSON.stringify(usageParams).length;
  }

  /** Locks the cluster's row if this store still holds its epoch, and moves its observed mark; FencedError if not. */
  async #fence(client: pg.ClientBase, observed: number | null): Promise<void> {
    const res = await client.query(
      `UPDATE upness_clusters SET observed_until = GREATEST(observed_until, $3::timestamptz), updated_at = now()
       WHERE cluster = $1 AND epoch = $2`,
      [this.cluster, this.epoch, observed === null ? null : new Date(observed).toISOString()],
    );
    if (res.rowCount === 1) return;
    const who = await client.query<{ writer: string | null }>('SELECT writer FROM upness_clusters WHERE cluster = $1', [this.cluster]);
    throw new FencedError(this.cluster, who.rows[0]?.writer ?? null);
  }

  /**
   * Compaction, the PostgreSQL way: commits what is queued, then deletes the closed timelines of this
   * cluster that are no longer among `machines` (retention dropped them from the engine), and tells
   * followers to reload. Open timelines are never deleted. Skipped while writes are failing. `usage`
   * (the usage book as kept now) is what the usage rows become: see #compactUsage.
   */
  async snapshot(machines: Iterable<MachineState>, observedUntil: number | null, _nodeLayers?: Iterable<Timeline>, pools?: Iterable<Timeline>, usage?: Iterable<UsageSnapshotEntry>): Promise<void> {
    const takenAt = Date.now();
    const kept = usage === undefined ? undefined : [...usage];
    this.observed(observedUntil);
    // Nothing depends on it: while writes fail (or another replica writes), the next one will do.
    if (this.#error !== null || this.#fenced !== null || this.#closed) return;
    await this.prune(machines);
    if (pools !== undefined) await this.#prunePools(pools);
    if (kept !== undefined) await this.#compactUsage(kept, takenAt);
  }

  /**
   * Makes the usage rows what the book keeps (`kept`, dumped at `takenAt`): its folded buckets are
   * written, and the rows before each JobSet's first kept bucket and first kept sampling are deleted
   * (folded into buckets, or past the retention), as are the rows before `takenAt` of JobSets the
   * book no longer holds. Followers read the cluster again when anything changed.
   */
  async #compactUsage(kept: readonly UsageSnapshotEntry[], takenAt: number): Promise<void> {
    const folded: UsageRowOut[] = [];
    for (const e of kept) {
      const { t, v } = e.history.folded;
      for (let i = 0; i < t.length; i++) folded.push({ owner: e.owner, folded: true, at: t[i]!, namespace: e.namespace, name: e.name, v: v.map((column) => column[i] ?? null) });
    }
    const iso = (at: number | undefined, otherwise: string): string => (at === undefined ? otherwise : new Date(at).toISOString());
    const owners = kept.map((e) => e.owner);
    // A JobSet whose samplings were all folded keeps none from before the dump (later ones may be committed already).
    const rawFrom = kept.map((e) => iso(e.history.raw.t[0], new Date(takenAt).toISOString()));
    const foldedFrom = kept.map((e) => iso(e.history.folded.t[0], 'infinity'));
    await withClient(this.#pool, async (client) => {
      await client.query('BEGIN');
      try {
        await this.#fence(client, null);
        const added = folded.length > 0 ? (await client.query(INSERT_USAGE, insertUsageParams(this.cluster, folded))).rowCount ?? 0 : 0;
        const dropped = await client.query(
          `DELETE FROM upness_usage u USING unnest($2::text[], $3::timestamptz[], $4::timestamptz[]) AS k (owner, raw_from, folded_from)
           WHERE u.cluster = $1 AND u.owner = k.owner AND u.at < CASE WHEN u.folded THEN k.folded_from ELSE k.raw_from END`,
          [this.cluster, owners, rawFrom, foldedFrom],
        );
        const forgotten = await client.query('DELETE FROM upness_usage WHERE cluster = $1 AND NOT (owner = ANY($2::text[])) AND at < $3', [this.cluster, owners, new Date(takenAt).toISOString()]);
        // Rows changed under the followers' cursor: they read the cluster again, as after timelines were pruned.
        if (added + (dropped.rowCount ?? 0) + (forgotten.rowCount ?? 0) > 0) await client.query('UPDATE upness_clusters SET pruned = pruned + 1 WHERE cluster = $1', [this.cluster]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }

  /** Deletes the facts of the node pools not among `pools` (retention let go of them). */
  async #prunePools(pools: Iterable<Timeline>): Promise<void> {
    const keep = Array.from(pools, (p) => p.uid);
    await withClient(this.#pool, async (client) => {
      await client.query('BEGIN');
      try {
        await this.#fence(client, null);
        const res = await client.query('DELETE FROM upness_pool_facts WHERE cluster = $1 AND NOT (uid = ANY($2::text[]))', [this.cluster, keep]);
        // Followers read the cluster again from scratch, as after timelines were pruned.
        if ((res.rowCount ?? 0) > 0) await client.query('UPDATE upness_clusters SET pruned = pruned + 1 WHERE cluster = $1', [this.cluster]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }

  /** Deletes the closed timelines of this cluster that are not among `machines`; returns how many. */
  async prune(machines: Iterable<MachineState>): Promise<number> {
    await this.flushed();
    if (this.#fenced !== null) throw this.#fenced;
    if (this.#error !== null) throw this.#error;
    const keep = Array.from(machines, (m) => m.timeline.uid);
    const deleted = await withClient(this.#pool, async (client) => {
      await client.query('BEGIN');
      try {
        await this.#fence(client, null);
        const res = await client.query<{ uid: string }>(
          'DELETE FROM upness_timelines WHERE cluster = $1 AND closed_at IS NOT NULL AND NOT (uid = ANY($2::text[])) RETURNING uid',
          [this.cluster, keep],
        );
        if (res.rows.length > 0) await client.query('UPDATE upness_clusters SET pruned = pruned + 1 WHERE cluster = $1', [this.cluster]);
        await client.query('COMMIT');
        return res.rows.map((r) => r.uid);
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
    for (const uid of deleted) this.#written.delete(uid);
    return deleted.length;
  }

  status(): StoreStatus {
    return {
      error: (this.#error ?? this.#stalled)?.message ?? null,
      pendingRecords: this.#pending.length,
      // Nothing to compact: retention runs on the hourly snapshot() alone.
      recordsSinceSnapshot: 0,
      bytesWritten: this.#bytes,
      errors: this.#errors,
    };
  }

  /** The writer was replaced (see FencedError). */
  get fenced(): boolean {
    return this.#fenced !== null;
  }

  /** Commits what is queued (unless writes are failing), then disconnects. */
  async close(): Promise<void> {
    if (this.#closed) return;
    await this.flushed();
    this.#closed = true;
    if (this.#retry !== null) clearTimeout(this.#retry);
    await this.#pool.end();
  }

  /** Disconnects without committing what is queued: a crash, for tests; the fencing holds either way. */
  async abandon(): Promise<void> {
    this.#closed = true;
    if (this.#retry !== null) clearTimeout(this.#retry);
    this.#pending = [];
    for (const w of this.#waiters) w.resolve();
    this.#waiters = [];
    // A commit in flight may still finish: the pool ends once it has.
    await this.#pool.end().catch(() => undefined);
  }
}

export function checkClusterName(cluster: string): void {
  if (cluster === '' || cluster.length > 253 || cluster.trim() !== cluster) {
    throw new StoreError(`the cluster name must be 1 to 253 characters without leading or trailing spaces, not "${cluster}"`);
  }
}

/** Reads what is stored of one cluster without becoming its writer (nothing is migrated or fenced). */
export async function readCluster(url: string, cluster: string): Promise<Recovery> {
  const pool = newPool(url);
  try {
    const loaded = await loadCluster(pool, cluster);
    return { ...loaded, cut: null };
  } finally {
    await pool.end();
  }
}

/** Reads one cluster's timelines, transitions, facts and machine memory in one snapshot of the database. */
async function loadCluster(
  pool: pg.Pool,
  cluster: string,
): Promise<{ machines: MachineState[]; nodeLayers: Timeline[]; pools: Timeline[]; usage: NonNullable<Recovery['usage']>; observedUntil: number | null; records: number }> {
  return withClient(pool, async (client) => {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    try {
      const mark = await client.query<{ observed_until: number | null }>(
        'SELECT (extract(epoch from observed_until) * 1000)::float8 AS observed_until FROM upness_clusters WHERE cluster = $1',
        [cluster],
      );
      const timelines = await client.query<TimelineRowIn>(`SELECT ${TIMELINE_COLUMNS} FROM upness_timelines WHERE cluster = $1`, [cluster]);
      const transitions = await client.query<TransitionRowIn>(`SELECT ${TRANSITION_COLUMNS} FROM upness_transitions WHERE cluster = $1 ORDER BY uid, seq`, [cluster]);
      const nodes = await client.query<TransitionRowIn>(`SELECT ${NODE_TRANSITION_COLUMNS} FROM upness_node_transitions WHERE cluster = $1 ORDER BY uid, seq`, [cluster]);
      const causes = await client.query<CauseRowIn>(`SELECT ${CAUSE_COLUMNS} FROM upness_causes WHERE cluster = $1 ORDER BY id`, [cluster]);
      const suspensions = await client.query<SuspensionRowIn>(`SELECT ${SUSPENSION_COLUMNS} FROM upness_suspensions WHERE cluster = $1 ORDER BY id`, [cluster]);
      const poolFacts = await client.query<{ fact: Fact }>('SELECT fact FROM upness_pool_facts WHERE cluster = $1 ORDER BY id', [cluster]);
      const usage = await client.query<UsageRowIn>(`SELECT ${USAGE_COLUMNS} FROM upness_usage WHERE cluster = $1 ORDER BY owner, folded DESC, at`, [cluster]);
      await client.query('COMMIT');
      const machines = new Map<string, MachineState>();
      for (const row of timelines.rows) {
        machines.set(row.uid, {
          timeline: decodeTimeline(row),
          everUp: row.ever_up,
          restarts: row.restarts,
          resourceVersion: row.resource_version,
          deletedAt: row.deleted_at,
        });
      }
      for (const row of transitions.rows) {
        const m = machines.get(row.uid);
        if (m === undefined || !place(m.timeline, row)) {
          throw new StoreError(`cluster "${cluster}": transition ${row.seq} of ${row.uid} has no timeline or no transitions before it; the tables were changed by hand?`);
        }
      }
      for (const m of machines.values()) {
        if (transitionCount(m.timeline) === 0) {
          throw new StoreError(`cluster "${cluster}": timeline ${m.timeline.uid} (${m.timeline.namespace}/${m.timeline.name}) has no transitions; the tables were changed by hand?`);
        }
      }
      const facts = new FactJoin((uid) => machines.get(uid)?.timeline);
      for (const row of nodes.rows) {
        if (!facts.join(nodeTransitionFactOf(row))) throw new StoreError(`cluster "${cluster}": node-layer transition ${row.seq} of ${row.uid} has no timeline or no transitions before it; the tables were changed by hand?`);
      }
      for (const row of causes.rows) {
        if (!facts.join(causeFactOf(row))) throw new StoreError(`cluster "${cluster}": a cause of ${row.layer} transition ${row.seq} of ${row.uid} has no transition; the tables were changed by hand?`);
      }
      for (const row of suspensions.rows) {
        if (!facts.join(suspensionFactOf(row))) throw new StoreError(`cluster "${cluster}": the reason of suspension ${row.seq} of ${row.uid} has no transition; the tables were changed by hand?`);
      }
      for (const row of poolFacts.rows) {
        if (!facts.join(row.fact)) throw new StoreError(`cluster "${cluster}": a ${row.fact.kind} of node pool ${row.fact.uid} comes before what it refers to; the tables were changed by hand?`);
      }
      return {
        machines: [...machines.values()],
        nodeLayers: [...facts.layers.values()],
        pools: [...facts.pools.values()],
        usage: usageKeptOf(usage.rows),
        observedUntil: mark.rows[0]?.observed_until ?? null,
        records: timelines.rows.length + transitions.rows.length + nodes.rows.length + causes.rows.length + suspensions.rows.length + poolFacts.rows.length + usage.rows.length,
      };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  });
}
