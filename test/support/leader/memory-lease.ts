// An in-memory LeaseApi, for testing the elector's timing rules (backend/src/leader/lease.ts) on a
// fake clock (elector.test.ts): the tests drive the timers, and no request waits on a real server.
//
// It is a stand-in for what the elector relies on from the apiserver: the Lease object's optimistic
// concurrency. Each accepted write gets a new resourceVersion; a replace that carries another
// resourceVersion than the current one, and a create of a Lease that exists, fail with
// LeaseConflictError (the apiserver's HTTP 409), and the Lease is left as it was. lease.kube.test.ts
// (kube tier) runs the same conflict against the real kube-apiserver and this stand-in and expects
// the same outcome. What it does not model (admission, validation, field defaults, watch) the
// elector does not use.
//
// `reachable = false` is an apiserver that keeps its sockets but answers nothing (as a SIGSTOPped
// one): requests hang until their signal aborts.

import { LeaseApiError, LeaseConflictError, type Lease, type LeaseApi } from '../../../backend/src/leader/lease-api.ts';

export class MemoryLeases {
  /** false: every request hangs until its signal aborts. */
  reachable = true;
  readonly #leases = new Map<string, Lease>();
  #version = 0;

  /** The LeaseApi of the Lease `namespace/name`. */
  api(name: string, namespace = 'default'): LeaseApi {
    const key = `${namespace}/${name}`;
    const answer = <T>(signal: AbortSignal | undefined, work: () => T): Promise<T> => {
      if (signal?.aborted) return Promise.reject(signal.reason as Error);
      if (this.reachable) {
        try {
          return Promise.resolve(work());
        } catch (error) {
          return Promise.reject(error as Error);
        }
      }
      return new Promise<T>((_resolve, reject) => {
        signal?.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
      });
    };
    const store = (lease: Lease): Lease => {
      const stored: Lease = structuredClone({ ...lease, metadata: { ...lease.metadata, name, namespace, resourceVersion: String(++this.#version) } });
      this.#leases.set(key, stored);
      return structuredClone(stored);
    };
    return {
      namespace,
      name,
      get: (signal) => answer(signal, () => {
        const lease = this.#leases.get(key);
        return lease === undefined ? null : structuredClone(lease);
      }),
      create: (lease, signal) => answer(signal, () => {
        if (this.#leases.has(key)) throw new LeaseConflictError(`create lease ${key}: leases.coordination.k8s.io "${name}" already exists`);
        return store(lease);
      }),
      replace: (lease, signal) => answer(signal, () => {
        const current = this.#leases.get(key);
        const version = lease.metadata.resourceVersion;
        if (current === undefined) throw new LeaseApiError(404, `replace lease ${key}: HTTP 404: leases.coordination.k8s.io "${name}" not found`);
        // As the apiserver: a replace without a resourceVersion is unconditional; with one, it must be current.
        if (version !== undefined && version !== current.metadata.resourceVersion) {
          throw new LeaseConflictError(`replace lease ${key}: the object has been modified; please apply your changes to the latest version and try again`);
        }
        return store(lease);
      }),
    };
  }
}
