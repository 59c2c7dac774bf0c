// Everything Upness knows about what a JobSet object means lives in this file.
// The watcher, the trace reader and the simulator only deliver objects; this decides what they say.

import { JOBSET_API_GROUP } from '../observation/resources.ts';
import type { KubeObject } from '../observation/types.ts';
import type { Suspension, Timeline } from './types.ts';

/** nodeSelector keys that name the accelerator and topology of a replicated job's pods. */
const ACCELERATOR_KEYS = [
  'cloud.google.com/gke-tpu-accelerator',
  'cloud.google.com/gke-accelerator',
  'nvidia.com/gpu.product',
];
const TOPOLOGY_KEYS = ['cloud.google.com/gke-tpu-topology'];

/** What one JobSet object says, reduced to what the state machine needs. */
export interface JobSetView {
  uid: string;
  namespace: string;
  name: string;
  labels: Record<string, string>;
  /** Unchanged across two observations: the object, its status included, did not change between them. */
  resourceVersion: string | null;
  createdAt: number | null;
  /** metadata.deletionTimestamp: deletion has begun, the JobSet's work is being torn down. */
  deletingAt: number | null;
  suspended: boolean;
  /** lastTransitionTime of the Suspended condition when True: when the suspension began. */
  suspendedSince: number | null;
  /** The Suspended condition's reason and message when True and either is set: why it is suspended. */
  suspension: Suspension | null;
  /** lastTransitionTime of the Suspended condition when False: when the JobSet was last resumed. */
  resumedAt: number | null;
  terminal: { outcome: 'completed' | 'failed'; at: number | null } | null;
  /** Σ spec.replicatedJobs[].replicas: how many Jobs must be ready (or done) for the JobSet to be up. */
  replicas: number;
  /** Σ status.replicatedJobsStatus[].(ready + succeeded): the JobSet controller's own readiness count. */
  readyOrSucceeded: number;
  restarts: number;
  accelerator: string | null;
  topology: string | null;

  // ---- What the node layer (backend/src/nodes) needs: it reads these, never the object. ----
  /** Σ over replicated jobs of replicas × parallelism: the nodes the JobSet needs (one pod per node). */
  expectedNodes: number;
  /** The Failed condition when True: when, and the controller's reason and message. */
  failure: { at: number | null; reason: string | null; message: string | null } | null;

  // Goodput inputs (issue 13 §3).
  /** Σ over replicated jobs of (accelerators per pod × replicas × parallelism): the slice it holds or waits for. */
  accelerators: number;
  /** The `upness.dev/checkpoint-interval` annotation (`30m`, `1h`, `90s`), ms; null without it or unreadable. */
  checkpointIntervalMs: number | null;
}

/** Resource names whose limits count as accelerators, one each. */
const ACCELERATOR_RESOURCES = ['nvidia.com/gpu', 'google.com/tpu'];
export const CHECKPOINT_INTERVAL_ANNOTATION = 'upness.dev/checkpoint-interval';

/** A whole-number resource quantity (`8`, 8); 0 for anything else (accelerators come whole). */
function wholeQuantity(value: unknown): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : 0;
  return Number.isSafeInteger(n) && n > 0 ? n : 0;
}

/** The pods a replicated job runs at once: replicas × its Job's parallelism (both default to 1). */
function podsOf(replicatedJob: unknown): number {
  const rj = record(replicatedJob);
  const replicas = rj.replicas === undefined ? 1 : count(rj.replicas);
  const p = record(record(rj.template).spec).parallelism;
  return replicas * (p === undefined ? 1 : count(p));
}

/** Accelerators of the whole JobSet: per pod (its containers' limits) × parallelism × replicas, summed over replicated jobs. */
function acceleratorsOf(replicatedJobs: unknown[]): number {
  let total = 0;
  for (const rj of replicatedJobs) {
    const jobSpec = record(record(record(rj).template).spec);
    let perPod = 0;
    for (const container of list(record(record(jobSpec.template).spec).containers)) {
      const limits = record(record(record(container).resources).limits);
      for (const name of ACCELERATOR_RESOURCES) perPod += wholeQuantity(limits[name]);
    }
    total += perPod * podsOf(rj);
  }
  return total;
}

const INTERVAL_UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `30m`, `1h30m`, `90s` → ms; null when unreadable or zero. */
export function parseInterval(value: unknown): number | null {
  if (typeof value !== 'string' || !/^(\d+(ms|s|m|h|d))+$/.test(value.trim())) return null;
  let ms = 0;
  for (const [, n, unit] of value.trim().matchAll(/(\d+)(ms|s|m|h|d)/g)) ms += Number(n) * INTERVAL_UNIT_MS[unit!]!;
  return ms > 0 && Number.isSafeInteger(ms) ? ms : null;
}

export function isJobSet(object: KubeObject): boolean {
  return object.kind === 'JobSet' && (object.apiVersion ?? '').startsWith(`${JOBSET_API_GROUP}/`);
}

/** Parses a Kubernetes RFC 3339 timestamp into epoch ms; null when absent or unreadable. */
export function parseKubeTime(value: unknown): number | null {
  if (typeof value !== 'string' || value === '') return null;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : null;
}

interface Condition {
  type?: unknown;
  status?: unknown;
  lastTransitionTime?: unknown;
  reason?: unknown;
  message?: unknown;
}

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

function findCondition(conditions: unknown[], type: string): Condition | undefined {
  return conditions.find((c): c is Condition => record(c).type === type);
}

function isTrue(condition: Condition | undefined): boolean {
  return condition?.status === 'True';
}

/** The first nodeSelector value, across replicated jobs, for any of `keys`. */
function selectorValue(replicatedJobs: unknown[], keys: string[]): string | null {
  for (const rj of replicatedJobs) {
    const podSpec = record(record(record(record(record(rj).template).spec).template).spec);
    const selector = record(podSpec.nodeSelector);
    for (const key of keys) {
      const value = selector[key];
      if (typeof value === 'string' && value !== '') return value;
    }
  }
  return null;
}

/** The fields of a view that the JobSet's spec alone decides. */
type SpecFields = Pick<JobSetView, 'replicas' | 'accelerator' | 'topology' | 'accelerators' | 'expectedNodes'>;

/**
 * The spec fields of views, by spec object: for specs that are shared between observations and never
 * changed (a trace replay's kept specs, sources/trace/reuse.ts), worked out once per spec instead of
 * once per observation.
 */
export type SpecFieldsCache = WeakMap<object, SpecFields>;

function specFields(spec: Record<string, unknown>): SpecFields {
  const replicatedJobs = list(spec.replicatedJobs);
  let replicas = 0;
  let expectedNodes = 0;
  for (const rj of replicatedJobs) {
    // replicas defaults to 1 in the JobSet API.
    const r = record(rj).replicas;
    replicas += r === undefined ? 1 : count(r);
    expectedNodes += podsOf(rj);
  }
  return {
    replicas,
    accelerator: selectorValue(replicatedJobs, ACCELERATOR_KEYS),
    topology: selectorValue(replicatedJobs, TOPOLOGY_KEYS),
    accelerators: acceleratorsOf(replicatedJobs),
    expectedNodes,
  };
}

/** `specs`: where the spec fields of shared spec objects are kept (none: worked out for this object). */
export function viewJobSet(object: KubeObject, specs: SpecFieldsCache | null = null): JobSetView {
  const metadata = object.metadata;
  const spec = record(object.spec);
  const status = record(object.status);
  const conditions = list(status.conditions);
  let fields = specs === null || spec !== object.spec ? undefined : specs.get(spec);
  if (fields === undefined) {
    fields = specFields(spec);
    if (specs !== null && spec === object.spec) specs.set(spec, fields);
  }

  const completed = findCondition(conditions, 'Completed');
  const failed = findCondition(conditions, 'Failed');
  const suspendedCondition = findCondition(conditions, 'Suspended');
  let terminal: JobSetView['terminal'] = null;
  // A JobSet that failed may also carry Completed=False; only a True condition is terminal.
  if (isTrue(failed)) terminal = { outcome: 'failed', at: parseKubeTime(failed?.lastTransitionTime) };
  else if (isTrue(completed)) terminal = { outcome: 'completed', at: parseKubeTime(completed?.lastTransitionTime) };
  else if (status.terminalState === 'Failed' || status.terminalState === 'Completed') {
    terminal = { outcome: status.terminalState === 'Failed' ? 'failed' : 'completed', at: null };
  }

  let readyOrSucceeded = 0;
  for (const rjs of list(status.replicatedJobsStatus)) {
    const s = record(rjs);
    readyOrSucceeded += count(s.ready) + count(s.succeeded);
  }

  return {
    uid: metadata.uid,
    namespace: metadata.namespace ?? '',
    name: metadata.name,
    labels: metadata.labels ?? {},
    resourceVersion: typeof metadata.resourceVersion === 'string' ? metadata.resourceVersion : null,
    createdAt: parseKubeTime(metadata.creationTimestamp),
    deletingAt: parseKubeTime(metadata.deletionTimestamp),
    suspended: spec.suspend === true || isTrue(suspendedCondition),
    suspendedSince: isTrue(suspendedCondition) ? parseKubeTime(suspendedCondition?.lastTransitionTime) : null,
    suspension: isTrue(suspendedCondition) ? suspensionOf(suspendedCondition!) : null,
    resumedAt:
      suspendedCondition?.status === 'False' ? parseKubeTime(suspendedCondition.lastTransitionTime) : null,
    terminal,
    replicas: fields.replicas,
    readyOrSucceeded,
    restarts: count(status.restarts),
    accelerator: fields.accelerator,
    topology: fields.topology,
    accelerators: fields.accelerators,
    checkpointIntervalMs: parseInterval(record(metadata.annotations)[CHECKPOINT_INTERVAL_ANNOTATION]),
    // What only the node layer reads.
    expectedNodes: fields.expectedNodes,
    failure: isTrue(failed) ? { at: parseKubeTime(failed?.lastTransitionTime), reason: text(failed?.reason), message: text(failed?.message) } : null,
  };
}

/** The reason and message of a True Suspended condition; null when it says neither. */
function suspensionOf(condition: Condition): Suspension | null {
  const reason = text(condition.reason);
  const message = text(condition.message);
  return reason === null && message === null ? null : { reason, message };
}


/**
 * What is known of a JobSet that the watch's relist no longer lists: it was deleted while nobody
 * was watching. Its names are the timeline's; the object itself is gone, so it says nothing more.
 */
export function vanishedView(timeline: Pick<Timeline, 'uid' | 'namespace' | 'name' | 'labels' | 'accelerator' | 'topology' | 'accelerators' | 'checkpointIntervalMs'>): JobSetView {
  return {
    uid: timeline.uid,
    namespace: timeline.namespace,
    name: timeline.name,
    labels: timeline.labels,
    resourceVersion: null,
    createdAt: null,
    deletingAt: null,
    suspended: false,
    suspendedSince: null,
    suspension: null,
    resumedAt: null,
    terminal: null,
    replicas: 0,
    readyOrSucceeded: 0,
    restarts: 0,
    accelerator: timeline.accelerator,
    topology: timeline.topology,
    expectedNodes: 0,
    failure: null,
    accelerators: timeline.accelerators ?? 0,
    checkpointIntervalMs: timeline.checkpointIntervalMs ?? null,
  };
}

/** The JobSet controller's readiness rule: every Job ready or already succeeded. */
export function isUp(view: JobSetView): boolean {
  return !view.suspended && view.terminal === null && view.replicas > 0 && view.readyOrSucceeded >= view.replicas;
}

// --- SLO objective (issue 13 section 2) ---

/** The label that sets a JobSet's SLO objective, overriding an `slo` query's own when grouped by name. */
export const OBJECTIVE_LABEL = 'upness.dev/objective';

/** The objective a JobSet's labels set (`upness.dev/objective: "0.97"`): a ratio strictly between 0 and 1, else null. */
export function objectiveOf(labels: Readonly<Record<string, string>>): number | null {
  const text = labels[OBJECTIVE_LABEL];
  if (text === undefined || !/^(0?\.\d+)$/.test(text)) return null;
  const value = Number(text);
  return value > 0 && value < 1 ? value : null;
}
