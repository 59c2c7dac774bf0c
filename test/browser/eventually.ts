// A read that follows an action (a click, a key, a typed text) may run before the page caught up:
// React renders after the event, a combobox loads its options after a debounce. eventually() retries
// the assertion until it holds, within a bound, and fails with the assertion's own last error, so a
// loaded machine waits longer instead of failing, and a wrong state still fails.

import { setTimeout as pause } from 'node:timers/promises';
import { types } from 'node:util';

export interface EventuallyOptions {
  /** How long the state may take to arrive (a loaded 2-core machine: seconds, not milliseconds). */
  timeoutMs?: number;
  /** The pause between tries. */
  intervalMs?: number;
}

/** Runs `check` until it returns without throwing, and returns what it returned; rethrows its last error after `timeoutMs`. */
export async function eventually<T>(check: () => T | Promise<T>, { timeoutMs = 20_000, intervalMs = 50 }: EventuallyOptions = {}): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (performance.now() >= deadline) {
        // isNativeError, not instanceof: an assertion's error may come from another realm (Jest's vm).
        if (types.isNativeError(error)) {
          error.message = `${error.message} (still so after ${timeoutMs} ms)`;
        }
        throw error;
      }
    }
    await pause(intervalMs);
  }
}
