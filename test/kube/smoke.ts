// End-to-end check of the test cluster: start it, create a JobSet, write its status through the
// /status subresource, read it back, survive an apiserver restart and a pause, stop.
//
//   node test/kube/smoke.ts        (Node 22: node_modules/.bin/node)

import assert from 'node:assert/strict';
import { startCluster } from './cluster.ts';

interface JobSet {
  metadata: { name: string; resourceVersion: string };
  status?: { replicatedJobsStatus?: { name: string; ready: number; active: number }[] };
}

const t0 = Date.now();
const elapsed = () => `${((Date.now() - t0) / 1000).toFixed(1)} s`;
const cluster = await startCluster({ log: (m) => console.error(`[${elapsed()}] ${m}`) });
try {
  console.error(`[${elapsed()}] cluster up: ${cluster.server}, kubeconfig ${cluster.kubeconfigPath}`);
  const jobsets = '/apis/jobset.x-k8s.io/v1alpha2/namespaces/default/jobsets';

  const created = await cluster.request('POST', jobsets, {
    apiVersion: 'jobset.x-k8s.io/v1alpha2',
    kind: 'JobSet',
    metadata: { name: 'smoke' },
    spec: {
      replicatedJobs: [{
        name: 'workers',
        replicas: 2,
        template: {
          spec: {
            backoffLimit: 0,
            template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox', command: ['sleep', '60'] }] } },
          },
        },
      }],
    },
  });
  assert.equal(created.status, 201, created.body);
  console.error(`[${elapsed()}] created JobSet smoke (resourceVersion ${created.json<JobSet>().metadata.resourceVersion})`);

  // Nothing runs the JobSet controller here, so tests play its part by writing status.
  const patched = await cluster.request('PATCH', `${jobsets}/smoke/status`, {
    status: { replicatedJobsStatus: [{ name: 'workers', ready: 2, active: 2, succeeded: 0, failed: 0, suspended: 0 }] },
  });
  assert.equal(patched.status, 200, patched.body);

  const check = async () => {
    const got = await cluster.request('GET', `${jobsets}/smoke`);
    assert.equal(got.status, 200, got.body);
    const status = got.json<JobSet>().status?.replicatedJobsStatus?.[0];
    assert.equal(status?.ready, 2);
    assert.equal(status?.active, 2);
    return got.json<JobSet>().metadata.resourceVersion;
  };
  console.error(`[${elapsed()}] status patched and read back (resourceVersion ${await check()})`);

  const pid = cluster.apiserverPid;
  await cluster.restartApiserver({ flags: ['--watch-cache=false'] });
  assert.notEqual(cluster.apiserverPid, pid);
  await check();
  console.error(`[${elapsed()}] apiserver restarted on the same port with --watch-cache=false; JobSet still there`);

  cluster.pauseApiserver();
  await assert.rejects(cluster.request('GET', `${jobsets}/smoke`, undefined, { timeoutMs: 500 }));
  cluster.resumeApiserver();
  await check();
  console.error(`[${elapsed()}] SIGSTOP: requests time out; SIGCONT: served again`);
} finally {
  await cluster.stop();
  console.error(`[${elapsed()}] stopped`);
}
console.log('smoke: OK');
