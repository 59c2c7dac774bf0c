// What a Kueue Workload (kueue.x-k8s.io) says about the JobSet that owns it: why Kueue evicted it.
// The JobSet controller's own Suspended condition says only `SuspendedJobs`; the informative reason
// (Preempted, PodsReadyTimeout, NodeFailures, InactiveWorkload, ...) sits on the Workload that Kueue
// creates for the JobSet (its ownerReference names the JobSet). Like jobset.ts, all the Kubernetes
// knowledge of Workloads is here; the engine only joins what this returns.
//
// Kueue (v0.17, pkg/workload) sets `Evicted` True with the reason and message of an eviction, adds a
// `Preempted` condition beside it when preempted (with the detail: InClusterQueue, InCohort...), sets
// `Requeued` False with the eviction's reason until the Workload is queued again, and sets `Evicted`
// and `Preempted` back to False when the Workload gets its quota again. So a True `Evicted` is the
// eviction in effect now, not a stale one.

import { JOBSET_API_GROUP, KUEUE_API_GROUP } from '../observation/resources.ts';
import type { KubeObject } from '../observation/types.ts';
import { parseKubeTime } from './jobset.ts';
import type { Suspension } from './types.ts';

/** A Workload's eviction in effect: when, and Kueue's reason and message. */
export interface Eviction {
  at: number | null;
  suspension: Suspension;
}

export interface WorkloadView {
  uid: string;
  /** The UID of the JobSet that owns it (its ownerReference); null when a JobSet does not own it. */
  jobsetUid: string | null;
  /** The eviction in effect (Evicted True, or else Requeued False with a reason); null when none. */
  eviction: Eviction | null;
}

export function isWorkload(object: KubeObject): boolean {
  return object.kind === 'Workload' && (object.apiVersion ?? '').startsWith(`${KUEUE_API_GROUP}/`);
}

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

function condition(conditions: unknown[], type: string): Record<string, unknown> | undefined {
  return conditions.map(record).find((c) => c.type === type);
}

/** The JobSet among the owners (the controller owner first, as Kueue's jobframework makes it). */
function owningJobSet(metadata: KubeObject['metadata']): string | null {
  const owners = Array.isArray(metadata.ownerReferences) ? metadata.ownerReferences.map(record) : [];
  const jobsets = owners.filter((o) => o.kind === 'JobSet' && typeof o.apiVersion === 'string' && o.apiVersion.startsWith(`${JOBSET_API_GROUP}/`) && text(o.uid) !== null);
  const owner = jobsets.find((o) => o.controller === true) ?? jobsets[0];
  return owner === undefined ? null : (owner.uid as string);
}

export function viewWorkload(object: KubeObject): WorkloadView {
  const conditions = Array.isArray(record(object.status).conditions) ? (record(object.status).conditions as unknown[]) : [];
  const evicted = condition(conditions, 'Evicted');
  const preempted = condition(conditions, 'Preempted');
  const requeued = condition(conditions, 'Requeued');
  let eviction: Eviction | null = null;
  if (evicted?.status === 'True' && (text(evicted.reason) !== null || text(evicted.message) !== null)) {
    // A preemption's Evicted message says what it was preempted for; the Preempted condition says it too.
    const message = text(evicted.message) ?? (preempted?.status === 'True' ? text(preempted.message) : null);
    eviction = { at: parseKubeTime(evicted.lastTransitionTime), suspension: { reason: text(evicted.reason), message } };
  } else if (requeued?.status === 'False' && text(requeued.reason) !== null) {
    eviction = { at: parseKubeTime(requeued.lastTransitionTime), suspension: { reason: text(requeued.reason), message: text(requeued.message) } };
  }
  return { uid: object.metadata.uid, jobsetUid: owningJobSet(object.metadata), eviction };
}
