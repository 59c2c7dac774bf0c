// Writes the crash scenario's fleet (./scenes.ts crashFleet) into the embedded store at argv[2],
// says "flushed" once it is durable, and waits to be killed (backend/src/store/contract.service.test.ts kills it with SIGKILL).

import { EmbeddedStore } from '../../../backend/src/store/embedded.ts';
import { crashFleet } from './scenes.ts';

const { store } = await EmbeddedStore.open(process.argv[2]!);
crashFleet(store);
await store.flushed();
process.stdout.write('flushed\n');
// Alive until killed: nothing is closed, nothing more is written.
setInterval(() => {}, 60_000);
