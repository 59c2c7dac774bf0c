// Rows of the PostgreSQL store (schema: backend/src/store/migrations), shared by the writer
// (postgres.ts) and the followers (postgres-tail.ts, for runtime/follower.ts): how a machine and its
// facts become rows, the SELECTs that read them back, and how rows become timelines and facts again
// (joined by FactJoin, ../timeline/facts.ts). Nothing written is updated: a fact learned later is a new row.

import pg from 'pg';
import { nodeTransitionFact, type Fact, type Layer } from '../timeline/facts.ts';
import { identityOf, type TimelineIdentity } from '../timeline/identity.ts';
import type { MachineState } from '../timeline/machine.ts';
import { closedAt, heldTransition, isPackedTimeline, openTransitions, transitionAt, transitionCount, type Cause, type State, type Timeline, type Transition } from '../timeline/types.ts';
import type { UsageRecord, UsageSnapshotEntry } from './records.ts';

/** A timeline from the PostgreSQL store, with the cluster it was observed in (UIDs are unique per cluster only). */
export type ClusterTimeline = Timeline & { cluster: string };

/** A timestamptz column read back as epoch milliseconds (exact: the store writes whole milliseconds). */
export const ms = (column: string): string => `(extract(epoch from ${column}) * 1000)::float8`;

export const TIMELINE_COLUMNS = `uid, namespace, name, labels, accelerator, topology, ${ms('created_at')} AS created_at,
  ever_up, restarts, resource_version, ${ms('deleted_at')} AS deleted_at, rev::float8 AS rev,
  accelerators, checkpoint_interval_ms::float8 AS checkpoint_interval_ms, pods`;

// (upness_transitions.causes is no longer read: migration 2 copied its causes into upness_causes.)
export const NODE_TRANSITION_COLUMNS = `uid, seq, ${ms('at')} AS at, state, unobserved_interruptions, unobserved_recoveries, id::float8 AS id`;

/** The JobSet's transitions also say why a suspension happened (migration 3). */
export const TRANSITION_COLUMNS = `${NODE_TRANSITION_COLUMNS}, suspended_reason, suspended_message`;

export const CAUSE_COLUMNS = `uid, layer, seq, cause, id::float8 AS id`;

/** Reasons of suspensions learned after they were written (migration 4). */
export const SUSPENSION_COLUMNS = `uid, seq, reason, message, id::float8 AS id`;

/** The node pools' facts, kept whole (migration 6). */
export const POOL_FACT_COLUMNS = `fact, id::float8 AS id`;

export interface TimelineRowIn {
  uid: string;
  namespace: string;
  name: string;
  labels: Record<string, string>;
  accelerator: string | null;
  topology: string | null;
  created_at: number;
  ever_up: boolean;
  restarts: number;
  resource_version: string | null;
  deleted_at: number | null;
  rev: number;
  accelerators: number;
  checkpoint_interval_ms: number | null;
  /** Migration 5; 0 on rows written before it (not known). */
  pods: number;
}

export interface TransitionRowIn {
  uid: string;
  seq: number;
  at: number;
  state: State;
  unobserved_interruptions: number | null;
  unobserved_recoveries: number | null;
  id: number;
  /** Read from upness_transitions only (node-layer transitions are never suspended for a reason). */
  suspended_reason?: string | null;
  suspended_message?: string | null;
}

export interface CauseRowIn {
  uid: string;
  layer: Layer;
  seq: number;
  cause: Cause;
  id: number;
}

export interface SuspensionRowIn {
  uid: string;
  seq: number;
  reason: string | null;
  message: string | null;
  id: number;
}

export interface PoolFactRowIn {
  fact: Fact;
  id: number;
}

/** What record() keeps of a timeline until the next commit: its row, as of that record. */
export interface TimelineRowOut {
  uid: string;
  namespace: string;
  name: string;
  labels: string;
  accelerator: string | null;
  topology: string | null;
  createdAt: string;
  everUp: boolean;
  restarts: number;
  rv: string | null;
  deletedAt: string | null;
  closedAt: string | null;
  accelerators: number;
  checkpointIntervalMs: number | null;
  pods: number;
}

export interface TransitionRowOut {
  uid: string;
  seq: number;
  at: string;
  state: State;
  interruptions: number | null;
  recoveries: number | null;
  suspendedReason: string | null;
  suspendedMessage: string | null;
}

export interface CauseRowOut {
  uid: string;
  layer: Layer;
  seq: number;
  cause: string;
}

const iso = (t: number): string => new Date(t).toISOString();

export function timelineRow(machine: MachineState): TimelineRowOut {
  const tl = machine.timeline;
  const closed = transitionCount(tl) === 0 ? Infinity : closedAt(tl);
  return {
    uid: tl.uid,
    namespace: tl.namespace,
    name: tl.name,
    labels: JSON.stringify(tl.labels),
    accelerator: tl.accelerator,
    topology: tl.topology,
    createdAt: iso(tl.createdAt),
    everUp: machine.everUp,
    restarts: machine.restarts,
    rv: machine.resourceVersion,
    deletedAt: machine.deletedAt === null ? null : iso(machine.deletedAt),
    closedAt: closed !== Infinity ? iso(closed) : null,
    accelerators: tl.accelerators ?? 0,
    checkpointIntervalMs: tl.checkpointIntervalMs ?? null,
    pods: tl.pods ?? 0,
  };
}

export function transitionRow(uid: string, seq: number, t: Transition): TransitionRowOut {
  return {
    uid,
    seq,
    at: iso(t.at),
    state: t.state,
    interruptions: t.unobserved?.interruptions ?? null,
    recoveries: t.unobserved?.recoveries ?? null,
    suspendedReason: t.suspension?.reason ?? null,
    suspendedMessage: t.suspension?.message ?? null,
  };
}

/** Why a suspension happened, learned after its row was written: a row of its own (upness_suspensions). */
export interface SuspensionRowOut {
  uid: string;
  seq: number;
  reason: string | null;
  message: string | null;
}

/** The rows of facts waiting for one commit, by table. */
export interface FactRows {
  nodes: TransitionRowOut[];
  causes: CauseRowOut[];
  suspensions: SuspensionRowOut[];
  /** Node pools' facts, each as its JSON. */
  pools: { uid: string; fact: string }[];
}

export const noFactRows = (): FactRows => ({ nodes: [], causes: [], suspensions: [], pools: [] });

/** The one encoder of facts (Fact, ../timeline/facts.ts) for PostgreSQL: each kind to the rows of its table. */
export function addFactRow(rows: FactRows, fact: Fact): void {
  if (fact.kind === 'pool-transition') rows.pools.push({ uid: fact.uid, fact: JSON.stringify({ ...fact, transition: nodeTransitionFact(fact.uid, fact.seq, fact.transition).transition }) });
  else if (fact.kind === 'pool-cause' || fact.kind === 'pool-jobset') rows.pools.push({ uid: fact.uid, fact: JSON.stringify(fact) });
  else if (fact.kind === 'node-transition') rows.nodes.push(transitionRow(fact.uid, fact.seq, fact.transition));
  else if (fact.kind === 'cause') rows.causes.push({ uid: fact.uid, layer: fact.layer, seq: fact.seq, cause: JSON.stringify(fact.cause) });
  else rows.suspensions.push({ uid: fact.uid, seq: fact.seq, reason: fact.suspension.reason, message: fact.suspension.message });
}

export const factRowCount = (rows: FactRows): number => rows.nodes.length + rows.causes.length + rows.suspensions.length + rows.pools.length;

/** Node pools' facts, in the order they were found. */
export const INSERT_POOL_FACTS = `
INSERT INTO upness_pool_facts (cluster, uid, fact)
SELECT $1, f.uid, f.fact::jsonb
FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS f (uid, fact, n)
ORDER BY f.n
ON CONFLICT DO NOTHING`;

export function insertPoolFactsParams(cluster: string, rows: FactRows['pools']): unknown[] {
  return [cluster, rows.map((r) => r.uid), rows.map((r) => r.fact)];
}

/** The facts of rows read back, as FactJoin takes them. */
export const nodeTransitionFactOf = (row: TransitionRowIn): Fact => ({ kind: 'node-transition', uid: row.uid, seq: row.seq, transition: decodeTransition(row) });
export const causeFactOf = (row: CauseRowIn): Fact => ({ kind: 'cause', uid: row.uid, layer: row.layer, seq: row.seq, cause: row.cause });
export const suspensionFactOf = (row: SuspensionRowIn): Fact => ({ kind: 'suspension', uid: row.uid, seq: row.seq, suspension: { reason: row.reason, message: row.message } });

/** One statement for any number of timelines (arrays, not one parameter per value). */
export const UPSERT_TIMELINES = `
INSERT INTO upness_timelines (cluster, uid, namespace, name, labels, accelerator, topology, created_at, ever_up, restarts, resource_version, deleted_at, closed_at, accelerators, checkpoint_interval_ms, pods, rev)
SELECT $1, u.uid, u.namespace, u.name, u.labels::jsonb, u.accelerator, u.topology, u.created_at, u.ever_up, u.restarts, u.rv, u.deleted_at, u.closed_at, u.accelerators, u.checkpoint_interval_ms, u.pods, nextval('upness_rev')
FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::timestamptz[], $9::boolean[], $10::integer[], $11::text[], $12::timestamptz[], $13::timestamptz[], $14::integer[], $15::bigint[], $16::integer[])
  AS u (uid, namespace, name, labels, accelerator, topology, created_at, ever_up, restarts, rv, deleted_at, closed_at, accelerators, checkpoint_interval_ms, pods)
ON CONFLICT (cluster, uid) DO UPDATE SET
  namespace = EXCLUDED.namespace, name = EXCLUDED.name, labels = EXCLUDED.labels, accelerator = EXCLUDED.accelerator,
  topology = EXCLUDED.topology, created_at = EXCLUDED.created_at, ever_up = EXCLUDED.ever_up, restarts = EXCLUDED.restarts,
  resource_version = EXCLUDED.resource_version, deleted_at = EXCLUDED.deleted_at, closed_at = EXCLUDED.closed_at,
  accelerators = EXCLUDED.accelerators, checkpoint_interval_ms = EXCLUDED.checkpoint_interval_ms, pods = EXCLUDED.pods, rev = EXCLUDED.rev`;

export function upsertTimelinesParams(cluster: string, rows: TimelineRowOut[]): unknown[] {
  return [
    cluster,
    rows.map((r) => r.uid),
    rows.map((r) => r.namespace),
    rows.map((r) => r.name),
    rows.map((r) => r.labels),
    rows.map((r) => r.accelerator),
    rows.map((r) => r.topology),
    rows.map((r) => r.createdAt),
    rows.map((r) => r.everUp),
    rows.map((r) => r.restarts),
    rows.map((r) => r.rv),
    rows.map((r) => r.deletedAt),
    rows.map((r) => r.closedAt),
    rows.map((r) => r.accelerators),
    rows.map((r) => r.checkpointIntervalMs),
    rows.map((r) => r.pods),
  ];
}

/** Idempotent: a transition already there (a retry after a commit whose answer was lost) is skipped. */
export const INSERT_TRANSITIONS = `
INSERT INTO upness_transitions (cluster, uid, seq, at, state, unobserved_interruptions, unobserved_recoveries, suspended_reason, suspended_message)
SELECT $1, t.uid, t.seq, t.at, t.state, t.interruptions, t.recoveries, t.suspended_reason, t.suspended_message
FROM unnest($2::text[], $3::integer[], $4::timestamptz[], $5::text[], $6::integer[], $7::integer[], $8::text[], $9::text[])
  WITH ORDINALITY AS t (uid, seq, at, state, interruptions, recoveries, suspended_reason, suspended_message, n)
ORDER BY t.n
ON CONFLICT (cluster, uid, seq) DO NOTHING`;

/** The node layer's transitions, the same way (they carry no suspension reason). */
export const INSERT_NODE_TRANSITIONS = `
INSERT INTO upness_node_transitions (cluster, uid, seq, at, state, unobserved_interruptions, unobserved_recoveries)
SELECT $1, t.uid, t.seq, t.at, t.state, t.interruptions, t.recoveries
FROM unnest($2::text[], $3::integer[], $4::timestamptz[], $5::text[], $6::integer[], $7::integer[])
  WITH ORDINALITY AS t (uid, seq, at, state, interruptions, recoveries, n)
ORDER BY t.n
ON CONFLICT (cluster, uid, seq) DO NOTHING`;

/** Idempotent too: a cause already given to that transition is skipped. */
export const INSERT_CAUSES = `
INSERT INTO upness_causes (cluster, uid, layer, seq, cause)
SELECT $1, c.uid, c.layer, c.seq, c.cause::jsonb
FROM unnest($2::text[], $3::text[], $4::integer[], $5::text[]) WITH ORDINALITY AS c (uid, layer, seq, cause, n)
ORDER BY c.n
ON CONFLICT DO NOTHING`;

export function insertCausesParams(cluster: string, rows: CauseRowOut[]): unknown[] {
  return [cluster, rows.map((r) => r.uid), rows.map((r) => r.layer), rows.map((r) => r.seq), rows.map((r) => r.cause)];
}

/** Idempotent: the reason of a suspension already given one is skipped (the first one known is kept). */
export const INSERT_SUSPENSIONS = `
INSERT INTO upness_suspensions (cluster, uid, seq, reason, message)
SELECT $1, s.uid, s.seq, s.reason, s.message
FROM unnest($2::text[], $3::integer[], $4::text[], $5::text[]) WITH ORDINALITY AS s (uid, seq, reason, message, n)
ORDER BY s.n
ON CONFLICT (cluster, uid, seq) DO NOTHING`;

export function insertSuspensionsParams(cluster: string, rows: SuspensionRowOut[]): unknown[] {
  return [cluster, rows.map((r) => r.uid), rows.map((r) => r.seq), rows.map((r) => r.reason), rows.map((r) => r.message)];
}

export function insertNodeTransitionsParams(cluster: string, rows: TransitionRowOut[]): unknown[] {
  return [
    cluster,
    rows.map((r) => r.uid),
    rows.map((r) => r.seq),
    rows.map((r) => r.at),
    rows.map((r) => r.state),
    rows.map((r) => r.interruptions),
    rows.map((r) => r.recoveries),
  ];
}

export function insertTransitionsParams(cluster: string, rows: TransitionRowOut[]): unknown[] {
  return [...insertNodeTransitionsParams(cluster, rows), rows.map((r) => r.suspendedReason), rows.map((r) => r.suspendedMessage)];
}

export function decodeTransition(row: TransitionRowIn): Transition {
  const t: Transition = { at: row.at, state: row.state };
  if (row.unobserved_interruptions !== null || row.unobserved_recoveries !== null) {
    t.unobserved = { interruptions: row.unobserved_interruptions ?? 0, recoveries: row.unobserved_recoveries ?? 0 };
  }
  const reason = row.suspended_reason ?? null;
  const message = row.suspended_message ?? null;
  if (reason !== null || message !== null) t.suspension = { reason, message };
  return t;
}

/** A timeline row's identity (its columns in snake case). */
export function decodeIdentity(row: TimelineRowIn): TimelineIdentity {
  return identityOf({
    namespace: row.namespace,
    name: row.name,
    labels: row.labels,
    accelerator: row.accelerator,
    topology: row.topology,
    createdAt: row.created_at,
    accelerators: row.accelerators,
    checkpointIntervalMs: row.checkpoint_interval_ms,
    pods: row.pods,
  });
}

export function decodeTimeline(row: TimelineRowIn, cluster?: string): Timeline {
  const tl: Timeline = { uid: row.uid, ...decodeIdentity(row), transitions: [] };
  return cluster === undefined ? tl : Object.assign(tl, { cluster });
}

/**
 * Puts a transition at its place (`seq`) in a timeline: appended when it is the next one, replaced
 * when already there (a reload); false when transitions before it are missing.
 */
export function place(tl: Timeline, row: TransitionRowIn): boolean {
  if (row.seq > transitionCount(tl)) return false;
  const t = decodeTransition(row);
  if (isPackedTimeline(tl)) {
    // Closed: its times, states and unobserved events never change; a reason the row has and it has not is kept.
    if (t.suspension !== undefined && transitionAt(tl, row.seq).suspension === undefined) heldTransition(tl, row.seq)!.suspension = t.suspension;
    return true;
  }
  // Read again: what facts joined to it stays (its causes, a reason learned later).
  const transitions = openTransitions(tl);
  const before = transitions[row.seq];
  if (before?.causes !== undefined) t.causes = before.causes;
  if (before?.suspension !== undefined && t.suspension === undefined) t.suspension = before.suspension;
  transitions[row.seq] = t;
  return true;
}

/** Pool errors of idle clients (the server restarted, the network broke) surface on the next query instead. */
export function newPool(url: string, options: pg.PoolConfig = {}): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: 4,
    connectionTimeoutMillis: 5000,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
    // A connection that stopped answering is given up, and the next try opens a new one.
    query_timeout: 30_000,
    // A client frozen in the middle of a transaction (a paused process, a long GC) would keep its
    // cluster's row locked, and with it the next leader's claim: the server ends such a session.
    idle_in_transaction_session_timeout: 5000,
    application_name: 'upness',
    ...options,
  });
  pool.on('error', () => {});
  return pool;
}

/**
 * Runs `fn` with a client of the pool. A client that failed is destroyed, not returned to the pool,
 * and an error event while it is checked out (the connection broke between two queries) does not
 * bring the process down: the next query on it fails instead.
 */
export async function withClient<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  const ignore = (): void => {};
  client.on('error', ignore);
  let failure: Error | undefined;
  try {
    return await fn(client);
  } catch (error) {
    failure = error as Error;
    throw error;
  } finally {
    client.off('error', ignore);
    client.release(failure);
  }
}

/** Describes a database error for status and logs: the message, and the cause a connection error hides. */
export function describePgError(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return error.errors.map((x: Error) => describePgError(x)).join('; ');
  const e = error as (Error & { code?: string }) | null | undefined;
  let message = e?.message || String(error);
  // node-postgres' query_timeout, in words that say what happened.
  if (message === 'Query read timeout') message = 'no answer within the query timeout';
  const code = e?.code;
  return code !== undefined && !message.includes(code) ? `${message} (${code})` : message;
}

/** A JobSet's usage at one sampling (or, `folded`, a 5-minute bucket's means), migration 7. */
export const USAGE_COLUMNS = `owner, folded, ${ms('at')} AS at, namespace, name, v, id::float8 AS id`;

export interface UsageRowIn {
  owner: string;
  folded: boolean;
  at: number;
  namespace: string;
  name: string;
  /** In usage/metrics.ts' order; null: not reported. */
  v: (number | null)[];
  id: number;
}

/** A usage row as it is written: `v` in usage/metrics.ts' order. */
export interface UsageRowOut {
  owner: string;
  folded: boolean;
  at: number;
  namespace: string;
  name: string;
  v: (number | null)[];
}

/** Samplings (and folded buckets) in the order given; one written again is skipped. */
export const INSERT_USAGE = `
INSERT INTO upness_usage (cluster, owner, folded, at, namespace, name, v)
SELECT $1, u.owner, u.folded, u.at, u.namespace, u.name, u.v::float8[]
FROM unnest($2::text[], $3::boolean[], $4::timestamptz[], $5::text[], $6::text[], $7::text[]) WITH ORDINALITY AS u (owner, folded, at, namespace, name, v, n)
ORDER BY u.n
ON CONFLICT DO NOTHING`;

/** A row's values as a float8[] literal (JavaScript's shortest round-trip digits, exact in float8). */
const float8Array = (values: readonly (number | null)[]): string => `{${values.map((x) => (x === null || !Number.isFinite(x) ? 'NULL' : String(x))).join(',')}}`;

export function insertUsageParams(cluster: string, rows: readonly UsageRowOut[]): unknown[] {
  return [
    cluster,
    rows.map((r) => r.owner),
    rows.map((r) => r.folded),
    rows.map((r) => new Date(r.at).toISOString()),
    rows.map((r) => r.namespace),
    rows.map((r) => r.name),
    rows.map((r) => float8Array(r.v)),
  ];
}

/** Usage rows read back (ordered by owner, then time) as a store's recovery holds them: each JobSet's folded buckets as its history, the samplings after as a log. */
export function usageKeptOf(rows: readonly UsageRowIn[]): { snapshot: UsageSnapshotEntry[]; log: UsageRecord[] } {
  const snapshot = new Map<string, UsageSnapshotEntry>();
  const log: UsageRecord[] = [];
  for (const r of rows) {
    if (!r.folded) {
      log.push({ k: 'usage', owner: r.owner, ns: r.namespace, name: r.name, at: r.at, v: r.v });
      continue;
    }
    let entry = snapshot.get(r.owner);
    if (entry === undefined) {
      entry = { owner: r.owner, namespace: r.namespace, name: r.name, history: { raw: { t: [], v: r.v.map(() => []) }, folded: { t: [], v: r.v.map(() => []) } } };
      snapshot.set(r.owner, entry);
    }
    entry.history.folded.t.push(r.at);
    r.v.forEach((x, m) => (entry.history.folded.v[m] ??= []).push(x));
  }
  return { snapshot: [...snapshot.values()], log };
}
