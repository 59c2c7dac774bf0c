// Exponential backoff with jitter for restarting a watch. Pure: the random source is passed in.

export interface BackoffOptions {
  /** Delay before the first retry, ms. */
  initialMs: number;
  /** Ceiling of the delay, ms. */
  maxMs: number;
  /** Growth per failed attempt. */
  factor: number;
  /**
   * Share of the delay that is random, 0..1: the delay is drawn from [d × (1 - jitter), d], so
   * watchers that failed together (an apiserver restart) do not come back together.
   */
  jitter: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 500, maxMs: 30_000, factor: 2, jitter: 0.5 };

/**
 * The delay before retry number `attempt` (1 for the first retry after a failure). `random` returns
 * a number in [0, 1), as Math.random does.
 */
export function backoffDelay(attempt: number, options: BackoffOptions, random: () => number): number {
  const n = Math.max(1, Math.floor(attempt));
  // Capped before it can overflow: factor^n grows past any ceiling long before n is large.
  const exponential = Math.min(options.maxMs, options.initialMs * Math.pow(options.factor, Math.min(n - 1, 64)));
  const jitter = Math.min(1, Math.max(0, options.jitter));
  return Math.round(exponential * (1 - jitter * random()));
}
