// deploy/ against the real apiserver (kubectl is not available here): every manifest is sent with
// ?dryRun=All, which runs the apiserver's full validation and admission without persisting; then
// the Namespace, ServiceAccount, ClusterRole and binding are applied for real, a token for the
// service account is made through the TokenRequest API, and `upness serve` runs as that account:
// the permissions of the ClusterRole suffice, and nothing more is allowed.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startCluster, type Cluster } from './cluster.ts';
import {
  FAST_WATCH,
  getJson,
  jobsetManifest,
  jobsetStatus,
  Kube,
  podManifest,
  readiness,
  ROOT,
  runningPodStatus,
  startServe,
  states,
  waitFor,
  waitReady,
  writeKubeconfig,
  type Service,
  type TimelineJson,
} from './harness.ts';

const DEPLOY = join(ROOT, 'deploy');

let cluster: Cluster;
let kube: Kube;
const t0 = Date.now();

beforeAll(async () => {
  cluster = await startCluster();
  kube = new Kube(cluster);
}, 120_000);

afterAll(async () => {
  await cluster?.stop();
  process.stderr.write(`deploy.test: ${(Date.now() - t0) / 1000} s in all\n`);
});

/** Where a manifest is created: its collection path, from its apiVersion, kind and namespace. */
function collection(yaml: string): { path: string; kind: string; name: string } {
  const field = (re: RegExp): string | undefined => re.exec(yaml)?.[1];
  const apiVersion = field(/^apiVersion: (\S+)$/m)!;
  const kind = field(/^kind: (\S+)$/m)!;
  const name = field(/^metadata:\n(?: {2}.*\n)*? {2}name: (\S+)$/m)!;
  const namespace = field(/^metadata:\n(?: {2}.*\n)*? {2}namespace: (\S+)$/m);
  const plural = { Namespace: 'namespaces', ServiceAccount: 'serviceaccounts', ClusterRole: 'clusterroles', ClusterRoleBinding: 'clusterrolebindings', Role: 'roles', RoleBinding: 'rolebindings', Deployment: 'deployments', Service: 'services' }[kind];
  if (plural === undefined) throw new Error(`no collection known for kind ${kind}`);
  const base = apiVersion === 'v1' ? '/api/v1' : `/apis/${apiVersion}`;
  return { path: `${base}${namespace !== undefined ? `/namespaces/${namespace}` : ''}/${plural}`, kind, name };
}

const manifests = (): string[] => readdirSync(DEPLOY).filter((f) => f.endsWith('.yaml')).sort();

async function apply(file: string, dryRun: boolean): Promise<{ status: number; body: string }> {
  const yaml = readFileSync(join(DEPLOY, file), 'utf8');
  const { path } = collection(yaml);
  const res = await cluster.request('POST', `${path}${dryRun ? '?dryRun=All' : ''}`, yaml, { contentType: 'application/yaml' });
  return { status: res.status, body: res.body };
}

async function token(namespace: string, serviceAccount: string): Promise<string> {
  const res = await kube.req('POST', `/api/v1/namespaces/${namespace}/serviceaccounts/${serviceAccount}/token`, {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    spec: { expirationSeconds: 3600 },
  });
  return res.json<{ status: { token: string } }>().status.token;
}

describe('deploy/', () => {
  it('the Kustomization lists every manifest, and -f applies them namespace first', () => {
    const kustomization = readFileSync(join(DEPLOY, 'Kustomization'), 'utf8');
    const listed = [...kustomization.matchAll(/^ {2}- (\S+\.yaml)$/gm)].map((m) => m[1]);
    expect(listed).toEqual(manifests());
    expect(collection(readFileSync(join(DEPLOY, manifests()[0]!), 'utf8')).kind).toBe('Namespace');
  });

  it('every manifest passes the apiserver validation and admission (dryRun=All), in the order -f applies them', async () => {
    const results: Record<string, number> = {};
    for (const file of manifests()) {
      // A namespaced object's dry run needs its namespace to exist: create it for real first.
      const r = await apply(file, true);
      results[file] = r.status;
      expect([r.status, file]).toEqual([201, file]);
      if (collection(readFileSync(join(DEPLOY, file), 'utf8')).kind === 'Namespace') expect((await apply(file, false)).status).toBe(201);
    }
    process.stderr.write(`deploy.test: dry runs ${JSON.stringify(results)}\n`);
  });

  it('the Deployment runs non-root, read-only, with probes, resources and a data volume', async () => {
    const res = await cluster.request('POST', '/apis/apps/v1/namespaces/upness/deployments?dryRun=All', readFileSync(join(DEPLOY, '04-deployment.yaml'), 'utf8'), { contentType: 'application/yaml' });
    interface Container {
      args: string[];
      securityContext: object;
      livenessProbe: { httpGet: { path: string } };
      readinessProbe: { httpGet: { path: string } };
      resources: { requests: object; limits: object };
      volumeMounts: { mountPath: string }[];
    }
    const spec = res.json<{ spec: { template: { spec: { serviceAccountName: string; securityContext: object; containers: Container[] } } } }>().spec.template.spec;
    const c = spec.containers[0]!;
    expect(spec.serviceAccountName).toBe('upness');
    expect(spec.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    expect(c.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
    expect(c.livenessProbe.httpGet.path).toBe('/healthz');
    expect(c.readinessProbe.httpGet.path).toBe('/readyz');
    expect(Object.keys(c.resources.requests).sort()).toEqual(['cpu', 'memory']);
    expect(Object.keys(c.resources.limits).sort()).toEqual(['cpu', 'memory']);
    expect(c.volumeMounts.map((m) => m.mountPath)).toContain('/data');
    expect(c.args).toEqual(expect.arrayContaining(['serve', '--data-dir', '/data']));
  });
});

describe('least privilege: the watcher as the upness service account', () => {
  let service: Service | undefined;
  afterAll(async () => {
    await service?.stop();
  });

  it('the ClusterRole allows get, list and watch on jobsets, pods and nodes, and nothing else', async () => {
    for (const file of ['00-namespace.yaml', '01-serviceaccount.yaml', '02-clusterrole.yaml', '03-clusterrolebinding.yaml', '06-role-lease.yaml', '07-rolebinding-lease.yaml']) {
      expect([201, 409]).toContain((await apply(file, false)).status);
    }
    const sa = await token('upness', 'upness');
    const review = async (verb: string, resource: string, group = '', namespace?: string, name?: string): Promise<boolean> => {
      const res = await tokenRequest(sa, 'POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SelfSubjectAccessReview',
        spec: { resourceAttributes: { verb, resource, group, ...(namespace ? { namespace } : {}), ...(name ? { name } : {}) } },
      });
      return (JSON.parse(res.body) as { status: { allowed: boolean } }).status.allowed;
    };
    for (const [resource, group] of [['jobsets', 'jobset.x-k8s.io'], ['pods', ''], ['nodes', '']] as const) {
      for (const verb of ['get', 'list', 'watch']) expect([verb, resource, await review(verb, resource, group)]).toEqual([verb, resource, true]);
      for (const verb of ['create', 'update', 'patch', 'delete']) expect([verb, resource, await review(verb, resource, group)]).toEqual([verb, resource, false]);
    }
    for (const [resource, group] of [['secrets', ''], ['configmaps', ''], ['jobs', 'batch'], ['events', '']] as const) {
      expect([resource, await review('list', resource, group)]).toEqual([resource, false]);
    }
    expect((await tokenRequest(sa, 'GET', '/api/v1/secrets')).status).toBe(403);
    // Leader election (replicas on PostgreSQL): the one Lease in its own namespace, nothing more.
    const lease = (verb: string, namespace: string, name?: string) => review(verb, 'leases', 'coordination.k8s.io', namespace, name);
    expect(await lease('get', 'upness', 'upness')).toBe(true);
    expect(await lease('update', 'upness', 'upness')).toBe(true);
    expect(await lease('create', 'upness')).toBe(true);
    expect(await lease('update', 'upness', 'another')).toBe(false);
    expect(await lease('delete', 'upness', 'upness')).toBe(false);
    expect(await lease('get', 'kube-system', 'upness')).toBe(false);
  });

  it('`upness serve` with only that token syncs and follows JobSets, Pods and Nodes', async () => {
    const sa = await token('upness', 'upness');
    const kubeconfig = writeKubeconfig(cluster, join(cluster.tempDir, 'upness-sa.kubeconfig'), { token: sa });
    service = await startServe(['--kubeconfig', kubeconfig]);
    await waitReady(service);
    await kube.namespace('team');
    await kube.createNode('sa-1');
    await kube.createNode('sa-2');
    const js = await kube.createJobSet('team', jobsetManifest('train'));
    for (const i of [0, 1]) {
      await kube.createPod('team', podManifest({ name: `train-${i}`, jobset: js, jobIndex: i, nodeName: `sa-${i + 1}` }));
      await kube.podStatus('team', `train-${i}`, runningPodStatus());
    }
    await kube.jobsetStatus('team', 'train', jobsetStatus(2));
    const see = (layer: string) =>
      waitFor(`team/train (${layer}) up`, async () => {
        const r = await getJson<{ timelines: TimelineJson[] }>(`${service!.url}/api/v1/jobsets/team/train?layer=${layer}`);
        return r.status === 200 && JSON.stringify(r.body.timelines.map(states)) === '[["provisioning","up"]]';
      }, 10_000);
    await see('jobset');
    await see('nodes');
    const m = (await getJson<string>(`${service.url}/metrics`)).body;
    expect(m).not.toMatch(/upness_watch_restarts_total\{/);
  });

  it('a service account without the binding is refused: not ready, restarts counted as forbidden', async () => {
    await kube.req('POST', '/api/v1/namespaces/upness/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'nobody' } }, [201, 409]);
    const sa = await token('upness', 'nobody');
    const kubeconfig = writeKubeconfig(cluster, join(cluster.tempDir, 'nobody.kubeconfig'), { token: sa });
    const nobody = await startServe(['--kubeconfig', kubeconfig, ...FAST_WATCH]);
    try {
      // Each resource's watch meets its 403 in its own time: wait for the refusal of every one, not
      // the first (a reason read at the first named only jobsets).
      const refused = (resource: string): RegExp => new RegExp(`${resource} \\(forbidden: [^)]*HTTP 403`);
      const r = await waitFor('a not-ready reason naming the refusal of every resource', async () => {
        const res = await readiness(nobody);
        const reason = res.body.reason ?? '';
        return res.status === 503 && ['nodes', 'pods', 'jobsets'].every((x) => refused(x).test(reason)) ? res.body : undefined;
      }, 30_000);
      expect(r.reason).toMatch(/^first sync: waiting for nodes \(forbidden: .*HTTP 403/);
      await waitFor('the refusals counted as restarts', async () => {
        const m = (await getJson<string>(`${nobody.url}/metrics`)).body;
        return /^upness_watch_restarts_total\{resource="jobsets",cause="forbidden"\} [1-9]/m.test(m) ? true : undefined;
      }, 30_000);
    } finally {
      await nobody.stop();
    }
  });
});

/** A request with a bearer token (the test CA is trusted through the cluster's TLS settings). */
async function tokenRequest(tokenValue: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: string }> {
  const { request } = await import('node:https');
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, cluster.server), { method, ca: cluster.tls.ca, headers: { authorization: `Bearer ${tokenValue}`, 'content-type': 'application/json', accept: 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}
