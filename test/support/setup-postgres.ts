// globalSetup of the `postgres` test project: PostgreSQL and the test cluster's binaries (the
// leader election and follower tests take a Lease from a real kube-apiserver), then the tier's
// shared kube-apiserver and PostgreSQL (shared-servers.ts), before any test starts.
// teardown-postgres.ts stops them.
import { prepare } from './prerequisites.ts';
import { startSharedServers } from './shared-servers.ts';

export default async function setup(): Promise<void> {
  await prepare(['postgres', 'kube']);
  (globalThis as { stopSharedServers?: () => Promise<void> }).stopSharedServers = await startSharedServers({ cluster: true, postgres: true });
}
