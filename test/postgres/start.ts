// Starts a throwaway PostgreSQL by hand: prints a database URL, stops and cleans up on Ctrl-C.
//   node test/postgres/start.ts

import { startPostgres } from './server.ts';

const server = await startPostgres({ log: (m) => console.error(m) });
console.log(await server.createDatabase('upness'));
const done = (): void => void server.destroy().then(() => process.exit(0));
process.once('SIGINT', done);
process.once('SIGTERM', done);
