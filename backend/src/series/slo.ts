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
import { OPEN, type RunColumns } from './run-columns.ts';
import { BASE_FIELDS, cumulativeAt, FIELDS, INTERRUPTION_DOWN, PROVISIONING, SUSPENDED, UNKNOWN, UP } from './totals.ts';

/**
 * The totals fields each indicator counts as bad time; up is the good time of both. Suspended
 * holds queued time, so goodput's bad fields and up add up to wall time exactly (figure-definitions.ts).
 */
export const BAD_TIME = {
  uptime: [PROVISIONING, INTERRUPTION_DOWN],
  schedulingGoodput: [PROVISIONING, INTERRUPTION_DOWN, SUSPENDED, UNKNOWN],
} as const satisfies Record<string, readonly number[]>;
export type SloIndicator = keyof typeof BAD_TIME;

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
  const { times, starts, ends } = sloPlan(points, windows);
  const bad = BAD_TIME[indicator];
  const n = times.length;
  // Scratch reused by every call (a table per JobSet name makes thousands): synchronous, never re-entered.
  if (sums.length < 2 * n) sums = new Float64Array(2 * n);
  if (scratch.length < n * FIELDS) scratch = new Float64Array(n * FIELDS);
  const up = sums;
  sums.fill(0, 0, 2 * n);
  for (let m = 0; m < members.length; m++) {
    // A closed run asked only before it began or after it ended: its row's whole-life totals, or nothing.
    if (rows !== undefined && addLifeRow(rows.columns, rows.rows[rows.first + m]!, times, up, bad)) continue;
    const tl = members[m]!;
    cumulativeAt(tl, horizon, times, scratch);
    for (let i = 0; i < n; i++) {
      up[i]! += scratch[i * FIELDS + UP]!;
      up[n + i]! += badOf(scratch, i * FIELDS, bad);
    }
  }
  // Window k of sloPlan's order (period, burn, short per point): C at its end minus C at its start.
  const over = (offset: number, k: number): number => up[offset + ends[k]!]! - up[offset + starts[k]!]!;
  const out = new Array<SloTotals>(points.length);
  for (let p = 0; p < points.length; p++) {
    out[p] = {
      periodUp: over(0, 3 * p),
      periodDown: over(n, 3 * p),
      burnUp: over(0, 3 * p + 1),
      burnDown: over(n, 3 * p + 1),
      shortUp: over(0, 3 * p + 2),
      shortDown: over(n, 3 * p + 2),
    };
  }
  return out;
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
 * False, adding nothing, when it is open or a time falls inside its life.
 */
function addLifeRow(rc: RunColumns, row: number, times: Float64Array, up: Float64Array, bad: readonly number[]): boolean {
  if (rc.state[row] === OPEN) return false;
  const n = times.length;
  const end = rc.end[row]!;
  const created = rc.created[row]!;
  const second = rc.second[row]!;
  for (let i = 0; i < n; i++) {
    const t = times[i]!;
    if (t < end && !(t <= created && second > t)) return false;
  }
  const o = row * BASE_FIELDS;
  for (let i = 0; i < n; i++) {
    if (times[i]! < end) continue;
    up[i]! += rc.life[o + UP]!;
    up[n + i]! += badOf(rc.life, o, bad);
  }
  return true;
}

/** sloTotals' scratch: C summed over the members (up, then bad time, at every time), and one member's C. */
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
  const counted = totals.periodUp + totals.periodDown;
  const allowed = (1 - objective) * counted;
  const remaining = allowed - totals.periodDown;
  const burnCounted = totals.burnUp + totals.burnDown;
  const downPerMs = totals.burnDown / windows.burnWindowMs;
  return {
    objective,
    sli: counted === 0 ? null : totals.periodUp / counted,
    countedSeconds: counted / 1000,
    allowedSeconds: allowed / 1000,
    consumedSeconds: totals.periodDown / 1000,
    remainingSeconds: remaining / 1000,
    remainingFraction: counted === 0 ? null : remaining / allowed,
    burnRate: burnCounted === 0 ? null : totals.burnDown / burnCounted / (1 - objective),
    budgetConsumed: allowed === 0 ? null : totals.burnDown / allowed,
    timeToExhaustionSeconds: downPerMs === 0 ? null : Math.max(0, remaining) / downPerMs / 1000,
  };
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
