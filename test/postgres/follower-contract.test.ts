// The store contract (test/support/store/contract.ts) as a follower serves it: a PostgreSQL
// store writes, and a reader is a FollowerView of the same database, which must answer the same
// timelines, node layers, horizon and usage. Its own PostgreSQL (the crash stops the server at once, as a crash would).

import { storeContract, type Subject } from '../support/store/contract.ts';
import { crashFleet } from '../support/store/scenes.ts';
import { MIGRATIONS } from '../../backend/src/store/migrations/index.ts';
import { PostgresStore } from '../../backend/src/store/postgres.ts';
import { FollowerView } from '../../backend/src/runtime/follower.ts';
import { UsageBook } from '../../backend/src/usage/book.ts';
import { startPostgres, type PostgresServer } from './server.ts';

let server: PostgresServer;
let databases = 0;

beforeAll(async () => {
  server = await startPostgres();
}, 600_000);
afterAll(() => server?.destroy());

async function follower(): Promise<Subject> {
  const url = await server.createDatabase(`follower_contract_${++databases}`);
  const cluster = 'default';
  // Polled by the test, not by a timer: each read is one poll after the writer flushed.
  const reader = new FollowerView(url, { clusters: [cluster] });
  /** One read of what is new; after a crash of the server, the first ones may fail until it is back. */
  const poll = async (): Promise<void> => {
    for (const end = Date.now() + 30_000; ; await new Promise((resolve) => setTimeout(resolve, 50))) {
      await reader.poll();
      if (reader.status().error === null) return;
      if (Date.now() > end) throw new Error(`the follower cannot read: ${reader.status().error}`);
    }
  };
  return {
    open: () => PostgresStore.open(url, { cluster, retryMs: 50, maxRetryMs: 200 }),
    async read() {
      await poll();
      return { timelines: reader.timelines(), nodeLayers: reader.nodeLayer(0)?.timelines ?? [], pools: reader.poolLayer(0)?.timelines ?? [], observedUntil: reader.horizons().get(cluster) ?? null, usage: reader.usage()?.book ?? new UsageBook() };
    },
    async crashAfterFlush() {
      // Only this scenario's writes are left for the crash recovery to replay (a loaded CI machine replays slowly).
      await server.query('CHECKPOINT');
      const { store } = await PostgresStore.open(url, { cluster });
      crashFleet(store);
      await store.flushed();
      expect(store.status()).toMatchObject({ error: null, pendingRecords: 0 });
      // A crash of the server: immediate shutdown, no checkpoint, recovery from the WAL at the next start.
      await server.stop('immediate');
      await store.abandon();
      await server.start();
    },
    async refuseNewer() {
      await server.query("INSERT INTO upness_schema_migrations (version, name, upness_version) VALUES ($1, 'from the future', '9.9.9')", [MIGRATIONS.length + 1], url.split('/').pop());
      await reader.poll();
      const readiness = reader.readiness();
      return readiness.ready ? 'ready' : readiness.reason;
    },
    dispose: () => reader.close(),
  };
}

storeContract('the PostgreSQL follower', follower);
