// What a Node object says about its pool: which pool, whether the node is Ready, whether it is on its
// way out as planned (cordoned, or tainted for removal), and what the pool's hardware is. Pure.

import type { KubeObject } from '../../observation/types.ts';
import { parseKubeTime } from '../../timeline/jobset.ts';
import { viewNode, type ReadyStatus } from '../objects.ts';

/** The labels that name a node's pool, in the order they are read (GKE, Karpenter, EKS, AKS). */
export const POOL_LABELS = ['cloud.google.com/gke-nodepool', 'karpenter.sh/nodepool', 'eks.amazonaws.com/nodegroup', 'kubernetes.azure.com/agentpool'] as const;

/** A node annotation that states its pool's expected size, where the cloud tells it. */
export const EXPECTED_NODES_ANNOTATION = 'upness.dev/expected-nodes';

const TPU_TOPOLOGY = 'cloud.google.com/gke-tpu-topology';
const ACCELERATOR_LABELS = ['cloud.google.com/gke-tpu-accelerator', 'cloud.google.com/gke-accelerator', 'karpenter.k8s.aws/instance-gpu-name', 'nvidia.com/gpu.product'];

/**
 * Taints that say a node is about to be removed: the cluster autoscaler's scale-down, Karpenter's
 * disruption (v1, and v0.3x's key), and the node controller's mirror of spec.unschedulable (a cordon,
 * as a drain or an upgrade makes).
 */
export const REMOVAL_TAINTS: ReadonlySet<string> = new Set([
  'ToBeDeletedByClusterAutoscaler',
  'karpenter.sh/disrupted',
  'karpenter.sh/disruption',
  'node.kubernetes.io/unschedulable',
]);

export interface PoolNodeView {
  name: string;
  uid: string;
  /** The pool it belongs to; null for a node without any pool label. */
  pool: string | null;
  createdAt: number | null;
  ready: ReadyStatus;
  readySince: number | null;
  /** Cordoned, tainted for removal, or being deleted: when it goes, it goes as planned. */
  leaving: boolean;
  accelerator: string | null;
  topology: string | null;
  /** TPU chips per host (capacity google.com/tpu); null when it has none. */
  tpuChips: number | null;
  /** The expected size its annotation states; null without one. */
  expectedNodes: number | null;
}

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function positiveInt(value: unknown): number | null {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

/** The pool of a node from its labels: the known keys in order, then `poolLabel` (an option) if given. */
export function poolOf(labels: Readonly<Record<string, string>>, poolLabel: string | null = null): string | null {
  for (const key of poolLabel === null ? POOL_LABELS : [...POOL_LABELS, poolLabel]) {
    const value = labels[key];
    if (value !== undefined && value !== '') return value;
  }
  return null;
}

export function viewPoolNode(object: KubeObject, poolLabel: string | null = null): PoolNodeView {
  const labels = object.metadata.labels ?? {};
  const spec = record(object.spec);
  const taints = Array.isArray(spec.taints) ? spec.taints.map(record) : [];
  const ready = viewNode(object);
  const capacity = record(record(object.status).capacity);
  return {
    name: object.metadata.name,
    uid: object.metadata.uid,
    pool: poolOf(labels, poolLabel),
    createdAt: parseKubeTime(object.metadata.creationTimestamp),
    ready: ready.ready,
    readySince: ready.readySince,
    leaving:
      spec.unschedulable === true ||
      taints.some((t) => typeof t.key === 'string' && REMOVAL_TAINTS.has(t.key)) ||
      typeof object.metadata.deletionTimestamp === 'string',
    accelerator: ACCELERATOR_LABELS.map((k) => labels[k]).find((v) => v !== undefined && v !== '') ?? null,
    topology: labels[TPU_TOPOLOGY] || null,
    tpuChips: positiveInt(capacity['google.com/tpu']),
    expectedNodes: positiveInt(record(object.metadata.annotations)[EXPECTED_NODES_ANNOTATION]),
  };
}

/** Chips in a TPU topology label ("2x2x4" → 16); null when it is not one. */
export function topologyChips(topology: string | null): number | null {
  if (topology === null || !/^\d+(x\d+)*$/.test(topology)) return null;
  const chips = topology.split('x').reduce((p, d) => p * Number(d), 1);
  return chips > 0 ? chips : null;
}

/**
 * The hosts a multi-host TPU slice has: chips in its topology ÷ chips per host. Null for anything
 * else (no topology, no TPU capacity, or a single-host slice: a pool of those changes size as others do).
 */
export function sliceHosts(topology: string | null, chipsPerHost: number | null): number | null {
  const chips = topologyChips(topology);
  if (chips === null || chipsPerHost === null || chips % chipsPerHost !== 0) return null;
  const hosts = chips / chipsPerHost;
  return hosts > 1 ? hosts : null;
}
