// globalSetup of the `kube` test project: the test cluster's binaries, before any test starts.
import { prepare } from './prerequisites.ts';

export default async function setup(): Promise<void> {
  await prepare(['kube']);
}
