// globalSetup of the `service` test project: the alert template renderer the provisioning test
// uses, before any test starts.
import { prepare } from './prerequisites.ts';

export default async function setup(): Promise<void> {
  await prepare(['render']);
}
