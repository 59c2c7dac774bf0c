// A tiny language for drawing a JobSet's life in tests: each step says what the object looks like
// from a given minute on, and the scenario turns that into the observations a watch would deliver.

import type { KubeObject, Observation, ObservationType } from '../../backend/src/observation/types.ts';

export const T0 = Date.parse('2026-01-01T00:00:00Z');
/** Minutes after T0, as epoch ms. */
export const min = (m: number): number => T0 + Math.round(m * 60_000);
export const iso = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');

export interface JobSetShape {
  uid: string;
  name?: string;
  namespace?: string;
  labels?: Record<string, string>;
  /** Replicas of each replicated job; Σ of these must be ready for the JobSet to be up. */
  replicas?: number[];
  nodeSelector?: Record<string, string>;
  /** Each pod's container limits (e.g. `{ 'nvidia.com/gpu': '8' }`): accelerators × replicas. */
  limits?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** The mutable part of the object that steps change. */
export interface JobSetStatus {
  ready: number;
  succeeded: number;
  restarts: number;
  suspend: boolean;
  suspended?: { status: 'True' | 'False'; at: number; reason?: string; message?: string };
  completedAt?: number;
  failedAt?: number;
  deletionAt?: number;
}

export function jobSetObject(shape: JobSetShape, createdAt: number, s: JobSetStatus): KubeObject {
  const replicas = shape.replicas ?? [2];
  const conditions: unknown[] = [];
  if (s.suspended) {
    const { reason, message } = s.suspended;
    conditions.push({ type: 'Suspended', status: s.suspended.status, lastTransitionTime: iso(s.suspended.at), ...(reason === undefined ? {} : { reason }), ...(message === undefined ? {} : { message }) });
  }
  if (s.completedAt !== undefined) conditions.push({ type: 'Completed', status: 'True', lastTransitionTime: iso(s.completedAt) });
  if (s.failedAt !== undefined) conditions.push({ type: 'Failed', status: 'True', lastTransitionTime: iso(s.failedAt) });
  // Spread ready/succeeded over the replicated jobs in order, as the controller would count them.
  let ready = s.ready;
  let succeeded = s.succeeded;
  const replicatedJobsStatus = replicas.map((r, i) => {
    const rs = Math.min(succeeded, r);
    succeeded -= rs;
    const rr = Math.min(ready, r - rs);
    ready -= rr;
    return { name: `rj${i}`, ready: rr, succeeded: rs, failed: 0, active: rr, suspended: 0 };
  });
  return {
    apiVersion: 'jobset.x-k8s.io/v1alpha2',
    kind: 'JobSet',
    metadata: {
      uid: shape.uid,
      name: shape.name ?? 'train',
      namespace: shape.namespace ?? 'default',
      labels: shape.labels ?? {},
      ...(shape.annotations ? { annotations: shape.annotations } : {}),
      creationTimestamp: iso(createdAt),
      ...(s.deletionAt !== undefined ? { deletionTimestamp: iso(s.deletionAt) } : {}),
    },
    spec: {
      suspend: s.suspend,
      replicatedJobs: replicas.map((r, i) => ({
        name: `rj${i}`,
        replicas: r,
        template: { spec: { template: { spec: { nodeSelector: shape.nodeSelector ?? {}, containers: shape.limits ? [{ name: 'main', resources: { limits: shape.limits } }] : [] } } } },
      })),
    },
    status: { restarts: s.restarts, replicatedJobsStatus, conditions },
  };
}

/** One counter for every scenario, as etcd's revision is one counter for the whole cluster. */
let revision = 0;

export class Scenario {
  readonly observations: Observation[] = [];
  readonly shape: JobSetShape;
  readonly createdAt: number;
  readonly total: number;
  status: JobSetStatus;

  constructor(shape: JobSetShape, createdAt: number, initial: Partial<JobSetStatus> = {}) {
    this.shape = shape;
    this.createdAt = createdAt;
    this.total = (shape.replicas ?? [2]).reduce((a, b) => a + b, 0);
    this.status = { ready: 0, succeeded: 0, restarts: 0, suspend: false, ...initial };
  }

  /** Emits an observation at `time` after applying `change`. The first one is ADDED. */
  at(time: number, change: Partial<JobSetStatus> = {}, type?: ObservationType): this {
    this.status = { ...this.status, ...change };
    const object = jobSetObject(this.shape, this.createdAt, this.status);
    object.metadata.resourceVersion = String(++revision);
    this.observations.push({ receivedAt: time, type: type ?? (this.observations.length === 0 ? 'ADDED' : 'MODIFIED'), object });
    return this;
  }

  created(change: Partial<JobSetStatus> = {}): this {
    return this.at(this.createdAt, change, 'ADDED');
  }
  up(time: number, change: Partial<JobSetStatus> = {}): this {
    return this.at(time, { ready: this.total, ...change });
  }
  down(time: number, change: Partial<JobSetStatus> = {}): this {
    return this.at(time, { ready: Math.max(0, this.total - 1), ...change });
  }
  deleted(time: number): this {
    return this.at(time, { deletionAt: time }, 'DELETED');
  }
}

/** Merges scenarios' observations into one stream in time order (stable for equal times). */
export function merge(...scenarios: Scenario[]): Observation[] {
  return scenarios.flatMap((s) => s.observations).sort((a, b) => a.receivedAt - b.receivedAt);
}

/** A Kueue Workload condition: type, status, when, and optionally why. */
export interface WorkloadCondition {
  type: 'Evicted' | 'Preempted' | 'Requeued' | 'QuotaReserved' | 'Admitted';
  status: 'True' | 'False';
  at: number;
  reason?: string;
  message?: string;
}

/** A Kueue Workload (kueue.x-k8s.io/v1beta2) owned by the JobSet `jobsetUid`, with these conditions. */
export function workloadObject(uid: string, jobsetUid: string, conditions: WorkloadCondition[], name = `jobset-${jobsetUid}`): KubeObject {
  return {
    apiVersion: 'kueue.x-k8s.io/v1beta2',
    kind: 'Workload',
    metadata: {
      uid,
      name,
      namespace: 'default',
      resourceVersion: String(++revision),
      ownerReferences: [{ apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', name: 'train', uid: jobsetUid, controller: true, blockOwnerDeletion: true }],
    },
    spec: { queueName: 'team-queue', podSets: [] },
    status: {
      conditions: conditions.map((c) => ({
        type: c.type,
        status: c.status,
        lastTransitionTime: iso(c.at),
        reason: c.reason ?? (c.status === 'True' ? c.type : 'Pending'),
        message: c.message ?? '',
      })),
    },
  };
}
