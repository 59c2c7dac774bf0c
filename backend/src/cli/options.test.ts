// Durations that set timers: Node keeps a delay of at most 2^31 − 1 ms and fires a longer one at once.

import { checkNeededOptions, MAX_HEAP_GROWTH_PERCENT, MAX_PARSE_THREADS, MAX_TIMER_MS, parseHeapGrowth, parsePoolSizes, parseThreadCount, parseTimerDuration, SERVE_NEEDS, UsageError } from './options.ts';
import { parseUsageOptions, parseWatchOptions } from './watch-options.ts';

const DEFAULTS = { watchTimeout: '30s', watchSilence: '75s', watchBackoffInitial: '500ms', watchBackoffMax: '30s', listTimeout: '60s', readyBrokenAfter: '30s' };

describe('durations that set timers', () => {
  it('are read up to 2^31 − 1 ms (24 days, 20 h, 31 m, 23.647 s) and refused past it, naming the option', () => {
    expect(parseTimerDuration('24d', '--retry-period', '15s')).toBe(24 * 86_400_000);
    expect(parseTimerDuration(`${MAX_TIMER_MS}ms`, '--retry-period', '15s')).toBe(MAX_TIMER_MS);
    expect(() => parseTimerDuration(`${MAX_TIMER_MS + 1}ms`, '--retry-period', '15s')).toThrow(UsageError);
    expect(() => parseTimerDuration('25d', '--retry-period', '15s')).toThrow('--retry-period must be at most 24 days (a timer longer than 2^31 − 1 ms fires at once), not "25d"');
    expect(() => parseTimerDuration('soon', '--retry-period', '15s')).toThrow('--retry-period must be a duration such as 15s, not "soon"');
  });

  it.each(['watchTimeout', 'watchSilence', 'watchBackoffInitial', 'watchBackoffMax', 'listTimeout'] as const)('--%s of 30 days is refused, not a watch retried every millisecond', (option) => {
    // The others long enough that only the one under test is at fault.
    const values = { ...DEFAULTS, watchSilence: '20d', watchBackoffMax: '20d', [option]: '30d' };
    expect(() => parseWatchOptions(values)).toThrow(/must be at most 24 days/);
    expect(() => parseWatchOptions({ ...values, [option]: '10d' })).not.toThrow();
  });
});

describe('--heap-growth', () => {
  it('reads a whole number of percent from 0 (V8 own policy) to a factor of 4, and refuses anything else naming the option', () => {
    expect(parseHeapGrowth('0', '--heap-growth')).toBe(0);
    expect(parseHeapGrowth('25', '--heap-growth')).toBe(25);
    expect(parseHeapGrowth(String(MAX_HEAP_GROWTH_PERCENT), '--heap-growth')).toBe(300);
    for (const bad of ['301', '-5', '12.5', '25%', '', 'lots']) {
      expect(() => parseHeapGrowth(bad, '--heap-growth')).toThrow(`--heap-growth must be a whole number of percent from 0 to 300, not "${bad}"`);
    }
  });
});

describe('--node-pool-size', () => {
  it('reads POOL=N pairs, and refuses anything else naming the option', () => {
    expect(parsePoolSizes('slice-a=16,cpu=3', '--node-pool-size')).toEqual({ 'slice-a': 16, cpu: 3 });
    expect(parsePoolSizes('a=b=2', '--node-pool-size')).toEqual({ 'a=b': 2 });
    expect(() => parsePoolSizes('slice-a', '--node-pool-size')).toThrow('--node-pool-size must be POOL=N pairs such as slice-a=16,cpu=3, not "slice-a"');
    expect(() => parsePoolSizes('=4', '--node-pool-size')).toThrow(UsageError);
    expect(() => parsePoolSizes('slice-a=0', '--node-pool-size')).toThrow('--node-pool-size slice-a must be a positive whole number, not "0"');
    expect(() => parsePoolSizes('slice-a=x', '--node-pool-size')).toThrow(UsageError);
  });
});

describe('--watch-usage and --usage-interval', () => {
  it('are off without --watch-usage or with an interval of 0, and read the interval otherwise', () => {
    expect(parseUsageOptions({ usageInterval: '30s' })).toBeNull();
    expect(parseUsageOptions({ watchUsage: true, usageInterval: '0' })).toBeNull();
    expect(parseUsageOptions({ watchUsage: true, usageInterval: '0s' })).toBeNull();
    expect(parseUsageOptions({ watchUsage: true, usageInterval: '30s' })).toEqual({ intervalMs: 30_000 });
    expect(parseUsageOptions({ watchUsage: true, usageInterval: '2m' })).toEqual({ intervalMs: 120_000 });
  });

  it('refuses an interval under a second, or not a duration, naming the option', () => {
    expect(() => parseUsageOptions({ watchUsage: true, usageInterval: '500ms' })).toThrow('--usage-interval must be at least 1s (or 0: off), not "500ms"');
    expect(() => parseUsageOptions({ watchUsage: true, usageInterval: 'often' })).toThrow(/--usage-interval must be a duration/);
  });
});

describe('--parse-threads', () => {
  it('reads 0 (the main thread only) up to the bound, and refuses anything else naming the option', () => {
    expect(parseThreadCount('0', '--parse-threads')).toBe(0);
    expect(parseThreadCount(String(MAX_PARSE_THREADS), '--parse-threads')).toBe(MAX_PARSE_THREADS);
    for (const bad of ['-1', '1.5', 'two', '', ' 2', String(MAX_PARSE_THREADS + 1), '1e3']) {
      expect(() => parseThreadCount(bad, '--parse-threads')).toThrow(UsageError);
      expect(() => parseThreadCount(bad, '--parse-threads')).toThrow(`--parse-threads must be a whole number from 0 to ${MAX_PARSE_THREADS}, not "${bad}"`);
    }
  });
});

describe("serve's options that need another", () => {
  const flag = (key: string): string => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
  it('refuses each given without the option it needs, and takes it beside that one', () => {
    for (const [option, partner] of SERVE_NEEDS) {
      expect(() => checkNeededOptions(new Set([option]), flag)).toThrow(new UsageError(`${flag(option)} is used only with ${flag(partner)}: give ${flag(partner)} too, or leave ${flag(option)} out`));
      // With its partner (and what that one needs in turn) nothing is refused.
      const chain = new Set([option, partner, ...SERVE_NEEDS.filter(([o]) => o === partner).map(([, p]) => p)]);
      expect(() => checkNeededOptions(chain, flag)).not.toThrow();
    }
  });
  it('refuses nothing when none of them is given', () => {
    expect(() => checkNeededOptions(new Set(['store', 'trace', 'memory', 'port']), flag)).not.toThrow();
    expect(() => checkNeededOptions(new Set(), flag)).not.toThrow();
  });
});
