// SLO figures (issue 13 section 1): pooled over a JobSet name's recreations, excluded time counting
// for neither up nor down, each figure over the window ending at its point. Timelines written
// directly, minutes after T0; hand-computed truth beside each case.

import fc from 'fast-check';
import { arbTimeline, oracle, T0, timelines as arbTimelines } from '../../../test/support/arbitraries.ts';
import { min } from '../../../test/support/scenario.ts';
import { byNamespaceNameUid, markSorted } from '../timeline/order.ts';
import { lastAt, transitionsOf, type State, type Timeline } from '../timeline/types.ts';
import { UP } from './totals.ts';
import { runColumns, SLO_LIFE_PARTS } from './run-columns.ts';
import { alertFiring, alertThreshold, BAD_TIME, maxBurnFactor, sloFigures, sloSumsByGroup, sloTotals, type SloWindows } from './slo.ts';

function timeline(uid: string, ...steps: [number, State][]): Timeline {
  return {
    uid,
    namespace: 'ns',
    name: 'train',
    labels: {},
    accelerator: null,
    topology: null,
    createdAt: min(steps[0]![0]),
    transitions: steps.map(([m, state]) => ({ at: min(m), state })),
  };
}

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

// The JobSet name "train", created twice (two UIDs): one SLO across both.
//
//   minute   0    10         70   80    120  130      150  160       190   200 (horizon)
//   u1       prov─up─────────down─up────completed
//   u2                                       queued───prov─up────────down──…
//
//   period P = 200 min, burn window w = 60 min, short window s = 5 min
const u1 = timeline('u1', [0, 'provisioning'], [10, 'up'], [70, 'down'], [80, 'up'], [120, 'completed']);
const u2 = timeline('u2', [130, 'suspended'], [150, 'provisioning'], [160, 'up'], [190, 'down']);
const horizon = min(200);
const windows: SloWindows = { periodMs: 200 * MIN, burnWindowMs: 60 * MIN, shortWindowMs: 5 * MIN };

describe('SLO figures, by hand', () => {
  // At 200, period (0, 200]:
  //   up   = u1 (60 + 40) + u2 30          = 130 min
  //   down = u1 (10 prov + 10) + u2 (10 prov + 10) = 40 min
  //   u2's 20 queued minutes and u1's time after completing count for neither.
  // Burn window (140, 200]: u2 prov 10 + down 10 = 20 down, up 30 (140–150 queued: neither).
  // Short window (195, 200]: 5 min down.
  it('pool the recreations of a name over the period ending at the point', () => {
    const [t] = sloTotals([u1, u2], horizon, [min(200)], windows);
    expect(t).toEqual({ periodUp: 130 * MIN, periodDown: 40 * MIN, burnUp: 30 * MIN, burnDown: 20 * MIN, shortUp: 0, shortDown: 5 * MIN });
    const f = sloFigures(t!, 0.5, windows);
    expect(f.sli).toBeCloseTo(130 / 170, 12);
    expect(f.countedSeconds).toBe(170 * 60);
    // allowed = (1 − 0.5) × 170 min = 85 min; consumed 40 min; remaining 45 min.
    expect(f.allowedSeconds).toBe(85 * 60);
    expect(f.consumedSeconds).toBe(40 * 60);
    expect(f.remainingSeconds).toBe(45 * 60);
    expect(f.remainingFraction).toBeCloseTo(45 / 85, 12);
    // burn = 20 / 50 / 0.5 = 0.8; consumed lately = 20 / 85 of the period's budget.
    expect(f.burnRate).toBeCloseTo(0.8, 12);
    expect(f.budgetConsumed).toBeCloseTo(20 / 85, 12);
    // At the current burn (20 down minutes per 60): 45 / (20/60) = 135 minutes to exhaustion.
    expect(f.timeToExhaustionSeconds).toBeCloseTo(135 * 60, 9);
  });

  // At 95 % the same period allows (0.05 × 170) = 8.5 minutes and 40 are spent: overspent.
  it('go negative when the budget is overspent; time to exhaustion is then 0 while burning', () => {
    const f = sloFigures(sloTotals([u1, u2], horizon, [min(200)], windows)[0]!, 0.95, windows);
    expect(f.allowedSeconds).toBeCloseTo(8.5 * 60, 9);
    expect(f.remainingSeconds).toBeCloseTo((8.5 - 40) * 60, 9);
    expect(f.remainingFraction).toBeCloseTo((8.5 - 40) / 8.5, 12);
    expect(f.burnRate).toBeCloseTo(20 / 50 / 0.05, 9);
    expect(f.timeToExhaustionSeconds).toBe(0);
  });

  // At 100, period (−100, 100]: u1 only, prov 10 + up 60 + down 10 + up 20 → up 80, down 20.
  // Burn window (40, 100]: up 30 + 20 = 50, down 10. Short (95, 100]: up.
  // At 260, burn window (200, 260]: nothing observed after the horizon: not burning, burn rate undefined.
  it('at other points: each window ends at its point; nothing counted is null, not zero', () => {
    const [a, b] = sloTotals([u1, u2], horizon, [min(100), min(260)], windows);
    expect(a).toEqual({ periodUp: 80 * MIN, periodDown: 20 * MIN, burnUp: 50 * MIN, burnDown: 10 * MIN, shortUp: 5 * MIN, shortDown: 0 });
    const f = sloFigures(a!, 0.5, windows);
    expect(f.sli).toBeCloseTo(0.8, 12);
    expect(f.burnRate).toBeCloseTo(10 / 60 / 0.5, 12);
    expect(alertFiring(f, a!, 0.02, windows)).toBe(false); // up in the short window: not burning now
    const g = sloFigures(b!, 0.5, windows);
    expect(g.burnRate).toBeNull();
    expect(g.timeToExhaustionSeconds).toBeNull();
    expect(sloFigures(sloTotals([], horizon, [min(100)], windows)[0]!, 0.5, windows)).toMatchObject({ sli: null, remainingFraction: null, budgetConsumed: null });
  });

  // The same name measured by scheduling goodput: every part of wall time but up is bad.
  // At 200, period (0, 200]: u1's wall 0–120 (prov 10, up 60, down 10, up 40), u2's 130–200 (queued 20,
  //   prov 10, up 30, down 10): up 130, bad 10 + 10 + 20 + 10 + 10 = 60, counted = wall = 190.
  //   (120–130: neither lived; nothing counts.)
  // Burn window (140, 200]: u2 queued 10, prov 10, up 30, down 10 → up 30, bad 30. Short (195, 200]: bad 5.
  it('by scheduling goodput: queued and suspended time are bad, counted is wall time', () => {
    const [t] = sloTotals([u1, u2], horizon, [min(200)], windows, 'schedulingGoodput');
    expect(t).toEqual({ periodUp: 130 * MIN, periodDown: 60 * MIN, burnUp: 30 * MIN, burnDown: 30 * MIN, shortUp: 0, shortDown: 5 * MIN });
    const f = sloFigures(t!, 0.5, windows);
    expect(f.sli).toBeCloseTo(130 / 190, 12);
    // allowed = 0.5 × 190 = 95 min; consumed 60; remaining 35; burn = 30 / 60 / 0.5 = 1;
    // consumed lately 30 / 95; at 30 bad minutes per 60, 35 minutes last 70.
    expect(f.allowedSeconds).toBe(95 * 60);
    expect(f.consumedSeconds).toBe(60 * 60);
    expect(f.remainingSeconds).toBe(35 * 60);
    expect(f.burnRate).toBeCloseTo(1, 12);
    expect(f.budgetConsumed).toBeCloseTo(30 / 95, 12);
    expect(f.timeToExhaustionSeconds).toBeCloseTo(70 * 60, 9);
    // The uptime indicator of the same name (above) leaves the 20 queued minutes out: 130 / 170.
    expect(sloFigures(sloTotals([u1, u2], horizon, [min(200)], windows, 'uptime')[0]!, 0.5, windows).sli).toBeCloseTo(130 / 170, 12);
  });

  it('fire the budget-consumption alert when enough was consumed in the burn window and the short window burns', () => {
    const [t] = sloTotals([u1, u2], horizon, [min(200)], windows);
    const f = sloFigures(t!, 0.5, windows);
    expect(alertFiring(f, t!, 0.2, windows)).toBe(true); // 20/85 = 0.235 ≥ 0.2
    expect(alertFiring(f, t!, 0.25, windows)).toBe(false); // 0.235 < 0.25 (and 0.25 ≤ w/2/((1−o)P) = 0.3: not held down)
  });
});

describe("a closed run's SLO numbers (run-columns.ts)", () => {
  it("are its up time, uptime's bad time, then the rest of scheduling goodput's: what slo.ts reads them as", () => {
    const [up, uptimeBad, rest] = SLO_LIFE_PARTS;
    expect(up).toEqual([UP]);
    expect(uptimeBad).toEqual(BAD_TIME.uptime);
    expect([...uptimeBad, ...rest]).toEqual(BAD_TIME.schedulingGoodput);
  });
});

describe("a table per name's sums from the list's rows (slo.ts sloSumsByGroup with rows)", () => {
  // Runs of a few names; some in fractions of a millisecond or living 49.7 days or more (their SLO
  // numbers and ends are kept apart from the narrow columns).
  const arbList = fc
    .array(fc.tuple(arbTimelines(8), fc.constantFrom('none', 'none', 'fraction', 'long')), { minLength: 1, maxLength: 30 })
    .map((drawn) =>
      drawn
        .map(([tl, twist], i): Timeline => {
          const at = (t: number): number => (twist === 'fraction' ? t + 0.25 : twist === 'long' ? tl.createdAt + (t - tl.createdAt) * 1_000 : t);
          return { ...tl, uid: `u${String(i).padStart(2, '0')}`, name: `js${i % 4}`, namespace: `ns${i % 2}`, createdAt: at(tl.createdAt), transitions: transitionsOf(tl).map((t) => ({ ...t, at: at(t.at) })) };
        })
        .sort(byNamespaceNameUid),
    );
  // A point on a run's creation or end (or a millisecond either side), or anywhere; windows that begin on such times too.
  const arbPick = fc.record({ run: fc.nat(), edge: fc.constantFrom('created', 'end', 'any'), nudge: fc.constantFrom(-1, 0, 1), any: fc.integer({ min: -1_000_000, max: 20_000_000 }) });
  const timeOf = (list: readonly Timeline[], p: { run: number; edge: string; nudge: number; any: number }): number => {
    const tl = list[p.run % list.length]!;
    return p.edge === 'any' ? T0 + p.any : (p.edge === 'created' ? tl.createdAt : lastAt(tl)) + p.nudge;
  };

  it('are the same doubles as summing each selected timeline, at one point and at many (any runs, rows and windows)', () => {
    let onePointFourTimes = 0;
    fc.assert(
      fc.property(arbList, fc.array(fc.boolean(), { minLength: 30, maxLength: 30 }), arbPick, fc.array(arbPick, { minLength: 3, maxLength: 3 }), fc.integer({ min: 0, max: 20_000_000 }), fc.constantFrom<'uptime' | 'schedulingGoodput'>('uptime', 'schedulingGoodput'), fc.boolean(), (runs, keep, point, starts, h, indicator, many) => {
        const list = markSorted(runs);
        const rc = runColumns(list);
        const rows = Int32Array.from(list.keys()).filter((i) => keep[i]!);
        const members = Array.from(rows, (i) => list[i]!);
        // Names begin where the (namespace, name) changes: the selection is in the list's order.
        const bounds = [0];
        for (let m = 1; m < members.length; m++) if (members[m]!.name !== members[m - 1]!.name || members[m]!.namespace !== members[m - 1]!.namespace) bounds.push(m);
        bounds.push(members.length);
        const t = timeOf(list, point);
        // Windows ending at t that begin on the drawn times (at least 1 ms long), most often three different ones.
        const [periodMs, burnWindowMs, shortWindowMs] = starts.map((s) => Math.max(1, t - timeOf(list, s)));
        const windows = { periodMs: periodMs!, burnWindowMs: burnWindowMs!, shortWindowMs: shortWindowMs! };
        const points = many ? [t - 3_600_000, t] : [t];
        if (!many && new Set([t, t - periodMs!, t - burnWindowMs!, t - shortWindowMs!]).size === 4) onePointFourTimes++;
        const horizon = T0 + h;
        const fromRows = sloSumsByGroup(members, bounds, horizon, points, windows, indicator, { columns: rc, rows, first: 0 });
        const fromTimelines = sloSumsByGroup(members, bounds, horizon, points, windows, indicator);
        expect(Buffer.from(fromRows.buffer).equals(Buffer.from(fromTimelines.buffer))).toBe(true);
      }),
      { numRuns: 1500 },
    );
    // The one point's own loop (four different times) was taken, often.
    expect(onePointFourTimes).toBeGreaterThan(300);
  });
});

describe('thresholds that can fire at any objective', () => {
  const month = { periodMs: 28 * DAY, burnWindowMs: HOUR, shortWindowMs: 5 * MIN };
  it('hold 2 % in 1 h down to half the window at the budget, 1/(2(1−o)·672)', () => {
    expect(alertThreshold(0.02, 0.97, month)).toBe(0.02); // 0.5 / 20.16 = 2.48 %: not held down
    expect(alertThreshold(0.02, 0.95, month)).toBeCloseTo(0.5 / 33.6, 12); // 1.49 %
    expect(alertThreshold(0.02, 0.9, month)).toBeCloseTo(0.5 / 67.2, 12); // 0.74 %
    expect(alertThreshold(0.1, 0.95, { periodMs: 28 * DAY, burnWindowMs: 3 * DAY, shortWindowMs: 6 * HOUR })).toBe(0.1);
  });

  it('the largest burn factor that can fire is 1/(1 − o): 14.4 fires only from 93.06 %', () => {
    expect(maxBurnFactor(0.95)).toBeCloseTo(20, 12);
    expect(maxBurnFactor(0.9306) > 14.4).toBe(true);
    expect(maxBurnFactor(0.93) < 14.4).toBe(true);
  });

  // A JobSet up the whole period but for its last burn window, down through it: the alert fires at
  // every objective, and a burn window with half of it down fires too.
  //   ──────────── up ───────────────┬── down (w) ──┤ t
  it('a JobSet down for the whole burn window fires at every objective (property)', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.001, max: 0.9999, noNaN: true }), fc.constantFrom(1, 6, 24, 72), fc.constantFrom(7, 28, 30), (objective, hours, days) => {
        const w = { periodMs: days * DAY, burnWindowMs: hours * HOUR, shortWindowMs: 5 * MIN };
        const end = T0 + w.periodMs;
        const down = Math.ceil(w.burnWindowMs / 2);
        const tl: Timeline = { ...u1, createdAt: T0, transitions: [{ at: T0, state: 'up' }, { at: end - down, state: 'down' }] };
        const [t] = sloTotals([tl], end, [end], w);
        expect(alertFiring(sloFigures(t!, objective, w), t!, 0.02, w)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

describe('SLO figures over generated timelines (properties)', () => {
  const arbWindows = fc.record({
    periodMs: fc.integer({ min: 1, max: 100_000_000 }),
    burn: fc.double({ min: 0, max: 1, noNaN: true }),
    short: fc.double({ min: 0, max: 1, noNaN: true }),
  }).map(({ periodMs, burn, short }) => {
    const burnWindowMs = Math.max(1, Math.round(periodMs * burn));
    return { periodMs, burnWindowMs, shortWindowMs: Math.max(1, Math.round(burnWindowMs * short)) };
  });
  const arbObjective = fc.double({ min: 0.01, max: 0.999, noNaN: true });

  it('consumed + remaining = allowed; burn rate × (1 − o) × counted = down; the windows agree with the naive oracle', () => {
    fc.assert(
      fc.property(fc.array(arbTimeline, { minLength: 1, maxLength: 4 }), arbWindows, arbObjective, fc.integer({ min: 0, max: 150_000_000 }), fc.integer({ min: 0, max: 150_000_000 }), (tls, w, objective, at, h) => {
        const t = T0 + at;
        const horizon = T0 + h;
        const [totals] = sloTotals(tls, horizon, [t], w);
        // Each window against the oracle, summed over the members.
        const sum = (from: number, state: 'up' | 'down'): number =>
          tls.reduce((acc, tl) => {
            const d = oracle(tl, horizon, from, t).durations;
            return acc + (state === 'up' ? d.up : d.provisioning + d.down);
          }, 0);
        expect(totals!.periodUp).toBe(sum(t - w.periodMs, 'up'));
        expect(totals!.periodDown).toBe(sum(t - w.periodMs, 'down'));
        expect(totals!.burnUp).toBe(sum(t - w.burnWindowMs, 'up'));
        expect(totals!.burnDown).toBe(sum(t - w.burnWindowMs, 'down'));
        expect(totals!.shortDown).toBe(sum(t - w.shortWindowMs, 'down'));
        const f = sloFigures(totals!, objective, w);
        expect(f.consumedSeconds + f.remainingSeconds).toBeCloseTo(f.allowedSeconds, 6);
        if (f.burnRate !== null) expect(f.burnRate * (1 - objective) * (totals!.burnUp + totals!.burnDown)).toBeCloseTo(totals!.burnDown, 3);
        if (f.sli !== null) expect(f.sli).toBeCloseTo(totals!.periodUp / (totals!.periodUp + totals!.periodDown), 12);
        // A burn rate of 1 or less leaves the window's budget unspent, above 1 overspends it.
        if (f.burnRate !== null) expect(f.burnRate <= 1 + 1e-12).toBe(totals!.burnDown <= (1 - objective) * (totals!.burnUp + totals!.burnDown) * (1 + 1e-12));
      }),
      { numRuns: 1500 },
    );
  });

  // Scheduling goodput counts every part of wall time: up is good, queued, provisioning, interruption
  // downtime, suspended and unknown are bad (the oracle's suspended holds its queued time).
  it('by scheduling goodput: up and bad time equal the oracle, and the SLI is up ÷ wall', () => {
    fc.assert(
      fc.property(fc.array(arbTimeline, { minLength: 1, maxLength: 4 }), arbWindows, fc.integer({ min: 0, max: 150_000_000 }), fc.integer({ min: 0, max: 150_000_000 }), (tls, w, at, h) => {
        const t = T0 + at;
        const horizon = T0 + h;
        const [totals] = sloTotals(tls, horizon, [t], w, 'schedulingGoodput');
        const sum = (from: number) =>
          tls.reduce(
            (acc, tl) => {
              const o = oracle(tl, horizon, from, t);
              const d = o.durations;
              expect(o.queued).toBeLessThanOrEqual(d.suspended);
              return { up: acc.up + d.up, wall: acc.wall + d.up + d.provisioning + d.down + d.suspended + d.unknown };
            },
            { up: 0, wall: 0 },
          );
        const period = sum(t - w.periodMs);
        const burn = sum(t - w.burnWindowMs);
        const short = sum(t - w.shortWindowMs);
        expect([totals!.periodUp, totals!.periodUp + totals!.periodDown]).toEqual([period.up, period.wall]);
        expect([totals!.burnUp, totals!.burnUp + totals!.burnDown]).toEqual([burn.up, burn.wall]);
        expect(totals!.shortDown).toBe(short.wall - short.up);
        expect(sloFigures(totals!, 0.9, w).sli).toBe(period.wall === 0 ? null : period.up / period.wall);
      }),
      { numRuns: 1000 },
    );
  });

  // Burn rate 1 ⇔ spending exactly the budget: a window whose down share is exactly 1 − o.
  //   ── up (a) ──┬── down (b) ──┤ t    with b / (a + b) = 1 − o
  it('burn rate is 1 exactly when the window consumes at the budget rate', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 99 }), fc.integer({ min: 1, max: 1000 }), (percentDown, unit) => {
        const objective = 1 - percentDown / 100;
        const length = 100 * unit * 1000;
        const down = percentDown * unit * 1000;
        const tl: Timeline = { ...u1, createdAt: T0, transitions: [{ at: T0, state: 'up' }, { at: T0 + length - down, state: 'down' }] };
        const w = { periodMs: 2 * length, burnWindowMs: length, shortWindowMs: 1 };
        const f = sloFigures(sloTotals([tl], T0 + length, [T0 + length], w)[0]!, objective, w);
        expect(f.burnRate).toBeCloseTo(1, 9);
        expect(f.remainingSeconds).toBeCloseTo(0, 6);
      }),
    );
  });
});
