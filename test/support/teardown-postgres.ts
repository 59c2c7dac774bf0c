// globalTeardown of the `postgres` test project: stops the shared servers setup-postgres.ts started.
export default async function teardown(): Promise<void> {
  await (globalThis as { stopSharedServers?: () => Promise<void> }).stopSharedServers?.();
}
