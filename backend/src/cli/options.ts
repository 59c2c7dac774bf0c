// Shared option parsing for the CLI: clear messages that name the option.

import { Option } from 'commander';
import { parseDuration } from '../query/types.ts';

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** An ISO-8601 / RFC 3339 time, e.g. 2026-01-01T00:00:00Z. */
export function parseTime(value: string, option: string): number {
  const ms = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?)?$/.test(value) ? Date.parse(value) : NaN;
  if (!Number.isFinite(ms)) throw new UsageError(`${option} must be an ISO-8601 time such as 2026-01-01T00:00:00Z, not "${value}"`);
  return ms;
}

/** The longest delay a Node timer keeps: 2^31 − 1 ms (24.8 days); a longer one fires after 1 ms. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A duration that sets a timer (`30s`, `500ms`). Refused past MAX_TIMER_MS: Node would fire such a
 * timer at once, so `--watch-backoff-max 30d` would retry a failing watch every millisecond.
 */
export function parseTimerDuration(value: string, option: string, example: string): number {
  const ms = parseDuration(value);
  if (ms === null) throw new UsageError(`${option} must be a duration such as ${example}, not "${value}"`);
  if (ms > MAX_TIMER_MS) throw new UsageError(`${option} must be at most 24 days (a timer longer than 2^31 − 1 ms fires at once), not "${value}"`);
  return ms;
}

export function parsePositiveInt(value: string, option: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n <= 0) throw new UsageError(`${option} must be a positive whole number, not "${value}"`);
  return n;
}

/** Worker threads a trace replay may start: each costs a V8 isolate (tens of MiB), so more than this is a typo. */
export const MAX_PARSE_THREADS = 64;

/** `--parse-threads`: a count of worker threads, 0 (none) to MAX_PARSE_THREADS. */
export function parseThreadCount(value: string, option: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n > MAX_PARSE_THREADS) {
    throw new UsageError(`${option} must be a whole number from 0 to ${MAX_PARSE_THREADS}, not "${value}"`);
  }
  return n;
}

/** `--heap-growth`'s highest: a factor of 4, V8's own highest (heap-after-load.ts). */
export const MAX_HEAP_GROWTH_PERCENT = 300;

/** `--heap-growth`: percent past what lives, a whole number from 0 (V8's own policy) to MAX_HEAP_GROWTH_PERCENT. */
export function parseHeapGrowth(value: string, option: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > MAX_HEAP_GROWTH_PERCENT) throw new UsageError(`${option} must be a whole number of percent from 0 to ${MAX_HEAP_GROWTH_PERCENT}, not "${value}"`);
  return n;
}

/** `--node-pool-size`: POOL=N pairs, comma-separated (`slice-a=16,cpu=3`). */
export function parsePoolSizes(value: string, option: string): Record<string, number> {
  const sizes: Record<string, number> = Object.create(null);
  for (const pair of value.split(',').filter((p) => p.trim() !== '')) {
    const eq = pair.lastIndexOf('=');
    const pool = pair.slice(0, eq).trim();
    if (eq <= 0 || pool === '') throw new UsageError(`${option} must be POOL=N pairs such as slice-a=16,cpu=3, not "${value}"`);
    sizes[pool] = parsePositiveInt(pair.slice(eq + 1).trim(), `${option} ${pool}`);
  }
  return sizes;
}

export function parsePositiveNumber(value: string, option: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0) throw new UsageError(`${option} must be a positive number, not "${value}"`);
  return n;
}

export function parseInteger(value: string, option: string): number {
  const n = Number(value);
  if (!/^-?\d+$/.test(value) || !Number.isSafeInteger(n)) throw new UsageError(`${option} must be a whole number, not "${value}"`);
  return n;
}

/** A duration kept as data (`10m`, `90d`), not a timer. */
export function parseDataDuration(value: string, option: string): number {
  const ms = parseDuration(value);
  if (ms === null) throw new UsageError(`${option} must be a duration such as 10m or 90d, not "${value}"`);
  return ms;
}

export function parsePort(value: string, option: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65_535) throw new UsageError(`${option} must be a port number, not "${value}"`);
  return port;
}

/**
 * A commander option whose text commander turns into its value with `parse` (from the command line
 * or its environment variable), and whose default is the parse of `defaultText` (shown in --help).
 * A bad value is a UsageError that names the flag: `upness: --port must be a port number, not "x"`, exit 2.
 */
export function parsedOption<T>(flags: string, description: string, parse: (value: string, option: string) => T, defaultText?: string): Option {
  const name = flags.split(/[ ,]/)[0]!;
  const option = new Option(flags, description).argParser((value: string) => parse(value, name));
  return defaultText === undefined ? option : option.default(parse(defaultText, name), defaultText);
}

/**
 * serve's options that mean something only beside another: [option, the option it needs]. Without
 * it they were ignored, so a user who typed `--follow` without `--store` got a leader of its own.
 */
export const SERVE_NEEDS: readonly (readonly [option: string, needs: string])[] = [
  ['follow', 'store'],
  ['serveClusters', 'store'],
  ['leaseName', 'store'],
  ['leaseNamespace', 'leaseName'],
  ['replicaId', 'leaseName'],
  ['leaseDuration', 'leaseName'],
  ['renewDeadline', 'leaseName'],
  ['retryPeriod', 'leaseName'],
  ['parseThreads', 'trace'],
];

/**
 * The first of `needs` given (on the command line or by its environment variable, not by default)
 * without the option it needs, as a UsageError; `flag` names an option as the user types it.
 */
export function checkNeededOptions(given: ReadonlySet<string>, flag: (option: string) => string, needs = SERVE_NEEDS): void {
  for (const [option, partner] of needs) {
    if (given.has(option) && !given.has(partner)) throw new UsageError(`${flag(option)} is used only with ${flag(partner)}: give ${flag(partner)} too, or leave ${flag(option)} out`);
  }
}
