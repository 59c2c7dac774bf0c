// The cluster under a simulated JobSet (option `nodes`): the Nodes of its pools and the Pods the
// JobSet controller's Jobs make, as lean objects (only what the API returns that matters), and the
// truth of its node layer as the simulator's own model sees it (DESIGN.md's node layer: up while
// every place of the JobSet is mapped to a Ready node). The choreography (when a node breaks, when
// pods are bound or deleted) is in jobset-run.ts; here are the objects and the model's rules.

import type { KubeObject } from '../../observation/types.ts';
import type { Cause, State, OpenTimeline, Transition } from '../../timeline/types.ts';
import type { Manifest } from './manifest.ts';
import { kubeTime } from './kube-time.ts';
import type { Rng } from './rng.ts';

const SECOND = 1000;

export type ReadyStatus = 'True' | 'False' | 'Unknown';

/** One Node of a pool, as the simulator keeps it between observations. */
export interface SimNode {
  name: string;
  uid: string;
  pool: string;
  createdAt: number;
  labels: Readonly<Record<string, string>>;
  capacity: Readonly<Record<string, string>>;
  ready: ReadyStatus;
  readySince: number;
  unschedulable: boolean;
  deleted: boolean;
}

/** One place of the JobSet (replicated job, job index, completion index), its assigned host and its pod. */
export interface Place {
  rj: number;
  job: number;
  index: number;
  /** The node of its pool this place runs on (a replacement node takes over). */
  host: string;
  /** The node its last bound pod ran on: what the node layer maps the place to (kept after the pod goes). */
  mapped: string | null;
  pod: SimPod | null;
}

export interface SimPod {
  name: string;
  uid: string;
  jobName: string;
  jobUid: string;
  attempt: number;
  createdAt: number;
  nodeName: string | null;
  scheduledAt: number | null;
  phase: 'Pending' | 'Running' | 'Succeeded';
}

const READY_TEXT: Record<ReadyStatus, { reason: string; message: string }> = {
  True: { reason: 'KubeletReady', message: 'kubelet is posting ready status' },
  False: { reason: 'KubeletNotReady', message: 'container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady' },
  Unknown: { reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.' },
};

/** What the node layer reads of a NotReady node: the cause it names. */
export function notReadyCause(node: SimNode): Cause {
  const text = READY_TEXT[node.ready];
  return { kind: 'NodeNotReady', at: node.readySince, node: node.name, reason: text.reason, message: text.message };
}

type Machine = { instance: string; labels: Record<string, string>; capacity: Record<string, string> };

const TPU_MACHINES: Record<string, string> = { 'tpu-v5p-slice': 'ct5p-hightpu-4t', 'tpu-v5-lite-podslice': 'ct5lp-hightpu-4t' };
const GPU_MACHINES: Record<string, string> = { 'nvidia-h100-80gb': 'a3-highgpu-8g', 'nvidia-a100-80gb': 'a2-ultragpu-8g' };

/** The machine a replicated job's pods need, from its pod template's node selector. */
function machineOf(manifest: Manifest, rj: number): Machine {
  const template = manifest.specRunning.replicatedJobs[rj]!.template as { spec: { template: { spec: { nodeSelector: Record<string, string> } } } };
  const selector = template.spec.template.spec.nodeSelector;
  const tpu = selector['cloud.google.com/gke-tpu-accelerator'];
  if (tpu !== undefined) {
    return {
      instance: TPU_MACHINES[tpu] ?? 'ct5p-hightpu-4t',
      labels: { 'cloud.google.com/gke-tpu-accelerator': tpu, 'cloud.google.com/gke-tpu-topology': selector['cloud.google.com/gke-tpu-topology']! },
      capacity: { cpu: '208', memory: '448Gi', 'google.com/tpu': '4', pods: '110' },
    };
  }
  const gpu = selector['cloud.google.com/gke-accelerator'];
  if (gpu !== undefined) {
    return {
      instance: GPU_MACHINES[gpu] ?? 'a3-highgpu-8g',
      labels: { 'cloud.google.com/gke-accelerator': gpu },
      capacity: { cpu: '208', memory: '1843Gi', 'nvidia.com/gpu': '8', pods: '110' },
    };
  }
  return { instance: 'n2-standard-8', labels: {}, capacity: { cpu: '8', memory: '32Gi', pods: '110' } };
}

/** Parallelism (pods per Job) of each replicated job. */
export function parallelismOf(manifest: Manifest): number[] {
  return manifest.specRunning.replicatedJobs.map((rj) => (rj.template as { spec: { parallelism: number } }).spec.parallelism);
}

const ZONES = ['us-central2-b', 'us-east5-a', 'europe-west4-b'];

/**
 * The pools of one JobSet (made when it is first admitted): one pool per TPU slice (its hosts =
 * chips in the topology ÷ 4 per host), one GPU pool per replicated job of GPU workers, and a CPU
 * pool for a driver. Returns its nodes and the places, each on its own host.
 */
export class Pools {
  readonly nodes = new Map<string, SimNode>();
  readonly places: Place[] = [];
  readonly zone: string;
  readonly #rng: Rng;
  readonly #machines: Machine[];
  readonly #poolNames: string[][];

  constructor(rng: Rng, manifest: Manifest, tag: string) {
    this.#rng = rng;
    this.zone = rng.pick(ZONES);
    const parallelism = parallelismOf(manifest);
    this.#machines = manifest.replicas.map((_, rj) => machineOf(manifest, rj));
    this.#poolNames = manifest.replicas.map((replicas, rj) => {
      const m = this.#machines[rj]!;
      const name = manifest.replicatedJobNames[rj]!;
      if (m.labels['cloud.google.com/gke-tpu-topology'] !== undefined) {
        // A TPU slice is one pool: its hosts are the ICI-connected slice.
        return Array.from({ length: replicas }, (_, j) => `tpu-${tag}-${name}-${j}`);
      }
      const pool = m.labels['cloud.google.com/gke-accelerator'] !== undefined ? `gpu-${tag}-${name}` : `cpu-${tag}`;
      return Array.from({ length: replicas }, () => pool);
    });
    for (let rj = 0; rj < manifest.replicas.length; rj++) {
      for (let job = 0; job < manifest.replicas[rj]!; job++) {
        for (let index = 0; index < parallelism[rj]!; index++) {
          this.places.push({ rj, job, index, host: '', mapped: null, pod: null });
        }
      }
    }
  }

  /** A new node for the pool of replicated job `rj`, job `job`. */
  newNode(rj: number, job: number, at: number, ready: ReadyStatus): SimNode {
    const machine = this.#machines[rj]!;
    const pool = this.#poolNames[rj]![job]!;
    const name = `gke-sim-${pool}-${this.#hex()}-${this.#hex()}`;
    const node: SimNode = {
      name,
      uid: this.#rng.uuid(),
      pool,
      createdAt: at,
      labels: Object.freeze({
        'cloud.google.com/gke-nodepool': pool,
        'node.kubernetes.io/instance-type': machine.instance,
        'topology.kubernetes.io/zone': this.zone,
        'kubernetes.io/hostname': name,
        ...machine.labels,
      }),
      capacity: machine.capacity,
      ready,
      readySince: Math.floor(at / SECOND) * SECOND,
      unschedulable: false,
      deleted: false,
    };
    this.nodes.set(name, node);
    return node;
  }

  #hex(): string {
    return this.#rng.u32().toString(16).padStart(8, '0').slice(0, 4);
  }

  /** The pool of replicated job `rj`, job `job`. */
  poolOf(rj: number, job: number): string {
    return this.#poolNames[rj]![job]!;
  }

  /** Whether replicated job `rj` runs on TPU slices (one pool each, no spare node). */
  isTpu(rj: number): boolean {
    return this.#machines[rj]!.labels['cloud.google.com/gke-tpu-topology'] !== undefined;
  }
}

export function nodeObject(node: SimNode): KubeObject {
  const text = READY_TEXT[node.ready];
  const spec: Record<string, unknown> = { providerID: `gce://example-ml/${node.labels['topology.kubernetes.io/zone']}/${node.name}` };
  if (node.unschedulable) {
    spec.unschedulable = true;
    spec.taints = [
      { key: 'ToBeDeletedByClusterAutoscaler', value: String(Math.floor(node.readySince / SECOND)), effect: 'NoSchedule' },
      { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' },
    ];
  }
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: node.name, uid: node.uid, resourceVersion: '', creationTimestamp: kubeTime(node.createdAt), labels: node.labels },
    spec,
    status: {
      capacity: node.capacity,
      allocatable: node.capacity,
      conditions: [{ type: 'Ready', status: node.ready, lastTransitionTime: kubeTime(node.readySince), reason: text.reason, message: text.message }],
    },
  };
}

/** A pod of the JobSet's Job, with the labels and owner the JobSet and Job controllers give it. */
export function podObject(manifest: Manifest, jobsetUid: string, place: Place, pod: SimPod, deletedAt?: number): KubeObject {
  const rjName = manifest.replicatedJobNames[place.rj]!;
  const metadata: KubeObject['metadata'] = {
    name: pod.name,
    namespace: manifest.namespace,
    uid: pod.uid,
    resourceVersion: '',
    creationTimestamp: kubeTime(pod.createdAt),
    labels: {
      'batch.kubernetes.io/controller-uid': pod.jobUid,
      'batch.kubernetes.io/job-completion-index': String(place.index),
      'batch.kubernetes.io/job-name': pod.jobName,
      'jobset.sigs.k8s.io/job-index': String(place.job),
      'jobset.sigs.k8s.io/jobset-name': manifest.name,
      'jobset.sigs.k8s.io/jobset-uid': jobsetUid,
      'jobset.sigs.k8s.io/replicatedjob-name': rjName,
      'jobset.sigs.k8s.io/restart-attempt': String(pod.attempt),
    },
    ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: pod.jobName, uid: pod.jobUid, controller: true, blockOwnerDeletion: true }],
  };
  if (deletedAt !== undefined) {
    metadata.deletionTimestamp = kubeTime(deletedAt);
    metadata.deletionGracePeriodSeconds = 0;
  }
  const conditions: Record<string, string>[] = [
    pod.scheduledAt === null
      ? { type: 'PodScheduled', status: 'False', lastTransitionTime: kubeTime(pod.createdAt), reason: 'Unschedulable' }
      : { type: 'PodScheduled', status: 'True', lastTransitionTime: kubeTime(pod.scheduledAt) },
  ];
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata,
    spec: pod.nodeName === null ? {} : { nodeName: pod.nodeName },
    status: { phase: pod.phase, conditions },
  };
}

const TERMINAL: ReadonlySet<State> = new Set(['completed', 'failed', 'deleted']);

const isInterruption = (s: State): boolean => s === 'down' || s === 'failed';

/**
 * The node layer's truth, kept by the simulator from what it did (not from its objects): the layer
 * follows the JobSet layer's lifecycle; while the JobSet is provisioning, up or down it is up when
 * every place is mapped to a Ready node, else down once it was up (since creation or the last
 * resume), provisioning before. A JobSet that fails while its nodes are up ends it as completed.
 * A transition's time is what the objects say (a condition's time, a pod's PodScheduled time),
 * no earlier than the previous transition and no later than the observation that shows it.
 */
export class NodeLayerTruth {
  readonly timeline: OpenTimeline;
  #jobsetState: State | null = null;
  #everUp = false;
  /** The node cause of the interruption under way: given to the next interruption of this layer. */
  pendingCause: Cause | null = null;

  constructor(jobset: OpenTimeline) {
    this.timeline = { ...jobset, labels: { ...jobset.labels }, transitions: [] };
  }

  get state(): State | null {
    return this.timeline.transitions.at(-1)?.state ?? null;
  }

  /** The JobSet layer entered `state` at `at` (seen at `receivedAt`). */
  jobset(state: State, at: number, receivedAt: number, nodesUp: boolean): Transition | null {
    this.#jobsetState = state;
    return this.update(at, receivedAt, nodesUp);
  }

  /** The JobSet's places or their nodes changed, as of `at` (seen at `receivedAt`). */
  update(at: number, receivedAt: number, nodesUp: boolean): Transition | null {
    const js = this.#jobsetState;
    if (js === null) return null;
    let state: State;
    if (js === 'suspended' || js === 'unknown' || js === 'completed' || js === 'deleted') state = js;
    else if (js === 'failed') state = this.state === 'up' ? 'completed' : 'failed';
    else state = nodesUp ? 'up' : this.#everUp ? 'down' : 'provisioning';
    if (state === 'suspended') this.#everUp = false;
    if (state === 'up') this.#everUp = true;
    const transitions = this.timeline.transitions;
    const last = transitions.at(-1);
    let added: Transition;
    if (last === undefined) added = { at: this.timeline.createdAt, state };
    else if (TERMINAL.has(last.state) || last.state === state) return null;
    else added = { at: Math.min(Math.max(at, last.at), Math.max(receivedAt, last.at)), state };
    if (isInterruption(state) && this.pendingCause !== null) {
      added.causes = [this.pendingCause];
      this.pendingCause = null;
    }
    transitions.push(added);
    return added;
  }
}

/**
 * The truth of one node pool's timeline (README "Node pools"), kept by the simulator from what it
 * did to the pool's nodes (jobset-run.ts decides the state; here are its memory and the time rule).
 * Its uid follows the service's form, `nodepool:<pool>:<created>`.
 */
export class PoolTruth {
  readonly timeline: OpenTimeline;
  /** A TPU slice's hosts (its topology's chips ÷ 4 a host); null for a GPU or CPU pool. */
  readonly hosts: number | null;
  everUp = false;
  /** Nodes the simulator deleted without warning and has not replaced with a Ready node yet. */
  lost = 0;
  /** Whether the last node to go went after a cordon (not lost). */
  lastLeftPlanned = false;
  /** A slice's counted hosts that left after a cordon and were not replaced: they lower what it needs. */
  planned = 0;
  /** Nodes it added that have not been Ready yet (a replacement, a surge upgrade's new node). */
  readonly booting = new Set<string>();

  constructor(first: SimNode, hosts: number | null) {
    const createdAt = Math.floor(first.createdAt / SECOND) * SECOND;
    const accelerator = first.labels['cloud.google.com/gke-tpu-accelerator'] ?? first.labels['cloud.google.com/gke-accelerator'] ?? null;
    const topology = first.labels['cloud.google.com/gke-tpu-topology'] ?? null;
    this.hosts = hosts;
    this.timeline = {
      uid: `nodepool:${first.pool}:${createdAt}`,
      namespace: '',
      name: first.pool,
      labels: { pool: first.pool, ...(accelerator !== null ? { accelerator } : {}), ...(topology !== null ? { topology } : {}) },
      accelerator,
      topology,
      createdAt,
      transitions: [],
      jobsets: [],
    };
  }

  /** The pool is in `state` as of `at` (seen at `receivedAt`); `cause`: the node that took it down. */
  update(state: State, at: number, receivedAt: number, cause: Cause | null): void {
    const transitions = this.timeline.transitions;
    const last = transitions.at(-1);
    if (last === undefined) transitions.push({ at: this.timeline.createdAt, state });
    else if (!TERMINAL.has(last.state) && last.state !== state) transitions.push({ at: Math.min(Math.max(at, last.at), Math.max(receivedAt, last.at)), state });
    const current = transitions.at(-1)!;
    if (cause !== null && current.state === 'down') (current.causes ??= []).push(cause);
  }

  /** A JobSet's pod was bound to one of its nodes. */
  ran(jobset: string): void {
    if (!this.timeline.jobsets!.includes(jobset)) this.timeline.jobsets = [...this.timeline.jobsets!, jobset].sort();
  }
}
