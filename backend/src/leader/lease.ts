// Leader election on a Kubernetes Lease (coordination.k8s.io/v1), the way client-go's leaderelection
// package does it: only one replica of a cluster's Upness watches and writes; the others follow.
//
// - A replica that does not lead tries every retryPeriod (with jitter) to acquire: it takes the Lease
//   when nobody holds it, when the holder released it, or when its record has not changed for
//   leaseDurationSeconds by this replica's own clock (so clocks need not agree).
// - The leader renews every retryPeriod. When renewing has not succeeded for renewDeadline it stops
//   leading, before anyone else may take the Lease (renewDeadline < leaseDuration).
// - Every write carries the resourceVersion it read: when two replicas race, the apiserver accepts
//   one and answers 409 Conflict to the other, which lost.
// - Stopping releases the Lease (holder cleared), so another replica takes over at its next try
//   instead of waiting out the lease duration.
//
// Safety does not rest on timing alone: the new leader also fences the PostgreSQL store
// (backend/src/store/postgres.ts), so a paused old leader cannot write after it.
//
// The Lease is reached through a LeaseApi (lease-api.ts: the Kubernetes calls); this file holds
// only the timing rules, and takes its time from timers and the clocks in its options.

import { z } from 'zod';
import { LeaseConflictError, microTime, type Lease, type LeaseApi, type LeaseSpec } from './lease-api.ts';

/** The election's timings with their defaults (client-go's), checked once at construction. */
const electionTimings = z.object({
  leaseDurationMs: z.number().positive().default(15_000),
  renewDeadlineMs: z.number().positive().default(10_000),
  retryPeriodMs: z.number().positive().default(2_000),
});

export interface LeaderElectorOptions {
  lease: LeaseApi;
  /** This replica's name in the Lease's holderIdentity: unique among the replicas (the pod name). */
  identity: string;
  /** How long a holder's record is trusted without a renewal (default 15 s, as client-go). */
  leaseDurationMs?: number;
  /** How long the leader keeps trying to renew before it stops leading (default 10 s). */
  renewDeadlineMs?: number;
  /** How often to try to acquire (with jitter) and to renew (default 2 s). */
  retryPeriodMs?: number;
  onStartedLeading: () => void;
  /** Called when leading stops: the lease was lost, not renewed in time, or stop() was called. */
  onStoppedLeading: () => void;
  /** Called when the holder seen in the Lease changes (null: nobody holds it). */
  onNewLeader?: (identity: string | null) => void;
  /** A failed attempt (apiserver unreachable, forbidden...); conflicts and a Lease held by another are not errors. */
  onError?: (error: Error) => void;
  /** The wall clock, for the Lease's acquireTime and renewTime. */
  clock?: () => number;
  /** A monotonic clock (ms) to time the lease by; default performance.now. */
  monotonic?: () => number;
  random?: () => number;
}

export interface ElectionStatus {
  identity: string;
  leading: boolean;
  /** The holder seen in the Lease at the last attempt (null: nobody). */
  leader: string | null;
  /** Wall-clock time of the last successful acquire or renew by this replica. */
  renewedAt: number | null;
  leaseTransitions: number;
}

/** Settles with `promise`, or rejects when `signal` aborts: a request that ignores its signal cannot stall the loop. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error as Error);
      },
    );
  });
}

/** client-go's JitterFactor for the acquire loop. */
const JITTER = 1.2;

export class LeaderElector {
  readonly identity: string;
  readonly #lease: LeaseApi;
  readonly #options: LeaderElectorOptions;
  readonly #leaseDurationMs: number;
  readonly #renewDeadlineMs: number;
  readonly #retryPeriodMs: number;
  readonly #clock: () => number;
  readonly #monotonic: () => number;
  #running = false;
  #leading = false;
  #loop: Promise<void> | null = null;
  #abort = new AbortController();
  #wake: (() => void) | null = null;
  /** The last record seen, and when (monotonic) it was first seen as it is. */
  #observed: { key: string; spec: LeaseSpec; resourceVersion: string | undefined } | null = null;
  #observedAt = 0;
  #lastRenew = 0;
  #renewedAt: number | null = null;
  #leader: string | null = null;
  /** When the record of the other holder runs out (monotonic), if it does not change before. */
  #expiresAt: number | null = null;

  constructor(options: LeaderElectorOptions) {
    this.identity = options.identity;
    if (options.identity === '') throw new Error('the replica identity must not be empty');
    this.#lease = options.lease;
    this.#options = options;
    ({ leaseDurationMs: this.#leaseDurationMs, renewDeadlineMs: this.#renewDeadlineMs, retryPeriodMs: this.#retryPeriodMs } = electionTimings.parse(options));
    if (!(this.#leaseDurationMs > this.#renewDeadlineMs)) throw new Error('the lease duration must be longer than the renew deadline');
    if (!(this.#renewDeadlineMs > this.#retryPeriodMs * JITTER)) throw new Error(`the renew deadline must be longer than ${JITTER} × the retry period`);
    if (this.#leaseDurationMs < 1000) throw new Error('the lease duration must be at least one second');
    this.#clock = options.clock ?? Date.now;
    this.#monotonic = options.monotonic ?? (() => performance.now());
  }

  get leading(): boolean {
    return this.#leading;
  }

  status(): ElectionStatus {
    return {
      identity: this.identity,
      leading: this.#leading,
      leader: this.#leader,
      renewedAt: this.#renewedAt,
      leaseTransitions: this.#observed?.spec.leaseTransitions ?? 0,
    };
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#abort = new AbortController();
    this.#loop = this.#run();
  }

  /**
   * Stops campaigning. A leader stops leading (onStoppedLeading) and, unless `release` is false,
   * clears the holder so that another replica takes over at once. `release: false` is what a crash
   * looks like to the others: the Lease runs out after its duration.
   */
  async stop(options: { release?: boolean } = {}): Promise<void> {
    if (!this.#running) return;
    this.#running = false;
    this.#abort.abort();
    this.#wake?.();
    await this.#loop;
    if (this.#leading) {
      if (options.release ?? true) await this.#release().catch((error: Error) => this.#options.onError?.(error));
      this.#setLeading(false);
    }
  }

  async #run(): Promise<void> {
    while (this.#running) {
      if (!this.#leading) {
        const acquired = await this.#attempt(this.#renewDeadlineMs);
        if (!this.#running) break;
        if (acquired) {
          this.#setLeading(true);
          continue;
        }
        // Again after the retry period, or right when the holder's record runs out if that is sooner.
        const retry = this.#retryPeriodMs * (1 + this.#random() * JITTER);
        const expiry = this.#expiresAt === null ? retry : this.#expiresAt - this.#monotonic() + 10;
        await this.#sleep(Math.min(retry, Math.max(expiry, 0)));
      } else {
        await this.#sleep(this.#retryPeriodMs);
        if (!this.#running) break;
        // Renew, retrying every retryPeriod until renewDeadline has passed since the last success.
        const left = this.#lastRenew + this.#renewDeadlineMs - this.#monotonic();
        const renewed = left > 0 && (await this.#attempt(left));
        if (!this.#running) break;
        if (!renewed && (this.#leader !== this.identity || this.#monotonic() - this.#lastRenew >= this.#renewDeadlineMs)) {
          this.#setLeading(false);
        }
      }
    }
  }

  #random(): number {
    return (this.#options.random ?? Math.random)();
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, Math.max(0, ms));
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.#wake = done;
    });
  }

  #setLeading(leading: boolean): void {
    if (this.#leading === leading) return;
    this.#leading = leading;
    try {
      if (leading) this.#options.onStartedLeading();
      else this.#options.onStoppedLeading();
    } catch (error) {
      this.#options.onError?.(error as Error);
    }
  }

  #see(holder: string | null): void {
    if (holder === this.#leader) return;
    this.#leader = holder;
    try {
      this.#options.onNewLeader?.(holder);
    } catch (error) {
      this.#options.onError?.(error as Error);
    }
  }

  #remember(lease: Lease, at: number): void {
    const spec = lease.spec ?? {};
    const key = JSON.stringify([spec.holderIdentity ?? '', spec.leaseDurationSeconds ?? null, spec.acquireTime ?? null, spec.renewTime ?? null, spec.leaseTransitions ?? 0]);
    if (this.#observed?.key !== key) this.#observedAt = at;
    this.#observed = { key, spec, resourceVersion: lease.metadata.resourceVersion };
    this.#see(spec.holderIdentity ? spec.holderIdentity : null);
  }

  /** One try to acquire or renew, as client-go's tryAcquireOrRenew; true when this replica holds the Lease after it. */
  async #attempt(timeoutMs: number): Promise<boolean> {
    // The deadline is one of this elector's own timers (not AbortSignal.timeout), so every wait of
    // the timing rules runs on the same timers, which tests can drive on a fake clock.
    const ms = Math.max(1, Math.ceil(timeoutMs));
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new Error(`the Lease request timed out after ${ms} ms`)), ms);
    const signal = AbortSignal.any([this.#abort.signal, deadline.signal]);
    const startedAt = this.#monotonic();
    const wallNow = this.#clock();
    const durationSeconds = Math.ceil(this.#leaseDurationMs / 1000);
    this.#expiresAt = null;
    try {
      const current = await abortable(this.#lease.get(signal), signal);
      if (current === null) {
        const created = await abortable(this.#lease.create(
          {
            metadata: { name: this.#lease.name, namespace: this.#lease.namespace },
            spec: { holderIdentity: this.identity, leaseDurationSeconds: durationSeconds, acquireTime: microTime(wallNow), renewTime: microTime(wallNow), leaseTransitions: 0 },
          },
          signal,
        ), signal);
        return this.#won(created, startedAt);
      }
      this.#remember(current, this.#monotonic());
      const spec = current.spec ?? {};
      const holder = spec.holderIdentity ? spec.holderIdentity : null;
      const held = holder !== null && holder !== this.identity;
      const expiresAt = this.#observedAt + (spec.leaseDurationSeconds ?? durationSeconds) * 1000;
      if (held && expiresAt > this.#monotonic()) {
        this.#expiresAt = expiresAt;
        return false;
      }
      this.#expiresAt = null;
      const mine = holder === this.identity;
      const replaced = await abortable(this.#lease.replace(
        {
          metadata: { ...current.metadata, resourceVersion: current.metadata.resourceVersion },
          spec: {
            ...spec,
            holderIdentity: this.identity,
            leaseDurationSeconds: durationSeconds,
            acquireTime: mine && spec.acquireTime ? spec.acquireTime : microTime(wallNow),
            renewTime: microTime(wallNow),
            leaseTransitions: mine ? (spec.leaseTransitions ?? 0) : (spec.leaseTransitions ?? 0) + 1,
          },
        },
        signal,
      ), signal);
      return this.#won(replaced, startedAt);
    } catch (error) {
      if (error instanceof LeaseConflictError) return false;
      if (!this.#abort.signal.aborted) this.#options.onError?.(error as Error);
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  #won(lease: Lease, startedAt: number): boolean {
    // Timed from before the request: the others saw the new record no earlier than that.
    this.#lastRenew = startedAt;
    this.#renewedAt = this.#clock();
    this.#remember(lease, startedAt);
    return true;
  }

  async #release(): Promise<void> {
    const current = await this.#lease.get();
    if (current === null || current.spec?.holderIdentity !== this.identity) return;
    const now = microTime(this.#clock());
    const released = await this.#lease.replace({
      metadata: current.metadata,
      spec: { ...current.spec, holderIdentity: null, leaseDurationSeconds: 1, acquireTime: now, renewTime: now },
    });
    this.#remember(released, this.#monotonic());
  }
}
