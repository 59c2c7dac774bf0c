// The compact history: sampled points for a day, 5-minute means beyond, retention, and the steps
// it reads back. Times are minutes after T0; the means are worked out by hand.

import { min } from '../../../test/support/scenario.ts';
import { USAGE_METRICS, type UsageMetric } from './jobset-usage.ts';
import { UsageHistory } from './history.ts';

function usage(minutes: number, values: Partial<Record<UsageMetric, number | null>>) {
  const all = Object.fromEntries(USAGE_METRICS.map((m) => [m, values[m] ?? null])) as Record<UsageMetric, number | null>;
  return { at: min(minutes), values: all };
}

const DAY = 24 * 60;

describe('UsageHistory', () => {
  it('keeps samplings in order and refuses one not after the last', () => {
    const h = new UsageHistory();
    expect(h.append(usage(0, { cpuCores: 1 }))).toBe(true);
    expect(h.append(usage(0, { cpuCores: 2 }))).toBe(false);
    expect(h.append(usage(-1, { cpuCores: 2 }))).toBe(false);
    expect(h.append(usage(0.5, { cpuCores: 3 }))).toBe(true);
    const { times, values } = h.points('cpuCores');
    expect([...times]).toEqual([min(0), min(0.5)]);
    expect([...values]).toEqual([1, 3]);
  });

  //   samples every 2 min from 0 to 14 (cpu = minute):  0 2 4 | 6 8 | 10 12 14
  //   5-minute buckets:                                [0,5)   [5,10)  [10,15)
  //   at now = day + 10, points before minute 10 are more than a day old: buckets [0,5) and [5,10)
  //   fold to means (0+2+4)/3 = 2 and (6+8)/2 = 7; 10, 12, 14 stay as sampled.
  it('folds whole buckets older than a day into their means', () => {
    const h = new UsageHistory({ holdMs: 3 * 60_000 });
    for (let m = 0; m <= 14; m += 2) h.append(usage(m, { cpuCores: m, memoryBytes: m === 2 ? null : 100 }));
    h.compact(min(DAY + 12));
    expect(h.size).toEqual({ raw: 3, folded: 2 });
    const cpu = h.points('cpuCores');
    expect([...cpu.times]).toEqual([min(0), min(5), min(10), min(12), min(14)]);
    expect([...cpu.values]).toEqual([2, 7, 10, 12, 14]);
    // A value a sampling did not report is left out of the mean, not counted as 0.
    expect(h.points('memoryBytes').values[0]).toBe(100);
    // Compacting again at the same time changes nothing.
    h.compact(min(DAY + 12));
    expect(h.size).toEqual({ raw: 3, folded: 2 });
  });

  it('a bucket not yet wholly older than a day waits', () => {
    const h = new UsageHistory();
    for (let m = 0; m <= 14; m += 2) h.append(usage(m, { cpuCores: m }));
    h.compact(min(DAY + 9));
    expect(h.size).toEqual({ raw: 5, folded: 1 });
  });

  it('reads steps: a sample holds until the next or for the hold, a bucket over its width', () => {
    const h = new UsageHistory({ holdMs: 3 * 60_000 });
    for (let m = 0; m <= 14; m += 2) h.append(usage(m, { cpuCores: m }));
    h.append(usage(30, { cpuCores: 1 }));
    h.compact(min(DAY + 12));
    const s = h.segments('cpuCores');
    expect([...s.starts]).toEqual([min(0), min(5), min(10), min(12), min(14), min(30)]);
    expect([...s.ends]).toEqual([min(5), min(10), min(12), min(14), min(17), min(33)]);
    expect([...s.values]).toEqual([2, 7, 10, 12, 14, 1]);
    // Only the steps that overlap the range.
    const part = h.segments('cpuCores', min(11), min(14));
    expect([...part.starts]).toEqual([min(10), min(12)]);
  });

  it('leaves out the steps of a metric not reported', () => {
    const h = new UsageHistory();
    h.append(usage(0, { cpuCores: 1 }));
    h.append(usage(0.5, { cpuCores: 2, memoryBytes: 5 }));
    const s = h.segments('memoryBytes');
    expect([...s.starts]).toEqual([min(0.5)]);
  });

  it('drops what is older than the retention cutoff, whole buckets only', () => {
    const h = new UsageHistory();
    for (let m = 0; m <= 14; m += 2) h.append(usage(m, { cpuCores: m }));
    h.compact(min(DAY + 12), min(6));
    // [0,5) starts before 6 and goes; [5,10) starts before 6 too; the sampled 10, 12, 14 stay.
    expect([...h.points('cpuCores').times]).toEqual([min(10), min(12), min(14)]);
    h.compact(min(DAY + 12), min(13));
    expect([...h.points('cpuCores').times]).toEqual([min(14)]);
  });

  it('after folding, a sampling inside a folded bucket is refused', () => {
    const h = new UsageHistory();
    h.append(usage(0, { cpuCores: 1 }));
    h.compact(min(DAY + 10));
    expect(h.size).toEqual({ raw: 0, folded: 1 });
    expect(h.append(usage(4, { cpuCores: 1 }))).toBe(false);
    expect(h.append(usage(5, { cpuCores: 1 }))).toBe(true);
  });

  it('gives back the room of sampled points once they are folded (a finished JobSet)', () => {
    const h = new UsageHistory();
    const columns = 2 * (1 + USAGE_METRICS.length); // times and each metric, sampled and folded
    const empty = h.heldBytes;
    expect(empty).toBe(columns * 16 * 8);
    // A day of samplings every 30 s: 2,880 points, held in columns of 4,096.
    for (let i = 0; i < 2 * DAY; i++) h.append(usage(i / 2, { cpuCores: 1 }));
    const sampled = h.heldBytes;
    expect(sampled).toBe((1 + USAGE_METRICS.length) * (4096 + 16) * 8);
    // Two days later every point is folded into 288 buckets of 5 minutes; the sampled columns are
    // back to their first 16 values, the folded ones hold their 288 values without spare room.
    h.compact(min(3 * DAY));
    expect(h.size).toEqual({ raw: 0, folded: 288 });
    expect(h.heldBytes).toBe((1 + USAGE_METRICS.length) * (16 + 288) * 8);
    expect(h.points('cpuCores').values.every((v) => v === 1)).toBe(true);
    // It still grows when samplings come again.
    for (let i = 0; i < 100; i++) h.append(usage(3 * DAY + i, { cpuCores: 2 }));
    expect(h.size).toEqual({ raw: 100, folded: 288 });
  });

  it('a live history that folds a little at a time keeps its room', () => {
    const h = new UsageHistory();
    for (let i = 0; i < 2 * DAY + 20; i++) h.append(usage(i / 2, { cpuCores: 1 }));
    const before = h.heldBytes;
    expect(before).toBe((1 + USAGE_METRICS.length) * (4096 + 16) * 8);
    h.compact(min(DAY + 10)); // folds the first 10 minutes: 20 of 2,900 points, into 2 buckets
    expect(h.size).toEqual({ raw: 2 * DAY, folded: 2 });
    // 2,880 of 4,096 still used: no copy, and the buckets keep their room to grow.
    expect(h.heldBytes).toBe(before);
  });

  it('grows past its first capacity', () => {
    const h = new UsageHistory();
    for (let i = 0; i < 100; i++) h.append(usage(i, { cpuCores: i }));
    const { values } = h.points('cpuCores');
    expect(values.length).toBe(100);
    expect(values[99]).toBe(99);
  });
});

describe('dump and restore', () => {
  it('a restored history answers exactly as the one dumped, folded buckets and missing values included', () => {
    const h = new UsageHistory({ rawMs: 10 * 60_000, bucketMs: 5 * 60_000, holdMs: 60_000 });
    for (let m = 0; m < 30; m++) h.append({ at: m * 60_000, values: { cpuCores: m, memoryBytes: m % 2 === 0 ? 100 : null, networkReceiveBytesPerSecond: null, networkTransmitBytesPerSecond: null, ephemeralStorageBytes: null, volumeBytes: null, pods: 1 } });
    h.compact(30 * 60_000);
    expect(h.size.folded).toBeGreaterThan(0);
    const back = UsageHistory.restore(JSON.parse(JSON.stringify(h.dump())), { rawMs: 10 * 60_000, bucketMs: 5 * 60_000, holdMs: 60_000 });
    expect(back.size).toEqual(h.size);
    for (const metric of ['cpuCores', 'memoryBytes', 'networkReceiveBytesPerSecond'] as const) {
      expect(back.points(metric)).toEqual(h.points(metric));
      expect(back.segments(metric)).toEqual(h.segments(metric));
    }
  });
});
