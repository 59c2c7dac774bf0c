// The columnar cache must follow a timeline as it grows: queried after every appended transition,
// the figures still equal the naive oracle's.

import fc from 'fast-check';
import { arbTimeline, oracle, T0, timelines } from '../../../test/support/arbitraries.ts';
import type { OpenTimeline } from '../timeline/types.ts';
import { figures } from './figures.ts';

describe('the columnar cache of a growing timeline', () => {
  it('is extended, never stale, as transitions are appended between queries', () => {
    fc.assert(
      fc.property(fc.oneof(arbTimeline, timelines(300, 120)), fc.integer({ min: 0, max: 200_000_000 }), (full, h) => {
        const growing: OpenTimeline = { ...full, transitions: [full.transitions[0]!] };
        for (let i = 1; i <= full.transitions.length; i++) {
          const horizon = T0 + h;
          const from = growing.createdAt - 1000;
          const to = T0 + 2_000_000_000;
          const f = figures(growing, horizon, from, to);
          const o = oracle(growing, horizon, from, to);
          expect([Math.round(f.upSeconds * 1000), f.interruptions, f.recoveries]).toEqual([o.durations.up, o.interruptions, o.recoveries]);
          if (i < full.transitions.length) growing.transitions.push(full.transitions[i]!);
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('long timelines (figures by checkpoint)', () => {
  it('equal the naive oracle over any window', () => {
    fc.assert(
      fc.property(timelines(600, 150), fc.integer({ min: -1_000_000, max: 3_000_000_000 }), fc.integer({ min: -1_000_000, max: 3_000_000_000 }), fc.integer({ min: 0, max: 3_000_000_000 }), (tl, a, b, h) => {
        const [from, to] = [T0 + Math.min(a, b), T0 + Math.max(a, b)];
        const f = figures(tl, T0 + h, from, to);
        const o = oracle(tl, T0 + h, from, to);
        expect([Math.round(f.upSeconds * 1000), Math.round(f.suspendedSeconds * 1000), Math.round(f.queuedSeconds * 1000), Math.round(f.unknownSeconds * 1000), Math.round(f.interruptionDowntimeSeconds * 1000), f.interruptions, f.recoveries]).toEqual([
          o.durations.up, o.durations.suspended, o.queued, o.durations.unknown, o.durations.down, o.interruptions, o.recoveries,
        ]);
        const mean = (xs: number[]) => (xs.length === 0 ? null : xs.reduce((x, y) => x + y, 0) / xs.length / 1000);
        const mttr = mean(o.recoveredDown);
        if (mttr === null) expect(f.mttrSeconds).toBeNull();
        else expect(f.mttrSeconds).toBeCloseTo(mttr, 6);
      }),
      { numRuns: 1000 },
    );
  });
});
