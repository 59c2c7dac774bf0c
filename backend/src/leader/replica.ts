// One replica of a highly available Upness on PostgreSQL: it follows (serves the timelines from the
// database) until it wins the Lease, then leads: opens the store (which fences off any previous writer),
// hands it to `lead` (which restores an engine and starts watching), and serves that engine once it is
// ready. When it loses the Lease, or another writer fences it off, it stops leading, serves the
// follower again and campaigns again. Without a Lease it leads at once (a single writer).
//
//   const replica = new Replica({ url, cluster, identity, lease, lead: async (store, recovery) => ({ view, stop }) });
//   createApp({ view: replica.view, beforeRead: () => replica.flushed(), store: () => replica.storeStatus(), ... });
//   replica.start();  ...  await replica.stop();

import { z } from 'zod';
import type { Logger } from 'pino';
import { FollowerView, ReplicaView, type FollowerOptions } from '../runtime/follower.ts';
import type { ServedView } from '../runtime/served-view.ts';
import { PostgresStore, type PostgresRecovery, type PostgresStoreOptions } from '../store/postgres.ts';
import type { StoreStatus } from '../store/store.ts';
import { LeaderElector } from './lease.ts';
import type { LeaseApi } from './lease-api.ts';

/** What a leading replica runs: returned by `lead`, stopped when leading ends. */
export interface LeadingSession {
  /** What to serve while leading: the engine fed by the watch. Served once it is ready. */
  view: ServedView;
  /** Stops watching (and whatever else `lead` started); the replica closes the store afterwards. */
  stop(): Promise<void>;
}

export type Role = 'follower' | 'starting' | 'leader';

export interface ReplicaOptions {
  /** The PostgreSQL URL. */
  url: string;
  /** The cluster this replica watches and writes when it leads. */
  cluster: string;
  /** Unique among the replicas: the pod name. In the Lease and in the store's writer column. */
  identity: string;
  /** The Lease to campaign on; null: lead at once, without election. */
  lease: LeaseApi | null;
  timings?: { leaseDurationMs?: number; renewDeadlineMs?: number; retryPeriodMs?: number };
  /** The clusters to serve while following (default: only `cluster`; 'all': every cluster in the database). */
  follow?: readonly string[] | 'all';
  store?: Partial<Omit<PostgresStoreOptions, 'cluster' | 'replica' | 'onFenced'>>;
  follower?: Omit<FollowerOptions, 'clusters'>;
  /** Starts leading: restore an engine from `recovery`, record into `store`, start watching. */
  lead(store: PostgresStore, recovery: PostgresRecovery): Promise<LeadingSession>;
  logger?: Logger;
  /** How long to wait between attempts to open the store while leading (default 2 s). */
  openRetryMs?: number;
  /** How often to check whether the leading session's view is ready to be served (default 200 ms). */
  readyPollMs?: number;
}

/** The retry and poll periods with their defaults, checked once at construction. */
const replicaTimings = z.object({
  openRetryMs: z.number().positive().default(2000),
  readyPollMs: z.number().positive().default(200),
});

export class Replica {
  readonly view: ReplicaView;
  readonly follower: FollowerView;
  readonly #options: ReplicaOptions;
  readonly #timings: z.infer<typeof replicaTimings>;
  readonly #elector: LeaderElector | null;
  #role: Role = 'follower';
  #store: PostgresStore | null = null;
  #session: LeadingSession | null = null;
  /** Incremented whenever leading starts or ends: work of an older term stops when it sees a newer one. */
  #term = 0;
  #transition: Promise<void> = Promise.resolve();
  #stopped = false;
  #leaderSince: number | null = null;
  #lastReason: string | null = null;

  constructor(options: ReplicaOptions) {
    this.#options = options;
    this.#timings = replicaTimings.parse(options);
    const clusters = options.follow === 'all' ? undefined : (options.follow ?? [options.cluster]);
    this.follower = new FollowerView(options.url, { ...options.follower, ...(clusters === undefined ? {} : { clusters }) });
    this.view = new ReplicaView(this.follower);
    const { lease } = options;
    this.#elector =
      lease === null
        ? null
        : new LeaderElector({
            lease,
            identity: options.identity,
            ...options.timings,
            onStartedLeading: () => void this.#serialise(() => this.#startLeading()),
            onStoppedLeading: () => void this.#serialise(() => this.#stopLeading(this.#stopped ? null : 'the Lease was lost (not renewed within the renew deadline, or taken over)')),
            onNewLeader: (leader) => options.logger?.info({ leader, lease: `${lease.namespace}/${lease.name}` }, 'leader'),
            onError: (error) => options.logger?.warn({ err: error.message }, 'leader election: an attempt failed'),
          });
  }

  get role(): Role {
    return this.#role;
  }

  /** The store while leading (for /metrics and flushing before reads). */
  get store(): PostgresStore | null {
    return this.#store;
  }

  start(): void {
    this.follower.start();
    if (this.#elector !== null) this.#elector.start();
    else this.#serialise(() => this.#startLeading());
  }

  /** Resolves when what the leader recorded is committed (at once while following). */
  flushed(): Promise<void> {
    return this.#store?.flushed() ?? Promise.resolve();
  }

  /** The store's status while leading; the follower's reads while following. */
  storeStatus(): StoreStatus {
    if (this.#store !== null) return this.#store.status();
    return { error: this.follower.status().error, pendingRecords: 0, recordsSinceSnapshot: 0, bytesWritten: 0, errors: 0 };
  }

  status(): { role: Role; identity: string; leader: string | null; leaderSince: number | null; epoch: number | null; lastStepDown: string | null } {
    return {
      role: this.#role,
      identity: this.#options.identity,
      leader: this.#elector?.status().leader ?? (this.#role === 'leader' ? this.#options.identity : null),
      leaderSince: this.#leaderSince,
      epoch: this.#store?.epoch ?? null,
      lastStepDown: this.#lastReason,
    };
  }

  /**
   * Stops leading and following: stops the watch, commits what is queued, then releases the Lease so
   * that another replica takes over at its next try (instead of after the lease duration).
   */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    await this.#serialise(() => this.#stopLeading(null));
    if (this.#elector !== null) await this.#elector.stop({ release: true });
    await this.follower.close();
  }

  /** Transitions run one after another, never interleaved. */
  #serialise(fn: () => Promise<void>): Promise<void> {
    this.#transition = this.#transition.then(fn, fn).catch((error: Error) => this.#options.logger?.error({ err: error }, 'leader transition failed'));
    return this.#transition;
  }

  async #startLeading(): Promise<void> {
    if (this.#stopped) return;
    const term = ++this.#term;
    this.#role = 'starting';
    const log = this.#options.logger;
    log?.info({ cluster: this.#options.cluster, identity: this.#options.identity }, 'leading: opening the store');
    // Open the store (retrying while still leading: PostgreSQL may be down for everyone).
    let opened: Awaited<ReturnType<typeof PostgresStore.open>> | null = null;
    while (opened === null) {
      try {
        opened = await PostgresStore.open(this.#options.url, {
          ...this.#options.store,
          cluster: this.#options.cluster,
          replica: this.#options.identity,
          onFenced: (error) => {
            log?.error({ err: error.message }, 'fenced off: another replica writes this cluster now');
            void this.#serialise(() => this.#fenced(term));
          },
        });
      } catch (error) {
        log?.error({ err: (error as Error).message }, 'leading: cannot open the PostgreSQL store; retrying');
        await new Promise((resolve) => setTimeout(resolve, this.#timings.openRetryMs));
        if (this.#term !== term || this.#stopped) return;
      }
    }
    if (this.#term !== term || this.#stopped) {
      await opened.store.close();
      return;
    }
    this.#store = opened.store;
    const { recovery } = opened;
    log?.info(
      { epoch: recovery.epoch, previousWriter: recovery.previousWriter, timelines: recovery.machines.length, observedUntil: recovery.observedUntil && new Date(recovery.observedUntil).toISOString() },
      'leading: store opened, previous writer fenced off',
    );
    try {
      this.#session = await this.#options.lead(opened.store, recovery);
    } catch (error) {
      await this.#stopLeading(`starting to lead failed: ${(error as Error).message}`);
      await this.#campaignAgain();
      return;
    }
    this.#leaderSince = Date.now();
    this.#role = 'leader';
    // Serve the follower until the leading session's view is ready (its first sync), unless the follower is not either.
    void this.#switchWhenReady(term);
  }

  async #switchWhenReady(term: number): Promise<void> {
    const session = this.#session;
    while (this.#term === term && session !== null && !session.view.readiness().ready && this.follower.readiness().ready) {
      await new Promise((resolve) => setTimeout(resolve, this.#timings.readyPollMs));
    }
    if (this.#term !== term || session === null) return;
    this.view.use(session.view);
    this.follower.stop();
    this.#options.logger?.info('leading: serving the timelines from the watch');
  }

  async #stopLeading(reason: string | null): Promise<void> {
    if (this.#role === 'follower' && this.#store === null) return;
    this.#term++;
    const log = this.#options.logger;
    if (reason !== null) {
      this.#lastReason = reason;
      log?.warn({ reason }, 'stopped leading');
    }
    const session = this.#session;
    const store = this.#store;
    this.#session = null;
    this.#store = null;
    this.#leaderSince = null;
    this.#role = 'follower';
    this.view.use(this.follower);
    if (!this.#stopped) this.follower.start();
    await session?.stop().catch((error: Error) => log?.error({ err: error }, 'stopping the watch failed'));
    // Commit what is queued if the store can (not when fenced: another replica writes now).
    await store?.close().catch((error: Error) => log?.error({ err: error.message }, 'closing the store failed'));
  }

  /** Another writer opened the store: stop leading, and campaign anew. */
  async #fenced(term: number): Promise<void> {
    if (this.#term !== term) return;
    await this.#stopLeading('fenced off: another replica opened the store of this cluster');
    await this.#campaignAgain();
  }

  /** Hands the Lease back (whoever can lead now may hold it), then campaigns again. */
  async #campaignAgain(): Promise<void> {
    if (this.#elector === null || this.#stopped) return;
    await this.#elector.stop({ release: true });
    if (!this.#stopped) this.#elector.start();
  }
}
