// Service-level objectives over pooled timelines (issue 13, section 1). An SLO is an objective o
// over a period P for a group of timelines (a JobSet name across its recreations, a namespace, a
// label value, the fleet), measured by an indicator (issue 20 §6) that says which time is good and
// which bad. Good time is up time for both; "down" below is the indicator's bad time:
//   uptime:            down = provisioning + interruption downtime; suspended, queued, unknown and
//                      post-terminal time count for neither
//   schedulingGoodput: down = every other part of wall time (queued, provisioning, interruption
//                      downtime, suspended, unknown): counted = wall, SLI = schedulingGoodput
// Over any window:
//   counted = Σ up + Σ down
//   SLI     = Σ up / counted           (null when nothing was counted)
//   budget  = (1 − o) × counted        (allowed down seconds)
//   burn    = down / counted / (1 − o) (1: spending exactly the budget)
// Every figure at a point t is over a window ending at t: the period (t − P, t], the burn window
// (t − w, t], the short window (t − s, t]. Pure: values in, values out.

import type { Timeline } from '../timeline/types.ts';
import { beforeLife, OPEN, rowEnd, rowLife, type RunColumns, sloLifeAt } from './run-columns.ts';
import { cumulativeAt, FIELDS, INTERRUPTION_DOWN, PROVISIONING, SUSPENDED, UNKNOWN, UP } from './totals.ts';

/**
 * The totals fields each indicator counts as bad time; up is the good time of both. Suspended
 * holds queued time, so goodput's bad fields and up add up to wall time exactly (figure-definitions.ts).
 */
export const BAD_TIME = {
  uptime: [PROVISIONING, INTERRUPTION_DOWN],
  schedulingGoodput: [PROVISIONING, INTERRUPTION_DOWN, SUSPENDED, UNKNOWN],
} as const satisfies Record<string, readonly number[]>;
export type SloIndicator = keyof typeof BAD_TIME;
/**
 * A closed row's SLO numbers (run-columns.ts SLO_LIFE_PARTS) are its up time, uptime's bad time,
 * then the rest of goodput's: uptime's bad time is the first BAD_TIME.uptime.length fields of
 * goodput's (the slo test checks both against the parts).
 */
const UPTIME_BAD = BAD_TIME.uptime.length;

/** The bad time in one set of totals (FIELDS numbers from `o`). */
function badOf(totals: ArrayLike<number>, o: number, bad: readonly number[]): number {
  let sum = 0;
  for (const field of bad) sum += totals[o + field]!;
  return sum;
}

export interface SloWindows {
  /** The compliance period P, ms. */
  periodMs: number;
  /** The burn window w, ms: burn rate, budget consumed lately, and the current burn behind the time to exhaustion. */
  burnWindowMs: number;
  /** The short window s, ms: "still burning" of an alert. */
  shortWindowMs: number;
}

/** Up and down (the indicator's bad) milliseconds of a group over the three windows ending at one point. */
export interface SloTotals {
  periodUp: number;
  periodDown: number;
  burnUp: number;
  burnDown: number;
  shortUp: number;
  shortDown: number;
}

/**
 * The pooled up and down time of `members` over the windows ending at each point: C(t) − C(t − x)
 * with C summed over the members (C is additive, so one sweep per member serves every window).
 */
export function sloTotals(
  members: readonly Timeline[],
  horizon: number,
  points: readonly number[],
  windows: SloWindows,
  indicator: SloIndicator = 'uptime',
  rows?: MemberRows,
): SloTotals[] {
  const sums = sloSumsByGroup(members, [0, members.length], horizon, points, windows, indicator, rows);
  const out = new Array<SloTotals>(points.length);
  for (let k = 0; k < points.length; k++) out[k] = sloTotalsAt(sums, k * SLO_SUMS);
  return out;
}

/** Numbers a group's point has in sloSumsByGroup's answer: SloTotals' six, in this order. */
export const SLO_SUMS = 6;
export const PERIOD_UP = 0;
export const PERIOD_DOWN = 1;
export const BURN_UP = 2;
export const BURN_DOWN = 3;
export const SHORT_UP = 4;
export const SHORT_DOWN = 5;

/** The SloTotals of one group's point in a sums column (sloSumsByGroup), at `o`. */
export function sloTotalsAt(sums: ArrayLike<number>, o: number): SloTotals {
  return {
    periodUp: sums[o + PERIOD_UP]!,
    periodDown: sums[o + PERIOD_DOWN]!,
    burnUp: sums[o + BURN_UP]!,
    burnDown: sums[o + BURN_DOWN]!,
    shortUp: sums[o + SHORT_UP]!,
    shortDown: sums[o + SHORT_DOWN]!,
  };
}

/**
 * sloTotals of many groups at once, as one column of numbers and no object per group (a table per
 * JobSet name has thousands): group g's members are members[bounds[g]] up to members[bounds[g + 1]],
 * and its point k's totals are the SLO_SUMS numbers at (g × points + k) × SLO_SUMS. `rows`: where the
 * members are in the list's columns (members[m] is row rows[first + m]), so closed runs are summed
 * from their rows. `into`: written instead of a new column (its first groups × points × SLO_SUMS numbers).
 */
export function sloSumsByGroup(
  members: readonly Timeline[],
  bounds: ArrayLike<number>,
  horizon: number,
  points: readonly number[],
  windows: SloWindows,
  indicator: SloIndicator = 'uptime',
  rows?: MemberRows,
  into?: Float64Array,
): Float64Array {
  const { times, starts, ends } = sloPlan(points, windows);
  const bad = BAD_TIME[indicator];
  const n = times.length;
  const p = points.length;
  const groups = bounds.length - 1;
  const out = into ?? new Float64Array(groups * p * SLO_SUMS);
  if (p === 1 && n === 4 && ends[0] === 3 && rows !== undefined) return sumsAtOnePoint(members, bounds, horizon, times, starts, rows, bad, out);
  // Scratch reused by every call: synchronous, never re-entered.
  if (sums.length < 2 * n) sums = new Float64Array(2 * n);
  if (scratch.length < n * FIELDS) scratch = new Float64Array(n * FIELDS);
  const up = sums;
  for (let g = 0; g < groups; g++) {
    // A loop, not fill(): a table per name clears these few numbers ~560,000 times, and the call cost more than the clearing.
    for (let i = 0; i < 2 * n; i++) up[i] = 0;
    for (let m = bounds[g]!; m < bounds[g + 1]!; m++) {
      // A closed run asked only before it began or after it ended: its row's whole-life totals, or nothing.
      if (rows !== undefined && addLifeRow(rows.columns, rows.rows[rows.first + m]!, times, up, bad)) continue;
      cumulativeAt(members[m]!, horizon, times, scratch);
      for (let i = 0; i < n; i++) {
        up[i]! += scratch[i * FIELDS + UP]!;
        up[n + i]! += badOf(scratch, i * FIELDS, bad);
      }
    }
    // Window j of sloPlan's order (period, burn, short per point): C at its end minus C at its start.
    for (let k = 0; k < p; k++) {
      const o = (g * p + k) * SLO_SUMS;
      const j = 3 * k;
      out[o + PERIOD_UP] = up[ends[j]!]! - up[starts[j]!]!;
      out[o + PERIOD_DOWN] = up[n + ends[j]!]! - up[n + starts[j]!]!;
      out[o + BURN_UP] = up[ends[j + 1]!]! - up[starts[j + 1]!]!;
      out[o + BURN_DOWN] = up[n + ends[j + 1]!]! - up[n + starts[j + 1]!]!;
      out[o + SHORT_UP] = up[ends[j + 2]!]! - up[starts[j + 2]!]!;
      out[o + SHORT_DOWN] = up[n + ends[j + 2]!]! - up[n + starts[j + 2]!]!;
    }
  }
  return out;
}

/**
 * sloSumsByGroup of one point whose three windows begin at three different times (a table per
 * JobSet name over a range: ~560,000 names at 10,000 JobSets × 30 d), the same numbers: C at the
 * four times held in locals, each member's part added in the same order, so every sum is the same
 * double. A closed run wholly before a window's start and end adds its life to those times' C
 * straight from its row, as addLifeRow does.
 */
function sumsAtOnePoint(
  members: readonly Timeline[],
  bounds: ArrayLike<number>,
  horizon: number,
  times: Float64Array,
  starts: Int32Array,
  rows: MemberRows,
  bad: readonly number[],
  out: Float64Array,
): Float64Array {
  const { columns: rc, rows: rowOf, first: at } = rows;
  const { state } = rc;
  const t0 = times[0]!;
  const t1 = times[1]!;
  const t2 = times[2]!;
  const t3 = times[3]!;
  if (scratch.length < 4 * FIELDS) scratch = new Float64Array(4 * FIELDS);
  const one = scratch;
  const groups = bounds.length - 1;
  for (let g = 0; g < groups; g++) {
    let u0 = 0, u1 = 0, u2 = 0, u3 = 0, d0 = 0, d1 = 0, d2 = 0, d3 = 0;
    for (let m = bounds[g]!; m < bounds[g + 1]!; m++) {
      const row = rowOf[at + m]!;
      if (state[row] !== OPEN) {
        const end = rowEnd(rc, row);
        // The times from `first` on are at or after its end; the one before (if any) must be before its life.
        const first = end <= t0 ? 0 : end <= t1 ? 1 : end <= t2 ? 2 : end <= t3 ? 3 : 4;
        if (first === 0 || beforeLife(rc, row, first === 1 ? t0 : first === 2 ? t1 : first === 3 ? t2 : t3)) {
          if (first === 4) continue;
          const lifeUp = rowUpAndBad(rc, row, bad);
          const lifeBad = ROW_BAD[0]!;
          if (first === 0) {
            u0 += lifeUp;
            d0 += lifeBad;
          }
          if (first <= 1) {
            u1 += lifeUp;
            d1 += lifeBad;
          }
          if (first <= 2) {
            u2 += lifeUp;
            d2 += lifeBad;
          }
          u3 += lifeUp;
          d3 += lifeBad;
          continue;
        }
      }
      cumulativeAt(members[m]!, horizon, times, one);
      u0 += one[UP]!;
      d0 += badOf(one, 0, bad);
      u1 += one[FIELDS + UP]!;
      d1 += badOf(one, FIELDS, bad);
      u2 += one[2 * FIELDS + UP]!;
      d2 += badOf(one, 2 * FIELDS, bad);
      u3 += one[3 * FIELDS + UP]!;
      d3 += badOf(one, 3 * FIELDS, bad);
    }
    // The point is the latest time (each window ends there); a window's start is one of the others.
    const o = g * SLO_SUMS;
    out[o + PERIOD_UP] = u3 - pick(starts[0]!, u0, u1, u2);
    out[o + PERIOD_DOWN] = d3 - pick(starts[0]!, d0, d1, d2);
    out[o + BURN_UP] = u3 - pick(starts[1]!, u0, u1, u2);
    out[o + BURN_DOWN] = d3 - pick(starts[1]!, d0, d1, d2);
    out[o + SHORT_UP] = u3 - pick(starts[2]!, u0, u1, u2);
    out[o + SHORT_DOWN] = d3 - pick(starts[2]!, d0, d1, d2);
  }
  return out;
}

/** The i-th of three numbers. */
function pick(i: number, a: number, b: number, c: number): number {
  return i === 0 ? a : i === 1 ? b : c;
}

/** Where a group's members are in a selection marked with its rows (run-columns.ts): members[m] is row rows[first + m]. */
export interface MemberRows {
  columns: RunColumns;
  rows: Int32Array;
  first: number;
}

/**
 * Adds row `row`'s C at every time to the sums (up at [0, n), bad time at [n, 2n)) when each time is
 * at or after its end (its whole life) or before it began (nothing): what cumulativeAt gives then.
 * False, adding nothing, when it is open or a time falls inside its life. `times` ascend (sloPlan's).
 */
function addLifeRow(rc: RunColumns, row: number, times: Float64Array, up: Float64Array, bad: readonly number[]): boolean {
  if (rc.state[row] === OPEN) return false;
  const n = times.length;
  const end = rowEnd(rc, row);
  // The times from `first` on are at or after its end; the rest must be before its life (and are, if the latest of them is).
  let first = n;
  while (first > 0 && times[first - 1]! >= end) first--;
  if (first > 0 && !beforeLife(rc, row, times[first - 1]!)) return false;
  // Every time before its life: nothing to add (its life not worked out for it).
  if (first === n) return true;
  const lifeUp = rowUpAndBad(rc, row, bad);
  const lifeBad = ROW_BAD[0]!;
  for (let i = first; i < n; i++) {
    up[i]! += lifeUp;
    up[n + i]! += lifeBad;
  }
  return true;
}

/** Closed row `row`'s whole-life up time; its bad time (the indicator's `bad` fields) into ROW_BAD[0]. */
function rowUpAndBad(rc: RunColumns, row: number, bad: readonly number[]): number {
  const o = sloLifeAt(rc, row);
  if (o >= 0) {
    const values = rc.sloLives.values!;
    // Whole milliseconds under 2^32 each: their sum is exact in any order.
    ROW_BAD[0] = bad.length === UPTIME_BAD ? values[o + 1]! : values[o + 1]! + values[o + 2]!;
    return values[o]!;
  }
  const { values, offset } = rowLife(rc, row);
  ROW_BAD[0] = badOf(values, offset, bad);
  return values[offset + UP]!;
}

/** rowUpAndBad's second answer (a double stored, not an object made per row). */
const ROW_BAD = new Float64Array(1);

/** sloSumsByGroup's scratch: C summed over the members (up, then bad time, at every time), and one member's C. */
let sums = new Float64Array(8);
let scratch = new Float64Array(4 * FIELDS);

/**
 * The three windows of every point ((t − P, t], (t − w, t], (t − s, t]) as indices into one sorted
 * list of times, for whatever sums a window from C at many times (sloTotals, the fleet index).
 */
export function sloPlan(points: readonly number[], windows: SloWindows): SloPlan {
  // Every group of a query asks with the same points and windows (a table per JobSet name asks it
  // thousands of times): the last plan is kept, and given again while they are the same.
  const last = lastPlan;
  if (last !== null && sameWindows(last.windows, windows) && samePoints(last.points, points)) return last.plan;
  const plan = makeSloPlan(points, windows);
  lastPlan = { points: [...points], windows: { ...windows }, plan };
  return plan;
}

/** A plan is read, never written (callers index its arrays): safe to hand out again. */
interface SloPlan {
  readonly times: Float64Array;
  readonly starts: Int32Array;
  readonly ends: Int32Array;
}

let lastPlan: { points: number[]; windows: SloWindows; plan: SloPlan } | null = null;

function sameWindows(a: SloWindows, b: SloWindows): boolean {
  return a.periodMs === b.periodMs && a.burnWindowMs === b.burnWindowMs && a.shortWindowMs === b.shortWindowMs;
}

function samePoints(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function makeSloPlan(points: readonly number[], windows: SloWindows): SloPlan {
  const offsets = [windows.periodMs, windows.burnWindowMs, windows.shortWindowMs];
  const times = Float64Array.from(new Set(points.flatMap((t) => [t, ...offsets.map((o) => t - o)]))).sort();
  const at = new Map<number, number>();
  times.forEach((t, i) => at.set(t, i));
  return {
    times,
    starts: Int32Array.from(points.flatMap((t) => offsets.map((o) => at.get(t - o)!))),
    ends: Int32Array.from(points.flatMap((t) => offsets.map(() => at.get(t)!))),
  };
}

/** SloTotals from window totals (FIELDS numbers each) in sloPlan's order: period, burn, short per point. */
export function sloTotalsOf(windowTotals: readonly ArrayLike<number>[], indicator: SloIndicator = 'uptime'): SloTotals[] {
  const out: SloTotals[] = [];
  const bad = BAD_TIME[indicator];
  const down = (w: ArrayLike<number>): number => badOf(w, 0, bad);
  for (let k = 0; k + 2 < windowTotals.length; k += 3) {
    const [p, b, s] = [windowTotals[k]!, windowTotals[k + 1]!, windowTotals[k + 2]!];
    out.push({ periodUp: p[UP]!, periodDown: down(p), burnUp: b[UP]!, burnDown: down(b), shortUp: s[UP]!, shortDown: down(s) });
  }
  return out;
}

/** Every SLO figure at one point. Seconds for durations; fractions as ratios (1 = 100 %). */
export interface SloFigures {
  objective: number;
  /** Σ up / Σ(up + down) over the period; null when nothing was counted. */
  sli: number | null;
  countedSeconds: number;
  /** (1 − objective) × counted seconds of the period. */
  allowedSeconds: number;
  /** Down seconds of the period. */
  consumedSeconds: number;
  /** allowed − consumed: negative once the budget is overspent. */
  remainingSeconds: number;
  /** remaining / allowed (negative when overspent); null when nothing was counted. */
  remainingFraction: number | null;
  /** down / counted / (1 − objective) over the burn window; null when the window counted nothing. */
  burnRate: number | null;
  /** Down seconds of the burn window ÷ the period's allowed seconds; null when the period allows nothing. */
  budgetConsumed: number | null;
  /**
   * Seconds until the remaining budget is spent at the current burn (the burn window's down seconds
   * per second: remaining ÷ (down_w ÷ w)); 0 when already overspent and still burning; null when
   * the burn window holds no down time (not burning).
   */
  timeToExhaustionSeconds: number | null;
}

export function sloFigures(totals: SloTotals, objective: number, windows: SloWindows): SloFigures {
  const at = [totals.periodUp, totals.periodDown, totals.burnUp, totals.burnDown, totals.shortUp, totals.shortDown];
  const figures = {} as Record<SloFigure, number | null>;
  for (const name of SLO_FIGURES) figures[name] = sloFigure(name, at, 0, objective, windows);
  return figures as unknown as SloFigures;
}

export type SloFigure = keyof SloFigures;
/** SloFigures' keys, in its order. */
export const SLO_FIGURES = [
  'objective',
  'sli',
  'countedSeconds',
  'allowedSeconds',
  'consumedSeconds',
  'remainingSeconds',
  'remainingFraction',
  'burnRate',
  'budgetConsumed',
  'timeToExhaustionSeconds',
] as const satisfies readonly SloFigure[];

/**
 * One SLO figure of the totals at `o` of a sums column (SLO_SUMS numbers: sloSumsByGroup's layout):
 * the one definition of each figure, which sloFigures and the columns of a table both read.
 */
export function sloFigure(name: SloFigure, sums: ArrayLike<number>, o: number, objective: number, windows: SloWindows): number | null {
  const value = sloFigureOrNaN(name, sums, o, objective, windows);
  return Number.isNaN(value) ? null : value;
}

/**
 * sloFigure with NaN for null (a figure of finite sums is NaN nowhere else): a number, never a
 * null, so a loop over ~560,000 names' sort values (a name table's pick) makes no number on the heap.
 */
export function sloFigureOrNaN(name: SloFigure, sums: ArrayLike<number>, o: number, objective: number, windows: SloWindows): number {
  sloFigureInto(name, sums, o, objective, windows, one, 0);
  return one[0]!;
}

/** sloFigureOrNaN's answer. */
const one = new Float64Array(1);

/** sloFigureOrNaN written into out[at]: a double stored, not returned (a function's answer that is not inlined is a number on the heap). */
export function sloFigureInto(name: SloFigure, sums: ArrayLike<number>, o: number, objective: number, windows: SloWindows, out: Float64Array, at: number): void {
  const periodUp = sums[o + PERIOD_UP]!;
  const periodDown = sums[o + PERIOD_DOWN]!;
  const burnDown = sums[o + BURN_DOWN]!;
  const counted = periodUp + periodDown;
  const allowed = (1 - objective) * counted;
  switch (name) {
    case 'objective':
      out[at] = objective;
      return;
    case 'sli':
      out[at] = counted === 0 ? NaN : periodUp / counted;
      return;
    case 'countedSeconds':
      out[at] = counted / 1000;
      return;
    case 'allowedSeconds':
      out[at] = allowed / 1000;
      return;
    case 'consumedSeconds':
      out[at] = periodDown / 1000;
      return;
    case 'remainingSeconds':
      out[at] = (allowed - periodDown) / 1000;
      return;
    case 'remainingFraction':
      out[at] = counted === 0 ? NaN : (allowed - periodDown) / allowed;
      return;
    case 'burnRate': {
      const burnCounted = sums[o + BURN_UP]! + burnDown;
      out[at] = burnCounted === 0 ? NaN : burnDown / burnCounted / (1 - objective);
      return;
    }
    case 'budgetConsumed':
      out[at] = allowed === 0 ? NaN : burnDown / allowed;
      return;
    case 'timeToExhaustionSeconds': {
      const downPerMs = burnDown / windows.burnWindowMs;
      out[at] = downPerMs === 0 ? NaN : Math.max(0, allowed - periodDown) / downPerMs / 1000;
      return;
    }
  }
}

/** alertFiring of the totals at `o` of a sums column. */
export function sloAlert(sums: ArrayLike<number>, o: number, objective: number, threshold: number, windows: SloWindows): boolean {
  const consumed = sloFigure('budgetConsumed', sums, o, objective, windows);
  return consumed !== null && consumed >= alertThreshold(threshold, objective, windows) && sums[o + SHORT_DOWN]! > 0;
}

/** The largest burn factor that can ever fire at this objective: a burn rate is at most 1 / (1 − o). */
export function maxBurnFactor(objective: number): number {
  return 1 / (1 - objective);
}

/**
 * The budget-consumption threshold an alert uses at this objective: the one asked, held down to
 * what half of the burn window down would consume of a budget whose whole period was counted,
 * w / 2 / ((1 − o) × P). So the alert can fire at any objective: at 95 % over 28 d, 2 % in 1 h
 * becomes 1.49 % (30 minutes down in the hour); at 97 % it stays 2 %.
 */
export function alertThreshold(threshold: number, objective: number, windows: SloWindows): number {
  return Math.min(threshold, windows.burnWindowMs / 2 / ((1 - objective) * windows.periodMs));
}

/**
 * A budget-consumption alert's condition: at least `threshold` (after alertThreshold) of the period's
 * budget consumed in the burn window, and down time in the short window (still burning).
 */
export function alertFiring(figures: SloFigures, totals: SloTotals, threshold: number, windows: SloWindows): boolean {
  return figures.budgetConsumed !== null && figures.budgetConsumed >= alertThreshold(threshold, figures.objective, windows) && totals.shortDown > 0;
}
