// The watch holds Pods and Nodes in a kept form (sources/cluster/kept.ts: identity, labels, a pod's
// node), and a relist that finds one gone delivers DELETED with that form instead of the last whole
// object. These check that the engine (JobSet, node and pool layers) and the usage sampler's view of
// the pods come out the same either way.

import { jobSetObject, min, iso } from '../../../test/support/scenario.ts';
import { ClusterEngine } from '../nodes/engine.ts';
import type { KubeObject, Observation } from '../observation/types.ts';
import { keepIdentity } from '../sources/cluster/kept.ts';
import { podOwners } from '../usage/jobset-usage.ts';
import { transitionsOf } from '../timeline/types.ts';

function node(name: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      uid: `uid-${name}`,
      name,
      resourceVersion: '10',
      creationTimestamp: iso(min(0)),
      labels: { 'cloud.google.com/gke-nodepool': 'pool-a', 'cloud.google.com/gke-tpu-topology': '2x2x1', 'kubernetes.io/hostname': name },
      annotations: { 'node.alpha.kubernetes.io/ttl': '0' },
    },
    spec: { providerID: `gce://p/z/${name}` },
    status: {
      capacity: { 'google.com/tpu': '4', cpu: '208' },
      conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: iso(min(0)), reason: 'KubeletReady' }],
      images: [{ names: ['trainer:1'], sizeBytes: 1 }],
    },
  };
}

function pod(index: number, nodeName: string, failed = false): KubeObject {
  const name = `train-rj0-${index}-0`;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      uid: `uid-${name}`,
      name,
      namespace: 'default',
      resourceVersion: failed ? '30' : '20',
      labels: {
        'jobset.sigs.k8s.io/jobset-name': 'train',
        'jobset.sigs.k8s.io/jobset-uid': 'js',
        'jobset.sigs.k8s.io/replicatedjob-name': 'rj0',
        'jobset.sigs.k8s.io/job-index': String(index),
        'batch.kubernetes.io/job-completion-index': '0',
      },
    },
    spec: { nodeName, containers: [{ name: 'main', image: 'trainer:1' }] },
    status: {
      phase: failed ? 'Failed' : 'Running',
      conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: iso(min(2)) }],
      containerStatuses: [
        { name: 'main', restartCount: 0, state: failed ? { terminated: { exitCode: 137, reason: 'OOMKilled', finishedAt: iso(min(5)) } } : { running: { startedAt: iso(min(2)) } } },
      ],
    },
  };
}

const obs = (receivedAt: number, type: Observation['type'], object: KubeObject): Observation => ({ receivedAt, type, object });

/** Two nodes, a JobSet up on them; pod 0 is OOMKilled at 5; at 10 a relist finds pod 0 and node n1 gone. */
function run(deleted: (object: KubeObject) => KubeObject): ClusterEngine {
  const engine = new ClusterEngine();
  const shape = { uid: 'js', replicas: [2] };
  const base = { ready: 0, succeeded: 0, restarts: 0, suspend: false };
  const steps: Observation[] = [
    obs(min(0), 'ADDED', node('n1')),
    obs(min(0), 'ADDED', node('n2')),
    obs(min(0), 'ADDED', jobSetObject(shape, min(0), base)),
    obs(min(2), 'ADDED', pod(0, 'n1')),
    obs(min(2), 'ADDED', pod(1, 'n2')),
    obs(min(3), 'MODIFIED', jobSetObject(shape, min(0), { ...base, ready: 2 })),
    obs(min(5), 'MODIFIED', pod(0, 'n1', true)),
    obs(min(6), 'MODIFIED', jobSetObject(shape, min(0), { ...base, ready: 1 })),
    obs(min(10), 'DELETED', deleted(pod(0, 'n1', true))),
    obs(min(10), 'DELETED', deleted(node('n1'))),
  ];
  for (const o of steps) engine.observe(o);
  return engine;
}

describe('Pods and Nodes kept in their kept form', () => {
  it('a relist that finds them gone gives the engine the same layers as their whole objects would', () => {
    const whole = run((o) => o);
    const kept = run(keepIdentity);
    // The case is not empty: the node layer went down with its causes, and the pool lost a node.
    const nodeLayer = whole.nodeTimelines()[0]!;
    expect(transitionsOf(nodeLayer).map((t) => t.state)).toEqual(['provisioning', 'up', 'down']);
    expect(JSON.stringify(nodeLayer)).toContain('NodeDeleted');
    expect(JSON.stringify(whole.timelines())).toContain('OOMKilled');
    expect(whole.poolTimelines()).toHaveLength(1);
    expect(JSON.stringify(kept.nodeTimelines())).toBe(JSON.stringify(whole.nodeTimelines()));
    expect(JSON.stringify(kept.poolTimelines())).toBe(JSON.stringify(whole.poolTimelines()));
    expect(JSON.stringify(kept.timelines())).toBe(JSON.stringify(whole.timelines()));
    expect(kept.counts).toEqual(whole.counts);
  });

  it('keeps what the usage sampler reads of a pod: its JobSet and its node', () => {
    const pods = [pod(0, 'n1'), pod(1, 'n2')];
    expect(podOwners(pods.map(keepIdentity))).toEqual(podOwners(pods));
    expect(pods.map(keepIdentity).map((p) => (p.spec as { nodeName: string }).nodeName)).toEqual(['n1', 'n2']);
  });

  it('drops the rest: a node\'s status and annotations, a pod\'s containers and status', () => {
    const n = keepIdentity(node('n1'));
    expect(n).toEqual({ apiVersion: 'v1', kind: 'Node', metadata: { uid: 'uid-n1', name: 'n1', resourceVersion: '10', creationTimestamp: iso(min(0)), labels: node('n1').metadata.labels } });
    const p = keepIdentity(pod(0, 'n1'));
    expect(p.status).toBeUndefined();
    expect(p.spec).toEqual({ nodeName: 'n1' });
  });
});
