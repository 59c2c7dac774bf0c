// `upness serve --kubeconfig` against a real kube-apiserver and etcd (cluster.ts): the test plays
// the JobSet controller, the scheduler and the kubelets, writing objects and their status, and
// checks the timelines, figures and causes the service answers on its HTTP API.
//
// Times: the service stamps an observation when it arrives, a few ms after the test's write. Each
// step records the wall clock before and after its write; a transition timed by arrival must fall
// between them (plus a little slack). Condition times (lastTransitionTime) have whole seconds.

import { startCluster, type Cluster } from './cluster.ts';
import {
  getJson,
  jobsetManifest,
  jobsetStatus,
  Kube,
  metric,
  oomKilledPodStatus,
  podManifest,
  rfc3339,
  runningPodStatus,
  startServe,
  states,
  waitFor,
  waitReady,
  type Meta,
  type Service,
  type TimelineJson,
} from './harness.ts';

/** Waits into the next whole second of the clock (the resolution of a condition's time), so that a
 * time taken after it is in a later second than every change before it: at most a second, where a
 * fixed 1.1 s sleep always cost the whole of it. */
const nextSecond = (): Promise<void> => new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 20));

const SLACK = 1500;

let cluster: Cluster;
let kube: Kube;
let service: Service;
const started = Date.now();

beforeAll(async () => {
  cluster = await startCluster();
  kube = new Kube(cluster);
  service = await startServe(['--kubeconfig', cluster.kubeconfigPath]);
  await waitReady(service);
  process.stderr.write(`watcher.test: cluster and service up in ${(Date.now() - started) / 1000} s\n`);
}, 120_000);

afterAll(async () => {
  await service?.stop();
  await cluster?.stop();
  process.stderr.write(`watcher.test: ${(Date.now() - started) / 1000} s in all\n`);
});

/** Runs `write` and returns the wall-clock window around it. */
async function step(write: () => Promise<unknown>): Promise<{ before: number; after: number }> {
  const before = Date.now();
  await write();
  return { before, after: Date.now() };
}

function expectWithin(time: string, window: { before: number; after: number }): void {
  const t = Date.parse(time);
  expect(t).toBeGreaterThanOrEqual(window.before - 1000); // second-precision object times may round down
  expect(t).toBeLessThanOrEqual(window.after + SLACK);
}

/** Waits until the service shows the JobSet (one timeline per UID) in the given states. */
async function until(ns: string, name: string, expected: string[][], layer: 'jobset' | 'nodes' = 'jobset'): Promise<TimelineJson[]> {
  return waitFor(`${ns}/${name} (${layer}) to be ${JSON.stringify(expected)}`, async () => {
    const r = await getJson<{ timelines: TimelineJson[] }>(`${service.url}/api/v1/jobsets/${ns}/${name}?layer=${layer}`);
    if (r.status !== 200) return undefined;
    const got = r.body.timelines.map(states);
    return JSON.stringify(got) === JSON.stringify(expected) ? r.body.timelines : undefined;
  }, 10_000, 50);
}

/** Two nodes, a JobSet needing two, and its two pods running on them. */
async function runningJobSet(ns: string, name: string, nodes: [string, string]): Promise<Meta> {
  await kube.namespace(ns);
  for (const n of nodes) await kube.createNode(n);
  const js = await kube.createJobSet(ns, jobsetManifest(name));
  for (const [i, node] of nodes.entries()) {
    const pod = `${name}-workers-${i}-0`;
    await kube.createPod(ns, podManifest({ name: pod, jobset: js, jobIndex: i, nodeName: node }));
    await kube.podStatus(ns, pod, runningPodStatus());
  }
  return js;
}

describe('a JobSet watched through its life', () => {
  //   provisioning ─ up ─ down (pod OOMKilled, failure-policy restart) ─ up ─ completed
  it('provisions, runs, is interrupted with its causes, recovers and completes', async () => {
    const ns = 'life';
    const created = await step(() => runningJobSet(ns, 'train', ['life-1', 'life-2']));
    await until(ns, 'train', [['provisioning']]);

    const up = await step(() => kube.jobsetStatus(ns, 'train', jobsetStatus(2)));
    await until(ns, 'train', [['provisioning', 'up']]);

    // The kubelet reports the OOM kill; the JobSet controller then restarts the JobSet.
    const oom = await step(() => kube.podStatus(ns, 'train-workers-0-0', oomKilledPodStatus()));
    const down = await step(() => kube.jobsetStatus(ns, 'train', jobsetStatus(0, { restarts: 1 })));
    await until(ns, 'train', [['provisioning', 'up', 'down']]);

    // New pods land on the same nodes; the JobSet is ready again.
    await kube.deletePod(ns, 'train-workers-0-0');
    await kube.deletePod(ns, 'train-workers-1-0');
    const js = await kube.getJobSet(ns, 'train');
    for (const [i, node] of ['life-1', 'life-2'].entries()) {
      await kube.createPod(ns, podManifest({ name: `train-workers-${i}-1`, jobset: js.metadata, jobIndex: i, nodeName: node, restartAttempt: 1 }));
    }
    const recovered = await step(() => kube.jobsetStatus(ns, 'train', jobsetStatus(2, { restarts: 1 })));
    await until(ns, 'train', [['provisioning', 'up', 'down', 'up']]);

    await nextSecond(); // so that its whole-second condition time is after the last change
    const completedAt = Date.now();
    await kube.jobsetStatus(ns, 'train', {
      status: {
        restarts: 1,
        terminalState: 'Completed',
        replicatedJobsStatus: [{ name: 'workers', ready: 0, active: 0, succeeded: 2, failed: 0, suspended: 0 }],
        conditions: [{ type: 'Completed', status: 'True', reason: 'AllJobsCompleted', message: 'jobset completed successfully', lastTransitionTime: rfc3339(completedAt) }],
      },
    });
    const [tl] = await until(ns, 'train', [['provisioning', 'up', 'down', 'up', 'completed']]);
    const [p, u0, d1, u1, c] = tl!.intervals;

    expectWithin(p!.from, created); // creationTimestamp
    expectWithin(u0!.from, up);
    expectWithin(d1!.from, down);
    expectWithin(u1!.from, recovered);
    expect(c!.from).toBe(new Date(Math.floor(completedAt / 1000) * 1000).toISOString()); // the Completed condition's time
    expect(tl!.state).toBe('completed');

    // The figures are the intervals' lengths.
    const len = (i: { from: string; to: string | null }) => (Date.parse(i.to!) - Date.parse(i.from)) / 1000;
    expect(tl!.figures).toMatchObject({ interruptions: 1, recoveries: 1, unknownSeconds: 0 });
    expect(tl!.figures.upSeconds).toBeCloseTo(len(u0!) + len(u1!), 3);
    expect(tl!.figures.provisioningSeconds).toBeCloseTo(len(p!), 3);
    expect(tl!.figures.mttrSeconds).toBeCloseTo(len(d1!), 3);
    expect(tl!.figures.mtbiSeconds).toBeCloseTo(len(u0!), 3);

    // The interruption carries what was seen around it: the OOM kill and the restart.
    const causes = tl!.events.find((e) => e.type === 'interruption')!.causes!;
    expect(causes.map((x) => `${x.kind}:${x.reason}`)).toEqual(['PodFailed:OOMKilled', 'JobSetRestart:FailurePolicyRestart']);
    expect(causes[0]).toMatchObject({ pod: 'train-workers-0-0', node: 'life-1', container: 'main', exitCode: 137 });
    expect(causes[1]).toMatchObject({ restarts: 1 });
    expectWithin(causes[0]!.at, oom);

    // The nodes stayed Ready through the restart: the node layer was up from the placement to the end.
    const [nodes] = await until(ns, 'train', [['provisioning', 'up', 'completed']], 'nodes');
    expect(nodes!.figures).toMatchObject({ interruptions: 0, recoveries: 0 });
    expect(Date.parse(nodes!.intervals[1]!.from)).toBeLessThan(Date.parse(u0!.from));
  });
});

describe('suspension, deletion and nodes', () => {
  //   created suspended (queued) ─ resumed ─ provisioning ─ up ─ suspended ─ resumed ─ up
  it('suspend and resume: queued time, and an up after a resume is not a recovery', async () => {
    const ns = 'queue';
    await kube.namespace(ns);
    const createdAt = Date.now();
    await kube.createJobSet(ns, jobsetManifest('q', { suspend: true }));
    await kube.jobsetStatus(ns, 'q', { status: { conditions: [{ type: 'Suspended', status: 'True', reason: 'SuspendedJobs', message: 'jobset is suspended', lastTransitionTime: rfc3339(createdAt) }] } });
    await until(ns, 'q', [['suspended']]);
    await nextSecond();

    const resumedAt = Date.now();
    await kube.patchJobSet(ns, 'q', { spec: { suspend: false } });
    await kube.jobsetStatus(ns, 'q', { status: { conditions: [{ type: 'Suspended', status: 'False', reason: 'ResumeJobs', message: 'jobset is resumed', lastTransitionTime: rfc3339(resumedAt) }] } });
    await until(ns, 'q', [['suspended', 'provisioning']]);
    await kube.jobsetStatus(ns, 'q', jobsetStatus(2));
    await until(ns, 'q', [['suspended', 'provisioning', 'up']]);

    await nextSecond();
    const suspendAgain = Date.now();
    await kube.patchJobSet(ns, 'q', { spec: { suspend: true } });
    await kube.jobsetStatus(ns, 'q', { status: { replicatedJobsStatus: [{ name: 'workers', ready: 0, active: 0, succeeded: 0, failed: 0, suspended: 2 }], conditions: [{ type: 'Suspended', status: 'True', reason: 'SuspendedJobs', message: 'jobset is suspended', lastTransitionTime: rfc3339(suspendAgain) }] } });
    await until(ns, 'q', [['suspended', 'provisioning', 'up', 'suspended']]);
    await nextSecond();
    const resumeAgain = Date.now();
    await kube.patchJobSet(ns, 'q', { spec: { suspend: false } });
    await kube.jobsetStatus(ns, 'q', { status: { replicatedJobsStatus: [{ name: 'workers', ready: 2, active: 2, succeeded: 0, failed: 0, suspended: 0 }], conditions: [{ type: 'Suspended', status: 'False', reason: 'ResumeJobs', message: 'jobset is resumed', lastTransitionTime: rfc3339(resumeAgain) }] } });
    const [tl] = await until(ns, 'q', [['suspended', 'provisioning', 'up', 'suspended', 'provisioning', 'up']]);

    expect(tl!.intervals[1]!.from).toBe(new Date(Math.floor(resumedAt / 1000) * 1000).toISOString());
    expect(tl!.figures).toMatchObject({ interruptions: 0, recoveries: 0, unknownSeconds: 0 });
    expect(tl!.figures.queuedSeconds).toBeCloseTo((Date.parse(tl!.intervals[1]!.from) - Date.parse(tl!.intervals[0]!.from)) / 1000, 3);
    expect(tl!.figures.suspendedSeconds!).toBeGreaterThan(tl!.figures.queuedSeconds!);
  });

  //   running ─ deleted; created again with the same name: a second timeline
  it('a deleted JobSet is closed as deleted; one created again with its name is a new timeline', async () => {
    const ns = 'again';
    await kube.namespace(ns);
    const first = await kube.createJobSet(ns, jobsetManifest('run'));
    await kube.jobsetStatus(ns, 'run', jobsetStatus(2));
    await until(ns, 'run', [['provisioning', 'up']]);
    const deleted = await step(() => kube.deleteJobSet(ns, 'run'));
    await until(ns, 'run', [['provisioning', 'up', 'deleted']]);
    const second = await kube.createJobSet(ns, jobsetManifest('run'));
    const [a, b] = await until(ns, 'run', [['provisioning', 'up', 'deleted'], ['provisioning']]);
    expect([a!.uid, b!.uid]).toEqual([first.uid, second.uid]);
    expectWithin(a!.intervals[2]!.from, deleted);
    expect(a!.figures.interruptions).toBe(0);
  });

  //   nodes Ready ─ node NotReady: both layers down, the node named as the cause ─ Ready again: up
  it('a node going NotReady takes the node layer down and is named as the cause', async () => {
    const ns = 'nodes';
    await runningJobSet(ns, 'big', ['nodes-1', 'nodes-2']);
    await kube.jobsetStatus(ns, 'big', jobsetStatus(2));
    await until(ns, 'big', [['provisioning', 'up']], 'nodes');
    await until(ns, 'big', [['provisioning', 'up']]);

    await nextSecond();
    const notReady = Date.now();
    await kube.nodeReady('nodes-2', 'Unknown', notReady, 'NodeStatusUnknown');
    // The node lifecycle controller marks the pod not ready; the JobSet controller counts it.
    await kube.jobsetStatus(ns, 'big', jobsetStatus(1));
    const [nodeLayer] = await until(ns, 'big', [['provisioning', 'up', 'down']], 'nodes');
    const [jobsetLayer] = await until(ns, 'big', [['provisioning', 'up', 'down']]);
    expect(nodeLayer!.intervals[2]!.from).toBe(new Date(Math.floor(notReady / 1000) * 1000).toISOString());
    expect(nodeLayer!.intervals[2]!.causes).toEqual([
      { kind: 'NodeNotReady', at: nodeLayer!.intervals[2]!.from, node: 'nodes-2', reason: 'NodeStatusUnknown', message: 'Ready=Unknown' },
    ]);
    expect(jobsetLayer!.events[0]!.causes!.map((c) => `${c.kind}:${c.node}`)).toEqual(['NodeNotReady:nodes-2']);

    const readyAgain = Date.now() + 1000;
    await new Promise((r) => setTimeout(r, 1000));
    await kube.nodeReady('nodes-2', 'True', readyAgain);
    await kube.jobsetStatus(ns, 'big', jobsetStatus(2));
    const [recovered] = await until(ns, 'big', [['provisioning', 'up', 'down', 'up']], 'nodes');
    expect(recovered!.figures).toMatchObject({ interruptions: 1, recoveries: 1 });
    expect(recovered!.figures.mttrSeconds).toBeCloseTo((Date.parse(recovered!.intervals[3]!.from) - Date.parse(recovered!.intervals[2]!.from)) / 1000, 3);
  });

  it('a JobSet that fails carries its Failed condition; its node layer, on healthy nodes, ends completed', async () => {
    const ns = 'fails';
    await runningJobSet(ns, 'doomed', ['fails-1', 'fails-2']);
    await kube.jobsetStatus(ns, 'doomed', jobsetStatus(2));
    await until(ns, 'doomed', [['provisioning', 'up']], 'nodes');
    const failedAt = Date.now();
    await kube.jobsetStatus(ns, 'doomed', {
      status: {
        terminalState: 'Failed',
        replicatedJobsStatus: [{ name: 'workers', ready: 0, active: 0, succeeded: 0, failed: 1, suspended: 0 }],
        conditions: [{ type: 'Failed', status: 'True', reason: 'ReachedMaxRestarts', message: 'jobset failed due to reaching max number of restarts', lastTransitionTime: rfc3339(failedAt) }],
      },
    });
    const [tl] = await until(ns, 'doomed', [['provisioning', 'up', 'failed']]);
    expect(tl!.events[0]!.causes).toEqual([
      { kind: 'JobSetFailed', at: new Date(Math.floor(failedAt / 1000) * 1000).toISOString(), reason: 'ReachedMaxRestarts', message: 'jobset failed due to reaching max number of restarts' },
    ]);
    expect(tl!.figures.interruptions).toBe(1);
    await until(ns, 'doomed', [['provisioning', 'up', 'completed']], 'nodes');
  });
});

describe('the service around the watch', () => {
  it('answers the node layer in queries, and publishes the watch metrics', async () => {
    const res = await getJson<{ results: Record<string, { status: number; frames?: { schema: { fields: { labels?: Record<string, string> }[] } }[] }> }>(`${service.url}/api/v1/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ from: 'now-1h', to: 'now', queries: [{ refId: 'N', layer: 'nodes', queryType: 'summary' }, { refId: 'J', queryType: 'summary' }] }),
    });
    expect(res.status).toBe(200);
    expect(res.body.results.N!.status).toBe(200);
    expect(res.body.results.J!.status).toBe(200);

    const metrics = (await getJson<string>(`${service.url}/metrics`)).body;
    expect(metric(metrics, 'upness_watch_objects', { resource: 'jobsets' })).toBeGreaterThanOrEqual(5);
    expect(metric(metrics, 'upness_watch_objects', { resource: 'nodes' })).toBe(6);
    expect(metric(metrics, 'upness_watch_objects', { resource: 'pods' })).toBeGreaterThanOrEqual(6);
    for (const resource of ['jobsets', 'pods', 'nodes']) {
      expect(metric(metrics, 'upness_watch_seconds_since_last_event', { resource })).toBeLessThan(10);
    }
    // Nothing broke: no restarts.
    expect(metrics).not.toMatch(/^upness_watch_restarts_total\{/m);
    expect(metric(metrics, 'upness_ready', { source: 'kubernetes' })).toBe(1);
  });
});
