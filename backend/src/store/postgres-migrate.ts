// Applies the schema migrations (backend/src/store/migrations) at start: in one transaction, under a
// transaction-scoped advisory lock, so replicas starting together apply each migration exactly once
// (the others wait, then find nothing left to do); recorded in upness_schema_migrations with the
// Upness version that applied each. A database whose schema is newer than this code is refused,
// naming the version that migrated it: an older Upness must not write to it.

import type pg from 'pg';
import { MIGRATIONS, type Migration } from './migrations/index.ts';
import { StoreError } from './embedded.ts';
import { UPNESS_VERSION } from './version.ts';

/** Who migrated the schema to its newest version, as the refusal says it. */
async function newestBy(client: pg.ClientBase): Promise<string> {
  // to_jsonb: the upness_version column is absent from a schema no Upness of 0.1.0 or later migrated.
  const { rows } = await client.query<{ m: { version: number; name: string; upness_version?: string | null } }>(
    'SELECT to_jsonb(m) AS m FROM upness_schema_migrations m ORDER BY version DESC LIMIT 1',
  );
  const m = rows[0]?.m;
  return m?.upness_version ? `Upness ${m.upness_version}` : 'a newer Upness';
}

/** The advisory lock key of the migrations: any bigint, the same in every Upness version. */
export const MIGRATION_LOCK = 0x7570_6e65_7373n; // "upness"

export interface MigrationResult {
  /** The schema version before and after. */
  from: number;
  to: number;
  applied: number[];
}

export async function migrate(client: pg.ClientBase, migrations: readonly Migration[] = MIGRATIONS): Promise<MigrationResult> {
  for (const [i, m] of migrations.entries()) {
    if (m.version !== i + 1) throw new Error(`migration ${m.name} has version ${m.version}, expected ${i + 1}`);
  }
  const known = migrations.length;
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK.toString()]);
    await client.query(`CREATE TABLE IF NOT EXISTS upness_schema_migrations (
      version     integer PRIMARY KEY,
      name        text NOT NULL,
      applied_at  timestamptz NOT NULL DEFAULT now()
    )`);
    // Which Upness applied each migration (from 0.1.0 on): what a refusal of a newer schema names.
    await client.query('ALTER TABLE upness_schema_migrations ADD COLUMN IF NOT EXISTS upness_version text');
    const { rows } = await client.query<{ version: number; name: string }>('SELECT version, name FROM upness_schema_migrations ORDER BY version');
    const from = rows.length === 0 ? 0 : rows[rows.length - 1]!.version;
    if (from > known) {
      const newer = rows.filter((r) => r.version > known).map((r) => `${r.version} (${r.name})`);
      throw new StoreError(
        `the database's Upness schema is at version ${from}, newer than this Upness knows (${known}): it was migrated by ${await newestBy(client)} (migrations ${newer.join(', ')}), and this is Upness ${UPNESS_VERSION}. ` +
          'Run that version or a newer one; an older one must not write to it.',
      );
    }
    const applied: number[] = [];
    for (const m of migrations.slice(from)) {
      await client.query(m.sql);
      await client.query('INSERT INTO upness_schema_migrations (version, name, upness_version) VALUES ($1, $2, $3)', [m.version, m.name, UPNESS_VERSION]);
      applied.push(m.version);
    }
    await client.query('COMMIT');
    return { from, to: Math.max(from, known), applied };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/**
 * For readers that do not migrate (followers need only SELECT): the schema version, refusing a
 * database without the schema or with a newer one than this code reads.
 */
export async function checkSchema(client: pg.ClientBase, migrations: readonly Migration[] = MIGRATIONS): Promise<number> {
  const exists = await client.query<{ t: string | null }>("SELECT to_regclass('upness_schema_migrations')::text AS t");
  if (exists.rows[0]?.t === null || exists.rows[0]?.t === undefined) {
    throw new StoreError('the database has no Upness schema yet: a leader (a replica with the PostgreSQL store that writes) creates it when it starts');
  }
  const { rows } = await client.query<{ version: number | null }>('SELECT max(version) AS version FROM upness_schema_migrations');
  const version = rows[0]?.version ?? 0;
  if (version > migrations.length) {
    throw new StoreError(
      `the database's Upness schema is at version ${version}, newer than this Upness knows (${migrations.length}): it was migrated by ${await newestBy(client)}, and this is Upness ${UPNESS_VERSION}; upgrade this replica to the version that migrated it`,
    );
  }
  if (version < migrations.length) {
    throw new StoreError(`the database's Upness schema is at version ${version}, older than this Upness reads (${migrations.length}): a leader of this version migrates it when it starts`);
  }
  return version;
}
