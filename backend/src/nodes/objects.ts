// What Pod and Node objects say, for the node layer: where a JobSet's pods run, whether those nodes
// are Ready, and the failures worth naming as causes of an interruption. Pure: objects in, values out.

import { JOBSET_NAME_LABEL } from '../observation/resources.ts';
import type { KubeObject } from '../observation/types.ts';
import { parseKubeTime, type JobSetView } from '../timeline/jobset.ts';
import type { Cause } from '../timeline/types.ts';

/** Labels the JobSet controller puts on its Jobs and their pods (sigs.k8s.io/jobset v1alpha2). */
export const JOBSET_UID_LABEL = 'jobset.sigs.k8s.io/jobset-uid';
const REPLICATED_JOB_LABEL = 'jobset.sigs.k8s.io/replicatedjob-name';
const JOB_INDEX_LABEL = 'jobset.sigs.k8s.io/job-index';
/** Set by the Job controller on the pods of Indexed Jobs (JobSet's default completion mode). */
const COMPLETION_INDEX_LABEL = 'batch.kubernetes.io/job-completion-index';

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export function isPod(object: KubeObject): boolean {
  return object.kind === 'Pod' && object.apiVersion === 'v1';
}

export function isNode(object: KubeObject): boolean {
  return object.kind === 'Node' && object.apiVersion === 'v1';
}

/** A cause and the key that identifies the event it describes, so that seeing it again adds nothing. */
export interface CauseFact {
  key: string;
  cause: Cause;
}

export interface PodView {
  uid: string;
  namespace: string;
  name: string;
  /** The JobSet it belongs to, by its labels; null for pods that belong to none. */
  jobsetName: string | null;
  jobsetUid: string | null;
  /**
   * The place in the JobSet this pod fills: replicated job, job index and completion index. A pod
   * that replaces another (after a failure or a restart) fills the same place.
   */
  slot: string;
  nodeName: string | null;
  /** lastTransitionTime of PodScheduled=True: when it was bound to its node. */
  scheduledAt: number | null;
}

export function viewPod(object: KubeObject): PodView {
  const labels = object.metadata.labels ?? {};
  const spec = record(object.spec);
  const rj = labels[REPLICATED_JOB_LABEL];
  const jobIndex = labels[JOB_INDEX_LABEL];
  const completion = labels[COMPLETION_INDEX_LABEL];
  // Without the JobSet's labels the pod is its own place: it maps its node while it exists.
  const slot = rj !== undefined && jobIndex !== undefined ? `${rj}/${jobIndex}/${completion ?? object.metadata.name}` : `pod/${object.metadata.uid}`;
  const scheduled = list(record(object.status).conditions).map(record).find((c) => c.type === 'PodScheduled' && c.status === 'True');
  return {
    uid: object.metadata.uid,
    namespace: object.metadata.namespace ?? '',
    name: object.metadata.name,
    jobsetName: labels[JOBSET_NAME_LABEL] ?? null,
    jobsetUid: labels[JOBSET_UID_LABEL] ?? null,
    slot,
    nodeName: text(spec.nodeName) ?? null,
    scheduledAt: parseKubeTime(scheduled?.lastTransitionTime),
  };
}

/**
 * The failures a pod object shows: containers that terminated with an error (OOMKilled, a non-zero
 * exit code), the pod's own failure (Evicted, DeadlineExceeded, ...), and a DisruptionTarget
 * condition (preemption, eviction, taint manager, kubelet shutdown). Each is keyed by what it is, so
 * the same failure seen in later versions of the object, or again after a relist, is one fact.
 */
export function podFailures(object: KubeObject, receivedAt: number): CauseFact[] {
  const uid = object.metadata.uid;
  const pod = object.metadata.name;
  const status = record(object.status);
  const node = text(record(object.spec).nodeName);
  const facts: CauseFact[] = [];
  const base = (): Pick<Cause, 'pod' | 'node'> => ({ pod, ...(node !== undefined ? { node } : {}) });

  const containers = [...list(status.initContainerStatuses), ...list(status.containerStatuses)].map(record);
  for (const c of containers) {
    const name = text(c.name) ?? '';
    const restartCount = typeof c.restartCount === 'number' ? c.restartCount : 0;
    // The current termination, and the one before the last restart (restartPolicy OnFailure): the
    // latter is the former seen again after the container restarted, so both key to its count.
    const terminations: [Record<string, unknown>, number][] = [
      [record(record(c.state).terminated), restartCount],
      [record(record(c.lastState).terminated), restartCount - 1],
    ];
    for (const [t, attempt] of terminations) {
      const exitCode = typeof t.exitCode === 'number' ? t.exitCode : null;
      const reason = text(t.reason);
      if (exitCode === null || (exitCode === 0 && reason !== 'OOMKilled')) continue;
      facts.push({
        key: `pod/${uid}/container/${name}/${attempt}`,
        cause: {
          kind: 'PodFailed',
          at: parseKubeTime(t.finishedAt) ?? receivedAt,
          ...base(),
          container: name,
          reason: reason ?? 'Error',
          exitCode,
          ...(text(t.message) !== undefined ? { message: text(t.message)! } : {}),
        },
      });
    }
  }

  if (status.phase === 'Failed' && (text(status.reason) !== undefined || facts.length === 0)) {
    facts.push({
      key: `pod/${uid}/failed`,
      cause: {
        kind: 'PodFailed',
        at: receivedAt,
        ...base(),
        reason: text(status.reason) ?? 'Failed',
        ...(text(status.message) !== undefined ? { message: text(status.message)! } : {}),
      },
    });
  }

  const disruption = list(status.conditions).map(record).find((c) => c.type === 'DisruptionTarget' && c.status === 'True');
  if (disruption !== undefined) {
    facts.push({
      key: `pod/${uid}/disruption`,
      cause: {
        kind: 'PodDisruption',
        at: parseKubeTime(disruption.lastTransitionTime) ?? receivedAt,
        ...base(),
        reason: text(disruption.reason) ?? 'DisruptionTarget',
        ...(text(disruption.message) !== undefined ? { message: text(disruption.message)! } : {}),
      },
    });
  }
  return facts;
}

export type ReadyStatus = 'True' | 'False' | 'Unknown';

export interface NodeView {
  name: string;
  uid: string;
  /** The Ready condition's status; Unknown when the node has none yet. */
  ready: ReadyStatus;
  /** lastTransitionTime of the Ready condition: since when `ready` has held. */
  readySince: number | null;
  /** The Ready condition's reason and message while it is not True (null while it is). */
  reason: string | null;
  message: string | null;
}

export function viewNode(object: KubeObject): NodeView {
  const ready = list(record(object.status).conditions).map(record).find((c) => c.type === 'Ready');
  const status = ready?.status === 'True' || ready?.status === 'False' ? ready.status : 'Unknown';
  return {
    name: object.metadata.name,
    uid: object.metadata.uid,
    ready: status,
    readySince: parseKubeTime(ready?.lastTransitionTime),
    // Only a node that is not Ready names a cause: a Ready one's reason and message are not kept.
    reason: status === 'True' ? null : (text(ready?.reason) ?? null),
    message: status === 'True' ? null : (text(ready?.message) ?? null),
  };
}

/** A node that is not Ready (False, or Unknown: the node controller stopped hearing from it). */
export function nodeNotReady(view: NodeView, receivedAt: number): CauseFact | null {
  if (view.ready === 'True') return null;
  return {
    key: `node/${view.uid}/not-ready/${view.readySince ?? 'unknown'}`,
    cause: {
      kind: 'NodeNotReady',
      at: view.readySince ?? receivedAt,
      node: view.name,
      reason: view.reason ?? (view.ready === 'Unknown' ? 'NodeStatusUnknown' : 'NotReady'),
      ...(view.message !== null ? { message: view.message } : {}),
    },
  };
}

/** The JobSet's own causes, from its view: a failure-policy restart (restarts rose) and its Failed condition. */
export function jobsetCauses(view: JobSetView, previousRestarts: number | null, receivedAt: number): CauseFact[] {
  const facts: CauseFact[] = [];
  const restarts = view.restarts;
  if (previousRestarts !== null && restarts > previousRestarts) {
    facts.push({
      key: `jobset/${view.uid}/restart/${restarts}`,
      cause: { kind: 'JobSetRestart', at: receivedAt, restarts, reason: 'FailurePolicyRestart' },
    });
  }
  const failed = view.failure;
  if (failed !== null) {
    facts.push({
      key: `jobset/${view.uid}/failed`,
      cause: {
        kind: 'JobSetFailed',
        at: failed.at ?? receivedAt,
        reason: failed.reason ?? 'Failed',
        ...(failed.message !== null ? { message: failed.message } : {}),
      },
    });
  }
  return facts;
}
