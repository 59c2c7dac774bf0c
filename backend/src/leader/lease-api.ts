// The Kubernetes side of leader election (lease.ts holds the timing rules): one Lease
// (coordination.k8s.io/v1) read, created and replaced through @kubernetes/client-node's
// CoordinationV1Api, with the kubeconfig's credentials (file, in-cluster service account...).
// LeaseApi is the interface between the two; an in-memory implementation of it
// (test/support/leader/memory-lease.ts) lets the elector's timing rules be tested on a fake clock.
//
// Every write carries the resourceVersion it read: when two replicas race, the apiserver accepts
// one and answers 409 Conflict to the other (LeaseConflictError), which lost.

import { readFileSync } from 'node:fs';
import { ApiException, CoordinationV1Api, Observable, V1MicroTime, type KubeConfig, type ObservableMiddleware, type V1Lease } from '@kubernetes/client-node';

export interface LeaseSpec {
  holderIdentity?: string | null;
  leaseDurationSeconds?: number | null;
  /** MicroTime: RFC 3339 with microseconds. */
  acquireTime?: string | null;
  renewTime?: string | null;
  leaseTransitions?: number | null;
}

export interface Lease {
  apiVersion?: 'coordination.k8s.io/v1';
  kind?: 'Lease';
  metadata: { name: string; namespace?: string; resourceVersion?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: LeaseSpec;
}

/** Somebody else wrote the Lease between our read and our write (HTTP 409): they won. */
export class LeaseConflictError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LeaseConflictError';
  }
}

export class LeaseApiError extends Error {
  readonly statusCode: number;
  constructor(statusCode: number, message: string) {
    super(message);
    this.name = 'LeaseApiError';
    this.statusCode = statusCode;
  }
}

/** Get, create and replace one Lease. */
export interface LeaseApi {
  readonly namespace: string;
  readonly name: string;
  /** null when there is no such Lease. */
  get(signal?: AbortSignal): Promise<Lease | null>;
  /** LeaseConflictError when it exists already. */
  create(lease: Lease, signal?: AbortSignal): Promise<Lease>;
  /** LeaseConflictError when its resourceVersion is no longer the current one. */
  replace(lease: Lease, signal?: AbortSignal): Promise<Lease>;
}

/** The namespace to put the Lease in by default: the pod's own (from its service account), else `default`. */
export function defaultLeaseNamespace(file = '/var/run/secrets/kubernetes.io/serviceaccount/namespace'): string {
  try {
    const ns = readFileSync(file, 'utf8').trim();
    return ns === '' ? 'default' : ns;
  } catch {
    return 'default';
  }
}

/** A MicroTime field as the Lease's record carries it: client-node types it as a Date but hands back the apiserver's string. */
function timeText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (value instanceof Date) return value.toISOString();
  return null;
}

/** Our string form (RFC 3339, microseconds) as client-node's V1MicroTime, which it writes back with six fractional digits. */
function microTimeValue(value: string | null | undefined): V1MicroTime | undefined {
  if (value === null || value === undefined) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : new V1MicroTime(ms);
}

function fromKube(lease: V1Lease, fallbackName: string): Lease {
  const spec = lease.spec;
  const metadata = lease.metadata;
  return {
    metadata: {
      name: metadata?.name ?? fallbackName,
      ...(metadata?.namespace === undefined ? {} : { namespace: metadata.namespace }),
      ...(metadata?.resourceVersion === undefined ? {} : { resourceVersion: metadata.resourceVersion }),
      ...(metadata?.labels === undefined ? {} : { labels: metadata.labels }),
      ...(metadata?.annotations === undefined ? {} : { annotations: metadata.annotations }),
    },
    ...(spec === undefined
      ? {}
      : {
          spec: {
            holderIdentity: spec.holderIdentity ?? null,
            leaseDurationSeconds: spec.leaseDurationSeconds ?? null,
            acquireTime: timeText(spec.acquireTime),
            renewTime: timeText(spec.renewTime),
            leaseTransitions: spec.leaseTransitions ?? null,
          },
        }),
  };
}

function toKube(lease: Lease, namespace: string): V1Lease {
  const spec = lease.spec ?? {};
  const acquireTime = microTimeValue(spec.acquireTime);
  const renewTime = microTimeValue(spec.renewTime);
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {
      name: lease.metadata.name,
      namespace: lease.metadata.namespace ?? namespace,
      // The resourceVersion read: the apiserver answers 409 when the Lease changed since.
      ...(lease.metadata.resourceVersion === undefined ? {} : { resourceVersion: lease.metadata.resourceVersion }),
      // A replace writes the whole object: what others put on the Lease stays.
      ...(lease.metadata.labels === undefined ? {} : { labels: lease.metadata.labels }),
      ...(lease.metadata.annotations === undefined ? {} : { annotations: lease.metadata.annotations }),
    },
    spec: {
      // A holder cleared (released) is left out, as client-go's empty string is.
      ...(spec.holderIdentity ? { holderIdentity: spec.holderIdentity } : {}),
      ...(spec.leaseDurationSeconds === null || spec.leaseDurationSeconds === undefined ? {} : { leaseDurationSeconds: spec.leaseDurationSeconds }),
      ...(acquireTime === undefined ? {} : { acquireTime }),
      ...(renewTime === undefined ? {} : { renewTime }),
      ...(spec.leaseTransitions === null || spec.leaseTransitions === undefined ? {} : { leaseTransitions: spec.leaseTransitions }),
    },
  };
}

/** The apiserver's own message in an error's body (a Status object), else the body's first characters. */
function apiMessage(error: ApiException<unknown>): string {
  const body = error.body;
  if (typeof body === 'string') {
    try {
      const parsed: unknown = JSON.parse(body);
      if (typeof parsed === 'object' && parsed !== null && 'message' in parsed && typeof parsed.message === 'string') return parsed.message;
    } catch {
      // Not JSON (a proxy's error page): its start says enough.
    }
    return body.slice(0, 200);
  }
  return error.message.split('\n')[0] ?? '';
}

/** The Lease `namespace/name` through client-node's CoordinationV1Api; every request ends after `timeoutMs` or when its signal aborts. */
export function kubeLeaseApi(config: KubeConfig, namespace: string, name: string, timeoutMs = 10_000): LeaseApi {
  const api = config.makeApiClient(CoordinationV1Api);
  /** client-node sends a request with the signal its RequestContext carries: a middleware sets it. */
  const options = (signal: AbortSignal | undefined): { middleware: ObservableMiddleware[]; middlewareMergeStrategy: 'append' } => {
    const timeout = AbortSignal.timeout(timeoutMs);
    const combined = signal === undefined ? timeout : AbortSignal.any([signal, timeout]);
    return {
      middleware: [
        {
          pre: (context) => {
            context.setSignal(combined);
            return new Observable(Promise.resolve(context));
          },
          post: (context) => new Observable(Promise.resolve(context)),
        },
      ],
      middlewareMergeStrategy: 'append',
    };
  };
  const failure = (verb: string, error: unknown): Error => {
    if (!(error instanceof ApiException)) return error instanceof Error ? error : new Error(String(error));
    const message = apiMessage(error);
    if (error.code === 409) return new LeaseConflictError(`${verb} lease ${namespace}/${name}: ${message}`);
    const hint = error.code === 403 ? ` (the service account needs get, create and update on leases.coordination.k8s.io in namespace ${namespace})` : '';
    return new LeaseApiError(error.code, `${verb} lease ${namespace}/${name}: HTTP ${error.code}: ${message}${hint}`);
  };
  return {
    namespace,
    name,
    async get(signal) {
      try {
        return fromKube(await api.readNamespacedLease({ name, namespace }, options(signal)), name);
      } catch (error) {
        if (error instanceof ApiException && error.code === 404) return null;
        throw failure('get', error);
      }
    },
    async create(lease, signal) {
      try {
        return fromKube(await api.createNamespacedLease({ namespace, body: toKube(lease, namespace) }, options(signal)), name);
      } catch (error) {
        throw failure('create', error);
      }
    },
    async replace(lease, signal) {
      try {
        return fromKube(await api.replaceNamespacedLease({ name, namespace, body: toKube(lease, namespace) }, options(signal)), name);
      } catch (error) {
        throw failure('replace', error);
      }
    },
  };
}

/** MicroTime: RFC 3339 with six fractional digits (the apiserver rejects other forms for these fields). */
export const microTime = (ms: number): string => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
