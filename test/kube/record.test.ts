// `upness record` against the real apiserver, beside a live `upness serve`: the trace it writes is
// DESIGN.md's format (no managedFields), and `upness replay` turns it into the figures the live
// service shows. Two processes stamp the same events a few ms apart, so durations agree within
// that, and counts exactly. `upness serve --trace` of the recording gives the same node layer too.

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startCluster, type Cluster } from './cluster.ts';
import {
  getJson,
  jobsetManifest,
  jobsetStatus,
  Kube,
  NODE,
  oomKilledPodStatus,
  podManifest,
  rfc3339,
  runningPodStatus,
  startRecord,
  startServe,
  states,
  UPNESS,
  waitFor,
  waitReady,
  type Process,
  type Service,
  type TimelineJson,
} from './harness.ts';

let cluster: Cluster;
let kube: Kube;
let service: Service;
let recorder: Process;
let trace: string;
const t0 = Date.now();

beforeAll(async () => {
  cluster = await startCluster();
  kube = new Kube(cluster);
  trace = join(cluster.tempDir, 'recorded.jsonl');
  service = await startServe(['--kubeconfig', cluster.kubeconfigPath]);
  recorder = startRecord(['--kubeconfig', cluster.kubeconfigPath], trace);
  await waitReady(service);
  // The recorder is a second Node process: on a loaded machine loading it alone can take most of a minute.
  await waitFor('the recorder to finish its first sync', () => recorder.lines().some((l) => l.msg === 'recording'), 90_000);
}, 240_000);

afterAll(async () => {
  await recorder?.stop();
  await service?.stop();
  await cluster?.stop();
  process.stderr.write(`record.test: ${(Date.now() - t0) / 1000} s in all\n`);
});

async function liveStates(ns: string, name: string, layer = 'jobset'): Promise<string[][]> {
  const r = await getJson<{ timelines: TimelineJson[] }>(`${service.url}/api/v1/jobsets/${ns}/${name}?layer=${layer}`);
  return r.status === 200 ? r.body.timelines.map(states) : [];
}

const until = (ns: string, name: string, expected: string[][], layer = 'jobset') =>
  waitFor(`${ns}/${name} (${layer}) ${JSON.stringify(expected)}`, async () => JSON.stringify(await liveStates(ns, name, layer)) === JSON.stringify(expected), 10_000, 50);

interface Row {
  uid: string;
  name: string;
  namespace: string;
  state: string | null;
  [figure: string]: unknown;
}

it('records a trace that replays into the live figures', async () => {
  // A little of everything: up, an interruption with an OOM kill, a recovery, a node NotReady, a
  // completion, a deletion and a JobSet created again with the same name.
  await kube.namespace('rec');
  for (const n of ['rec-1', 'rec-2', 'rec-3', 'rec-4']) await kube.createNode(n);
  const a = await kube.createJobSet('rec', jobsetManifest('alpha'));
  const b = await kube.createJobSet('rec', jobsetManifest('beta'));
  for (const [js, nodes] of [[a, ['rec-1', 'rec-2']], [b, ['rec-3', 'rec-4']]] as const) {
    for (const [i, node] of nodes.entries()) {
      await kube.createPod('rec', podManifest({ name: `${js.name}-${i}`, jobset: js, jobIndex: i, nodeName: node }));
      await kube.podStatus('rec', `${js.name}-${i}`, runningPodStatus());
    }
  }
  await kube.jobsetStatus('rec', 'alpha', jobsetStatus(2));
  await kube.jobsetStatus('rec', 'beta', jobsetStatus(2));
  await until('rec', 'alpha', [['provisioning', 'up']]);
  await sleep(500);
  await kube.podStatus('rec', 'alpha-0', oomKilledPodStatus());
  await kube.jobsetStatus('rec', 'alpha', jobsetStatus(0, { restarts: 1 }));
  await sleep(700);
  await kube.jobsetStatus('rec', 'alpha', jobsetStatus(2, { restarts: 1 }));
  await kube.nodeReady('rec-4', 'False');
  await kube.jobsetStatus('rec', 'beta', jobsetStatus(1));
  await sleep(600);
  await kube.jobsetStatus('rec', 'alpha', {
    status: {
      restarts: 1,
      replicatedJobsStatus: [{ name: 'workers', ready: 0, active: 0, succeeded: 2, failed: 0, suspended: 0 }],
      conditions: [{ type: 'Completed', status: 'True', reason: 'AllJobsCompleted', message: 'done', lastTransitionTime: rfc3339() }],
    },
  });
  await kube.deleteJobSet('rec', 'beta');
  await kube.createJobSet('rec', jobsetManifest('beta'));
  await until('rec', 'alpha', [['provisioning', 'up', 'down', 'up', 'completed']]);
  await until('rec', 'beta', [['provisioning', 'up', 'down', 'deleted'], ['provisioning']]);
  await until('rec', 'beta', [['provisioning', 'up', 'down', 'deleted'], ['provisioning']], 'nodes');

  // The window ends before a last change that both see, so the trace reaches past it.
  await sleep(300);
  const to = new Date().toISOString();
  await sleep(300);
  await kube.nodeReady('rec-1', 'True');
  await waitFor('the recorder to write the last change', () => readFileSync(trace, 'utf8').includes('"name":"rec-1"') && readFileSync(trace, 'utf8').trim().split('\n').some((l) => l.includes('"rec-1"') && Date.parse(JSON.parse(l).time) > Date.parse(to)), 10_000);
  await sleep(300);
  expect(await recorder.stop('SIGINT')).toBe(0);

  // The trace: DESIGN.md's lines, in time order, whole objects without managedFields.
  const lines = readFileSync(trace, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { time: string; type: string; object: { kind: string; metadata: Record<string, unknown> } });
  expect(lines.length).toBeGreaterThan(20);
  for (const [i, line] of lines.entries()) {
    expect(Object.keys(line)).toEqual(['time', 'type', 'object']);
    expect(['ADDED', 'MODIFIED', 'DELETED']).toContain(line.type);
    expect(['JobSet', 'Pod', 'Node']).toContain(line.object.kind);
    expect(line.object.metadata.managedFields).toBeUndefined();
    if (i > 0) expect(Date.parse(line.time)).toBeGreaterThanOrEqual(Date.parse(lines[i - 1]!.time));
  }

  const from = new Date(Date.parse(lines[0]!.time) - 60_000).toISOString();
  const replay = spawnSync(NODE, [UPNESS, 'replay', trace, '--from', from, '--to', to, '--namespace', 'rec'], { encoding: 'utf8' });
  expect(replay.status).toBe(0);
  const replayed = (JSON.parse(replay.stdout) as { jobsets: Row[] }).jobsets;
  const live = (await getJson<{ jobsets: Row[] }>(`${service.url}/api/v1/jobsets?namespace=rec&from=${from}&to=${to}`)).body.jobsets;
  expect(replayed.map((r) => r.uid).sort()).toEqual(live.map((r) => r.uid).sort());
  expect(replayed).toHaveLength(3);
  let worst = 0;
  for (const row of live) {
    const other = replayed.find((r) => r.uid === row.uid)!;
    expect([row.name, other.state]).toEqual([row.name, row.state]);
    for (const [figure, value] of Object.entries(row)) {
      if (typeof value !== 'number') {
        if (['uid', 'name', 'namespace', 'state'].includes(figure)) expect(other[figure]).toEqual(value);
        continue;
      }
      if (figure === 'interruptions' || figure === 'recoveries') expect([row.name, figure, other[figure]]).toEqual([row.name, figure, value]);
      else if (figure === 'restartsPerDay') {
        // A rate over a few seconds of up + down time: a tenth of a second between live and replay
        // moves it by thousands. Each side must be its own interruptions over its own up + down days.
        for (const side of [row, other]) {
          const days = ((side.upSeconds as number) + (side.downSeconds as number)) / 86_400;
          const rate = side[figure] as number;
          const expected = (side.interruptions as number) / days;
          expect([row.name, figure, Math.abs(rate - expected) <= 1e-9 * Math.max(1, expected)]).toEqual([row.name, figure, true]);
        }
      }
      else {
        const diff = Math.abs((other[figure] as number) - value);
        worst = Math.max(worst, figure === 'uptimeRatio' ? 0 : diff);
        // Durations within 0.25 s (the two processes receive each event at their own time). The ratio
        // up ÷ (up + down) of two such durations moves by up to 0.5 s ÷ (up + down): over a few
        // seconds, several percent, so its tolerance follows from theirs (at least 0.02).
        const upDown = (row.upSeconds as number) + (row.downSeconds as number);
        const tolerance = figure === 'uptimeRatio' ? Math.max(0.02, 0.5 / Math.max(0.5, upDown - 0.5)) : 0.25;
        expect([row.name, figure, diff <= tolerance ? 'close' : `live ${value}, replay ${String(other[figure])}, tolerance ${tolerance}`]).toEqual([row.name, figure, 'close']);
      }
    }
  }
  process.stderr.write(`record.test: ${lines.length} trace lines; largest difference of a duration between replay and live: ${worst.toFixed(3)} s\n`);

  // The recording served as a trace: the same JobSet and node layer timelines (states).
  const replayService = await startServe(['--trace', trace]);
  try {
    await waitReady(replayService);
    for (const layer of ['jobset', 'nodes']) {
      for (const name of ['alpha', 'beta']) {
        const r = await getJson<{ timelines: TimelineJson[] }>(`${replayService.url}/api/v1/jobsets/rec/${name}?layer=${layer}`);
        expect([layer, name, r.body.timelines.map(states)]).toEqual([layer, name, await liveStates('rec', name, layer)]);
      }
    }
    const [alpha] = (await getJson<{ timelines: TimelineJson[] }>(`${replayService.url}/api/v1/jobsets/rec/alpha`)).body.timelines;
    expect(alpha!.events[0]!.causes!.map((c) => c.reason)).toEqual(['OOMKilled', 'FailurePolicyRestart']);
  } finally {
    await replayService.stop();
  }
}, 90_000);
