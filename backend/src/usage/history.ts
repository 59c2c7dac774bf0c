// One JobSet's usage over time, compact: a column of times and one column per metric, in typed
// arrays (8 bytes a value, no object per point). Points newer than `rawMs` (a day) are kept as
// sampled; older ones are folded into means over `bucketMs` (5 minutes), and everything older
// than the retention cutoff is dropped. Pure: no clock; the caller says what "now" is.
//
// Usage is read as steps: a sampled value holds from its time until the next point, but no longer
// than `holdMs` (a sampler that stopped says nothing about the time after); a bucket's mean holds
// over its whole bucket. `segments` returns those steps, which is what the figures split by state
// weigh against the JobSet's intervals.

import { USAGE_METRICS, type JobSetUsage, type UsageMetric } from './jobset-usage.ts';

export interface HistoryOptions {
  /** How long points are kept as sampled before they are folded into bucket means. */
  rawMs?: number;
  /** The width of a folded bucket; buckets start at multiples of it (epoch-aligned). */
  bucketMs?: number;
  /** How long a sampled value holds when no later point follows (about two sampling intervals). */
  holdMs?: number;
}

export const DEFAULT_HISTORY = { rawMs: 86_400_000, bucketMs: 300_000, holdMs: 60_000 } as const;

const METRIC_INDEX: Readonly<Record<UsageMetric, number>> = Object.fromEntries(USAGE_METRICS.map((m, i) => [m, i])) as Record<UsageMetric, number>;

const MIN_CAPACITY = 16;

/** A growable column of float64: times and values. */
class Column {
  data: Float64Array;
  length = 0;
  constructor(capacity = MIN_CAPACITY) {
    this.data = new Float64Array(capacity);
  }
  push(value: number): void {
    if (this.length === this.data.length) {
      const next = new Float64Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = value;
  }
  /** Drops the first `n` values. */
  shift(n: number): void {
    if (n <= 0) return;
    this.data.copyWithin(0, n, this.length);
    this.length -= n;
    // Capacity only doubles as points come. A finished JobSet's day of sampled points all fold away,
    // so a column down to a quarter gives the rest back (twice what it holds is kept: room to grow).
    if (this.data.length > MIN_CAPACITY && this.length <= this.data.length / 4) this.data = this.data.slice(0, Math.max(MIN_CAPACITY, this.length * 2));
  }
  /** Its values without spare room (for a column that is not expected to grow soon). */
  trim(): void {
    if (this.data.length > Math.max(MIN_CAPACITY, this.length)) this.data = this.data.slice(0, Math.max(MIN_CAPACITY, this.length));
  }
  at(i: number): number {
    return this.data[i]!;
  }
  view(): Float64Array {
    return this.data.subarray(0, this.length);
  }
}

/** Points of one kind (sampled or folded): times ascending, a value column per metric (NaN: not reported). */
class Points {
  readonly times = new Column();
  readonly values = USAGE_METRICS.map(() => new Column());
  get length(): number {
    return this.times.length;
  }
  push(at: number, values: readonly number[]): void {
    this.times.push(at);
    for (let m = 0; m < this.values.length; m++) this.values[m]!.push(values[m]!);
  }
  shift(n: number): void {
    this.times.shift(n);
    for (const column of this.values) column.shift(n);
  }
  trim(): void {
    this.times.trim();
    for (const column of this.values) column.trim();
  }
  /** The bytes its columns hold, spare room included. */
  get heldBytes(): number {
    return this.times.data.byteLength + this.values.reduce((sum, c) => sum + c.data.byteLength, 0);
  }
  /** How many points lie before `t` (times ascending). */
  countBefore(t: number): number {
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.times.at(mid) < t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** Points as plain data (a store's snapshot): times, and per metric (USAGE_METRICS' order) a value per time, null: not reported. */
export interface PointsData {
  t: number[];
  v: (number | null)[][];
}

/** A history as plain data: its sampled points and its folded buckets. */
export interface HistoryData {
  raw: PointsData;
  folded: PointsData;
}

function pointsData(points: Points): PointsData {
  return { t: Array.from(points.times.view()), v: points.values.map((c) => Array.from(c.view(), (x) => (Number.isNaN(x) ? null : x))) };
}

function restorePoints(points: Points, data: PointsData): void {
  for (let i = 0; i < data.t.length; i++) points.push(data.t[i]!, USAGE_METRICS.map((_, m) => data.v[m]?.[i] ?? Number.NaN));
}

/** Usage as steps: value[i] holds over [starts[i], ends[i]); steps ascending and not overlapping. */
export interface UsageSegments {
  starts: Float64Array;
  ends: Float64Array;
  values: Float64Array;
}

export class UsageHistory {
  readonly #rawMs: number;
  readonly #bucketMs: number;
  readonly #holdMs: number;
  readonly #raw = new Points();
  readonly #folded = new Points();

  constructor(options: HistoryOptions = {}) {
    this.#rawMs = options.rawMs ?? DEFAULT_HISTORY.rawMs;
    this.#bucketMs = options.bucketMs ?? DEFAULT_HISTORY.bucketMs;
    this.#holdMs = options.holdMs ?? DEFAULT_HISTORY.holdMs;
    if (!(this.#bucketMs > 0) || !(this.#rawMs >= 0) || !(this.#holdMs > 0)) throw new RangeError('usage history: bucketMs and holdMs must be > 0, rawMs ≥ 0');
  }

  /** What it holds, as plain data (for a store's snapshot). */
  dump(): HistoryData {
    return { raw: pointsData(this.#raw), folded: pointsData(this.#folded) };
  }

  /** A history holding `data` (a dump, as a snapshot kept it). */
  static restore(data: HistoryData, options: HistoryOptions = {}): UsageHistory {
    const history = new UsageHistory(options);
    restorePoints(history.#folded, data.folded);
    restorePoints(history.#raw, data.raw);
    history.#folded.trim();
    history.#raw.trim();
    return history;
  }

  /** Sampled points and folded buckets held now. */
  get size(): { raw: number; folded: number } {
    return { raw: this.#raw.length, folded: this.#folded.length };
  }

  /** The bytes its typed arrays hold, spare room included (what a history costs beyond its few objects). */
  get heldBytes(): number {
    return this.#raw.heldBytes + this.#folded.heldBytes;
  }

  /** Adds one sampling. A sampling not after the last one is ignored (times stay ascending). */
  append(usage: Pick<JobSetUsage, 'at' | 'values'>): boolean {
    const last = this.#raw.length > 0 ? this.#raw.times.at(this.#raw.length - 1) : -Infinity;
    const foldedEnd = this.#folded.length > 0 ? this.#folded.times.at(this.#folded.length - 1) + this.#bucketMs : -Infinity;
    if (!(usage.at > last) || usage.at < foldedEnd) return false;
    this.#raw.push(
      usage.at,
      USAGE_METRICS.map((m) => usage.values[m] ?? Number.NaN),
    );
    return true;
  }

  /**
   * Folds sampled points older than `now - rawMs` into bucket means, whole buckets only (a bucket
   * whose end is not yet older than that waits), and drops everything before `retainFrom`.
   */
  compact(now: number, retainFrom = -Infinity): void {
    const foldBefore = Math.floor((now - this.#rawMs) / this.#bucketMs) * this.#bucketMs;
    const n = this.#raw.countBefore(foldBefore);
    let i = 0;
    while (i < n) {
      const bucket = Math.floor(this.#raw.times.at(i) / this.#bucketMs) * this.#bucketMs;
      let j = i;
      while (j < n && this.#raw.times.at(j) < bucket + this.#bucketMs) j++;
      const means = this.#raw.values.map((column) => {
        let total = 0;
        let count = 0;
        for (let k = i; k < j; k++) {
          const v = column.at(k);
          if (!Number.isNaN(v)) {
            total += v;
            count++;
          }
        }
        return count > 0 ? total / count : Number.NaN;
      });
      this.#folded.push(bucket, means);
      i = j;
    }
    this.#raw.shift(n);
    // A bucket is dropped when it starts before the cutoff: retention drops whole buckets, never half.
    this.#folded.shift(this.#folded.countBefore(retainFrom));
    this.#raw.shift(this.#raw.countBefore(retainFrom));
    // No sampled point left (a finished JobSet, or one not sampled for a day): its buckets grow no
    // more for now, so they keep no spare room (a sampling that comes later grows them again).
    if (this.#raw.length === 0 && n > 0) this.#folded.trim();
  }

  /** The steps of one metric that overlap [from, to) (unclipped), the folded ones first. NaN values are left out. */
  segments(metric: UsageMetric, from = -Infinity, to = Infinity): UsageSegments {
    const m = METRIC_INDEX[metric];
    const starts: number[] = [];
    const ends: number[] = [];
    const values: number[] = [];
    const firstRaw = this.#raw.length > 0 ? this.#raw.times.at(0) : Infinity;
    const keep = (start: number, end: number, value: number): void => {
      if (Number.isNaN(value) || end <= from || start >= to || end <= start) return;
      starts.push(start);
      ends.push(end);
      values.push(value);
    };
    for (let i = 0; i < this.#folded.length; i++) {
      const start = this.#folded.times.at(i);
      keep(start, Math.min(start + this.#bucketMs, firstRaw), this.#folded.values[m]!.at(i));
    }
    for (let i = 0; i < this.#raw.length; i++) {
      const start = this.#raw.times.at(i);
      const next = i + 1 < this.#raw.length ? this.#raw.times.at(i + 1) : Infinity;
      keep(start, Math.min(next, start + this.#holdMs), this.#raw.values[m]!.at(i));
    }
    return { starts: Float64Array.from(starts), ends: Float64Array.from(ends), values: Float64Array.from(values) };
  }

  /** The points themselves (times, and the metric's values, NaN where not reported), folded then sampled, for a series. */
  points(metric: UsageMetric): { times: Float64Array; values: Float64Array } {
    const m = METRIC_INDEX[metric];
    const length = this.#folded.length + this.#raw.length;
    const times = new Float64Array(length);
    const values = new Float64Array(length);
    times.set(this.#folded.times.view(), 0);
    times.set(this.#raw.times.view(), this.#folded.length);
    values.set(this.#folded.values[m]!.view(), 0);
    values.set(this.#raw.values[m]!.view(), this.#folded.length);
    return { times, values };
  }
}
