// globalSetup of the `postgres` test project: PostgreSQL, and the test cluster (the leader
// election and follower tests take a Lease from a real kube-apiserver), before any test starts.
import { prepare } from './prerequisites.ts';

export default async function setup(): Promise<void> {
  await prepare(['postgres', 'kube']);
}
