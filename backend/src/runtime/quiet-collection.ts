// One memory-reducing collection once the queries have gone quiet (issue 21 §3).
//
// Answering a wall of dashboards allocates fast, and V8 keeps the old generation's pages that its
// collections empty in a pool, for reuse, rather than giving them back: only a memory-reducing
// collection (the kind V8 runs under memory pressure) hands them to the system. At 10,000 JobSets ×
// 30 days the panels' timing left 770.7 MiB of RSS after a full collection, 440.1 MiB after a
// memory-reducing one (bench:dashboards, README "Performance", "The pages V8 keeps after the
// panels"). So once no query has been answered for `quietMs`, one such collection runs, and no
// other until a query has been answered since and `leastGapMs` has passed since the last one: a
// dashboard refreshed every 30 s costs one collection a refresh at most, a steady stream none. The
// end of a load counts as a query answered: its garbage leaves pooled pages too.
//
// Pure scheduling: the clock, the timers and the collection itself are given (tested with fakes).

export interface QuietCollectionOptions {
  /** How long no query must have been answered before the collection runs. */
  quietMs: number;
  /** The least time between two collections. */
  leastGapMs: number;
  /** The collection (V8's memory-reducing one in the service). */
  collect: () => void;
  now?: () => number;
  /** Runs `run` after `ms` without keeping the process alive; returns what `cancel` takes. */
  after?: (ms: number, run: () => void) => unknown;
  cancel?: (timer: unknown) => void;
}

/** The service's: 2 s of quiet, at most one a minute. */
export const QUIET_COLLECTION = { quietMs: 2_000, leastGapMs: 60_000 };

export class QuietCollection {
  readonly #options: Required<QuietCollectionOptions>;
  #timer: unknown = null;
  #lastAt = -Infinity;
  #collections = 0;

  constructor(options: QuietCollectionOptions) {
    this.#options = {
      now: () => performance.now(),
      after: (ms, run) => setTimeout(run, ms).unref(),
      cancel: (timer) => clearTimeout(timer as NodeJS.Timeout),
      ...options,
    };
  }

  /** A query was answered: the collection waits for `quietMs` from now (and for the least gap since the last one). */
  answered(): void {
    const { now, after, cancel, quietMs, leastGapMs } = this.#options;
    if (this.#timer !== null) cancel(this.#timer);
    const wait = Math.max(quietMs, this.#lastAt + leastGapMs - now());
    this.#timer = after(wait, () => this.#run());
  }

  /**
   * A load is done (a data dir read, a trace replayed): its garbage, once collected, leaves pages
   * V8 keeps pooled, as a burst of queries does (at 10,000 × 30 d, 432 MiB of RSS once ready, 361
   * once they were given back). The collection waits as for a query answered now.
   */
  loaded(): void {
    this.answered();
  }

  /** How many collections have run. */
  get collections(): number {
    return this.#collections;
  }

  #run(): void {
    this.#timer = null;
    this.#lastAt = this.#options.now();
    this.#collections++;
    this.#options.collect();
  }

  /** No collection pending (the server closed). */
  stop(): void {
    if (this.#timer !== null) this.#options.cancel(this.#timer);
    this.#timer = null;
  }
}
