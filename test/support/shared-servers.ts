// One kube-apiserver (with etcd) and one PostgreSQL per test tier, shared by the files that only
// need a namespace or a database of their own. Files that kill, pause, restart or reconfigure a
// server keep starting a dedicated one (startCluster, startPostgres).
//
// The tier's globalSetup calls startSharedServers(): the servers become children of Jest's main
// process through spawnOwned (test/support/processes.ts), so the kernel kills them when Jest dies
// however it ends, and where they are goes to a JSON file named by UPNESS_SHARED_SERVERS, which
// the test workers inherit. The globalTeardown stops them. A file takes its part with
// sharedCluster(namespace) and sharedPostgres(); run outside such a tier (no UPNESS_SHARED_SERVERS)
// they start dedicated servers instead, so every file still runs alone.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { addressOf, clusterClient, startCluster, type ClusterAddress, type ClusterClient } from '../kube/cluster.ts';
import { Kube } from '../kube/harness.ts';
import { PG_USER, startPostgres, type PostgresServer } from '../postgres/server.ts';
import { keepOwnedFromTestFiles } from './processes.ts';

const ENV = 'UPNESS_SHARED_SERVERS';

interface Shared {
  cluster?: ClusterAddress;
  postgres?: { port: number; version: string };
}

/** Starts the servers asked for and publishes where they are; returns what stops them. */
export async function startSharedServers(what: { cluster?: boolean; postgres?: boolean }): Promise<() => Promise<void>> {
  const [cluster, postgres] = await Promise.all([
    what.cluster ? startCluster({ installJobSetCrd: true }) : undefined,
    what.postgres ? startPostgres() : undefined,
  ]);
  keepOwnedFromTestFiles();
  const dir = mkdtempSync(join(tmpdir(), 'upness-shared-'));
  const file = join(dir, 'servers.json');
  const shared: Shared = {
    ...(cluster ? { cluster: addressOf(cluster) } : {}),
    ...(postgres ? { postgres: { port: postgres.port, version: postgres.version } } : {}),
  };
  writeFileSync(file, JSON.stringify(shared));
  process.env[ENV] = file;
  process.stderr.write(`shared servers: ${[cluster && `kube-apiserver ${cluster.server}`, postgres && `postgres port ${postgres.port}`].filter(Boolean).join(', ')}\n`);
  return async () => {
    delete process.env[ENV];
    await Promise.all([cluster?.stop(), postgres?.destroy()]);
    rmSync(dir, { recursive: true, force: true });
  };
}

function published(): Shared | null {
  const file = process.env[ENV];
  return file ? (JSON.parse(readFileSync(file, 'utf8')) as Shared) : null;
}

/** A file's part of a cluster: its own namespace (created, with its default ServiceAccount), its own temp dir. */
export type SharedCluster = ClusterClient & { readonly namespace: string; stop(): Promise<void> };

export async function sharedCluster(namespace: string): Promise<SharedCluster> {
  const address = published()?.cluster;
  if (address === undefined) {
    const own = await startCluster();
    await new Kube(own).namespace(namespace);
    return { ...addressOf(own), request: own.request, namespace, stop: () => own.stop() };
  }
  const tempDir = await mkdtemp(join(tmpdir(), `upness-${namespace}-`));
  const client = clusterClient({ ...address, tempDir });
  await new Kube(client).namespace(namespace);
  return {
    ...client,
    namespace,
    async stop() {
      // Namespaces never finish deleting here (no controller-manager): the objects stay until the tier ends.
      client.destroy();
      await rm(tempDir, { recursive: true, force: true });
    },
  };
}

/** A file's part of a PostgreSQL server: the databases it creates, dropped by destroy(). */
export type SharedPostgres = Pick<PostgresServer, 'port' | 'version' | 'url' | 'createDatabase' | 'query' | 'destroy'>;

export async function sharedPostgres(): Promise<SharedPostgres> {
  const address = published()?.postgres;
  if (address === undefined) return startPostgres();
  const { port, version } = address;
  const url = (database = 'postgres'): string => `postgres://${PG_USER}@127.0.0.1:${port}/${database}`;
  const query = async <R extends pg.QueryResultRow>(sql: string, params: unknown[] = [], database = 'postgres'): Promise<pg.QueryResult<R>> => {
    const client = new pg.Client({ host: '127.0.0.1', port, user: PG_USER, database, connectionTimeoutMillis: 2000 });
    await client.connect();
    try {
      return await client.query<R>(sql, params);
    } finally {
      await client.end();
    }
  };
  const created = new Set<string>();
  return {
    port,
    version,
    url,
    query,
    async createDatabase(name) {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a plain database name: ${name}`);
      await query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await query(`CREATE DATABASE ${name}`);
      created.add(name);
      return url(name);
    },
    async destroy() {
      for (const name of created) await query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      created.clear();
    },
  };
}
