// The store contract (test/support/store/contract.ts) against the PostgreSQL store on a real
// PostgreSQL of its own (the crash stops the server at once, as a crash would, so it is not the tier's shared one),
// a database per scenario. A reader reads the cluster without becoming its writer (readCluster).

import { storeContract, fromRecovery, type Subject } from '../support/store/contract.ts';
import { crashFleet } from '../support/store/scenes.ts';
import { MIGRATIONS } from '../../backend/src/store/migrations/index.ts';
import { PostgresStore, readCluster } from '../../backend/src/store/postgres.ts';
import { startPostgres, type PostgresServer } from './server.ts';

let server: PostgresServer;
let databases = 0;

beforeAll(async () => {
  server = await startPostgres();
}, 600_000);
afterAll(() => server?.destroy());

async function postgres(): Promise<Subject> {
  const url = await server.createDatabase(`contract_${++databases}`);
  const cluster = 'default';
  return {
    open: () => PostgresStore.open(url, { cluster, retryMs: 50, maxRetryMs: 200 }),
    read: async () => fromRecovery(await readCluster(url, cluster)),
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
      return PostgresStore.open(url, { cluster }).then(
        async ({ store }) => {
          await store.close();
          return 'opened';
        },
        (error: Error) => error.message,
      );
    },
    async dispose() {},
  };
}

storeContract('the PostgreSQL store', postgres);
