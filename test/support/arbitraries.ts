// Generated timelines for property tests, and a deliberately naive oracle to check figures against.

import fc from 'fast-check';
import { transitionsOf, type State, type OpenTimeline, type Timeline, type Transition } from '../../backend/src/timeline/types.ts';

const ACTIVE: State[] = ['provisioning', 'up', 'down', 'suspended', 'unknown'];
const TERMINAL: State[] = ['completed', 'failed', 'deleted'];
export const T0 = Date.parse('2026-01-01T00:00:00Z');

/** Any well-formed timeline: non-decreasing times, no state repeated back to back, terminal last. */
export const arbTimeline: fc.Arbitrary<OpenTimeline> = timelines(30);

/** Timelines of `minLength` to `maxLength` steps (long ones take the checkpointed path of the
 *  series stage; fast-check keeps arrays short unless a minimum says otherwise). */
export function timelines(maxLength: number, minLength = 0): fc.Arbitrary<OpenTimeline> {
  return fc
  .record({
    created: fc.integer({ min: 0, max: 10_000_000 }),
    steps: fc.array(
      fc.record({
        gap: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 5_000_000 })),
        state: fc.constantFrom(...ACTIVE),
        // Now and then, events proven after a gap in the watch.
        unobserved: fc.option(fc.record({ interruptions: fc.integer({ min: 0, max: 2 }), recoveries: fc.integer({ min: 0, max: 2 }) }), { freq: 8 }),
      }),
      { minLength, maxLength },
    ),
    first: fc.constantFrom<State>('provisioning', 'suspended', 'unknown'),
    end: fc.option(fc.record({ gap: fc.integer({ min: 0, max: 5_000_000 }), state: fc.constantFrom(...TERMINAL) })),
    // Goodput inputs: accelerators held, and a checkpoint interval (odd lengths too: halves of a ms).
    accelerators: fc.constantFrom(0, 1, 8, 256),
    checkpointIntervalMs: fc.option(fc.integer({ min: 1, max: 7_200_000 })),
  })
  .map(({ created, steps, first, end, accelerators, checkpointIntervalMs }) => {
    const createdAt = T0 + created;
    const transitions: OpenTimeline['transitions'] = [{ at: createdAt, state: first }];
    let at = createdAt;
    for (const step of [...steps, ...(end ? [end] : [])]) {
      if (step.state === transitions[transitions.length - 1]!.state) continue;
      at += step.gap;
      const unobserved = 'unobserved' in step ? (step.unobserved as Transition['unobserved'] | null) : null;
      transitions.push(unobserved ? { at, state: step.state, unobserved } : { at, state: step.state });
    }
    return { uid: 'u', namespace: 'ns', name: 'js', labels: {}, accelerator: null, topology: null, accelerators, checkpointIntervalMs, createdAt, transitions };
  });
}

/**
 * A small fleet of runs of a few names (js0–js2) in two namespaces (ns0, ns1), some named alike, every
 * `clusterEvery`-th run in the cluster `east` when drawn so (the others in none), in no order.
 */
export function namedFleet(maxRuns: number, clusterEvery: number): fc.Arbitrary<Timeline[]> {
  return fc
    .array(fc.tuple(timelines(12), fc.constantFrom('', 'east')), { minLength: 1, maxLength: maxRuns })
    .map((tls) =>
      tls.map(([tl, cluster], i): Timeline => ({ ...tl, uid: `u${i}`, name: `js${i % 3}`, namespace: `ns${i % 2}`, ...(cluster !== '' && i % clusterEvery === 0 ? { cluster } : {}), transitions: transitionsOf(tl).slice() })),
    );
}

/** A time in a generated fleet's first day or so (from a little before T0). */
export const arbFirstDayTime = fc.integer({ min: -1_000_000, max: 90_000_000 }).map((t) => T0 + t);

/** Times around a fleet: in its first day, or often exactly one of its transitions' (where a run's life begins or ends at a range's edge). */
export function timesAround(fleet: readonly Timeline[]): fc.Arbitrary<number> {
  const at = fleet.flatMap((tl) => transitionsOf(tl).map((t) => t.at));
  return fc.oneof(arbFirstDayTime, fc.constantFrom(...at));
}

/** A window and a horizon somewhere around a timeline's life. */
export const arbTimes = fc.tuple(
  fc.integer({ min: -1_000_000, max: 200_000_000 }),
  fc.integer({ min: -1_000_000, max: 200_000_000 }),
  fc.integer({ min: -1_000_000, max: 200_000_000 }),
  fc.integer({ min: 0, max: 200_000_000 }),
);

export interface OracleFigures {
  durations: Record<State, number>;
  interruptions: number;
  recoveries: number;
  recoveredDown: number[];
  interruptedUp: number[];
  queued: number;
}

/**
 * Figures the slow, obvious way: walk segments, clip each to [from, to] by hand, test each event
 * against from < t ≤ to. Shares no code with the series stage.
 */
export function oracle(tl: OpenTimeline, horizon: number, from: number, to: number): OracleFigures {
  const durations = Object.fromEntries([...ACTIVE, ...TERMINAL].map((s) => [s, 0])) as Record<State, number>;
  const result: OracleFigures = { durations, interruptions: 0, recoveries: 0, recoveredDown: [], interruptedUp: [], queued: 0 };
  const tr = tl.transitions;
  const last = tr[tr.length - 1]!;
  const end = TERMINAL.includes(last.state) ? last.at : Math.max(horizon, last.at);
  let started = false;
  for (let i = 0; i < tr.length; i++) {
    const seg = tr[i]!;
    if (seg.state === 'provisioning' || seg.state === 'up' || seg.state === 'down') started = true;
    if (TERMINAL.includes(seg.state)) break;
    const segEnd = i + 1 < tr.length ? tr[i + 1]!.at : Math.max(end, seg.at);
    const lo = Math.max(seg.at, from);
    const hi = Math.min(segEnd, to);
    if (hi > lo) {
      durations[seg.state] += hi - lo;
      if (seg.state === 'suspended' && !started) result.queued += hi - lo;
    }
    const next = tr[i + 1];
    if (next && next.at > from && next.at <= to && next.unobserved) {
      result.interruptions += next.unobserved.interruptions;
      result.recoveries += next.unobserved.recoveries;
    }
    if (next && next.at > from && next.at <= to) {
      if (seg.state === 'up' && (next.state === 'down' || next.state === 'failed')) {
        result.interruptions++;
        result.interruptedUp.push(next.at - seg.at);
      }
      if (seg.state === 'down' && next.state === 'up') {
        result.recoveries++;
        result.recoveredDown.push(next.at - seg.at);
      }
    }
  }
  return result;
}

// UIDs of every form (timeline/uids.ts holds the canonical ones as words, keeps the others as strings).
const hexDigit = fc.constantFrom(...'0123456789abcdef');
const hex = (n: number): fc.Arbitrary<string> => fc.array(hexDigit, { minLength: n, maxLength: n }).map((d) => d.join(''));

/** Any canonical UID: 32 lowercase hex digits, 8-4-4-4-12 (of any version or variant, as a trace may hold). */
export const arbCanonicalUid = fc.tuple(hex(8), hex(4), hex(4), hex(4), hex(12)).map((parts) => parts.join('-'));
/** Strings that are not canonical UIDs, and some that nearly are. */
export const arbOtherUid = fc.oneof(
  arbCanonicalUid.map((u) => u.toUpperCase()),
  arbCanonicalUid.chain((u) => fc.integer({ min: 0, max: 35 }).filter((i) => u[i] !== '-').map((i) => `${u.slice(0, i)}${u[i]!.toUpperCase() === u[i] ? 'g' : u[i]!.toUpperCase()}${u.slice(i + 1)}`)),
  arbCanonicalUid.map((u) => u.replace(/-/g, '')),
  arbCanonicalUid.map((u) => `{${u}}`),
  arbCanonicalUid.map((u) => u.slice(0, 35)),
  arbCanonicalUid.map((u) => `${u}0`),
  arbCanonicalUid.map((u) => `${u.slice(0, 8)}${u.slice(9, 10)}-${u.slice(10)}`),
  arbCanonicalUid.map((u) => `${u.slice(0, 13)}_${u.slice(14)}`),
  arbCanonicalUid.map((u) => `${u.slice(0, 35)}é`),
  arbCanonicalUid.map((u) => `${u.slice(0, 35)}\u0660`),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', minLength: 30, maxLength: 40 }),
  fc.constantFrom('', 'u', 'u-1', 'a', '-'.repeat(36), ' '.repeat(36)),
);
