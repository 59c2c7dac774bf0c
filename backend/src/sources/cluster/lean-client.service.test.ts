// lean-client.ts in a real Node process: KubeConfig loads without client-node's generated API, still
// reads a kubeconfig and authenticates, and a later import of the whole package (the leader's Lease
// API) still has its generated clients.

import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const ROOT = join(__dirname, '..', '..', '..', '..');
const NODE = join(ROOT, 'node_modules', '.bin', 'node');

const KUBECONFIG = `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: secret-token}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`;

/** Loads the cluster source as the CLI does (lean-client.ts first, or not), recording every module URL resolved. */
const SCRIPT = (lean: boolean, kubeconfig: string): string => `
import { registerHooks } from 'node:module';
const urls = [];
registerHooks({ resolve(specifier, context, next) { const r = next(specifier, context); urls.push(r.url); return r; } });
${lean ? "await import('./backend/src/sources/cluster/lean-client.ts');" : ''}
const { loadKubeConfig } = await import('./backend/src/sources/cluster/config.ts');
await import('./backend/src/sources/cluster/watcher.ts');
const { config } = loadKubeConfig({ kubeconfig: ${JSON.stringify(kubeconfig)} });
const options = { headers: {} };
await config.applyToHTTPSOptions(options);
const models = () => urls.filter((u) => u.includes('/@kubernetes/client-node/dist/gen/models/')).length;
const before = models();
const { CoordinationV1Api } = await import('@kubernetes/client-node');
const api = config.makeApiClient(CoordinationV1Api);
console.log(JSON.stringify({ before, after: models() > 100, authorization: options.headers.Authorization, leases: typeof api.readNamespacedLease }));
`;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'upness-lean-client-'));
  writeFileSync(join(dir, 'kubeconfig'), KUBECONFIG);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Loaded {
  /** Generated models resolved before the whole package was imported. */
  before: number;
  after: boolean;
  authorization: string;
  leases: string;
}

async function load(lean: boolean): Promise<Loaded> {
  const { stdout } = await promisify(execFile)(NODE, ['--input-type=module', '-e', SCRIPT(lean, join(dir, 'kubeconfig'))], { cwd: ROOT });
  return JSON.parse(stdout) as Loaded;
}

it('loads KubeConfig without the generated models, and the whole package still works after it', async () => {
  const [lean, whole] = await Promise.all([load(true), load(false)]);
  // Without the hook, the generated models load with KubeConfig: the count would show it if the hook stopped matching.
  expect(whole).toEqual({ before: expect.any(Number), after: true, authorization: 'Bearer secret-token', leases: 'function' });
  expect(whole.before).toBeGreaterThan(100);
  expect(lean).toEqual({ before: 0, after: true, authorization: 'Bearer secret-token', leases: 'function' });
});
