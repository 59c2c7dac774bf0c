// The node layer and the causes of interruptions, each case drawn as a timeline (minutes after T0).
// A JobSet here needs 2 nodes (one replicated job, 2 replicas, parallelism 1) unless it says.

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { figures } from '../series/figures.ts';
import { iso, min, Scenario } from '../../../test/support/scenario.ts';
import type { KubeObject, Observation } from '../observation/types.ts';
import type { Fact } from '../timeline/facts.ts';
import { machineAsRead } from '../timeline/machine.ts';
import { transitionsOf, type Timeline } from '../timeline/types.ts';
import { ClusterEngine } from './engine.ts';
import { viewJobSet } from '../timeline/jobset.ts';
import { podFailures, viewNode, viewPod } from './objects.ts';

const drawn = (tl: Timeline | undefined): string[] => (tl === undefined ? [] : transitionsOf(tl)).map((t) => `${(t.at - min(0)) / 60_000}:${t.state}`);

let rv = 1_000_000;

function node(name: string, ready: 'True' | 'False' | 'Unknown', since: number, reason?: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { uid: `node-${name}`, name, resourceVersion: String(++rv) },
    status: { conditions: [{ type: 'Ready', status: ready, lastTransitionTime: iso(since), ...(reason ? { reason } : {}) }] },
  };
}

interface PodShape {
  jobset?: string;
  jobsetUid?: string | null;
  index: number;
  node?: string;
  attempt?: number;
  status?: Record<string, unknown>;
}

function pod(p: PodShape): KubeObject {
  const jobset = p.jobset ?? 'train';
  const name = `${jobset}-rj0-${p.index}-${p.attempt ?? 0}`;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      uid: `pod-${name}`,
      name,
      namespace: 'default',
      resourceVersion: String(++rv),
      labels: {
        'jobset.sigs.k8s.io/jobset-name': jobset,
        ...(p.jobsetUid === null ? {} : { 'jobset.sigs.k8s.io/jobset-uid': p.jobsetUid ?? 'a' }),
        'jobset.sigs.k8s.io/replicatedjob-name': 'rj0',
        'jobset.sigs.k8s.io/job-index': String(p.index),
        'batch.kubernetes.io/job-completion-index': '0',
      },
    },
    spec: p.node !== undefined ? { nodeName: p.node } : {},
    status: p.status ?? { phase: p.node !== undefined ? 'Running' : 'Pending' },
  };
}

const obs = (receivedAt: number, object: KubeObject, type: Observation['type'] = 'MODIFIED'): Observation => ({ receivedAt, type, object });

/** Feeds observations in time order (stable), as the watcher would deliver them. */
function run(observations: Observation[], engine = new ClusterEngine()): ClusterEngine {
  for (const o of [...observations].sort((a, b) => a.receivedAt - b.receivedAt)) engine.observe(o);
  return engine;
}

/** Two Ready nodes at minute 0, a JobSet created at 0 whose two pods land on them at 2. */
function placed(js: Scenario): Observation[] {
  return [
    obs(min(0), node('n1', 'True', min(0)), 'ADDED'),
    obs(min(0), node('n2', 'True', min(0)), 'ADDED'),
    ...js.observations,
    obs(min(2), pod({ index: 0, node: 'n1' }), 'ADDED'),
    obs(min(2), pod({ index: 1, node: 'n2' }), 'ADDED'),
  ];
}

describe('what Pod and Node objects say', () => {
  it('expects Σ replicas × parallelism nodes, with the defaults of 1', () => {
    const object = { apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', metadata: { uid: 'x', name: 'x' }, spec: { replicatedJobs: [{ replicas: 2, template: { spec: { parallelism: 4 } } }, { template: { spec: {} } }] } };
    expect(viewJobSet(object).expectedNodes).toBe(2 * 4 + 1);
  });

  it("a pod's place is its replicated job, job index and completion index, whatever its name", () => {
    expect(viewPod(pod({ index: 1, node: 'n2', attempt: 3 }))).toMatchObject({ jobsetName: 'train', jobsetUid: 'a', slot: 'rj0/1/0', nodeName: 'n2' });
  });

  it('a node without a Ready condition is Unknown', () => {
    expect(viewNode({ apiVersion: 'v1', kind: 'Node', metadata: { uid: 'u', name: 'n' } }).ready).toBe('Unknown');
  });

  it('names OOMKilled, non-zero exits (also before a restart), evictions and disruptions once each', () => {
    const oom = pod({
      index: 0,
      node: 'n1',
      status: {
        phase: 'Running',
        containerStatuses: [
          { name: 'main', restartCount: 1, state: { running: {} }, lastState: { terminated: { exitCode: 137, reason: 'OOMKilled', finishedAt: iso(min(5)) } } },
          { name: 'sidecar', restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } },
        ],
        conditions: [{ type: 'DisruptionTarget', status: 'True', reason: 'PreemptionByScheduler', lastTransitionTime: iso(min(6)) }],
      },
    });
    expect(podFailures(oom, min(7)).map((f) => f.cause)).toEqual([
      { kind: 'PodFailed', at: min(5), pod: oom.metadata.name, node: 'n1', container: 'main', reason: 'OOMKilled', exitCode: 137 },
      { kind: 'PodDisruption', at: min(6), pod: oom.metadata.name, node: 'n1', reason: 'PreemptionByScheduler' },
    ]);
    const evicted = pod({ index: 0, node: 'n1', status: { phase: 'Failed', reason: 'Evicted', message: 'The node was low on resource: memory.' } });
    expect(podFailures(evicted, min(8)).map((f) => f.cause)).toEqual([
      { kind: 'PodFailed', at: min(8), pod: evicted.metadata.name, node: 'n1', reason: 'Evicted', message: 'The node was low on resource: memory.' },
    ]);
    // The same termination, first as the current state and then as the last state: one fact.
    const first = pod({ index: 0, status: { containerStatuses: [{ name: 'main', restartCount: 0, state: { terminated: { exitCode: 1, reason: 'Error' } } }] } });
    const second = pod({ index: 0, status: { containerStatuses: [{ name: 'main', restartCount: 1, lastState: { terminated: { exitCode: 1, reason: 'Error' } } }] } });
    expect(podFailures(first, 0)[0]!.key).toBe(podFailures(second, 0)[0]!.key);
  });
});

describe('node-level up-ness', () => {
  //   nodes n1, n2 Ready            pods placed at 2          n1 NotReady 20         n1 Ready 30
  //   jobset layer:  0 ─prov─ 5 ─up─────────────────────────── 21 ─down─ 31 ─up─ 60
  //   node layer:    0 ─prov─ 2 ─up──────────────────────── 20 ─down─── 30 ─up─ 60
  it('is up while every node it needs is there and Ready; a node going NotReady takes it down', () => {
    const js = new Scenario({ uid: 'a' }, min(0)).created().up(min(5)).down(min(21), { restarts: 1 }).up(min(31));
    const engine = run([...placed(js), obs(min(20), node('n1', 'False', min(20))), obs(min(30), node('n1', 'True', min(30)))]);
    const nodes = engine.nodeLayer.timeline('a');
    expect(drawn(nodes)).toEqual(['0:provisioning', '2:up', '20:down', '30:up']);
    expect(drawn(engine.timeline('a'))).toEqual(['0:provisioning', '5:up', '21:down', '31:up']);
    const f = figures(nodes!, min(60), min(0), min(60));
    expect(f).toMatchObject({ upSeconds: 58 * 60 - 10 * 60, interruptions: 1, recoveries: 1, mttrSeconds: 600, timeToFirstUpSeconds: 120 });
    expect(engine.nodeLayer.nodesOf('a')).toEqual({ nodes: ['n1', 'n2'], expected: 2 });
  });

  it('an Unknown node (the node controller lost it) or a deleted node takes it down too', () => {
    const js = new Scenario({ uid: 'a' }, min(0)).created().up(min(5));
    const unknown = run([...placed(js), obs(min(20), node('n2', 'Unknown', min(19), 'NodeStatusUnknown'))]);
    expect(drawn(unknown.nodeLayer.timeline('a'))).toEqual(['0:provisioning', '2:up', '19:down']);
    expect(transitionsOf(unknown.nodeLayer.timeline('a')!)[2]!.causes).toEqual([{ kind: 'NodeNotReady', at: min(19), node: 'n2', reason: 'NodeStatusUnknown' }]);
    const deleted = run([...placed(js), obs(min(20), node('n2', 'True', min(0)), 'DELETED')]);
    expect(drawn(deleted.nodeLayer.timeline('a'))).toEqual(['0:provisioning', '2:up', '20:down']);
    expect(transitionsOf(deleted.nodeLayer.timeline('a')!)[2]!.causes).toEqual([{ kind: 'NodeDeleted', at: min(20), node: 'n2' }]);
  });

  //   a failure-policy restart at 20 deletes both pods; new ones land on the same nodes at 22
  it('a restart on healthy nodes does not take the node layer down: a place keeps its node', () => {
    const js = new Scenario({ uid: 'a' }, min(0)).created().up(min(5)).down(min(20), { restarts: 1 }).up(min(23));
    const engine = run([
      ...placed(js),
      obs(min(20), pod({ index: 0, node: 'n1' }), 'DELETED'),
      obs(min(20), pod({ index: 1, node: 'n2' }), 'DELETED'),
      obs(min(21), pod({ index: 0, attempt: 1 }), 'ADDED'),
      obs(min(22), pod({ index: 0, attempt: 1, node: 'n1' })),
      obs(min(22), pod({ index: 1, attempt: 1, node: 'n2' }), 'ADDED'),
    ]);
    expect(drawn(engine.nodeLayer.timeline('a'))).toEqual(['0:provisioning', '2:up']);
    expect(drawn(engine.timeline('a'))).toEqual(['0:provisioning', '5:up', '20:down', '23:up']);
  });

  //   pod 1 rescheduled from the NotReady n2 to n3 at 25: up again without n2
  it('a pod placed on another node moves its place there', () => {
    const js = new Scenario({ uid: 'a' }, min(0)).created().up(min(5));
    const engine = run([
      ...placed(js),
      obs(min(0), node('n3', 'True', min(0)), 'ADDED'),
      obs(min(20), node('n2', 'False', min(20))),
      obs(min(25), pod({ index: 1, attempt: 1, node: 'n3' }), 'ADDED'),
    ]);
    expect(drawn(engine.nodeLayer.timeline('a'))).toEqual(['0:provisioning', '2:up', '20:down', '25:up']);
    expect(engine.nodeLayer.nodesOf('a')!.nodes).toEqual(['n1', 'n3']);
  });

  it('needs replicas × parallelism distinct nodes: fewer is provisioning', () => {
    const js = new Scenario({ uid: 'a', replicas: [3] }, min(0)).created();
    const engine = run([...placed(js)]);
    expect(drawn(engine.nodeLayer.timeline('a'))).toEqual(['0:provisioning']);
    expect(engine.nodeLayer.nodesOf('a')).toEqual({ nodes: ['n1', 'n2'], expected: 3 });
  });

  it('pods seen before their JobSet, without a jobset-uid label, are adopted by it', () => {
    const js = new Scenario({ uid: 'a' }, min(1)).created();
    const engine = run([
      obs(min(0), node('n1', 'True', min(0)), 'ADDED'),
      obs(min(0), node('n2', 'True', min(0)), 'ADDED'),
      obs(min(0), pod({ index: 0, node: 'n1', jobsetUid: null }), 'ADDED'),
      obs(min(0), pod({ index: 1, node: 'n2', jobsetUid: null }), 'ADDED'),
      ...js.observations,
    ], new ClusterEngine({ watchedFrom: min(0) }));
    expect(drawn(engine.nodeLayer.timeline('a'))).toEqual(['1:up']);
  });

  //   suspended at 10, resumed at 20: the node layer follows; its up after the resume is not a recovery
  it('follows the JobSet through suspension and resumption', () => {
    const js = new Scenario({ uid: 'a' }, min(0))
      .created()
      .up(min(5))
      .at(min(10), { suspend: true, ready: 0, suspended: { status: 'True', at: min(10) } })
      .at(min(20), { suspend: false, suspended: { status: 'False', at: min(20) } });
    const engine = run(placed(js));
    expect(drawn(engine.nodeLayer.timeline('a'))).toEqual(['0:provisioning', '2:up', '10:suspended', '20:up']);
    expect(figures(engine.nodeLayer.timeline('a')!, min(30), min(0), min(30))).toMatchObject({ interruptions: 0, recoveries: 0, suspendedSeconds: 600 });
  });

  it('ends as completed when the JobSet fails on healthy nodes, as failed when its nodes were down', () => {
    const healthy = new Scenario({ uid: 'a' }, min(0)).created().up(min(5)).at(min(30), { failedAt: min(30) });
    expect(drawn(run(placed(healthy)).nodeLayer.timeline('a'))).toEqual(['0:provisioning', '2:up', '30:completed']);
    const broken = new Scenario({ uid: 'a' }, min(0)).created().up(min(5)).down(min(21), { restarts: 1 }).at(min(30), { failedAt: min(30) });
    const engine = run([...placed(broken), obs(min(20), node('n1', 'False', min(20)))]);
    expect(drawn(engine.nodeLayer.timeline('a'))).toEqual(['0:provisioning', '2:up', '20:down', '30:failed']);
    expect(figures(engine.nodeLayer.timeline('a')!, min(40), min(0), min(40)).interruptions).toBe(1);
  });

  it('a JobSet deleted and created again with the same name gets a new node layer', () => {
    const first = new Scenario({ uid: 'a' }, min(0)).created().up(min(5)).deleted(min(10));
    const second = new Scenario({ uid: 'b' }, min(11)).created();
    const engine = run([...placed(first), ...second.observations]);
    expect(drawn(engine.nodeLayer.timeline('a'))).toEqual(['0:provisioning', '2:up', '10:deleted']);
    expect(drawn(engine.nodeLayer.timeline('b'))).toEqual(['11:provisioning']);
  });
});

describe('gaps in the Pod and Node watches', () => {
  //   0 ─prov─ 2 ─up─ 40 ╳ watch broken; n1 went NotReady at 44 ╳ 50 resynced
  //   → unknown 40─44 (up or not, nobody saw), down from 44 as n1's condition proves
  it("a node's Ready condition proves when the node layer went down; before that it is unknown", () => {
    const js = new Scenario({ uid: 'a' }, min(0)).created().up(min(5));
    const engine = run(placed(js));
    engine.nodeLayer.beginGap(min(40));
    expect(engine.nodeLayer.gapStart).toBe(min(40));
    engine.observe(obs(min(50), node('n1', 'False', min(44))));
    engine.nodeLayer.endGap(min(50));
    const tl = engine.nodeLayer.timeline('a')!;
    expect(drawn(tl)).toEqual(['0:provisioning', '2:up', '40:unknown', '44:down']);
    expect(transitionsOf(tl)[3]!.unobserved).toEqual({ interruptions: 1, recoveries: 0 });
    expect(figures(tl, min(60), min(0), min(60))).toMatchObject({ unknownSeconds: 240, interruptions: 1, mtbiSeconds: null });
  });

  it('nothing changed during the gap: the node layer held its state, no unknown time', () => {
    const js = new Scenario({ uid: 'a' }, min(0)).created().up(min(5));
    const engine = run(placed(js));
    engine.nodeLayer.beginGap(min(40));
    engine.observe(obs(min(50), node('n1', 'True', min(0))));
    engine.nodeLayer.endGap(min(50));
    expect(drawn(engine.nodeLayer.timeline('a'))).toEqual(['0:provisioning', '2:up']);
  });

  it('a change that the objects cannot time is unknown until the resync', () => {
    const js = new Scenario({ uid: 'a' }, min(0)).created().up(min(5));
    const engine = run(placed(js));
    engine.nodeLayer.beginGap(min(40));
    // n2 vanished while nobody watched: when is not known.
    engine.observe(obs(min(50), node('n2', 'True', min(0)), 'DELETED'));
    engine.nodeLayer.endGap(min(50));
    expect(drawn(engine.nodeLayer.timeline('a'))).toEqual(['0:provisioning', '2:up', '40:unknown', '50:down']);
  });
});

describe('a relist that no longer lists a JobSet (restored from a store)', () => {
  //   jobset layer a: 0 ─prov─ 5 ─up─ 40 ╳ not watching ╳ 50 not listed → 40 unknown, 50 deleted
  //   node layer a:   0 ─prov─ 2 ─up─ 40 unknown, 50 deleted (it follows the JobSet layer's lifecycle)
  //   b, listed:      0 ─prov─ 5 ─up─ (unchanged)
  it('closes both layers as deleted at the relist, and frees the places its pods held', () => {
    const a = new Scenario({ uid: 'a' }, min(0)).created().up(min(5));
    const b = new Scenario({ uid: 'b', name: 'eval' }, min(0)).created().up(min(5));
    const engine = run([...placed(a), ...b.observations]);
    engine.beginGap(min(40));
    const updates = engine.reconcile({ uids: new Set(['b']), namespaces: [] }, min(50));
    engine.endGap(min(50));
    expect(updates.map((u) => u.timeline.uid)).toEqual(['a']);
    expect(drawn(engine.timeline('a'))).toEqual(['0:provisioning', '5:up', '40:unknown', '50:deleted']);
    expect(drawn(engine.nodeLayer.timeline('a'))).toEqual(['0:provisioning', '2:up', '40:unknown', '50:deleted']);
    expect(drawn(engine.timeline('b'))).toEqual(['0:provisioning', '5:up']);
    expect(engine.nodeLayer.nodesOf('a')!.nodes).toEqual([]);
    // A node of a going NotReady now is nobody's cause.
    engine.observe(obs(min(55), node('n1', 'False', min(55))));
    expect(transitionsOf(engine.nodeLayer.timeline('a')!).at(-1)!.causes).toBeUndefined();
  });
});

describe('what is kept of Pod and Node objects', () => {
  // The node layer keeps views (a node's readiness, a pod's place and node), never the objects: an
  // observed object, with its spec, status and managedFields, is garbage once observed. A real
  // collection shows it: V8's gc is reached through a flag (the test runner has no --expose-gc).
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;

  it('drops every observed Pod and Node object, and still answers the node layer and its causes', async () => {
    const js = new Scenario({ uid: 'a' }, min(0)).created().up(min(5)).down(min(21), { restarts: 1 });
    const engine = new ClusterEngine();
    const refs: WeakRef<KubeObject>[] = [];
    const feed = (o: Observation): void => {
      if (o.object.kind === 'Pod' || o.object.kind === 'Node') refs.push(new WeakRef(o.object));
      engine.observe(o);
    };
    const failed = pod({ index: 0, node: 'n1', status: { phase: 'Failed', containerStatuses: [{ name: 'main', restartCount: 0, state: { terminated: { exitCode: 137, reason: 'OOMKilled', finishedAt: iso(min(20)) } } }] } });
    // Built inside the loop so that no variable of this test holds an object once it is fed.
    for (const o of [...placed(js), obs(min(20), node('n1', 'False', min(20))), obs(min(20.5), failed)].sort((x, y) => x.receivedAt - y.receivedAt)) feed(o);
    expect(refs).toHaveLength(6);
    // WeakRefs hold their targets until the current job ends.
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    expect(refs.filter((r) => r.deref() !== undefined).map((r) => `${r.deref()!.kind}/${r.deref()!.metadata.name}`)).toEqual(
      // `failed` is still referenced by this test's own variable: the one object expected alive.
      [`Pod/${failed.metadata.name}`],
    );
    expect(engine.counts).toMatchObject({ pods: 2, nodes: 2 });
    expect(drawn(engine.nodeLayer.timeline('a'))).toEqual(['0:provisioning', '2:up', '20:down']);
    expect(transitionsOf(engine.timeline('a')!).at(-1)!.causes?.map((c) => `${c.kind}:${c.node}:${c.reason}`)).toEqual(['NodeNotReady:n1:NotReady', 'PodFailed:n1:OOMKilled', 'JobSetRestart:undefined:FailurePolicyRestart']);
  });
});

describe('causes of an interruption', () => {
  //   pod 0 OOMKilled at 19 (seen at 19.5), the JobSet restarts and goes down at 20
  it('attaches the pod failures, not-ready nodes and the restart observed before it went down', () => {
    const js = new Scenario({ uid: 'a' }, min(0)).created().up(min(5)).down(min(20), { restarts: 1 });
    const oom = pod({ index: 0, node: 'n1', status: { phase: 'Failed', containerStatuses: [{ name: 'main', restartCount: 0, state: { terminated: { exitCode: 137, reason: 'OOMKilled', finishedAt: iso(min(19)) } } }] } });
    const engine = run([...placed(js), obs(min(19.5), oom)]);
    const down = transitionsOf(engine.timeline('a')!).find((t) => t.state === 'down')!;
    expect(down.causes).toEqual([
      { kind: 'PodFailed', at: min(19), pod: oom.metadata.name, node: 'n1', container: 'main', reason: 'OOMKilled', exitCode: 137 },
      { kind: 'JobSetRestart', at: min(20), restarts: 1, reason: 'FailurePolicyRestart' },
    ]);
    // The node layer stayed up: a pod's failure is not its cause.
    expect(drawn(engine.nodeLayer.timeline('a'))).toEqual(['0:provisioning', '2:up']);
  });

  it('attaches a failure seen shortly after the JobSet went down, but not one from long before', () => {
    const js = new Scenario({ uid: 'a' }, min(0)).created().up(min(5)).down(min(20), { restarts: 1 });
    const early = pod({ index: 1, node: 'n2', status: { phase: 'Failed', reason: 'Evicted' } });
    const late = pod({ index: 0, node: 'n1', status: { conditions: [{ type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI', lastTransitionTime: iso(min(20.2)) }] } });
    const engine = run([...placed(js), obs(min(10), early), obs(min(20.25), late)]);
    const down = transitionsOf(engine.timeline('a')!).find((t) => t.state === 'down')!;
    expect(down.causes?.map((c) => `${c.kind}:${c.reason}`)).toEqual(['JobSetRestart:FailurePolicyRestart', 'PodDisruption:EvictionByEvictionAPI']);
  });

  it("a failed JobSet carries its Failed condition's reason", () => {
    const js = new Scenario({ uid: 'a' }, min(0)).created().up(min(5)).at(min(30), { failedAt: min(30) });
    const engine = run(placed(js));
    const failed = transitionsOf(engine.timeline('a')!).at(-1)!;
    expect(failed.state).toBe('failed');
    expect(failed.causes).toEqual([{ kind: 'JobSetFailed', at: min(30), reason: 'Failed' }]);
  });

  it("a failed JobSet carries its Failed condition's reason and message, as its view says", () => {
    const js = new Scenario({ uid: 'a' }, min(0)).created().up(min(5)).at(min(30), { failedAt: min(30) });
    const last = js.observations.at(-1)!.object;
    const failedCondition = (last.status as { conditions: Record<string, unknown>[] }).conditions.find((c) => c.type === 'Failed')!;
    Object.assign(failedCondition, { reason: 'FailedJobs', message: 'jobset failed due to job rj0-1 exceeding maxRestarts' });
    expect(viewJobSet(last).failure).toEqual({ at: min(30), reason: 'FailedJobs', message: 'jobset failed due to job rj0-1 exceeding maxRestarts' });
    const engine = run(placed(js));
    expect(transitionsOf(engine.timeline('a')!).at(-1)!.causes).toEqual([
      { kind: 'JobSetFailed', at: min(30), reason: 'FailedJobs', message: 'jobset failed due to job rj0-1 exceeding maxRestarts' },
    ]);
  });

  it('forgets causes too old to attach to anything, also of names never seen again', () => {
    const js = new Scenario({ uid: 'a' }, min(0)).created().up(min(5)).down(min(20), { restarts: 1 });
    const engine = run(placed(js));
    expect(engine.nodeLayer.causeNames).toBe(1);
    // Another JobSet's observations an hour later sweep the first one's (it ended its causes' use).
    const other = new Scenario({ uid: 'b', name: 'eval' }, min(60)).created();
    run(other.observations, engine);
    expect(engine.nodeLayer.causeNames).toBe(0);
    expect(transitionsOf(engine.timeline('a')!).find((t) => t.state === 'down')!.causes?.map((c) => c.kind)).toEqual(['JobSetRestart']);
  });

  it('a cause is attached once, to the interruption it belongs to', () => {
    const js = new Scenario({ uid: 'a' }, min(0)).created().up(min(5)).down(min(20), { restarts: 1 }).up(min(21)).down(min(40), { restarts: 2 });
    const engine = run([...placed(js), obs(min(19.9), node('n1', 'False', min(19.9))), obs(min(20.5), node('n1', 'True', min(20.5)))]);
    const downs = transitionsOf(engine.timeline('a')!).filter((t) => t.state === 'down');
    expect(downs.map((d) => d.causes?.map((c) => c.kind))).toEqual([['NodeNotReady', 'JobSetRestart'], ['JobSetRestart']]);
  });
});

describe('a JobSet whose pods were never seen', () => {
  // No Pod or Node watch (a trace of JobSets alone): once closed, its node layer is derived from the
  // JobSet layer when asked, and keeps no timeline of its own.
  //   jobset layer: 0 ─prov─ 5 ─up─ 20 ─down─ 21 ─up─ 30 failed      node layer: 0 ─prov─ 30 failed
  const failing = (): Scenario => new Scenario({ uid: 'a' }, min(0)).created().up(min(5)).down(min(20), { restarts: 1 }).up(min(21)).at(min(30), { failedAt: min(30) });

  it('answers its node layer from the JobSet layer once closed, as the layer it kept before', () => {
    const js = failing();
    const facts: Fact[] = [];
    const engine = run(js.observations, new ClusterEngine({ onFact: (f) => facts.push(f) }));
    expect(engine.nodeLayer.derivedCount).toBe(1);
    expect(drawn(engine.nodeLayer.timeline('a'))).toEqual(['0:provisioning', '30:failed']);
    expect(engine.nodeTimelines().map((t) => [t.uid, t.name, t.labels, drawn(t)])).toEqual([['a', 'train', engine.timeline('a')!.labels, ['0:provisioning', '30:failed']]]);
    // What the stores keep is written as it happened: each node-layer transition, and the causes.
    expect(facts.filter((f) => f.kind === 'node-transition').map((f) => (f.kind === 'node-transition' ? `${f.seq}:${f.transition.state}` : ''))).toEqual(['0:provisioning', '1:failed']);
    expect(transitionsOf(engine.timeline('a')!).at(-1)!.causes?.map((c) => c.kind)).toEqual(['JobSetFailed']);
    expect(engine.nodeLayer.nodesOf('a')).toEqual({ nodes: [], expected: 2 });
  });

  it('observed again after it closed: the same causes, once, and derived again', () => {
    const js = failing();
    const facts: Fact[] = [];
    const engine = run(js.observations, new ClusterEngine({ onFact: (f) => facts.push(f) }));
    const told = facts.length;
    // A relist lists it again (the same object), then it is deleted: its cause keys say the failure is known.
    const last = js.observations.at(-1)!.object;
    run([obs(min(30.1), last), obs(min(30.2), last, 'DELETED')], engine);
    expect(facts).toHaveLength(told);
    expect(transitionsOf(engine.timeline('a')!).at(-1)!.causes?.map((c) => c.kind)).toEqual(['JobSetFailed']);
    expect(engine.nodeLayer.derivedCount).toBe(1);
    expect(drawn(engine.nodeLayer.timeline('a'))).toEqual(['0:provisioning', '30:failed']);
  });

  it("a pod seen after it closed on a node deleted then: the node's cause joins both layers' failure, as it would have", () => {
    const js = failing();
    const engine = run(js.observations);
    expect(engine.nodeLayer.derivedCount).toBe(1);
    run([obs(min(30), node('n1', 'True', min(0)), 'ADDED'), obs(min(30.1), pod({ index: 0, node: 'n1' }), 'ADDED'), obs(min(30.2), node('n1', 'True', min(0)), 'DELETED')], engine);
    const cause = { kind: 'NodeDeleted', at: min(30.2), node: 'n1' };
    expect(transitionsOf(engine.nodeLayer.timeline('a')!).at(-1)!.causes).toEqual([cause]);
    expect(transitionsOf(engine.timeline('a')!).at(-1)!.causes).toEqual([{ kind: 'JobSetFailed', at: min(30), reason: 'Failed' }, cause]);
    expect(engine.nodeLayer.derivedCount).toBe(0);
  });

  it('keeps a node layer of its own when it differs from the derived one (its pods were up)', () => {
    const healthy = new Scenario({ uid: 'a' }, min(0)).created().up(min(5)).at(min(30), { failedAt: min(30) });
    const engine = run(placed(healthy));
    expect(engine.nodeLayer.derivedCount).toBe(0);
    expect(drawn(engine.nodeLayer.timeline('a'))).toEqual(['0:provisioning', '2:up', '30:completed']);
  });

  it('restored from a store: derived again, the same answers, and forgotten with its JobSet', () => {
    const engine = run(failing().observations);
    const restored = new ClusterEngine();
    restored.restore(structuredClone([...engine.machines()].map(machineAsRead)), min(31));
    restored.restoreNodeLayer(structuredClone([...engine.nodeTimelines()]), min(31));
    expect(restored.nodeLayer.derivedCount).toBe(1);
    expect(restored.nodeTimelines()).toEqual(engine.nodeTimelines());
    restored.forget(['a']);
    expect(restored.nodeTimelines()).toEqual([]);
    expect(restored.nodeLayer.timeline('a')).toBeUndefined();
  });
});
