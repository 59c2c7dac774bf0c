// The followers' read of the PostgreSQL store (runtime/follower.ts serves it): what the writers (the
// leaders) added since a cursor, in one consistent snapshot of the database, along with each
// cluster's observed mark (its horizon).
//
// The numbers (transitions.id, timelines.rev) of one cluster grow in commit order, because its
// writer's transactions are serialised by the cluster's row (postgres.ts), so "above the last read"
// misses nothing. When retention deleted timelines or node pools (the cluster's `pruned` counter
// moved), or the cursor does not know the cluster yet, that cluster is read from scratch. The facts
// (node-layer transitions, causes of either layer, suspension reasons learned later, the node pools'
// facts) are numbered and read the same way; FactJoin (../timeline/facts.ts) joins them to the
// timelines they refer to. So are the usage samplings; folding them into 5-minute means deletes rows,
// which moves `pruned` like retention does.

import type pg from 'pg';
import { checkSchema } from './postgres-migrate.ts';
import {
  CAUSE_COLUMNS,
  ms,
  NODE_TRANSITION_COLUMNS,
  POOL_FACT_COLUMNS,
  SUSPENSION_COLUMNS,
  TIMELINE_COLUMNS,
  TRANSITION_COLUMNS,
  USAGE_COLUMNS,
  type CauseRowIn,
  type PoolFactRowIn,
  type SuspensionRowIn,
  type TimelineRowIn,
  type TransitionRowIn,
  type UsageRowIn,
} from './postgres-rows.ts';

/** Where a follower is in one cluster: its `pruned` counter when last read, and the highest row number read. */
export interface ClusterCursor {
  pruned: number;
  rev: number;
}

/** One cluster's writer, as its row says. */
export interface ClusterMark {
  cluster: string;
  /** The current writer (the leader's replica id) and its fencing number. */
  writer: string | null;
  epoch: number;
  /** Up to when the writer vouches for every timeline. */
  observedUntil: number | null;
  /** When the writer last committed anything (its observed mark moves every second while it watches). */
  writtenAt: number;
  /** Bumped whenever retention deletes timelines. */
  pruned: number;
  /** How long the writer's usage samplings hold (null: not known). */
  usageHoldMs: number | null;
}

/** What one cluster's writer added since the cursor (everything, when `full`). */
export interface ClusterTail {
  mark: ClusterMark;
  /** Read from scratch: the cursor did not know the cluster, or retention deleted timelines since. */
  full: boolean;
  timelines: TimelineRowIn[];
  /** In the order they were numbered. */
  transitions: TransitionRowIn[];
  nodeTransitions: TransitionRowIn[];
  causes: CauseRowIn[];
  /** Suspension reasons learned after the transition they explain. */
  suspensions: SuspensionRowIn[];
  /** The node pools' facts (their transitions, causes and JobSets), in the order they were numbered. */
  poolFacts: PoolFactRowIn[];
  /** The JobSets' usage: new samplings in the order they were numbered; when `full`, the folded buckets too. */
  usage: UsageRowIn[];
}

interface ClusterRow {
  cluster: string;
  epoch: string;
  writer: string | null;
  observed_until: number | null;
  pruned: string;
  updated_at: number;
  usage_hold_ms: number | null;
}

/**
 * Reads, in one read-only snapshot, what is new since `cursor` in each cluster (`clusters`, or every
 * cluster in the database). Checks the schema first, every time: a newer leader may have migrated it
 * during a rolling upgrade (followers do not migrate: they need only SELECT).
 */
export async function tail(client: pg.ClientBase, cursor: (cluster: string) => ClusterCursor | undefined, clusters?: readonly string[]): Promise<ClusterTail[]> {
  await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  try {
    await checkSchema(client);
    const rows = await client.query<ClusterRow>(
      `SELECT cluster, epoch, writer, ${ms('observed_until')} AS observed_until, pruned, ${ms('updated_at')} AS updated_at, usage_hold_ms
       FROM upness_clusters ${clusters === undefined ? '' : 'WHERE cluster = ANY($1::text[])'} ORDER BY cluster`,
      clusters === undefined ? [] : [clusters],
    );
    const tails: ClusterTail[] = [];
    for (const row of rows.rows) {
      const mark: ClusterMark = { cluster: row.cluster, writer: row.writer, epoch: Number(row.epoch), observedUntil: row.observed_until, writtenAt: row.updated_at, pruned: Number(row.pruned), usageHoldMs: row.usage_hold_ms };
      const known = cursor(row.cluster);
      const full = known === undefined || known.pruned !== mark.pruned;
      const since = full ? 0 : known.rev;
      const tl = await client.query<TimelineRowIn>(`SELECT ${TIMELINE_COLUMNS} FROM upness_timelines WHERE cluster = $1 AND rev > $2`, [row.cluster, since]);
      const tr = await client.query<TransitionRowIn>(`SELECT ${TRANSITION_COLUMNS} FROM upness_transitions WHERE cluster = $1 AND id > $2 ORDER BY id`, [row.cluster, since]);
      const nodes = await client.query<TransitionRowIn>(`SELECT ${NODE_TRANSITION_COLUMNS} FROM upness_node_transitions WHERE cluster = $1 AND id > $2 ORDER BY id`, [row.cluster, since]);
      const causes = await client.query<CauseRowIn>(`SELECT ${CAUSE_COLUMNS} FROM upness_causes WHERE cluster = $1 AND id > $2 ORDER BY id`, [row.cluster, since]);
      const suspensions = await client.query<SuspensionRowIn>(`SELECT ${SUSPENSION_COLUMNS} FROM upness_suspensions WHERE cluster = $1 AND id > $2 ORDER BY id`, [row.cluster, since]);
      const pools = await client.query<PoolFactRowIn>(`SELECT ${POOL_FACT_COLUMNS} FROM upness_pool_facts WHERE cluster = $1 AND id > $2 ORDER BY id`, [row.cluster, since]);
      const usage = await client.query<UsageRowIn>(`SELECT ${USAGE_COLUMNS} FROM upness_usage WHERE cluster = $1 AND id > $2 ORDER BY id`, [row.cluster, since]);
      tails.push({ mark, full, timelines: tl.rows, transitions: tr.rows, nodeTransitions: nodes.rows, causes: causes.rows, suspensions: suspensions.rows, poolFacts: pools.rows, usage: usage.rows });
    }
    await client.query('COMMIT');
    return tails;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
