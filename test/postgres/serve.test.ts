// `upness serve --store postgres://…` end to end: a real PostgreSQL, a real kube-apiserver, two
// replicas on one Lease and a query-only follower. The leader watches and writes; the follower
// serves what it wrote; the standby takes over when the leader dies, and nothing is lost.

import { FAST_WATCH, jobsetManifest, jobsetStatus, Kube, startServe, states, timelines, waitFor, waitReady, type Service } from '../kube/harness.ts';
import { sharedCluster, sharedPostgres, type SharedCluster, type SharedPostgres } from '../support/shared-servers.ts';

let cluster: SharedCluster;
let kube: Kube;
let postgres: SharedPostgres;
let url: string;
const services: Service[] = [];

beforeAll(async () => {
  // The tier's shared servers (the replicas are stopped here, not the servers): a namespace for the
  // Lease and a database of this file's own.
  [cluster, postgres] = await Promise.all([sharedCluster('serve'), sharedPostgres()]);
  kube = new Kube(cluster);
  url = await postgres.createDatabase('upness_serve');
  await kube.namespace('ml');
}, 240_000);

afterAll(async () => {
  for (const s of services) await s.stop().catch(() => undefined);
  await Promise.all([cluster?.stop(), postgres?.destroy()]);
});

const replica = async (id: string, extra: string[] = []): Promise<Service> => {
  const s = await startServe([
    '--store', url, '--cluster-name', 'east', '--kubeconfig', cluster.kubeconfigPath, ...FAST_WATCH,
    '--lease-name', 'upness', '--lease-namespace', cluster.namespace, '--replica-id', id,
    '--lease-duration', '4s', '--renew-deadline', '3s', '--retry-period', '1s', ...extra,
  ]);
  services.push(s);
  return s;
};

describe('upness serve on PostgreSQL', () => {
  it('one replica leads and writes, a follower serves it, and a standby takes over without losing anything', async () => {
    const a = await replica('a');
    await waitReady(a);
    const b = await replica('b');
    const follower = await startServe(['--store', url, '--follow', '--serve-clusters', 'east']);
    services.push(follower);
    await waitReady(follower);

    // provisioning → up, written by the leader (a: it started first).
    await kube.createJobSet('ml', jobsetManifest('train', { replicas: 2 }));
    await kube.jobsetStatus('ml', 'train', jobsetStatus(2));
    for (const s of [a, follower]) {
      await waitFor(`${s === a ? 'the leader' : 'the follower'} sees train up`, async () => (await timelines(s, 'ml', 'train'))[0]?.intervals.at(-1)?.state === 'up', 20_000);
    }
    const before = await timelines(follower, 'ml', 'train');
    expect(states(before[0]!)).toEqual(['provisioning', 'up']);

    // The leader dies; the standby (b) takes the Lease, restores from PostgreSQL and watches on.
    await a.stop('SIGKILL');
    await waitFor('b leads', () => b.lines().some((l) => l.msg === 'leading: serving the timelines from the watch'), 30_000);
    await kube.jobsetStatus('ml', 'train', jobsetStatus(1));
    await waitFor('the follower sees the interruption b wrote', async () => (await timelines(follower, 'ml', 'train'))[0]?.intervals.at(-1)?.state === 'down', 20_000);

    const after = (await timelines(follower, 'ml', 'train'))[0]!;
    // Nothing the first leader wrote was lost or written twice: its transitions begin the timeline.
    expect(after.intervals.slice(0, 2).map((i) => [i.state, i.from])).toEqual(before[0]!.intervals.map((i) => [i.state, i.from]));
    expect(new Set(after.intervals.map((i) => `${i.state}@${i.from}`)).size).toBe(after.intervals.length);
    expect(after.intervals.at(-1)!.state).toBe('down');
    // The follower names the cluster the timeline belongs to.
    expect(after).toMatchObject({ namespace: 'ml', name: 'train' });
  }, 180_000);

  it('refuses --store without a cluster to watch, unless it only follows', async () => {
    const { upness } = await import('../support/cli.ts');
    const run = upness(['serve', '--store', url, '--port', '0'], undefined);
    expect(run.status).not.toBe(0);
    expect(run.stderr).toMatch(/--store needs a cluster to watch/);
    expect(upness(['serve', '--store', 'mysql://x', '--port', '0']).stderr).toMatch(/--store must be a postgres:\/\/ or postgresql:\/\/ URL/);
  });
});
