// Kueue's Workload of a simulated Kueue JobSet (option `workloads`): what Kueue's JobSet integration
// creates beside it, owned by it, and the conditions Kueue (v0.17) writes when it evicts it (Evicted
// and Preempted True, Requeued False, with the preemption's reason and message) and when it gives it
// quota again (QuotaReserved True, Evicted and Preempted False, Requeued True).

import type { KubeObject } from '../../observation/types.ts';
import type { Suspension } from '../../timeline/types.ts';
import { kubeTime } from './kube-time.ts';
import type { Manifest } from './manifest.ts';
import type { Rng } from './rng.ts';

interface WorkloadCondition {
  type: string;
  status: 'True' | 'False';
  lastTransitionTime: string;
  reason: string;
  message: string;
}

/** Kueue's preemption reasons (the Preempted condition) and how its message words each. */
const PREEMPTIONS = [
  { reason: 'InClusterQueue', words: 'prioritization in the ClusterQueue', weight: 0.6 },
  { reason: 'InCohortReclamation', words: 'reclamation within the cohort', weight: 0.25 },
  { reason: 'InCohortFairSharing', words: 'Fair Sharing within the cohort', weight: 0.15 },
] as const;

export class SimWorkload {
  readonly uid: string;
  readonly name: string;
  private readonly manifest: Manifest;
  private readonly jobsetUid: string;
  private readonly creationTimestamp: string;
  private conditions: WorkloadCondition[] = [];

  constructor(rng: Rng, manifest: Manifest, jobsetUid: string, createdAt: number) {
    this.manifest = manifest;
    this.jobsetUid = jobsetUid;
    this.uid = rng.uuid();
    this.name = `jobset-${manifest.name}-${this.uid.slice(0, 5)}`;
    this.creationTimestamp = kubeTime(createdAt);
  }

  /** Pending in its queue (QuotaReserved False), as Kueue creates it. */
  pending(at: number): void {
    this.set({ type: 'QuotaReserved', status: 'False', lastTransitionTime: kubeTime(at), reason: 'Pending', message: 'couldn\'t assign flavors to pod set workers: insufficient quota' });
  }

  /** Admitted: quota reserved, any eviction in effect cleared. */
  admitted(at: number): void {
    const t = kubeTime(at);
    this.set({ type: 'QuotaReserved', status: 'True', lastTransitionTime: t, reason: 'QuotaReserved', message: `Quota reserved in ClusterQueue ${this.clusterQueue()}` });
    this.set({ type: 'Admitted', status: 'True', lastTransitionTime: t, reason: 'Admitted', message: 'The workload is admitted' });
    for (const type of ['Evicted', 'Preempted']) {
      if (this.conditions.some((c) => c.type === type && c.status === 'True')) this.set({ type, status: 'False', lastTransitionTime: t, reason: 'QuotaReserved', message: 'Previously: evicted' });
    }
    if (this.conditions.some((c) => c.type === 'Requeued')) this.set({ type: 'Requeued', status: 'True', lastTransitionTime: t, reason: 'BackoffFinished', message: 'The workload backoff was finished' });
  }

  /** Preempted at `at` (a whole second) to make room for another workload: returns the reason it gives. */
  preempted(rng: Rng, at: number): Suspension {
    const how = rng.weighted(PREEMPTIONS, PREEMPTIONS.map((p) => p.weight));
    const message = `Preempted to accommodate a workload (UID: ${rng.uuid()}, JobUID: ${rng.uuid()}) due to ${how.words}`;
    const t = kubeTime(at);
    this.set({ type: 'Evicted', status: 'True', lastTransitionTime: t, reason: 'Preempted', message });
    this.set({ type: 'Preempted', status: 'True', lastTransitionTime: t, reason: how.reason, message });
    this.set({ type: 'QuotaReserved', status: 'False', lastTransitionTime: t, reason: 'Pending', message: 'Preempted' });
    this.set({ type: 'Admitted', status: 'False', lastTransitionTime: t, reason: 'NoReservation', message: 'The workload has no reservation' });
    this.set({ type: 'Requeued', status: 'False', lastTransitionTime: t, reason: 'Preempted', message });
    return { reason: 'Preempted', message };
  }

  object(): KubeObject {
    const m = this.manifest;
    return {
      apiVersion: 'kueue.x-k8s.io/v1beta2',
      kind: 'Workload',
      metadata: {
        name: this.name,
        namespace: m.namespace,
        uid: this.uid,
        resourceVersion: '',
        creationTimestamp: this.creationTimestamp,
        labels: { 'kueue.x-k8s.io/job-uid': this.jobsetUid },
        ownerReferences: [{ apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', name: m.name, uid: this.jobsetUid, controller: true, blockOwnerDeletion: true }],
      },
      spec: { queueName: m.labels['kueue.x-k8s.io/queue-name'] ?? '', podSets: m.replicatedJobNames.map((name, i) => ({ name, count: m.replicas[i]! })) },
      status: { conditions: this.conditions.map((c) => ({ ...c })) },
    };
  }

  private clusterQueue(): string {
    return `cq-${this.manifest.labels['kueue.x-k8s.io/queue-name'] ?? 'default'}`;
  }

  private set(c: WorkloadCondition): void {
    const i = this.conditions.findIndex((x) => x.type === c.type);
    if (i < 0) this.conditions.push(c);
    else this.conditions[i] = c;
  }
}
