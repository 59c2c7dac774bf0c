// Node pools: each case is a sequence of Node events drawn as a timeline (minutes after T0), and the
// pool timeline and figures computed by hand from the rule (layer.ts, README "Node pools").

import { figures } from '../../series/figures.ts';
import { iso, min } from '../../../../test/support/scenario.ts';
import type { KubeObject, Observation } from '../../observation/types.ts';
import { transitionsOf, type Timeline } from '../../timeline/types.ts';
import { PoolLayer, type PoolFact, type PoolLayerOptions } from './layer.ts';
import { poolOf, sliceHosts, topologyChips, viewPoolNode } from './objects.ts';

interface NodeShape {
  pool?: string;
  ready?: 'True' | 'False' | 'Unknown';
  /** Minute of the Ready condition's lastTransitionTime. */
  since?: number;
  created?: number;
  cordoned?: boolean;
  taint?: string;
  labels?: Record<string, string>;
  tpu?: number;
  annotations?: Record<string, string>;
}

let rv = 1;

function node(name: string, s: NodeShape = {}): KubeObject {
  const ready = s.ready ?? 'True';
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      uid: `uid-${name}`,
      name,
      resourceVersion: String(++rv),
      creationTimestamp: iso(min(s.created ?? 0)),
      labels: { 'cloud.google.com/gke-nodepool': s.pool ?? 'p', ...s.labels },
      ...(s.annotations ? { annotations: s.annotations } : {}),
    },
    spec: {
      ...(s.cordoned ? { unschedulable: true } : {}),
      ...(s.taint ? { taints: [{ key: s.taint, effect: 'NoSchedule' }] } : {}),
    },
    status: {
      ...(s.tpu ? { capacity: { 'google.com/tpu': String(s.tpu) } } : {}),
      conditions: [{ type: 'Ready', status: ready, lastTransitionTime: iso(min(s.since ?? s.created ?? 0)), reason: ready === 'True' ? 'KubeletReady' : 'NodeStatusUnknown' }],
    },
  };
}

/** An observation at minute `m` (fractions allowed). */
const at = (m: number, object: KubeObject, type: Observation['type'] = 'MODIFIED'): Observation => ({ receivedAt: min(m), type, object });
const added = (m: number, object: KubeObject): Observation => at(m, object, 'ADDED');
const deleted = (m: number, object: KubeObject): Observation => at(m, object, 'DELETED');

function run(observations: Observation[], options: PoolLayerOptions = {}): { layer: PoolLayer; facts: PoolFact[] } {
  const facts: PoolFact[] = [];
  const layer = new PoolLayer({ ...options, onFact: (f) => facts.push(f) });
  for (const o of observations) layer.observe(o);
  return { layer, facts };
}

const drawn = (tl: Timeline | undefined): string[] => (tl === undefined ? [] : transitionsOf(tl)).map((t) => `${(t.at - min(0)) / 60_000}:${t.state}`);
const pools = (layer: PoolLayer, name = 'p'): Timeline[] => layer.timelines().filter((t) => t.name === name);

/** Three nodes a, b, c created at 0, Ready at 1, 2 and 3: up at 3. */
function threeUp(): Observation[] {
  return [
    added(0, node('a', { ready: 'False' })),
    added(0, node('b', { ready: 'False' })),
    added(0, node('c', { ready: 'False' })),
    at(1, node('a', { since: 1 })),
    at(2, node('b', { since: 2 })),
    at(3, node('c', { since: 3 })),
  ];
}

describe('what a Node says of its pool', () => {
  it('reads the pool from the known labels in order, then the option', () => {
    expect(poolOf({ 'karpenter.sh/nodepool': 'k', 'eks.amazonaws.com/nodegroup': 'e' })).toBe('k');
    expect(poolOf({ 'kubernetes.azure.com/agentpool': 'az', 'cloud.google.com/gke-nodepool': 'g' })).toBe('g');
    expect(poolOf({ 'eks.amazonaws.com/nodegroup': 'e' })).toBe('e');
    expect(poolOf({ team: 'x' })).toBeNull();
    expect(poolOf({ team: 'x' }, 'team')).toBe('x');
    expect(poolOf({ team: 'x', 'karpenter.sh/nodepool': 'k' }, 'team')).toBe('k');
  });

  it('sees a node on its way out: cordoned, tainted by the autoscaler or Karpenter, or being deleted', () => {
    expect(viewPoolNode(node('a')).leaving).toBe(false);
    expect(viewPoolNode(node('a', { cordoned: true })).leaving).toBe(true);
    expect(viewPoolNode(node('a', { taint: 'ToBeDeletedByClusterAutoscaler' })).leaving).toBe(true);
    expect(viewPoolNode(node('a', { taint: 'karpenter.sh/disrupted' })).leaving).toBe(true);
    expect(viewPoolNode(node('a', { taint: 'node.kubernetes.io/unschedulable' })).leaving).toBe(true);
    expect(viewPoolNode(node('a', { taint: 'nvidia.com/gpu' })).leaving).toBe(false);
    const deleting = node('a');
    deleting.metadata.deletionTimestamp = iso(min(1));
    expect(viewPoolNode(deleting).leaving).toBe(true);
  });

  it('counts a slice\'s hosts: chips in the topology ÷ chips per host; single-host slices and others: none', () => {
    expect(topologyChips('2x2x4')).toBe(16);
    expect(topologyChips('4x4')).toBe(16);
    expect(topologyChips('bad')).toBeNull();
    expect(sliceHosts('2x2x4', 4)).toBe(4);
    expect(sliceHosts('16x16', 4)).toBe(64);
    expect(sliceHosts('2x2', 4)).toBeNull(); // one host
    expect(sliceHosts('2x2x4', null)).toBeNull();
    expect(sliceHosts('2x3', 4)).toBeNull(); // does not divide
    const v = viewPoolNode(node('t', { labels: { 'cloud.google.com/gke-tpu-topology': '2x2x4', 'cloud.google.com/gke-tpu-accelerator': 'tpu-v5p-slice' }, tpu: 4 }));
    expect([v.accelerator, v.topology, v.tpuChips]).toEqual(['tpu-v5p-slice', '2x2x4', 4]);
  });
});

describe('a pool timeline', () => {
  //   a  ___/‾‾‾‾‾‾‾‾‾‾‾‾‾‾‾‾‾‾‾‾
  //   b  ______/‾‾‾‾‾‾‾\___/‾‾‾‾‾   NotReady 10 → Ready 14
  //   c  _________/‾‾‾‾‾‾‾‾‾‾‾‾‾‾
  //      0  1  2  3      10  14  20
  //   pool: provisioning 0–3, up 3–10, down 10–14, up 14–
  it('provisions until all its nodes are Ready, then is down while a node is NotReady', () => {
    const { layer, facts } = run([...threeUp(), at(10.2, node('b', { ready: 'Unknown', since: 10 })), at(14.1, node('b', { since: 14 }))]);
    const [tl] = pools(layer);
    expect(drawn(tl)).toEqual(['0:provisioning', '3:up', '10:down', '14:up']);
    expect(transitionsOf(tl!)[2]!.causes).toEqual([{ kind: 'NodeNotReady', at: min(10), node: 'b', reason: 'NodeStatusUnknown' }]);
    const f = figures(tl!, min(20), min(0), min(20));
    expect([f.upSeconds, f.provisioningSeconds, f.interruptionDowntimeSeconds, f.interruptions, f.mttrSeconds, f.mtbiSeconds]).toEqual([(7 + 6) * 60, 180, 240, 1, 240, 420]);
    expect(layer.expectedOf('p')).toBe(3);
    expect(facts.filter((x) => x.kind === 'pool-transition').map((x) => x.seq)).toEqual([0, 1, 2, 3]);
    expect(facts.find((x) => x.kind === 'pool-cause')).toMatchObject({ seq: 2, cause: { node: 'b' } });
  });

  //   surge upgrade of a: d joins (Ready at 11), a is cordoned at 12 and deleted at 13.
  //   expected 3 → 4 (d Ready) → 3 (a gone as planned); the pool never goes down.
  it('a surge upgrade costs no uptime: the new node raises the size once Ready, the cordoned old one lowers it', () => {
    const { layer } = run([
      ...threeUp(),
      added(10, node('d', { ready: 'False', created: 10 })),
      at(11, node('d', { since: 11, created: 10 })),
      at(12, node('a', { since: 1, cordoned: true })),
      deleted(13, node('a', { since: 1, cordoned: true })),
    ]);
    expect(drawn(pools(layer)[0])).toEqual(['0:provisioning', '3:up']);
    expect(layer.expectedOf('p')).toBe(3);
    // Not Ready yet: d does not hold the pool back, nor count.
    const early = run([...threeUp(), added(10, node('d', { ready: 'False', created: 10 }))]);
    expect(early.layer.expectedOf('p')).toBe(3);
    expect(drawn(pools(early.layer)[0])).toEqual(['0:provisioning', '3:up']);
  });

  it('a scale-down costs no uptime, by cordon, by an autoscaler taint or by Karpenter, and even if the node goes NotReady before it is deleted', () => {
    for (const mark of [{ cordoned: true }, { taint: 'ToBeDeletedByClusterAutoscaler' }, { taint: 'karpenter.sh/disrupted' }]) {
      const { layer } = run([
        ...threeUp(),
        at(10, node('c', { since: 3, ...mark })),
        at(11, node('c', { ready: 'Unknown', since: 11, ...mark })), // its VM is gone first
        deleted(12, node('c', { ready: 'Unknown', since: 11, ...mark })),
        at(13, node('b', { since: 3, ...mark })),
        deleted(14, node('b', { since: 3, ...mark })),
      ]);
      expect(drawn(pools(layer)[0])).toEqual(['0:provisioning', '3:up']);
      expect(layer.expectedOf('p')).toBe(1);
    }
  });

  //   b vanishes at 10 (no cordon): down until e, its replacement, is Ready at 15.
  it('a node lost without warning costs uptime until it is replaced', () => {
    const { layer } = run([
      ...threeUp(),
      deleted(10, node('b', { since: 2 })),
      added(12, node('e', { ready: 'False', created: 12 })),
      at(15.5, node('e', { since: 15, created: 12 })),
    ]);
    const [tl] = pools(layer);
    expect(drawn(tl)).toEqual(['0:provisioning', '3:up', '10:down', '15:up']);
    expect(transitionsOf(tl!)[2]!.causes).toEqual([{ kind: 'NodeDeleted', at: min(10), node: 'b' }]);
    expect(layer.expectedOf('p')).toBe(3);
    expect(figures(tl!, min(20), min(0), min(20)).interruptionDowntimeSeconds).toBe(300);
  });

  it('a lost node is not replaced by one that was Ready before it went; it is, by one Ready in the same second', () => {
    // e Ready at 5 raised the size to 4; b lost at 10 leaves the pool short.
    const before = run([...threeUp(), added(4, node('e', { ready: 'False', created: 4 })), at(5, node('e', { since: 5, created: 4 })), deleted(10, node('b', { since: 2 }))]);
    expect(drawn(pools(before.layer)[0])).toEqual(['0:provisioning', '3:up', '10:down']);
    // e Ready at 10:00 and seen at 10:00.4, b's deletion seen at 10:00.9: the replacement came first.
    const same = run([...threeUp(), added(9, node('e', { ready: 'False', created: 9 })), at(10 + 0.4 / 60, node('e', { since: 10, created: 9 })), deleted(10 + 0.9 / 60, node('b', { since: 2 }))]);
    expect(drawn(pools(same.layer)[0])).toEqual(['0:provisioning', '3:up']);
    expect(same.layer.expectedOf('p')).toBe(3);
    // b's deletion seen first, e Ready in that same second: no time down (a zero-length down period).
    const after = run([...threeUp(), added(9, node('e', { ready: 'False', created: 9 })), deleted(10, node('b', { since: 2 })), at(10 + 0.5 / 60, node('e', { since: 10, created: 9 }))]);
    const tl = pools(after.layer)[0]!;
    expect(drawn(tl)).toEqual(['0:provisioning', '3:up', '10:down', '10:up']);
    expect(figures(tl, min(20), min(0), min(20)).interruptionDowntimeSeconds).toBe(0);
  });

  it('a node that goes NotReady keeps the size: the pool is down until it is Ready again or replaced after it left', () => {
    const { layer } = run([...threeUp(), at(10, node('a', { ready: 'False', since: 10 })), deleted(12, node('a', { ready: 'False', since: 10 })), at(16, node('f', { since: 16, created: 13 }))]);
    expect(drawn(pools(layer)[0])).toEqual(['0:provisioning', '3:up', '10:down', '16:up']);
    expect(layer.expectedOf('p')).toBe(3);
  });

  it('ends when all its nodes left as planned; nodes that come later start a new timeline', () => {
    const marked = { since: 3, taint: 'ToBeDeletedByClusterAutoscaler' };
    const { layer } = run([
      ...threeUp(),
      at(10, node('a', marked)),
      at(10, node('b', marked)),
      at(10, node('c', marked)),
      deleted(11, node('a', marked)),
      deleted(11, node('b', marked)),
      deleted(12, node('c', marked)),
      added(30, node('g', { ready: 'False', created: 30 })),
      at(31, node('g', { since: 31, created: 30 })),
    ]);
    const [first, second] = pools(layer);
    expect(drawn(first)).toEqual(['0:provisioning', '3:up', '12:completed']);
    expect(drawn(second)).toEqual(['30:provisioning', '31:up']);
    expect(first!.uid).not.toBe(second!.uid);
    expect(figures(first!, min(40), min(0), min(40)).interruptions).toBe(0);
  });

  it('does not end when its last node vanished unannounced: it is down until a node comes', () => {
    const { layer } = run([added(0, node('a', { since: 1 })), deleted(5, node('a', { since: 1 })), added(9, node('z', { ready: 'False', created: 9 })), at(10, node('z', { since: 10, created: 9 }))]);
    expect(drawn(pools(layer)[0])).toEqual(['0:up', '5:down', '10:up']);
    expect(pools(layer)).toHaveLength(1);
  });

  it('ends when its other nodes are removed as planned after one was lost: the pool itself is gone', () => {
    const marked = { since: 3, cordoned: true };
    const { layer } = run([...threeUp(), deleted(10, node('a', { since: 1 })), at(20, node('b', marked)), at(20, node('c', marked)), deleted(21, node('b', marked)), deleted(22, node('c', marked))]);
    expect(drawn(pools(layer)[0])).toEqual(['0:provisioning', '3:up', '10:down', '22:completed']);
    expect(figures(pools(layer)[0]!, min(30), min(0), min(30)).interruptions).toBe(1);
  });

  //   a multi-host TPU slice, topology 2x2x4 (16 chips), 4 chips per host: 4 hosts.
  it('a multi-host TPU slice expects the hosts its topology implies: up only with all of them Ready', () => {
    const tpu = (name: string, s: NodeShape) =>
      node(name, { pool: 'slice', tpu: 4, labels: { 'cloud.google.com/gke-tpu-topology': '2x2x4', 'cloud.google.com/gke-tpu-accelerator': 'tpu-v5p-slice' }, ...s });
    const { layer } = run([
      added(0, tpu('h0', { since: 1 })),
      added(0, tpu('h1', { since: 1 })),
      added(2, tpu('h2', { since: 2 })), // three Ready: not yet
      added(4, tpu('h3', { since: 4 })),
      deleted(6, tpu('h1', { since: 1 })),
      at(8, tpu('h5', { since: 8, created: 7 })),
    ]);
    const [tl] = pools(layer, 'slice');
    expect(drawn(tl)).toEqual(['0:provisioning', '4:up', '6:down', '8:up']);
    expect([tl!.accelerator, tl!.topology, tl!.labels]).toEqual(['tpu-v5p-slice', '2x2x4', { pool: 'slice', accelerator: 'tpu-v5p-slice', topology: '2x2x4' }]);
    expect(layer.expectedOf('slice')).toBe(4);
  });

  //   the same slice torn down as planned: all four hosts tainted at 10, deleted one by one 11–14.
  //   A host drained and replaced: h1 cordoned at 6, deleted at 7, h5 Ready at 9.
  it('a slice removed or drained as planned costs no uptime: a host gone after its cordon lowers what it needs until a new one joins', () => {
    const tpu = (name: string, s: NodeShape) =>
      node(name, { pool: 'slice', tpu: 4, labels: { 'cloud.google.com/gke-tpu-topology': '2x2x4', 'cloud.google.com/gke-tpu-accelerator': 'tpu-v5p-slice' }, ...s });
    const hosts = ['h0', 'h1', 'h2', 'h3'];
    const up = hosts.map((h) => added(1, tpu(h, { since: 1 })));
    const marked = { since: 1, taint: 'ToBeDeletedByClusterAutoscaler' };
    const torn = run([...up, ...hosts.map((h) => at(10, tpu(h, marked))), ...hosts.map((h, i) => deleted(11 + i, tpu(h, marked)))]);
    expect(drawn(pools(torn.layer, 'slice')[0])).toEqual(['0:provisioning', '1:up', '14:completed']);
    const drained = run([...up, at(6, tpu('h1', { since: 1, cordoned: true })), deleted(7, tpu('h1', { since: 1, cordoned: true }))]);
    expect(drawn(pools(drained.layer, 'slice')[0])).toEqual(['0:provisioning', '1:up']);
    expect(drained.layer.expectedOf('slice')).toBe(3);
    drained.layer.observe(added(8, tpu('h5', { ready: 'False', created: 8 })));
    drained.layer.observe(at(9, tpu('h5', { since: 9, created: 8 })));
    expect(drained.layer.expectedOf('slice')).toBe(4);
    // Lost without warning, it is down until the host is back.
    drained.layer.observe(deleted(12, tpu('h2', { since: 1 })));
    expect(drawn(pools(drained.layer, 'slice')[0])).toEqual(['0:provisioning', '1:up', '12:down']);
  });

  it('takes the expected size from an option, or from the nodes\' annotation', () => {
    const obs = [added(0, node('b', { ready: 'False' })), added(0, node('a', { since: 0 })), at(2, node('b', { since: 2 })), added(3, node('c', { ready: 'False', created: 3 })), at(5, node('c', { since: 5, created: 3 }))];
    expect(drawn(pools(run(obs).layer)[0])).toEqual(['0:provisioning', '2:up']);
    const opt = run(obs, { expectedNodes: { p: 3 } });
    expect(drawn(pools(opt.layer)[0])).toEqual(['0:provisioning', '5:up']);
    expect(opt.layer.expectedOf('p')).toBe(3);
    const annotated = obs.map((o) => ({ ...o, object: { ...o.object, metadata: { ...o.object.metadata, annotations: { 'upness.dev/expected-nodes': '3' } } } }));
    expect(drawn(pools(run(annotated).layer)[0])).toEqual(['0:provisioning', '5:up']);
  });

  it('reads a pool from the option\'s label, and ignores nodes of no pool', () => {
    const plain = (name: string): KubeObject => ({ ...node(name, { since: 1 }), metadata: { ...node(name).metadata, labels: { team: 'ml' } } });
    expect(run([added(0, plain('a'))]).layer.timelines()).toHaveLength(0);
    const { layer } = run([added(0, plain('a'))], { poolLabel: 'team' });
    expect(drawn(pools(layer, 'ml')[0])).toEqual(['0:up']);
  });

  it('keeps which JobSets ran on the pool, from their pods\' nodes', () => {
    const pod = (name: string, jobset: string, nodeName: string): KubeObject => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { uid: `pod-${name}`, name, namespace: 'ns', labels: { 'jobset.sigs.k8s.io/jobset-name': jobset } },
      spec: { nodeName },
      status: { phase: 'Running' },
    });
    const { layer, facts } = run([...threeUp(), added(4, pod('x0', 'train', 'a')), added(4, pod('x1', 'train', 'b')), added(5, pod('y0', 'eval', 'c')), added(5, pod('z', 'other', 'nowhere'))]);
    expect(pools(layer)[0]!.jobsets).toEqual(['ns/eval', 'ns/train']);
    expect(facts.filter((f) => f.kind === 'pool-jobset')).toHaveLength(2);
  });

  it('names a pool timeline by its pool, first transition carrying its identity', () => {
    const { layer, facts } = run([added(0, node('a', { since: 1 }))]);
    const tl = pools(layer)[0]!;
    expect([tl.name, tl.namespace, tl.uid, tl.createdAt]).toEqual(['p', '', `nodepool:p:${min(0)}`, min(0)]);
    expect(facts[0]).toEqual({ kind: 'pool-transition', uid: tl.uid, seq: 0, transition: { at: min(0), state: 'up' }, pool: { name: 'p', createdAt: min(0), accelerator: null, topology: null } });
  });

  it('restored from a store: the nodes listed again are its members; a pool whose state changed meanwhile is unknown from the gap until the relist', () => {
    const first = run([...threeUp(), at(10, node('b', { ready: 'Unknown', since: 10 })), at(12, node('b', { since: 12 }))]);
    const kept = structuredClone([...first.layer.timelines()]);
    expect(drawn(kept[0])).toEqual(['0:provisioning', '3:up', '10:down', '12:up']);
    // Stopped at 20; at 30 the relist shows b NotReady since 25.
    const facts: PoolFact[] = [];
    const second = new PoolLayer({ onFact: (f) => facts.push(f) });
    second.restore(structuredClone(kept), min(20));
    expect(second.gapStart).toBe(min(20));
    for (const o of [at(30, node('a', { since: 1 })), at(30, node('b', { ready: 'Unknown', since: 25 })), at(30, node('c', { since: 3 }))]) second.observe(o);
    expect(drawn(pools(second)[0])).toEqual(['0:provisioning', '3:up', '10:down', '12:up']);
    second.endGap(min(30));
    expect(drawn(pools(second)[0])).toEqual(['0:provisioning', '3:up', '10:down', '12:up', '20:unknown', '30:down']);
    expect(facts.map((f) => f.kind === 'pool-transition' && f.seq)).toEqual([4, 5]);
    // b Ready again at 31: a member all along.
    second.observe(at(31, node('b', { since: 31 })));
    expect(drawn(pools(second)[0]).at(-1)).toBe('31:up');
    expect(second.expectedOf('p')).toBe(3);
    // Unchanged across the restart: nothing is added.
    const third = new PoolLayer();
    third.restore(structuredClone(kept), min(20));
    for (const o of [at(30, node('a', { since: 1 })), at(30, node('b', { since: 12 })), at(30, node('c', { since: 3 }))]) third.observe(o);
    third.endGap(min(30));
    expect(drawn(pools(third)[0])).toEqual(drawn(kept[0]));
  });

  it('a gap in the Node watch: decided when it ends', () => {
    const { layer } = run(threeUp());
    layer.beginGap(min(10));
    layer.observe(deleted(12, node('b', { since: 2 })));
    expect(drawn(pools(layer)[0])).toEqual(['0:provisioning', '3:up']);
    layer.endGap(min(15));
    expect(drawn(pools(layer)[0])).toEqual(['0:provisioning', '3:up', '10:unknown', '15:down']);
  });
});
