// Pooled totals of a whole fleet (or of whole namespaces) at any time, without visiting each timeline.
//
// Every transition is an event in time. Entering a state starts its time accruing, leaving it stops
// it; so a duration total at time t is  rate(t)·t − W(t),  where rate counts the timelines in the
// state and W sums ±(entry/exit times) of the events up to t. Counts (interruptions, recoveries, JobSets
// created or ended, first ups) are sums of the events up to t. Events are kept sorted by time per
// partition (cluster × namespace, × a label's value in an index of a selection: selection-indexes.ts),
// with the accumulated sums every K events, so C(t) of a partition
// costs one binary search and at most K / 2 events (from the checkpoint before, or taken back from the
// one after), whatever the fleet's size; a window is C(to) − C(from)
// as for one timeline (totals.ts), and these numbers are the same integers, summed in another order.
//
// An open timeline's last state accrues up to the horizon: C(t) for t past it is C(horizon). That
// holds only when no event lies after the horizon; `covers` says when the index can answer.

import { transitionCount, transitionTime, unobservedAt, type Timeline } from '../timeline/types.ts';
import { codeAt, eventOf, timeAt, INTERRUPTION, RECOVERY, SUSPENDED_CODE, UNOBSERVED_BIT, UP_CODE, timelineColumns, type Columns } from './columns.ts';
import { firstUp } from './figures.ts';
import { EventTimes, NearNumbers, SmallNumbers } from './event-columns.ts';
import { FIELD_OF } from './totals.ts';
import {
  ACCELERATOR_LOST,
  ACCELERATOR_UP,
  ACCRUES_WITH_TIME,
  CHECKPOINT_LOSS,
  CHECKPOINTED_UP,
  CHECKPOINTED_WALL,
  FIELDS,
  INTERRUPTED_UP,
  INTERRUPTION_DOWN,
  INTERRUPTIONS,
  MEASURED_INTERRUPTIONS,
  MEASURED_RECOVERIES,
  PROVISIONING,
  QUEUED,
  RECOVERED_DOWN,
  RECOVERIES,
  UNKNOWN,
  UP,
} from './totals-layout.ts';

// Accumulator layout: the first FIELDS are the totals' own columns (a column that accrues with time
// holds the rate there, the others their sum); then W per column, then the sums for JobSet counts
// and time to first up.
const W = FIELDS;
const CREATED = W + FIELDS; // W per column (used by those that accrue with time)
const ENDED = CREATED + 1;
const FIRST_UP_SUM = CREATED + 2;
const FIRST_UPS = CREATED + 3;
/** First-up sums of timelines that ended: subtracted for windows after their end. */
const ENDED_FIRST_UP_SUM = CREATED + 4;
const ENDED_FIRST_UPS = CREATED + 5;
const ACC = CREATED + 6;

// 128: the sums (ACC numbers of 8 bytes) cost 2.5 bytes an event, half of what 64 cost (12.8 MiB at
// 10,000 × 30 d), and C(t) at most 64 events from a checkpoint, each a few adds.
const K = 128;
/**
 * What an image of an index (FleetIndex.image) holds the sums of: its checkpoints are good only for
 * this layout. Bump SUMS when addEvent changes what it adds, so that a kept image is refused.
 */
const SUMS = 2; // 2: a suspension at the instant of the first start stays queued until left (queuedAt)
const LAYOUT = `fleet-index sums ${SUMS}, K ${K}, ACC ${ACC}`;

/**
 * The spacing of a kept image's checkpoints when this index can take its sums: the same sums and
 * accumulator, a checkpoint every k events where k divides K (its every (K / k)-th checkpoint is one
 * of ours: the sums of the events before i·K, taken in the same order). An image kept before the
 * checkpoints were spaced K = 128 apart (K 64, K 32) is read so. Null: not one this index reads.
 */
function imageSpacing(layout: string): number | null {
  const m = /^fleet-index sums (\d+), K (\d+), ACC (\d+)$/.exec(layout);
  if (m === null || Number(m[1]) !== SUMS || Number(m[3]) !== ACC) return null;
  const k = Number(m[2]);
  return k > 0 && K % k === 0 ? k : null;
}
/** What a partition keeps of C(t) at a time asked: the totals' columns, then CREATED … ACC. */
const KEPT = FIELDS + (ACC - CREATED);
/** Times kept per generation of a partition's memory of C(t) (two generations: about 2 × 4,096 × 184 bytes at most). */
const KEPT_TIMES = 4096;
/** A read of more times than this keeps them (a series' steps); fewer (a window, an SLO's windows at one point) do not. */
const KEEP_FROM_TIMES = 8;
/** How many events at one time a live event's timeline is looked for among (Partition.#placedAt). */
const TIES_LOOKED = 256;
/** State codes from here on are terminal (columns.ts). */
const TERMINAL_FROM = 5;

/** Starts (sign 1) or stops (sign −1) the goodput fields' accrual of a timeline in totals field f. */
function weigh(tl: Timeline, f: number, sign: number, tau: number, acc: Float64Array): void {
  const a = tl.accelerators ?? 0;
  if (a > 0) {
    const g = f === UP ? ACCELERATOR_UP : f === PROVISIONING || f === INTERRUPTION_DOWN || f === UNKNOWN ? ACCELERATOR_LOST : -1;
    if (g >= 0) {
      acc[g]! += sign * a;
      acc[W + g]! += sign * a * tau;
    }
  }
  if ((tl.checkpointIntervalMs ?? null) !== null) {
    acc[CHECKPOINTED_WALL]! += sign;
    acc[W + CHECKPOINTED_WALL]! += sign * tau;
    if (f === UP) {
      acc[CHECKPOINTED_UP]! += sign;
      acc[W + CHECKPOINTED_UP]! += sign * tau;
    }
  }
}

/**
 * Whether transition j (a suspension) is before the timeline's first start: queued, not suspended.
 * Decided by the transitions' order, not by `at < start` alone: a suspension at the very instant of the
 * first start, summed before that start came in, was queued then and must stay so when it is left
 * (its state lasts no time, so durations are the same either way), or the index would keep a queued
 * JobSet that the per-JobSet path never had.
 */
function queuedAt(c: Columns, j: number): boolean {
  return c.startIndex < 0 || j < c.startIndex;
}

/** Adds what transition j of the timeline changes (entering its state, leaving the one before). */
function addEvent(tl: Timeline, j: number, origin: number, acc: Float64Array): void {
  const c = timelineColumns(tl);
  const at = timeAt(c, j);
  const tau = at - origin;
  const code = codeAt(c, j) & 7;
  if (j === 0) acc[CREATED]! += 1;
  else {
    const prev = codeAt(c, j - 1) & 7;
    const s = timeAt(c, j - 1);
    const f = FIELD_OF[prev]!;
    if (f >= 0) {
      acc[f]! -= 1;
      acc[W + f]! -= tau;
      weigh(tl, f, -1, tau, acc);
      if (prev === SUSPENDED_CODE && queuedAt(c, j - 1)) {
        acc[QUEUED]! -= 1;
        acc[W + QUEUED]! -= tau;
      }
    }
    const event = eventOf(prev, code);
    const interval = tl.checkpointIntervalMs ?? null;
    if (interval !== null) {
      const n = (event === INTERRUPTION ? 1 : 0) + ((codeAt(c, j) & UNOBSERVED_BIT) !== 0 ? unobservedAt(tl, j)!.interruptions : 0);
      acc[CHECKPOINT_LOSS]! += (n * interval) / 2;
    }
    if (event === INTERRUPTION) {
      acc[INTERRUPTIONS]! += 1;
      acc[MEASURED_INTERRUPTIONS]! += 1;
      acc[INTERRUPTED_UP]! += at - s;
    } else if (event === RECOVERY) {
      acc[RECOVERIES]! += 1;
      acc[MEASURED_RECOVERIES]! += 1;
      acc[RECOVERED_DOWN]! += at - s;
    }
    if ((codeAt(c, j) & UNOBSERVED_BIT) !== 0) {
      const unobserved = unobservedAt(tl, j)!;
      acc[INTERRUPTIONS]! += unobserved.interruptions;
      acc[RECOVERIES]! += unobserved.recoveries;
    }
  }
  const f = FIELD_OF[code]!;
  if (f >= 0) {
    acc[f]! += 1;
    acc[W + f]! += tau;
    weigh(tl, f, 1, tau, acc);
    // Suspended before the first start is queued (an answer that never changes once given).
    if (code === SUSPENDED_CODE && queuedAt(c, j)) {
      acc[QUEUED]! += 1;
      acc[W + QUEUED]! += tau;
    }
  }
  if (code === UP_CODE || code >= TERMINAL_FROM) {
    const first = firstUp(tl);
    if (code === UP_CODE && first?.index === j) {
      acc[FIRST_UP_SUM]! += first.firstUpAt - first.startedAt;
      acc[FIRST_UPS]! += 1;
    }
    if (code >= TERMINAL_FROM) {
      acc[ENDED]! += 1;
      if (first !== null) {
        acc[ENDED_FIRST_UP_SUM]! += first.firstUpAt - first.startedAt;
        acc[ENDED_FIRST_UPS]! += 1;
      }
    }
  }
}

/**
 * The positions of `at` in ascending order of time, ties in the order given: what
 * sort((x, y) => at[x] − at[y] || x − y) of the positions gives, from one native sort of numbers
 * (a restore sorts millions of events at once, and a comparator called from the sort costs ~7× as
 * much). Each key is the time, from the earliest, times a power of two above the count, plus the
 * position: exact while it stays a safe integer (whole-millisecond times over about 100 days for a
 * million events); otherwise the comparator's sort.
 */
function sortedOrder(at: readonly number[]): ArrayLike<number> {
  const count = at.length;
  let min = Infinity;
  let max = -Infinity;
  let whole = true;
  for (let i = 0; i < count; i++) {
    const t = at[i]!;
    if (t < min) min = t;
    if (t > max) max = t;
    if (!Number.isInteger(t)) whole = false;
  }
  const scale = 2 ** Math.ceil(Math.log2(count + 1));
  if (!whole || (max - min + 1) * scale > Number.MAX_SAFE_INTEGER) return Array.from({ length: count }, (_, k) => k).sort((x, y) => at[x]! - at[y]! || x - y);
  const keys = new Float64Array(count);
  for (let i = 0; i < count; i++) keys[i] = (at[i]! - min) * scale + i;
  keys.sort();
  const order = new Uint32Array(count);
  for (let i = 0; i < count; i++) order[i] = keys[i]! % scale;
  return order;
}

/** One partition's events, sorted by time, with the sums before every K-th event. */
class Partition {
  readonly cluster: string | undefined;
  readonly namespace: string;
  /** The value the index groups by besides cluster and namespace ('' when none). */
  readonly group: string;
  origin = NaN;
  // Each event's time, timeline and transition (event-columns.ts: 4 + 2 + 2 bytes an event, mostly).
  readonly times = new EventTimes();
  /**
   * Its events' timelines, each once, in the order of their first events (a run's ~6 events share
   * one pointer): an event's timeline is its place here (`owners`: a block of events' places lie
   * close, 2 bytes each). A timeline listed twice would cost a pointer, never an answer: only
   * `timelines[owners.at(e)]` is read.
   */
  timelines: Timeline[] = [];
  owners = new NearNumbers();
  readonly indices = new SmallNumbers();
  length = 0;
  /** The table's length when it was last cut to its size (prepare): it is cut again only when it changed. */
  #timelinesTrimmed = -1;
  /** Events not yet placed (appended as they come, sorted in on the next read or when many wait). */
  pendingAt: number[] = [];
  pendingOwners: Timeline[] = [];
  pendingIndices: number[] = [];
  checkpoints: Float64Array<ArrayBufferLike> = new Float64Array(ACC * 8);
  /** Checkpoints 0 … valid − 1 are true (checkpoint i: the sums of events before i·K). */
  valid = 1;
  readonly #scratch = new Float64Array(ACC);
  /** One event's own sums, taken back from a later checkpoint's (sumsAt). */
  readonly #one = new Float64Array(ACC);
  /**
   * C(t) at times already asked (KEPT numbers each). Dashboards ask the same step-aligned times on
   * every refresh, each of its own "now"; C(t) depends only on the events at or before t, so a kept
   * value stays exact until such an event is placed (#settle forgets those from its time on).
   * Two generations: a time asked again moves to the newer one, the older is dropped when the newer
   * fills, so times asked once (a request's own "now") do not push out those asked on every refresh.
   */
  #kept = new Map<number, Float64Array>();
  #keptBefore = new Map<number, Float64Array>();
  /** The latest time kept (−∞: none), so that events after every kept time cost no look. */
  #keptUntil = -Infinity;

  constructor(cluster: string | undefined, namespace: string, group: string) {
    this.cluster = cluster;
    this.namespace = namespace;
    this.group = group;
  }

  /** Whether the pending events came in time order, after every placed one: then placing them is appending. */
  #appending = true;

  add(tl: Timeline, j: number, at: number): void {
    if (Number.isNaN(this.origin)) this.origin = at;
    const last = this.pendingAt.length > 0 ? this.pendingAt[this.pendingAt.length - 1]! : this.length > 0 ? this.times.at(this.length - 1) : -Infinity;
    if (at < last) this.#appending = false;
    this.pendingAt.push(at);
    this.pendingOwners.push(tl);
    this.pendingIndices.push(j);
    // A live stream comes nearly in order: place it as it comes. Timelines taken in whole (a restore)
    // come out of order: they wait for one sort when first read, not a merge every few thousand.
    if (this.pendingAt.length >= (this.#appending ? 4096 : 1 << 20)) this.#settle();
  }

  /** Sums every event again on the next read: a timeline's goodput inputs (what weigh reads) changed. */
  resum(): void {
    this.#settle();
    this.valid = 1;
    this.#forgetFrom(-Infinity);
  }

  /** Drops the events of timelines no longer kept. */
  drop(gone: ReadonlySet<Timeline>): void {
    this.#settle();
    // Each listed timeline's new place (−1: gone), the kept ones in their order.
    const placeOf = new Int32Array(this.timelines.length);
    const timelines: Timeline[] = [];
    for (let n = 0; n < this.timelines.length; n++) {
      const tl = this.timelines[n]!;
      placeOf[n] = gone.has(tl) ? -1 : timelines.push(tl) - 1;
    }
    if (timelines.length === this.timelines.length) return;
    const times: number[] = [];
    const owners: number[] = [];
    const indices: number[] = [];
    for (let r = 0; r < this.length; r++) {
      const n = placeOf[this.owners.at(r)]!;
      if (n < 0) continue;
      times.push(this.times.at(r));
      owners.push(n);
      indices.push(this.indices.at(r));
    }
    this.times.replaceFrom(0, times);
    this.indices.replaceFrom(0, indices);
    this.owners = new NearNumbers();
    this.owners.replaceFrom(0, owners);
    this.timelines = timelines;
    this.length = owners.length;
    this.valid = 1;
    this.#forgetFrom(-Infinity);
  }

  /** Forgets the kept C(t) of every t at or after `from`: an event at `from` changed them. */
  #forgetFrom(from: number): void {
    if (from > this.#keptUntil) return;
    for (const kept of [this.#kept, this.#keptBefore]) {
      for (const t of kept.keys()) if (t >= from) kept.delete(t);
    }
    this.#keptUntil = -Infinity;
    for (const kept of [this.#kept, this.#keptBefore]) for (const t of kept.keys()) if (t > this.#keptUntil) this.#keptUntil = t;
  }

  /** The kept C(t), moved to the newer generation when found in the older; undefined when not kept. */
  #keptAt(t: number): Float64Array | undefined {
    const kept = this.#kept.get(t);
    if (kept !== undefined) return kept;
    const before = this.#keptBefore.get(t);
    if (before !== undefined) this.#keep(t, before);
    return before;
  }

  #keep(t: number, value: Float64Array): void {
    if (this.#kept.size >= KEPT_TIMES) {
      this.#keptBefore = this.#kept;
      this.#kept = new Map();
    }
    this.#kept.set(t, value);
    if (t > this.#keptUntil) this.#keptUntil = t;
  }

  /** How many events it holds (placed and pending). */
  get size(): number {
    return this.length + this.pendingAt.length;
  }

  get maxTime(): number {
    this.#settle();
    return this.length > 0 ? this.times.at(this.length - 1) : -Infinity;
  }

  /** Sorts pending events in. Live streams arrive nearly in order, so usually this appends. */
  #settle(): void {
    const count = this.pendingAt.length;
    if (count === 0) return;
    this.#appending = true;
    const at = this.pendingAt;
    const owners = this.pendingOwners;
    const pendingIndices = this.pendingIndices;
    this.pendingAt = [];
    this.pendingOwners = [];
    this.pendingIndices = [];
    // Their timelines' places, found (or listed) before the merge moves the placed events.
    const places = this.#placesOf(owners, pendingIndices);
    let order: ArrayLike<number> | null = null;
    for (let i = 1; i < count; i++) {
      if (at[i]! < at[i - 1]!) {
        order = sortedOrder(at);
        break;
      }
    }
    const earliest = at[order === null ? 0 : order[0]!]!;
    // The placed events after the earliest pending one are merged with the pending (a placed one
    // first at a tie), from the back, into scratch columns written back from there on (a live
    // stream's merge is an append). Every placed one from `kept` on is after the earliest pending
    // one, so all of them move.
    const kept = this.times.count(earliest);
    const total = this.length - kept + count;
    const times = new Float64Array(total);
    const indices = new Uint32Array(total);
    const merged = new Uint32Array(total);
    let r = this.length - 1;
    let w = total - 1;
    for (let p = count - 1; p >= 0; p--) {
      const e = order === null ? p : order[p]!;
      const t = at[e]!;
      for (; r >= kept && this.times.at(r) > t; r--, w--) {
        times[w] = this.times.at(r);
        indices[w] = this.indices.at(r);
        merged[w] = this.owners.at(r);
      }
      times[w] = t;
      indices[w] = pendingIndices[e]!;
      merged[w] = places[e]!;
      w--;
    }
    this.times.replaceFrom(kept, times);
    this.indices.replaceFrom(kept, indices);
    // A batch of many (a restore, a selection's build) lists the timelines again, in the order of
    // their first events, every place with them: appended after the table, a batch's new timelines
    // would lie far from the placed ones their events are merged among (NearNumbers). At most once
    // for every eighth of the partition that comes, so a live stream's appends do not pay for it.
    if (count >= this.length >> 3) {
      const places = new Uint32Array(kept + total);
      for (let e = 0; e < kept; e++) places[e] = this.owners.at(e);
      places.set(merged, kept);
      this.#listInOrder(places);
      this.owners = new NearNumbers();
      this.owners.replaceFrom(0, places);
    } else this.owners.replaceFrom(kept, merged);
    this.length = kept + total;
    // Checkpoints after the first event that moved are redone.
    this.valid = Math.min(this.valid, Math.floor(kept / K) + 1);
    this.#forgetFrom(earliest);
    if (earliest < this.origin) {
      // W sums are relative to the origin: an event before it redoes every checkpoint.
      this.origin = earliest;
      this.valid = 1;
    }
  }

  /**
   * Lists the timelines again in the order of their first events in `places` (every event's), and
   * the places with them: a restore's come in the engine's order, and the places of a block of
   * events lie close only in the order of time (NearNumbers).
   */
  #listInOrder(places: Uint32Array): void {
    const placeOf = new Int32Array(this.timelines.length).fill(-1);
    const listed: Timeline[] = [];
    for (let e = 0; e < places.length; e++) {
      const n = places[e]!;
      let m = placeOf[n]!;
      if (m < 0) m = placeOf[n] = listed.push(this.timelines[n]!) - 1;
      places[e] = m;
    }
    this.timelines = listed;
  }

  /**
   * The places in `timelines` of the pending events' timelines (in the pending order), each new one
   * listed. A timeline's first transition is new to the partition; a later one's timeline is the
   * one before it in the batch, one seen earlier in it, or found at its previous transition's placed
   * event (a live stream's; a restore gives each timeline's transitions together).
   */
  #placesOf(owners: readonly Timeline[], indices: readonly number[]): Uint32Array {
    const places = new Uint32Array(owners.length);
    let seen: Map<Timeline, number> | null = null;
    for (let i = 0; i < owners.length; i++) {
      const tl = owners[i]!;
      if (i > 0 && owners[i - 1] === tl) {
        places[i] = places[i - 1]!;
        continue;
      }
      const j = indices[i]!;
      let n = j === 0 ? -1 : (seen?.get(tl) ?? this.#placedAt(tl, j - 1));
      if (n < 0) n = this.timelines.push(tl) - 1;
      places[i] = n;
      (seen ??= new Map()).set(tl, n);
    }
    return places;
  }

  /** The place in `timelines` of `tl`, read from its placed event of transition j; −1 when not found. */
  #placedAt(tl: Timeline, j: number): number {
    if (j >= transitionCount(tl)) return -1;
    const t = transitionTime(tl, j);
    // Events at one time are few in a fleet; a crowd of them is looked through only so far (not
    // found: the timeline is listed again, a pointer more).
    for (let r = this.times.count(t) - 1, looked = 0; r >= 0 && looked < TIES_LOOKED && this.times.at(r) === t; r--, looked++) {
      const n = this.owners.at(r);
      if (this.indices.at(r) === j && this.timelines[n] === tl) return n;
    }
    return -1;
  }

  #checkpoint(i: number): number {
    // Checkpoints 0 … i are written: (i + 1) · ACC numbers, the most that a read of every event needs.
    const count = Math.floor(this.length / K) + 1;
    if (count * ACC > this.checkpoints.length) {
      const grown = new Float64Array(Math.max((count + 1) * ACC, this.checkpoints.length + (this.checkpoints.length >> 3)));
      grown.set(this.checkpoints.subarray(0, this.valid * ACC));
      this.checkpoints = grown;
    }
    if (this.valid === 1) this.checkpoints.fill(0, 0, ACC);
    const acc = this.#scratch;
    for (; this.valid <= i; this.valid++) {
      const v = this.valid;
      acc.set(this.checkpoints.subarray((v - 1) * ACC, v * ACC));
      for (let e = (v - 1) * K; e < v * K; e++) addEvent(this.timelines[this.owners.at(e)]!, this.indices.at(e), this.origin, acc);
      this.checkpoints.set(acc, v * ACC);
    }
    return i * ACC;
  }

  /** Places every pending event and takes every sum, so that the next read costs only itself. */
  prepare(): void {
    this.#settle();
    this.#checkpoint(Math.floor(this.length / K));
    // Built: the room its arrays grew by is given back (live growth takes an eighth more at a time).
    this.times.trim();
    this.indices.trim();
    this.owners.trim();
    if (this.timelines.length !== this.#timelinesTrimmed) {
      this.timelines = this.timelines.slice();
      this.#timelinesTrimmed = this.timelines.length;
    }
    if (this.checkpoints.length > this.valid * ACC) this.checkpoints = this.checkpoints.slice(0, this.valid * ACC);
  }

  /** The bytes its columns and sums take (its table of timelines: a pointer of 8 bytes each, on the heap). */
  get bytes(): { times: number; indices: number; owners: number; timelines: number; checkpoints: number } {
    return { times: this.times.bytes, indices: this.indices.bytes, owners: this.owners.bytes, timelines: 8 * this.timelines.length, checkpoints: this.checkpoints.byteLength };
  }

  /**
   * Adds the sums at each of `times` (ascending), each clipped to `clip`, into `out` (ACC numbers a
   * time). One sweep: from one time to the next it adds the events in between, or starts again from
   * a checkpoint when that is closer, so a series of many points costs about the events it spans;
   * a time asked before costs a look-up (#kept). `keep`: whether to keep the times asked (those of
   * a series' steps, which the next refresh asks again; not a single window's, which ends at its own "now").
   * Sums are of whole numbers (and halves), so the order they are added in does not change them.
   */
  sumsAt(times: ArrayLike<number>, clip: number, out: Float64Array, keep: boolean): void {
    this.#settle();
    if (this.length === 0) return;
    const acc = this.#scratch;
    // Events [0, placed) are in acc; -1: nothing is yet.
    let placed = -1;
    for (let k = 0; k < times.length; k++) {
      const t = Math.min(times[k]!, clip);
      let value = this.#keptAt(t);
      if (value === undefined) {
        const m = this.times.count(t);
        const i = Math.floor(m / K);
        const onward = placed >= i * K && placed <= m ? m - placed : m - i * K;
        // From the next checkpoint back, when it is nearer: its sums less the events from m on (a
        // checkpoint's gap costs at most K / 2 events either way). Exact as adding them is: the sums
        // are whole numbers (and halves), each event's the same whichever way it is counted.
        const next = (i + 1) * K;
        if (next <= this.length && next - m < onward) {
          const o = this.#checkpoint(i + 1);
          acc.set(this.checkpoints.subarray(o, o + ACC));
          const one = this.#one;
          for (let e = next - 1; e >= m; e--) {
            one.fill(0);
            addEvent(this.timelines[this.owners.at(e)]!, this.indices.at(e), this.origin, one);
            for (let f = 0; f < ACC; f++) acc[f]! -= one[f]!;
          }
        } else {
          if (placed < i * K || placed > m) {
            // #checkpoint works in the scratch too: take the checkpoint first, then copy it.
            const o = this.#checkpoint(i);
            acc.set(this.checkpoints.subarray(o, o + ACC));
            placed = i * K;
          }
          for (let e = placed; e < m; e++) addEvent(this.timelines[this.owners.at(e)]!, this.indices.at(e), this.origin, acc);
        }
        placed = m;
        value = this.#emit(acc, t);
        if (keep) this.#keep(t, value);
      }
      const at = k * ACC;
      for (let f = 0; f < FIELDS; f++) out[at + f]! += value[f]!;
      for (let f = CREATED; f < ACC; f++) out[at + f]! += value[FIELDS + f - CREATED]!;
    }
  }

  /** The sums of `acc` at time t, as kept: durations as rate·t − W (t relative to the origin), then CREATED … ACC. */
  #emit(acc: Float64Array, t: number): Float64Array {
    const value = new Float64Array(KEPT);
    const rel = Number.isNaN(this.origin) ? 0 : t - this.origin;
    for (let f = 0; f < FIELDS; f++) value[f] = ACCRUES_WITH_TIME[f] ? acc[f]! * rel - acc[W + f]! : acc[f]!;
    for (let f = CREATED; f < ACC; f++) value[FIELDS + f - CREATED] = acc[f]!;
    return value;
  }
}

/** The sums behind a window's pooled figures, for one group of partitions. */
export interface PooledWindow {
  /** The window's totals (FIELDS numbers, as windowTotals gives one timeline's). */
  totals: Float64Array;
  /** JobSets that lived in the window. */
  count: number;
  /** The mean time to first up of those that came up by the window's end, in seconds; null if none. */
  timeToFirstUpSeconds: number | null;
}

/**
 * Which timelines an index keeps, and the value it groups them by besides cluster and namespace.
 * Both read only what a timeline cannot change but its labels: an owner tells the index when labels
 * change (`relabeled`), and an index whose choice reads them is built again.
 */
export interface IndexScope {
  accepts?(tl: Timeline): boolean;
  groupOf?(tl: Timeline): string;
}

/**
 * One partition of an index as plain typed arrays: its events sorted by time (each its time, its
 * timeline's position in a list the caller keeps, its transition's index) and the sums before every
 * K-th (checkpoints 0 … valid − 1, ACC numbers each; W sums relative to `origin`).
 */
export interface PartitionImage {
  cluster: string | null;
  namespace: string;
  group: string;
  origin: number;
  times: Float64Array;
  owners: Uint32Array;
  indices: Uint32Array;
  checkpoints: Float64Array;
}

/** What an index holds once sorted and summed (FleetIndex.image): a snapshot keeps it so that a start need not sort and sum every transition again. */
export interface FleetIndexImage {
  /** The sums' layout: an image of another layout is refused. */
  layout: string;
  partitions: PartitionImage[];
}

/** A partition's key in an index's map of them. */
function partitionKey(cluster: string | undefined, namespace: string, group: string): string {
  return `${cluster ?? ''}\u0000${namespace}\u0000${group}`;
}

/**
 * Where an image's check (FleetIndex.adopt) finds each held transition's time: `expected`, the held
 * transitions' times laid out partition by partition, each timeline's together (partition n's from
 * from[n] to to[n]), so that a partition's events check one stretch of memory; timeline i's at
 * bounds[2i] up to bounds[2i + 1], side by side (one read an event). Or why the image cannot be theirs.
 */
function heldMarks(image: FleetIndexImage, timelines: readonly Timeline[], held: ArrayLike<number>): { expected: Float64Array; bounds: Int32Array; from: Int32Array; to: Int32Array } | string {
  const numbers = new Map<string, number>();
  for (const [n, pi] of image.partitions.entries()) {
    const key = partitionKey(pi.cluster ?? undefined, pi.namespace, pi.group);
    if (numbers.has(key) || pi.group !== '') return `partition ${n} (${pi.namespace}) is there twice, or of a group`;
    numbers.set(key, n);
  }
  const partitions = image.partitions.length;
  // Each timeline's partition (timelines come a namespace at a time: its key is made once a run of them).
  const partitionOf = new Int32Array(held.length);
  const sizes = new Float64Array(partitions);
  let n = -1;
  for (let i = 0; i < held.length; i++) {
    const tl = timelines[i]!;
    const previous = timelines[i - 1];
    if (i === 0 || tl.namespace !== previous!.namespace || tl.cluster !== previous!.cluster) n = numbers.get(partitionKey(tl.cluster, tl.namespace, '')) ?? -1;
    partitionOf[i] = n;
    if (held[i]! > transitionCount(tl)) return `timeline ${i} has fewer transitions than it holds`;
    if (held[i]! > 0 && n < 0) return `timeline ${i} holds transitions, and its partition is not there`;
    if (n >= 0) sizes[n]! += held[i]!;
  }
  // Marks are int32s, read as such by the check of every event (no conversions there).
  let total = 0;
  for (let p = 0; p < partitions; p++) total += sizes[p]!;
  if (total > 0x7fff_ffff) return `its timelines hold ${total} transitions, more than a check counts`;
  const from = new Int32Array(partitions);
  const to = new Int32Array(partitions);
  for (let p = 0, at = 0; p < partitions; p++) {
    from[p] = at;
    to[p] = at += sizes[p]!;
  }
  const expected = new Float64Array(total);
  const bounds = new Int32Array(2 * held.length);
  const next = from.slice();
  for (let i = 0; i < held.length; i++) {
    const p = partitionOf[i]!;
    if (p < 0) continue;
    const start = next[p]!;
    const h = held[i]!;
    bounds[2 * i] = start;
    bounds[2 * i + 1] = next[p] = start + h;
    const tl = timelines[i]!;
    for (let j = 0; j < h; j++) expected[start + j] = transitionTime(tl, j);
  }
  return { expected, bounds, from, to };
}

export class FleetIndex {
  readonly #partitions = new Map<string, Partition>();
  readonly #scope: IndexScope;

  /** A scoped index's choice per timeline (its group, or null: not kept), made once: it grows on every transition. */
  readonly #chosen = new WeakMap<Timeline, string | null>();

  /** `scope`: absent for the whole fleet by cluster and namespace (the service's own index). */
  constructor(scope: IndexScope = {}) {
    this.#scope = scope;
  }

  #groupOf(tl: Timeline): string | null {
    const { accepts, groupOf } = this.#scope;
    if (accepts === undefined && groupOf === undefined) return '';
    let group = this.#chosen.get(tl);
    if (group === undefined) {
      group = accepts === undefined || accepts(tl) ? (groupOf?.(tl) ?? '') : null;
      this.#chosen.set(tl, group);
    }
    return group;
  }

  /** Takes in the timeline's transitions from index `from` on (all of them, for a new timeline). */
  grew(tl: Timeline, from = 0): void {
    const group = this.#groupOf(tl);
    if (group === null) return;
    if (from >= transitionCount(tl)) return;
    const key = partitionKey(tl.cluster, tl.namespace, group);
    let p = this.#partitions.get(key);
    if (p === undefined) this.#partitions.set(key, (p = new Partition(tl.cluster, tl.namespace, group)));
    for (let j = from, n = transitionCount(tl); j < n; j++) p.add(tl, j, transitionTime(tl, j));
  }

  /**
   * The timeline's accelerators or checkpoint interval changed: its partition's sums, taken with the
   * old ones, are taken again on the next read (the per-JobSet path weighs its whole life with the
   * new ones, and the index answers as it does).
   */
  reweighed(tl: Timeline): void {
    const group = this.#groupOf(tl);
    if (group === null) return;
    this.#partitions.get(partitionKey(tl.cluster, tl.namespace, group))?.resum();
  }

  /**
   * Does now what the first read would: after a restart or a replay, every stored transition is
   * sorted in and summed once (seconds for millions), before the service says it is ready.
   */
  prepare(): void {
    for (const p of this.#partitions.values()) p.prepare();
  }

  /**
   * The index sorted and summed, as typed arrays, its events' timelines given by `positionOf` (their
   * places in a snapshot); null for an index of a selection, or when a timeline has no place (the
   * image would not be of the timelines kept). Sorts and sums what waits first, as a read would.
   */
  image(positionOf: (tl: Timeline) => number | undefined): FleetIndexImage | null {
    if (this.#scope.accepts !== undefined || this.#scope.groupOf !== undefined) return null;
    const partitions: PartitionImage[] = [];
    for (const p of this.#partitions.values()) {
      p.prepare();
      if (p.length === 0) continue;
      // Each listed timeline's position asked once, not once an event.
      const positions = new Uint32Array(p.timelines.length);
      for (let n = 0; n < p.timelines.length; n++) {
        const at = positionOf(p.timelines[n]!);
        if (at === undefined) return null;
        positions[n] = at;
      }
      const owners = new Uint32Array(p.length);
      for (let e = 0; e < p.length; e++) owners[e] = positions[p.owners.at(e)]!;
      partitions.push({
        cluster: p.cluster ?? null,
        namespace: p.namespace,
        group: p.group,
        origin: p.origin,
        times: p.times.toFloat64(),
        owners,
        indices: p.indices.toUint32(),
        checkpoints: p.checkpoints.subarray(0, p.valid * ACC),
      });
    }
    return { layout: LAYOUT, partitions };
  }

  /**
   * Takes in an image (`image`) of the index of `timelines`, where timeline i had its first held[i]
   * transitions, instead of sorting and summing them again. Only when it is exactly theirs: every
   * event one transition at its own time, in its timeline's partition, sorted, and every transition
   * held there once; else nothing is taken and the reason is returned (the caller builds the index as
   * before). `timelines` are all the index is to hold (an engine's, just restored: it subscribes the
   * index without telling it of them again, TimelineEngine.subscribe); their transitions after the
   * held ones are taken in as grew takes them. The image's arrays are copied into the index's own
   * (fewer bytes an event), and not kept. `resum`: positions of
   * timelines whose goodput inputs changed since: their partitions' sums are taken again.
   */
  adopt(image: FleetIndexImage, timelines: readonly Timeline[], held: ArrayLike<number>, resum: ReadonlySet<number> = new Set()): string | null {
    if (this.#partitions.size > 0 || this.#scope.accepts !== undefined || this.#scope.groupOf !== undefined) return 'the index is not empty, or of a selection';
    const spacing = imageSpacing(image.layout);
    if (spacing === null) return `its layout (${image.layout}) is not this Upness's (${LAYOUT}) nor one it reads`;
    const stride = K / spacing;
    if (held.length > timelines.length) return `it holds ${held.length} timelines, of ${timelines.length}`;
    const marks = heldMarks(image, timelines, held);
    if (typeof marks === 'string') return marks;
    const { expected, bounds, from, to } = marks;
    let count = 0;
    const adopted: Partition[] = [];
    // Each timeline's place in its partition's table (−1: not listed yet); a timeline is of one partition (checked below).
    const placeOf = new Int32Array(held.length).fill(-1);
    for (const [n, pi] of image.partitions.entries()) {
      const length = pi.times.length;
      const where = `partition ${n} (${pi.namespace})`;
      if (pi.owners.length !== length || pi.indices.length !== length) return `${where} has ${length} times, ${pi.owners.length} timelines and ${pi.indices.length} indices`;
      const valid = pi.checkpoints.length / ACC;
      if (!Number.isInteger(valid) || valid < 1 || valid > Math.floor(length / spacing) + 1) return `${where} has ${pi.checkpoints.length} sums for ${length} events`;
      for (let f = 0; f < ACC; f++) if (pi.checkpoints[f] !== 0) return `${where} does not start from zero`;
      let redo = false;
      const { times, owners: places, indices } = pi;
      // This partition's marks: a timeline's lie in it only when the timeline is of this partition.
      const lo = from[n]!;
      const hi = to[n]!;
      let before = -Infinity;
      for (let e = 0; e < length; e++) {
        const at = places[e]!;
        const j = indices[e]!;
        const t = times[e]!;
        if (at >= held.length || j >= bounds[2 * at + 1]! - bounds[2 * at]!) return `${where}: event ${e} is of transition ${j} of timeline ${at}, which it does not hold`;
        const mark = bounds[2 * at]! + j;
        if (mark < lo || mark >= hi) return `${where}: event ${e} is of a timeline of another partition`;
        if (expected[mark] !== t || t < before) return `${where}: event ${e} is not at its transition's time, in order, once`;
        expected[mark] = NaN;
        before = t;
      }
      count += length;
      if (resum.size > 0) for (let e = 0; e < length && !redo; e++) redo = resum.has(places[e]!);
      // Its timelines, each once in the order of their first events, in a loop of their own: the
      // loads do not wait on the check's. Pushed, not preallocated: an array made with holes stays
      // slower to read.
      const listed: Timeline[] = [];
      const owners = new Uint32Array(length);
      for (let e = 0; e < length; e++) {
        const at = places[e]!;
        let n = placeOf[at]!;
        if (n < 0) n = placeOf[at] = listed.push(timelines[at]!) - 1;
        owners[e] = n;
      }
      if (length > 0 && !(pi.origin <= times[0]!)) return `${where}: its origin is after its first event`;
      // Copied into the index's own columns: the part read from disk (every event's 16 bytes and its
      // timeline's place, which the index does not keep) is then let go.
      const p = new Partition(pi.cluster ?? undefined, pi.namespace, pi.group);
      p.origin = length > 0 ? pi.origin : NaN;
      p.times.replaceFrom(0, times);
      p.timelines = listed;
      p.owners.replaceFrom(0, owners);
      p.indices.replaceFrom(0, indices);
      p.length = length;
      const ours = redo ? 1 : Math.floor((valid - 1) / stride) + 1;
      p.checkpoints = new Float64Array(ours * ACC);
      for (let i = 0; i < ours; i++) p.checkpoints.set(pi.checkpoints.subarray(i * stride * ACC, (i * stride + 1) * ACC), i * ACC);
      p.valid = ours;
      adopted.push(p);
    }
    if (count !== expected.length) return `it holds ${count} of the ${expected.length} transitions`;
    for (const p of adopted) this.#partitions.set(partitionKey(p.cluster, p.namespace, p.group), p);
    // What the timelines gained after the image (the log): placed on the next read, as ever.
    for (let i = 0; i < timelines.length; i++) {
      const tl = timelines[i]!;
      const had = i < held.length ? held[i]! : 0;
      if (transitionCount(tl) > had) this.grew(tl, had);
    }
    return null;
  }

  /** How many events (transitions) it holds: what it costs in memory. */
  events(): number {
    let n = 0;
    for (const p of this.#partitions.values()) n += p.size;
    return n;
  }

  /** Forgets timelines (retention). */
  forgot(timelines: readonly Timeline[]): void {
    if (timelines.length === 0) return;
    const gone = new Set(timelines);
    for (const p of this.#partitions.values()) p.drop(gone);
  }

  /** The partitions a query keeps: of these clusters and namespaces (empty or absent: all). */
  partitions(clusters?: readonly string[], namespaces?: readonly string[]): Partition[] {
    const c = clusters && clusters.length > 0 ? new Set(clusters) : null;
    const n = namespaces && namespaces.length > 0 ? new Set(namespaces) : null;
    return [...this.#partitions.values()].filter((p) => (c === null || c.has(p.cluster ?? '')) && (n === null || n.has(p.namespace)));
  }

  /** Whether C(t) is exact for these partitions up to `horizon`: no event lies past it. */
  covers(partitions: readonly Partition[], horizon: number): boolean {
    return partitions.every((p) => p.maxTime <= horizon);
  }

  /**
   * Pooled sums over (from, to] of `partitions`, with the count and time to first up of the JobSets
   * that lived in the window (series/summary.ts livedIn: created by `to`, not ended by `from`).
   * Exact when `covers` holds.
   */
  window(partitions: readonly Partition[], horizon: number, from: number, to: number): PooledWindow {
    return this.windows(partitions, horizon, [from, to], [0], [1])[0]!;
  }

  /**
   * Pooled sums over many windows (times[starts[k]], times[ends[k]]] at once: each boundary is
   * evaluated once however many windows share it (a series' steps do). `times` sorted ascending.
   */
  windows(partitions: readonly Partition[], horizon: number, times: ArrayLike<number>, starts: ArrayLike<number>, ends: ArrayLike<number>): PooledWindow[] {
    const at = new Float64Array(times.length * ACC);
    // A series' steps are asked again on the next refresh; a window or two of a range are not.
    const keep = times.length > KEEP_FROM_TIMES;
    for (const p of partitions) p.sumsAt(times, horizon, at, keep);
    const out: PooledWindow[] = [];
    for (let w = 0; w < starts.length; w++) {
      const a = starts[w]! * ACC;
      const b = ends[w]! * ACC;
      const totals = new Float64Array(FIELDS);
      for (let f = 0; f < FIELDS; f++) totals[f] = at[b + f]! - at[a + f]!;
      // Lived in the window: created by its end, less those that ended by its start (one that ended
      // exactly at it did not live in it). A window that begins past the horizon holds no one: an
      // open JobSet is alive up to the horizon only, and every other has ended by then.
      if (times[starts[w]!]! > horizon) {
        out.push({ totals, count: 0, timeToFirstUpSeconds: null });
        continue;
      }
      const ups = at[b + FIRST_UPS]! - at[a + ENDED_FIRST_UPS]!;
      out.push({
        totals,
        count: at[b + CREATED]! - at[a + ENDED]!,
        timeToFirstUpSeconds: ups > 0 ? (at[b + FIRST_UP_SUM]! - at[a + ENDED_FIRST_UP_SUM]!) / ups / 1000 : null,
      });
    }
    return out;
  }
}

export type { Partition };
