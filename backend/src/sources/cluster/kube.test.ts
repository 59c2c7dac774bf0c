// The watcher's pure parts: backoff with jitter, and naming why a watch broke.

import { backoffDelay, DEFAULT_BACKOFF } from './backoff.ts';
import { classifyError, describeError } from './errors.ts';

describe('backoff with jitter', () => {
  const options = { initialMs: 500, maxMs: 30_000, factor: 2, jitter: 0.5 };

  it('doubles from the initial delay up to the ceiling, without jitter at its top', () => {
    const top = () => 0; // random() = 0: no jitter taken off
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((n) => backoffDelay(n, options, top))).toEqual([500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000]);
  });

  it('takes up to `jitter` of the delay off, at random', () => {
    expect(backoffDelay(3, options, () => 0.999_999)).toBe(1000);
    expect(backoffDelay(3, options, () => 0.5)).toBe(1500);
    for (let i = 0; i < 1000; i++) {
      const d = backoffDelay(4, options, Math.random);
      expect(d).toBeGreaterThanOrEqual(2000);
      expect(d).toBeLessThanOrEqual(4000);
    }
  });

  it('spreads watchers that failed together', () => {
    const delays = new Set(Array.from({ length: 50 }, () => backoffDelay(5, DEFAULT_BACKOFF, Math.random)));
    expect(delays.size).toBeGreaterThan(40);
  });

  it('stays finite for any attempt', () => {
    expect(backoffDelay(10_000, options, () => 0)).toBe(30_000);
    expect(backoffDelay(0, options, () => 0)).toBe(500);
  });
});

describe('why a watch broke', () => {
  it.each([
    [{ statusCode: 410 }, 'gone'],
    [{ statusCode: 403 }, 'forbidden'],
    [{ statusCode: 401 }, 'forbidden'],
    [{ statusCode: 503 }, 'http-503'],
    [{ code: 500, message: 'watch: internal error' }, 'http-500'],
    [Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), { code: 'ECONNREFUSED' }), 'connection'],
    [Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) }), 'connection'],
    [new TypeError('terminated'), 'connection'],
    [new DOMException('The operation was aborted due to timeout', 'TimeoutError'), 'timeout'],
    [Object.assign(new Error('The operation was aborted'), { name: 'AbortError', code: 'ABORT_ERR', cause: new DOMException('The operation was aborted due to timeout', 'TimeoutError') }), 'timeout'],
    [new Error('something else'), 'error'],
  ] as const)('%p → %s', (error, cause) => {
    expect(classifyError(error)).toBe(cause);
  });

  it('describes an error with its causes', () => {
    const error = Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }) });
    expect(describeError(error)).toBe('fetch failed: connect ECONNREFUSED 127.0.0.1:1');
  });
});
