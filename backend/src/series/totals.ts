// Additive totals of a timeline, accumulated from its creation up to a given time.
// Every figure over a window (a, b] is derived from C(b) − C(a): durations clipped to the window,
// events counted when a < t ≤ b. One sweep gives C at many times, which serves single windows,
// step buckets, rolling windows and cumulative series alike.

import { closedAt, lastAt, timelineColumns, unobservedAt, type Timeline, type Transitions } from '../timeline/types.ts';
import { CLOSED_FROM, codeAt, eventOf, INTERRUPTION, keepLife, RECOVERY, startOf, SUSPENDED_CODE, timeAt, UNOBSERVED_BIT, type Columns } from './columns.ts';
import {
  ACCELERATOR_LOST,
  ACCELERATOR_UP,
  BASE_FIELDS,
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
  SUSPENDED,
  UNKNOWN,
  UP,
} from './totals-layout.ts';

// The layout lives in totals-layout.ts (a leaf the figure definitions read); the sweeps below fill it.
export * from './totals-layout.ts';

/**
 * Fills the goodput fields of the totals at `o` from its base fields and the timeline's constants.
 * Linear, so it holds for C(t) and for C(b) − C(a) alike.
 */
export function addGoodput(timeline: Timeline, out: Float64Array, o: number): void {
  addGoodputWith(timeline.accelerators ?? 0, timeline.checkpointIntervalMs ?? null, out, o);
}

/** addGoodput with the timeline's constants given: `a` accelerators, `interval` its checkpoint interval (null: none). */
export function addGoodputWith(a: number, interval: number | null, out: Float64Array, o: number): void {
  const up = out[o + UP]!;
  out[o + ACCELERATOR_UP] = a * up;
  out[o + ACCELERATOR_LOST] = a * (out[o + PROVISIONING]! + out[o + INTERRUPTION_DOWN]! + out[o + UNKNOWN]!);
  if (interval === null) {
    out[o + CHECKPOINTED_UP] = 0;
    out[o + CHECKPOINTED_WALL] = 0;
    out[o + CHECKPOINT_LOSS] = 0;
  } else {
    out[o + CHECKPOINTED_UP] = up;
    out[o + CHECKPOINTED_WALL] = up + out[o + PROVISIONING]! + out[o + INTERRUPTION_DOWN]! + out[o + SUSPENDED]! + out[o + UNKNOWN]!;
    out[o + CHECKPOINT_LOSS] = (out[o + INTERRUPTIONS]! * interval) / 2;
  }
}

// Scratch space reused by every call: allocating typed arrays per query made the garbage collector
// the main cost over large fleets. Safe: the code using them is synchronous and never re-entered.
const ACC = new Float64Array(FIELDS);
const WINDOW_TIMES = new Float64Array(2);
const WINDOW_C = new Float64Array(2 * FIELDS);

/** The totals field each state code (columns.ts) accrues time in; -1: terminal, nothing accrues. */
export const FIELD_OF = Int8Array.from([UP, PROVISIONING, INTERRUPTION_DOWN, SUSPENDED, UNKNOWN, -1, -1, -1]);

/** When the timeline first left suspension (or was created active): its first start. */
export function startedAt(timeline: Timeline): number | null {
  const start = startOf(timelineColumns(timeline));
  return start === Infinity ? null : start;
}

/** When accrual stops: the terminal transition, or the horizon for a timeline still open. */
export function endOf(timeline: Timeline, horizon: number): number {
  const closed = closedAt(timeline);
  return closed !== Infinity ? closed : Math.max(horizon, lastAt(timeline));
}

/** endOf read from the timeline's columns (a sweep has them already; the timeline's own reads would make them again). */
function columnsEnd(c: Columns, horizon: number): number {
  const n = c.length;
  if (n === 0) return horizon;
  const last = timeAt(c, n - 1);
  return (codeAt(c, n - 1) & 7) >= CLOSED_FROM ? last : Math.max(horizon, last);
}

/**
 * Writes C(times[k]) for every k into `out` (FIELDS numbers per time, overwritten).
 * `times` must be sorted ascending. `horizon` is the time up to which an open timeline is observed.
 */
/** Adds the closed segment i (at[i] → at[i+1]) whole, and the events of entering transition i + 1. */
function addSegment(tl: Transitions, c: Columns, i: number, acc: Float64Array): void {
  const s = timeAt(c, i);
  const e = timeAt(c, i + 1);
  const id = codeAt(c, i) & 7;
  const field = FIELD_OF[id]!;
  if (field >= 0) {
    acc[field]! += e - s;
    if (id === SUSPENDED_CODE && s < startOf(c)) acc[QUEUED]! += e - s;
  }
  const next = codeAt(c, i + 1);
  const event = eventOf(id, next & 7);
  if (event === INTERRUPTION) {
    acc[INTERRUPTIONS]! += 1;
    acc[MEASURED_INTERRUPTIONS]! += 1;
    acc[INTERRUPTED_UP]! += e - s;
  } else if (event === RECOVERY) {
    acc[RECOVERIES]! += 1;
    acc[MEASURED_RECOVERIES]! += 1;
    acc[RECOVERED_DOWN]! += e - s;
  }
  if ((next & UNOBSERVED_BIT) !== 0) {
    const unobserved = unobservedAt(tl, i + 1)!;
    acc[INTERRUPTIONS]! += unobserved.interruptions;
    acc[RECOVERIES]! += unobserved.recoveries;
  }
}

/**
 * Whether C(t) of a closed timeline is its whole life (t at or after its end) or nothing yet (t
 * before its creation, or at it with no event there): then its totals at t are read, not swept.
 * 1: its life; 0: nothing; -1: t falls inside its life (a sweep).
 */
function lifeAt(c: Columns, t: number): number {
  const n = c.length;
  if (t >= timeAt(c, n - 1)) return 1;
  return t <= timeAt(c, 0) && (n < 2 || timeAt(c, 1) > t) ? 0 : -1;
}

function isClosed(c: Columns): boolean {
  return c.length > 0 && (codeAt(c, c.length - 1) & 7) >= CLOSED_FROM;
}

/**
 * A closed timeline's totals over its whole life (BASE_FIELDS numbers), for a window that holds its
 * whole life (most tables over a range: runs that began and ended inside it). A long one (more than
 * DIRECT transitions) keeps them on its columns (columns.ts `life`): it never changes, and a sweep
 * over it costs. A short one works them out each time (a sweep of a few transitions): the tables'
 * rows (run-columns.ts) already keep every closed run's, and a second copy cost ~140 bytes a run.
 * What is returned is read before the next call (a scratch array for a short one).
 */
export function lifeTotals(tl: Transitions, c: Columns): ArrayLike<number> {
  if (c.life !== null) return c.life;
  const acc = LIFE_ACC;
  lifeInto(tl, c, acc, 0);
  // Of the exact length, BASE_FIELDS, whatever it is (a closed run keeps it for its lifetime).
  if (c.length > DIRECT) keepLife(c, Array.from(acc));
  return acc;
}
const LIFE_ACC = new Float64Array(BASE_FIELDS);

/** Writes a closed timeline's whole-life totals (BASE_FIELDS numbers) into `out` at `o`. */
export function lifeInto(tl: Transitions, c: Columns, out: Float64Array, o: number): void {
  const acc = LIFE_SCRATCH.fill(0);
  for (let i = 0; i + 1 < c.length; i++) addSegment(tl, c, i, acc);
  for (let f = 0; f < BASE_FIELDS; f++) out[o + f] = acc[f]!;
}
const LIFE_SCRATCH = new Float64Array(FIELDS);

/**
 * Checkpoints: the totals before transition j·K for every j, over closed segments only, so they
 * stay true as the timeline grows. Built on demand from the last one.
 */
const K = 32;
interface Checkpoints {
  /** FIELDS numbers per checkpoint. */
  totals: Float64Array;
  count: number;
  /** Totals before transition `done` (running, past the last checkpoint). */
  running: Float64Array;
  done: number;
}
/** By columns; an arena record's (a view made afresh each time, timeline/arena.ts) by its timeline, for the record it was worked out of. */
const checkpoints = new WeakMap<object, Checkpoints & { record: number }>();

function checkpointsOf(tl: Transitions, c: Columns): Checkpoints {
  const key = c.record >= 0 ? tl : c;
  let cp = checkpoints.get(key);
  if (cp === undefined || cp.record !== c.record) {
    cp = { totals: new Float64Array(FIELDS * 8), count: 1, running: new Float64Array(FIELDS), done: 0, record: c.record };
    checkpoints.set(key, cp);
  }
  // Segment i is closed once transition i + 1 exists.
  for (; cp.done + 1 < c.length; cp.done++) {
    addSegment(tl, c, cp.done, cp.running);
    if ((cp.done + 1) % K === 0) {
      if ((cp.count + 1) * FIELDS > cp.totals.length) {
        const grown = new Float64Array(cp.totals.length * 2);
        grown.set(cp.totals);
        cp.totals = grown;
      }
      cp.totals.set(cp.running, cp.count * FIELDS);
      cp.count++;
    }
  }
  return cp;
}

/** C(t) by checkpoint: the last transition at or before t, its checkpoint, at most K segments on. */
function cumulativeAtOne(tl: Transitions, c: Columns, end: number, t: number, out: Float64Array, o: number): void {
  for (let f = 0; f < FIELDS; f++) out[o + f] = 0;
  const n = c.length;
  if (n === 0 || t < timeAt(c, 0)) return;
  let lo = 0;
  let hi = n - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (timeAt(c, mid) <= t) lo = mid;
    else hi = mid - 1;
  }
  const m = lo;
  const cp = checkpointsOf(tl, c);
  const j = Math.floor(m / K);
  const acc = ACC;
  for (let f = 0; f < FIELDS; f++) acc[f] = cp.totals[j * FIELDS + f]!;
  for (let i = j * K; i < m; i++) addSegment(tl, c, i, acc);
  // The part of segment m that has passed by t (the last segment accrues up to the end).
  const s = timeAt(c, m);
  const e = m + 1 < n ? timeAt(c, m + 1) : end > s ? end : s;
  const id = codeAt(c, m) & 7;
  const field = FIELD_OF[id]!;
  const part = (t < e ? t : e) - s;
  if (field >= 0 && part > 0) {
    acc[field]! += part;
    if (id === SUSPENDED_CODE && s < startOf(c)) acc[QUEUED]! += part;
  }
  for (let f = 0; f < BASE_FIELDS; f++) out[o + f] = acc[f]!;
}

export function cumulativeAt(timeline: Timeline, horizon: number, times: ArrayLike<number>, out: Float64Array): void {
  cumulativeBase(timeline, horizon, times, out, true);
  for (let k = 0; k < times.length; k++) addGoodput(timeline, out, k * FIELDS);
}

/** cumulativeAt by sweeping the transitions, never from a closed run's kept totals (for the tests that hold those to it). */
export function cumulativeSwept(timeline: Timeline, horizon: number, times: ArrayLike<number>, out: Float64Array): void {
  cumulativeBase(timeline, horizon, times, out, false);
  for (let k = 0; k < times.length; k++) addGoodput(timeline, out, k * FIELDS);
}

function cumulativeBase(timeline: Timeline, horizon: number, times: ArrayLike<number>, out: Float64Array, kept: boolean): void {
  const c = timelineColumns(timeline);
  const count = times.length;
  // A closed timeline asked only before it began or after it ended: its whole life, or nothing.
  if (kept && isClosed(c) && lifeTimes(c, times)) {
    const life = lifeTotals(timeline, c);
    for (let k = 0; k < count; k++) {
      const o = k * FIELDS;
      if (lifeAt(c, times[k]!) === 1) for (let f = 0; f < BASE_FIELDS; f++) out[o + f] = life[f]!;
      else for (let f = 0; f < BASE_FIELDS; f++) out[o + f] = 0;
    }
    return;
  }
  const end = columnsEnd(c, horizon);
  const { length: n, times: at, base, origin } = c;
  const start = startOf(c);
  // A few times over a long timeline: by checkpoint. Many times: one sweep serves them all.
  if (count * (K + 2 * Math.log2(n + 1)) < n) {
    for (let k = 0; k < count; k++) cumulativeAtOne(timeline, c, end, times[k]!, out, k * FIELDS);
    return;
  }
  const acc = ACC.fill(0);
  let k = 0;
  // Hot loop (once per transition of every timeline queried): numbers from typed arrays, no calls
  // into typed-array methods (which cost more than the copy itself at this size), no strings.
  for (let i = 0; i < n; i++) {
    const s = at[base + i]! + origin;
    const id = codeAt(c, i) & 7;
    const field = FIELD_OF[id]!;
    const last = i + 1 === n;
    const e = last ? (end > s ? end : s) : at[base + i + 1]! + origin;
    const isQueued = id === SUSPENDED_CODE && s < start;
    // Times inside this segment see everything before it plus the part of it that has passed.
    for (; k < count && times[k]! < e; k++) {
      const o = k * FIELDS;
      for (let f = 0; f < BASE_FIELDS; f++) out[o + f] = acc[f]!;
      const part = times[k]! - s;
      if (field >= 0 && part > 0) {
        out[o + field]! += part;
        if (isQueued) out[o + QUEUED]! += part;
      }
    }
    if (last) {
      if (field >= 0) {
        acc[field]! += e - s;
        if (isQueued) acc[QUEUED]! += e - s;
      }
      break;
    }
    // The whole segment, and the event of leaving it at e (C(t) includes it when e ≤ t).
    addSegment(timeline, c, i, acc);
  }
  for (; k < count; k++) {
    const o = k * FIELDS;
    for (let f = 0; f < BASE_FIELDS; f++) out[o + f] = acc[f]!;
  }
}

/** Whether no time falls inside the (closed) timeline's life. */
function lifeTimes(c: Columns, times: ArrayLike<number>): boolean {
  for (let k = 0; k < times.length; k++) if (lifeAt(c, times[k]!) < 0) return false;
  return true;
}

/** Timelines up to this many transitions are swept directly for a window; longer ones use C(to) − C(from) by checkpoint. */
const DIRECT = 64;

/** Totals over the window (from, to]: C(to) − C(from), written into `out` at `o` (a new array by default). */
export function windowTotals(timeline: Timeline, horizon: number, from: number, to: number, out: Float64Array = new Float64Array(FIELDS), o = 0): Float64Array {
  const c = timelineColumns(timeline);
  // A closed run whose whole life lies in the window (the most of a table over a range): its life's totals, kept.
  if (isClosed(c) && lifeAt(c, to) === 1 && lifeAt(c, from) === 0) {
    const life = lifeTotals(timeline, c);
    for (let f = 0; f < BASE_FIELDS; f++) out[o + f] = life[f]!;
    addGoodput(timeline, out, o);
    return out;
  }
  return sweepWindow(timeline, c, horizon, from, to, out, o);
}

/** windowTotals by sweeping the transitions, whatever the timeline (exported for the tests that hold the kept totals to it). */
export function sweptWindowTotals(timeline: Timeline, horizon: number, from: number, to: number, out: Float64Array = new Float64Array(FIELDS), o = 0): Float64Array {
  return sweepWindow(timeline, timelineColumns(timeline), horizon, from, to, out, o);
}

/** sweptWindowTotals of the timeline's columns `c`, made once by the caller (a closed run's are a view made afresh each time: columns.ts arenaView). */
function sweepWindow(timeline: Timeline, c: Columns, horizon: number, from: number, to: number, out: Float64Array, o: number): Float64Array {
  if (c.length > DIRECT) {
    WINDOW_TIMES[0] = from;
    WINDOW_TIMES[1] = to;
    cumulativeSwept(timeline, horizon, WINDOW_TIMES, WINDOW_C);
    for (let f = 0; f < FIELDS; f++) out[o + f] = WINDOW_C[FIELDS + f]! - WINDOW_C[f]!;
    return out;
  }
  // One pass: each segment's overlap with the window, and the event of leaving it when from < e ≤ to.
  for (let f = 0; f < FIELDS; f++) out[o + f] = 0;
  const { length: n, times, base, origin } = c;
  const start = startOf(c);
  const end = columnsEnd(c, horizon);
  for (let i = 0; i < n; i++) {
    const s = times[base + i]! + origin;
    if (s > to) break;
    const last = i + 1 === n;
    const e = last ? (end > s ? end : s) : times[base + i + 1]! + origin;
    const id = codeAt(c, i) & 7;
    const field = FIELD_OF[id]!;
    const overlap = (e < to ? e : to) - (s > from ? s : from);
    if (field >= 0 && overlap > 0) {
      out[o + field]! += overlap;
      if (id === SUSPENDED_CODE && s < start) out[o + QUEUED]! += overlap;
    }
    if (last || e <= from || e > to) continue;
    const next = codeAt(c, i + 1);
    const event = eventOf(id, next & 7);
    if (event === INTERRUPTION) {
      out[o + INTERRUPTIONS]! += 1;
      out[o + MEASURED_INTERRUPTIONS]! += 1;
      out[o + INTERRUPTED_UP]! += e - s;
    } else if (event === RECOVERY) {
      out[o + RECOVERIES]! += 1;
      out[o + MEASURED_RECOVERIES]! += 1;
      out[o + RECOVERED_DOWN]! += e - s;
    }
    if ((next & UNOBSERVED_BIT) !== 0) {
      const unobserved = unobservedAt(timeline, i + 1)!;
      out[o + INTERRUPTIONS]! += unobserved.interruptions;
      out[o + RECOVERIES]! += unobserved.recoveries;
    }
  }
  addGoodput(timeline, out, o);
  return out;
}
