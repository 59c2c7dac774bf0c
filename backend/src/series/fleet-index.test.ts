// The fleet index against the per-timeline path it stands in for: over generated fleets fed in
// pieces and out of order (as a live stream, a restore and retention do), every pooled window equals
// the sum of the windows of the timelines a query selects.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { timelines as arbTimelines, T0 } from '../../../test/support/arbitraries.ts';
import { openTransitions, transitionsOf, type Timeline } from '../timeline/types.ts';
import { firstUp, timeToFirstUpAt } from './figures.ts';
import { FleetIndex, type FleetIndexImage, type PartitionImage } from './fleet-index.ts';
import { livedIn } from './summary.ts';
import { FIELDS, windowTotals } from './totals.ts';

const NAMESPACES = ['a', 'b', 'c'];

const arbFleet = fc
  .array(fc.tuple(arbTimelines(12), fc.constantFrom(...NAMESPACES), fc.constantFrom(undefined, 'east')), { minLength: 1, maxLength: 12 })
  .map((list) => list.map(([tl, namespace, cluster], i): Timeline => ({ ...tl, uid: `u${i}`, namespace, ...(cluster ? { cluster } : {}) })));

/** The per-timeline path: what the JobSets of these namespaces that lived in [from, to] add up. */
function slow(fleet: readonly Timeline[], namespaces: readonly string[], horizon: number, from: number, to: number) {
  const members = fleet.filter((tl) => (namespaces.length === 0 || namespaces.includes(tl.namespace)) && livedIn(tl, horizon, from, to));
  const totals = new Float64Array(FIELDS);
  const one = new Float64Array(FIELDS);
  const ttfu: number[] = [];
  for (const tl of members) {
    windowTotals(tl, horizon, from, to, one);
    for (let f = 0; f < FIELDS; f++) totals[f]! += one[f]!;
    const t = timeToFirstUpAt(firstUp(tl), to);
    if (t !== null) ttfu.push(t);
  }
  return { totals, count: members.length, timeToFirstUpSeconds: ttfu.length > 0 ? ttfu.reduce((x, y) => x + y, 0) / ttfu.length : null };
}

/** The index's pooled window over every partition against the per-timeline path's. */
function expectAsSlow(index: FleetIndex, fleet: readonly Timeline[], horizon: number, from: number, to: number): void {
  const fast = index.window(index.partitions(), horizon, from, to);
  const expected = slow(fleet, [], horizon, from, to);
  expect(Array.from(fast.totals)).toEqual(Array.from(expected.totals));
  expect(fast.count).toBe(expected.count);
}

/**
 * Feeds the fleet to the index as a stream would: each timeline grows in pieces, the pieces of all
 * timelines interleaved (so events arrive out of time order), with a read between rounds (so sums
 * already taken must be redone). Returns the grown timelines, which the index holds.
 */
function feed(index: FleetIndex, fleet: readonly Timeline[], cuts: number[]): Timeline[] {
  const views = fleet.map((tl): Timeline => ({ ...tl, transitions: [] }));
  let k = 0;
  for (let progress = true; progress; ) {
    progress = false;
    fleet.forEach((tl, i) => {
      const view = views[i]!;
      const have = transitionsOf(view).length;
      const n = transitionsOf(tl).length;
      if (have === n) return;
      progress = true;
      openTransitions(view).push(...transitionsOf(tl).slice(have, have + 1 + (cuts[k++ % cuts.length]! % (n - have))));
      index.grew(view, have);
    });
    index.window(index.partitions(), Infinity, T0, T0 + 50_000_000);
  }
  return views;
}

/** Fleets large enough that a partition holds sums of many events (a checkpoint every 128): what an image keeps. */
const arbLargeFleet = fc
  .array(fc.tuple(arbTimelines(12), fc.constantFrom('a', 'b')), { minLength: 50, maxLength: 100 })
  .map((list) => list.map(([tl, namespace], i): Timeline => ({ ...tl, uid: `u${i}`, namespace })));

const arbWindow = fc.tuple(fc.integer({ min: -1_000_000, max: 90_000_000 }), fc.integer({ min: 0, max: 90_000_000 }), fc.nat(1_000));

describe('the fleet index', () => {
  it('equals the per-timeline path for every pooled window, JobSet count and time to first up', () => {
    fc.assert(
      fc.property(
        arbFleet,
        fc.array(fc.nat(50), { minLength: 1, maxLength: 8 }),
        fc.array(arbWindow, { minLength: 1, maxLength: 4 }),
        fc.subarray(NAMESPACES),
        (fleet, cuts, windows, namespaces) => {
          const index = new FleetIndex();
          const views = feed(index, fleet, cuts);
          // Sorted and summed ahead (as a service does before it says it is ready), or on first read.
          if (cuts[0]! % 2 === 0) index.prepare();
          const last = Math.max(...fleet.map((tl) => transitionsOf(tl)[transitionsOf(tl).length - 1]!.at));
          const partitions = index.partitions(undefined, namespaces);
          for (const [a, length, shift] of windows) {
            const horizon = last + (a > 0 ? a % 10_000_000 : 0);
            // Now and then a window that begins or ends on an event (a creation at `to`, an end at `from`).
            const edges = fleet.flatMap((tl) => transitionsOf(tl).map((t) => t.at));
            const from = shift % 3 === 0 ? edges[shift % edges.length]! : T0 + a;
            const to = shift % 5 === 0 ? Math.max(from, edges[(shift >> 3) % edges.length]!) : from + length;
            expect(index.covers(partitions, horizon)).toBe(true);
            const expected = slow(views, namespaces, horizon, from, to);
            // Alone, and among the windows of a series (each boundary shared).
            const times = [...new Set([from - length, from, to, to + length])].sort((x, y) => x - y);
            const many = index.windows(partitions, horizon, times, [times.indexOf(from - length), times.indexOf(from)], [times.indexOf(from), times.indexOf(to)]);
            for (const fast of [index.window(partitions, horizon, from, to), many[1]!]) {
              expect(Array.from(fast.totals)).toEqual(Array.from(expected.totals));
              expect(fast.count).toBe(expected.count);
              if (expected.timeToFirstUpSeconds === null) expect(fast.timeToFirstUpSeconds).toBeNull();
              else expect(fast.timeToFirstUpSeconds).toBeCloseTo(expected.timeToFirstUpSeconds, 6);
            }
            expect(many[0]!.count).toBe(slow(views, namespaces, horizon, from - length, from).count);
          }
        },
      ),
      { numRuns: 1500 },
    );
  });

  it('sorts the events of a restore alike whatever their times: whole milliseconds, or fractions of one', () => {
    // Whole milliseconds sort in one native sort of numbers; fractions (as spans too long for its keys) by a comparator.
    const moves: ((at: number) => number)[] = [(at) => at, (at) => at + 0.5];
    fc.assert(
      fc.property(arbFleet, arbWindow, fc.constantFrom(0, 1), (fleet, [a, length], which) => {
        const moved = fleet.map((tl): Timeline => ({ ...tl, createdAt: moves[which]!(tl.createdAt), transitions: transitionsOf(tl).map((t) => ({ ...t, at: moves[which]!(t.at) })) }));
        const index = new FleetIndex();
        // As a restore gives them: every timeline whole, one after another (out of time order).
        for (const tl of moved) index.grew(tl);
        const horizon = Math.max(...moved.map((tl) => transitionsOf(tl)[transitionsOf(tl).length - 1]!.at));
        expectAsSlow(index, moved, horizon, T0 + a, T0 + a + length);
      }),
      { numRuns: 500 },
    );
  });

  it('a suspension summed before the first start came in at the same instant is not queued once it has (live, and from a kept image)', () => {
    // Kueue admits within the second a JobSet was created suspended: suspended and started at one
    // time. The suspension's event is summed into a checkpoint (128 events) before the start arrives.
    const at = (s: number): number => T0 + s * 1000;
    const plain = (uid: string, createdAt: number): Timeline => ({ uid, namespace: 'a', name: uid, labels: {}, accelerator: null, topology: null, accelerators: 0, checkpointIntervalMs: null, createdAt, transitions: [] });
    // Many JobSets start at that instant too, so that the suspension's checkpoint lies before the
    // place the start is sorted into (after every event at its time): that checkpoint is not taken again.
    const others = Array.from({ length: 70 }, (_, i): Timeline => ({ ...plain(`u${i}`, at(0)), transitions: [{ at: at(0), state: 'provisioning' }, { at: at(10 + i), state: 'up' }] }));
    const queued = (): Timeline => ({ ...plain('q', at(0)), transitions: [{ at: at(0), state: 'suspended' }] });
    const started = (tl: Timeline): void => {
      openTransitions(tl).push({ at: at(0), state: 'provisioning' }, { at: at(5), state: 'up' });
    };
    const horizon = at(500);
    const expectAsRebuilt = (index: FleetIndex, fleet: Timeline[]): void => {
      for (const [from, to] of [[at(0), horizon], [at(1), at(2)], [at(200), horizon]] as const) {
        const fast = index.window(index.partitions(), horizon, from, to);
        const expected = slow(fleet, [], horizon, from, to);
        expect(Array.from(fast.totals)).toEqual(Array.from(expected.totals));
      }
    };
    // Live: read (which sums the checkpoints), then the start comes.
    const q = queued();
    const live = new FleetIndex();
    for (const tl of [q, ...others]) live.grew(tl);
    live.window(live.partitions(), horizon, at(0), horizon);
    started(q);
    live.grew(q, 1);
    expectAsRebuilt(live, [q, ...others]);
    // From a snapshot's image taken before the start came in.
    const q2 = queued();
    const before = new FleetIndex();
    for (const tl of [q2, ...others]) before.grew(tl);
    const fleet = [q2, ...others];
    const image = before.image((tl) => fleet.indexOf(tl))!;
    started(q2);
    const kept = new FleetIndex();
    // The start that came after the image is taken in by adopt itself.
    expect(kept.adopt(image, fleet, [1, ...others.map(() => 2)])).toBeNull();
    expectAsRebuilt(kept, fleet);
  });

  it('forgets timelines: the rest still add up', () => {
    fc.assert(
      fc.property(arbFleet, fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }), arbWindow, (fleet, drop, [a, length]) => {
        const index = new FleetIndex();
        for (const tl of fleet) index.grew(tl);
        const gone = fleet.filter((_, i) => drop[i]);
        index.forgot(gone);
        const kept = fleet.filter((_, i) => !drop[i]);
        const horizon = Math.max(...fleet.map((tl) => transitionsOf(tl)[transitionsOf(tl).length - 1]!.at));
        const from = Math.min(T0 + a, horizon);
        const fast = index.window(index.partitions(), horizon, from, from + length);
        const expected = slow(kept, [], horizon, from, from + length);
        expect(Array.from(fast.totals)).toEqual(Array.from(expected.totals));
        expect(fast.count).toBe(expected.count);
      }),
      { numRuns: 500 },
    );
  });

  it('answers the windows asked again as the fleet grows and forgets (what it keeps of earlier reads is forgotten when an event comes before it)', () => {
    fc.assert(
      fc.property(arbFleet, fc.array(fc.nat(50), { minLength: 1, maxLength: 8 }), fc.array(arbWindow, { minLength: 1, maxLength: 4 }), fc.nat(12), (fleet, cuts, windows, forget) => {
        const index = new FleetIndex();
        const views = fleet.map((tl): Timeline => ({ ...tl, transitions: [] }));
        const last = Math.max(...fleet.map((tl) => transitionsOf(tl)[transitionsOf(tl).length - 1]!.at));
        // A series' times (enough of them that the index keeps C at each), asked again and again.
        const bounds = windows.flatMap(([a, length]) => [T0 + a, T0 + a + length]);
        const steps = Array.from({ length: 10 }, (_, k) => T0 + k * 7_000_000);
        const times = Float64Array.from(new Set([...bounds, ...steps])).sort();
        const starts = Int32Array.from(windows, ([a]) => times.indexOf(T0 + a));
        const ends = Int32Array.from(windows, ([a, length]) => times.indexOf(T0 + a + length));
        // A dashboard's windows, asked after every round of growth: each read keeps C(t) at their bounds.
        const ask = (kept: readonly Timeline[], horizon: number): void => {
          const many = index.windows(index.partitions(), Math.max(horizon, times[times.length - 1]!), times, starts, ends);
          windows.forEach(([a, length], w) => {
            const from = T0 + a;
            const fast = index.window(index.partitions(), horizon, from, from + length);
            const expected = slow(kept, [], horizon, from, from + length);
            expect(Array.from(fast.totals)).toEqual(Array.from(expected.totals));
            expect(fast.count).toBe(expected.count);
            const again = slow(kept, [], Math.max(horizon, times[times.length - 1]!), from, from + length);
            expect(Array.from(many[w]!.totals)).toEqual(Array.from(again.totals));
            expect(many[w]!.count).toBe(again.count);
          });
        };
        let k = 0;
        for (let progress = true; progress; ) {
          progress = false;
          // Timelines grow in turn, so later rounds place events before the times read so far.
          fleet.forEach((tl, i) => {
            const view = views[i]!;
            const have = transitionsOf(view).length;
            const n = transitionsOf(tl).length;
            if (have === n) return;
            progress = true;
            openTransitions(view).push(...transitionsOf(tl).slice(have, have + 1 + (cuts[k++ % cuts.length]! % (n - have))));
            index.grew(view, have);
          });
          const grown = views.filter((v) => transitionsOf(v).length > 0);
          ask(grown, Math.max(last, ...grown.map((v) => transitionsOf(v)[transitionsOf(v).length - 1]!.at)));
        }
        // Retention forgets some: every kept C(t) held theirs.
        const gone = views.slice(0, forget % (views.length + 1));
        index.forgot(gone);
        ask(views.slice(gone.length), last);
      }),
      { numRuns: 500 },
    );
  });

  /**
   * A snapshot's image of the index (each timeline's first held[i] transitions), taken in by a
   * restart for the same timelines grown since (the log after the snapshot), against the index built
   * from them again: every window, count and time to first up, alone and as a series' steps.
   */
  function restarted(fleet: readonly Timeline[], cuts: readonly number[]): { views: Timeline[]; image: FleetIndexImage; held: number[] } {
    const views = fleet.map((tl): Timeline => ({ ...tl, transitions: [] }));
    // Most timelines held whole (closed before the snapshot), some cut (they went on in the log).
    const held = fleet.map((tl, i) => (cuts[i % cuts.length]! % 3 === 0 ? 1 + (cuts[i % cuts.length]! % transitionsOf(tl).length) : transitionsOf(tl).length));
    const before = new FleetIndex();
    views.forEach((view, i) => {
      openTransitions(view).push(...transitionsOf(fleet[i]!).slice(0, held[i]));
      before.grew(view);
    });
    const image = before.image((tl) => views.indexOf(tl))!;
    views.forEach((view, i) => openTransitions(view).push(...transitionsOf(fleet[i]!).slice(held[i])));
    return { views, image, held };
  }

  const same = (a: FleetIndex, b: FleetIndex, fleet: readonly Timeline[], windows: readonly [number, number, number][], namespaces: string[]): void => {
    const last = Math.max(...fleet.map((tl) => transitionsOf(tl)[transitionsOf(tl).length - 1]!.at));
    for (const [x, length] of windows) {
      const from = T0 + x;
      const times = [from - length, from, from + length, from + 2 * length];
      const ask = (index: FleetIndex) => [index.window(index.partitions(undefined, namespaces), last, from, from + length), ...index.windows(index.partitions(undefined, namespaces), last, times, [0, 1, 2], [1, 2, 3])];
      const got = ask(a);
      const want = ask(b);
      expect(got.map((w) => [Array.from(w.totals), w.count, w.timeToFirstUpSeconds])).toEqual(want.map((w) => [Array.from(w.totals), w.count, w.timeToFirstUpSeconds]));
    }
  };

  it('takes in an image of itself kept with a snapshot, and then answers every question as the index built again', () => {
    fc.assert(
      fc.property(fc.oneof(arbFleet, arbLargeFleet), fc.array(fc.nat(50), { minLength: 1, maxLength: 8 }), fc.array(arbWindow, { minLength: 1, maxLength: 4 }), fc.subarray(NAMESPACES), (fleet, cuts, windows, namespaces) => {
        const { views, image, held } = restarted(fleet, cuts);
        const kept = new FleetIndex();
        // Every timeline given, and what each gained after the image taken in (the engine then tells it nothing again).
        expect(kept.adopt(image, views, held)).toBeNull();
        if (cuts[0]! % 2 === 0) kept.prepare();
        const built = new FleetIndex();
        for (const tl of views) built.grew(tl);
        expect(kept.events()).toBe(built.events());
        same(kept, built, views, windows, namespaces);
      }),
      { numRuns: 500 },
    );
  });

  it('sums again a partition whose timeline changed its goodput inputs while kept (reweighed), as the index built again', () => {
    fc.assert(
      fc.property(arbLargeFleet, fc.array(arbWindow, { minLength: 1, maxLength: 4 }), fc.nat(), (fleet, windows, pick) => {
        const views = fleet.map((tl): Timeline => ({ ...tl, transitions: transitionsOf(tl).slice() }));
        const live = new FleetIndex();
        for (const tl of views) live.grew(tl);
        const built = (): FleetIndex => {
          const index = new FleetIndex();
          for (const tl of views) index.grew(tl);
          return index;
        };
        // Its sums and kept C(t) taken with the old inputs first.
        same(live, built(), views, windows, []);
        const changed = views[pick % views.length]!;
        changed.accelerators = (changed.accelerators ?? 0) + 8;
        changed.checkpointIntervalMs = changed.checkpointIntervalMs == null ? 600_000 : null;
        live.reweighed(changed);
        same(live, built(), views, windows, []);
      }),
      { numRuns: 300 },
    );
  });

  it('takes the sums again of partitions whose timelines changed their goodput inputs after the image', () => {
    fc.assert(
      fc.property(arbLargeFleet, fc.array(fc.nat(50), { minLength: 1, maxLength: 8 }), fc.array(arbWindow, { minLength: 1, maxLength: 4 }), (fleet, cuts, windows) => {
        const { views, image, held } = restarted(fleet, cuts);
        views[0]!.accelerators = (views[0]!.accelerators ?? 0) + 8;
        views[0]!.checkpointIntervalMs = 600_000;
        const kept = new FleetIndex();
        expect(kept.adopt(image, views, held, new Set([0]))).toBeNull();
        const built = new FleetIndex();
        for (const tl of views) built.grew(tl);
        same(kept, built, views, windows, []);
      }),
      { numRuns: 300 },
    );
  });

  it('takes in an image kept before its checkpoints were spaced 128 apart (K 32: fixtures/fleet-index-k32.json), and answers as the index built again', () => {
    const fixture = JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures', 'fleet-index-k32.json'), 'utf8')) as {
      fleet: Timeline[];
      held: number[];
      image: { layout: string; partitions: (Omit<PartitionImage, 'times' | 'owners' | 'indices' | 'checkpoints'> & Record<'times' | 'owners' | 'indices' | 'checkpoints', number[]>)[] };
    };
    const image: FleetIndexImage = {
      layout: fixture.image.layout,
      partitions: fixture.image.partitions.map((p) => ({ ...p, times: Float64Array.from(p.times), owners: Uint32Array.from(p.owners), indices: Uint32Array.from(p.indices), checkpoints: Float64Array.from(p.checkpoints) })),
    };
    expect(image.layout).toBe('fleet-index sums 2, K 32, ACC 40');
    const { fleet, held } = fixture;
    const kept = new FleetIndex();
    expect(kept.adopt(image, fleet, held)).toBeNull();
    const built = new FleetIndex();
    for (const tl of fleet) built.grew(tl);
    expect(kept.events()).toBe(built.events());
    const windows = fc.sample(fc.array(arbWindow, { minLength: 4, maxLength: 4 }), { numRuns: 50, seed: 3 });
    for (const w of windows) same(kept, built, fleet, w, []);
    // And its own image now: this layout's, read back alike.
    const again = kept.image((tl) => fleet.indexOf(tl))!;
    expect(again.layout).toBe('fleet-index sums 2, K 128, ACC 40');
    const twice = new FleetIndex();
    expect(twice.adopt(again, fleet, fleet.map((tl) => transitionsOf(tl).length))).toBeNull();
    for (const w of windows) same(twice, built, fleet, w, []);
    // An image kept with a checkpoint every 64 events (every data dir written before K was 128): the
    // same fixture's every second checkpoint, as that writer kept them.
    const ACC = 40;
    const k64: FleetIndexImage = {
      layout: 'fleet-index sums 2, K 64, ACC 40',
      partitions: image.partitions.map((p) => {
        const sums = p.checkpoints.length / ACC;
        const checkpoints = Float64Array.from({ length: Math.ceil(sums / 2) * ACC }, (_, i) => p.checkpoints[Math.floor(i / ACC) * 2 * ACC + (i % ACC)]!);
        return { ...p, checkpoints };
      }),
    };
    const fromK64 = new FleetIndex();
    expect(fromK64.adopt(k64, fleet, held)).toBeNull();
    for (const w of windows) same(fromK64, built, fleet, w, []);
  });

  it('refuses an image whose checkpoints are not a spacing this index reads (one that K is no multiple of)', () => {
    const fleet = fc.sample(arbLargeFleet, { numRuns: 1, seed: 7 })[0]!;
    const { views, image, held } = restarted(fleet, [50]);
    for (const layout of ['fleet-index sums 2, K 48, ACC 40', 'fleet-index sums 2, K 256, ACC 40', 'fleet-index sums 1, K 32, ACC 40', 'fleet-index sums 2, K 32, ACC 39', 'fleet-index sums 2, K 0, ACC 40']) {
      const index = new FleetIndex();
      expect(index.adopt({ ...image, layout }, views, held)).toMatch(/is not this Upness's/);
      expect(index.events()).toBe(0);
    }
  });

  it('refuses an image that is not exactly of the timelines given, and then holds nothing', () => {
    const fleet = fc.sample(arbFleet.filter((f) => f.reduce((n, tl) => n + transitionsOf(tl).length, 0) >= 4), { numRuns: 1, seed: 7 })[0]!;
    const copy = (image: FleetIndexImage): FleetIndexImage => ({
      layout: image.layout,
      partitions: image.partitions.map((p) => ({ ...p, times: p.times.slice(), owners: p.owners.slice(), indices: p.indices.slice(), checkpoints: p.checkpoints.slice() })),
    });
    const { views, image, held } = restarted(fleet, [50]);
    const damaged: [string, (i: FleetIndexImage) => void, number[]?][] = [
      ['a time moved', (i) => (i.partitions[0]!.times[0]! -= 1)],
      ['an event of another transition', (i) => (i.partitions[0]!.indices[0] = held[i.partitions[0]!.owners[0]!]!)],
      ['an event dropped', (i) => Object.assign(i.partitions[0]!, { times: i.partitions[0]!.times.subarray(1), owners: i.partitions[0]!.owners.subarray(1), indices: i.partitions[0]!.indices.subarray(1) })],
      ['a partition dropped', (i) => i.partitions.pop()],
      ['another namespace', (i) => (i.partitions[0]!.namespace = 'z')],
      ['sums of another layout', (i) => (i.layout = 'fleet-index sums 0')],
      ['sums cut short', (i) => (i.partitions[0]!.checkpoints = i.partitions[0]!.checkpoints.subarray(1))],
      ['more transitions held than the image has', () => undefined, held.map((n, k) => (k === 0 ? n + 1 : n))],
    ];
    for (const [what, damage, otherHeld] of damaged) {
      const bad = copy(image);
      damage(bad);
      const index = new FleetIndex();
      const why = index.adopt(bad, views, otherHeld ?? held);
      expect([what, why]).toEqual([what, expect.any(String)]);
      expect(index.events()).toBe(0);
    }
    expect(new FleetIndex().adopt(copy(image), views, held)).toBeNull();
  });

  it('refuses an image with an event in another partition than its timeline’s, though at its time, in order and once', () => {
    const fleet = fc.sample(arbLargeFleet, { numRuns: 1, seed: 7 })[0]!;
    const { views, image, held } = restarted(fleet, [50]);
    expect(image.partitions.length).toBeGreaterThanOrEqual(2);
    const [a, b] = image.partitions as [PartitionImage, PartitionImage];
    // Partition b's first event moved into a, in time order; b keeps only its first sums (zeros), a its origin before it.
    const t = b.times[0]!;
    const k = a.times.findIndex((u) => u > t);
    const at = k < 0 ? a.times.length : k;
    const inserted = <T extends Float64Array | Uint32Array>(into: T, value: number): T => {
      const out = new (into.constructor as new (n: number) => T)(into.length + 1);
      out.set(into.subarray(0, at));
      out[at] = value;
      out.set(into.subarray(at), at + 1);
      return out;
    };
    const acc = Number(/ACC (\d+)/.exec(image.layout)![1]);
    Object.assign(a, { times: inserted(a.times, t), owners: inserted(a.owners, b.owners[0]!), indices: inserted(a.indices, b.indices[0]!), origin: Math.min(a.origin, t) });
    Object.assign(b, { times: b.times.subarray(1), owners: b.owners.subarray(1), indices: b.indices.subarray(1), checkpoints: b.checkpoints.subarray(0, acc) });
    const index = new FleetIndex();
    expect(index.adopt(image, views, held)).toMatch(/is of a timeline of another partition$/);
    expect(index.events()).toBe(0);
  });

  it('answers alike when its times are far apart or fractions of a millisecond (kept as they are), live and from an image', () => {
    // Each timeline's times stretched 100,000-fold: gaps of days to years, past what a 4-byte offset holds.
    const stretches: ((at: number) => number)[] = [(at) => T0 + (at - T0) * 100_000, (at) => at + 0.25];
    fc.assert(
      fc.property(arbLargeFleet, fc.array(fc.nat(50), { minLength: 1, maxLength: 8 }), arbWindow, fc.constantFrom(0, 1), (fleet, cuts, [a, length], which) => {
        const move = stretches[which]!;
        const moved = fleet.map((tl): Timeline => ({ ...tl, createdAt: move(tl.createdAt), transitions: transitionsOf(tl).map((t) => ({ ...t, at: move(t.at) })) }));
        const live = new FleetIndex();
        const views = feed(live, moved, cuts);
        const { views: restored, image, held } = restarted(moved, cuts);
        const kept = new FleetIndex();
        expect(kept.adopt(image, restored, held)).toBeNull();
        const horizon = Math.max(...moved.map((tl) => transitionsOf(tl)[transitionsOf(tl).length - 1]!.at));
        const from = move(T0 + a);
        const to = move(T0 + a + length);
        const expected = slow(views, [], horizon, from, to);
        for (const index of [live, kept]) {
          const fast = index.window(index.partitions(), horizon, from, to);
          expect(Array.from(fast.totals)).toEqual(Array.from(expected.totals));
          expect(fast.count).toBe(expected.count);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('answers alike for a timeline of more than 65,535 transitions (its indices past 2 bytes)', () => {
    const n = 70_001;
    const transitions = Array.from({ length: n }, (_, j) => ({ at: T0 + j * 1000, state: j === 0 ? ('provisioning' as const) : j % 2 === 1 ? ('up' as const) : ('down' as const) }));
    const long: Timeline = { uid: 'long', namespace: 'a', name: 'long', labels: {}, accelerator: null, topology: null, createdAt: T0, transitions };
    const short: Timeline = { ...long, uid: 'short', name: 'short', transitions: transitions.slice(0, 3) };
    const index = new FleetIndex();
    index.grew(short);
    index.grew(long);
    const horizon = T0 + n * 1000;
    for (const [from, to] of [[T0, horizon], [T0 + 65_530_500, T0 + 65_600_000], [T0 + 69_000_000, horizon]] as const) {
      const fast = index.window(index.partitions(), horizon, from, to);
      const expected = slow([short, long], [], horizon, from, to);
      expect(Array.from(fast.totals)).toEqual(Array.from(expected.totals));
    }
  });

  it('lists each timeline once in its partition as a stream grows it, its events at crowded times too, and answers as the per-JobSet path', () => {
    // Times snapped onto a coarse grid: many events at one time, among which a later transition's
    // timeline is found from its previous one's event.
    fc.assert(
      fc.property(arbFleet, fc.array(fc.nat(50), { minLength: 1, maxLength: 8 }), fc.constantFrom(1, 60_000, 10_000_000), arbWindow, (fleet, cuts, grid, [a, length]) => {
        const snap = (at: number): number => T0 + Math.floor((at - T0) / grid) * grid;
        const snapped = fleet.map((tl): Timeline => ({ ...tl, createdAt: snap(tl.createdAt), transitions: transitionsOf(tl).map((t) => ({ ...t, at: snap(t.at) })) }));
        const index = new FleetIndex();
        const views = feed(index, snapped, cuts);
        for (const p of index.partitions()) {
          const own = views.filter((tl) => tl.namespace === p.namespace && tl.cluster === p.cluster);
          expect(new Set(p.timelines).size).toBe(p.timelines.length);
          expect(new Set(p.timelines)).toEqual(new Set(own));
        }
        const horizon = Math.max(...snapped.map((tl) => transitionsOf(tl)[transitionsOf(tl).length - 1]!.at));
        expectAsSlow(index, views, horizon, T0 + a, T0 + a + length);
      }),
      { numRuns: 500 },
    );
  });

  it('answers alike when a crowd of events at one time hides a timeline (listed twice, a pointer more)', () => {
    // 400 JobSets created at one instant: the first ones' next transitions are not found among them.
    const crowd = Array.from({ length: 400 }, (_, i): Timeline => ({ uid: `u${i}`, namespace: 'a', name: `j${i}`, labels: {}, accelerator: null, topology: null, accelerators: 0, checkpointIntervalMs: null, createdAt: T0, transitions: [] }));
    const index = new FleetIndex();
    for (const tl of crowd) {
      openTransitions(tl).push({ at: T0, state: 'provisioning' });
      index.grew(tl, 0);
    }
    index.prepare();
    crowd.forEach((tl, i) => {
      openTransitions(tl).push({ at: T0 + 1000 * (i + 1), state: 'up' }, { at: T0 + 500_000 + 1000 * i, state: i % 3 === 0 ? 'failed' : 'completed' });
      index.grew(tl, 1);
    });
    index.prepare();
    const [p] = index.partitions();
    expect(new Set(p!.timelines).size).toBe(400);
    expect(p!.timelines.length).toBeGreaterThan(400);
    const horizon = T0 + 1_000_000;
    for (const [from, to] of [[T0 - 1, horizon], [T0 + 100_500, T0 + 600_000], [T0, T0]] as const) expectAsSlow(index, crowd, horizon, from, to);
  });

  it('answers alike for a partition of more than 65,536 timelines (their places past 2 bytes, some far below their block’s), grown live, forgotten down to fewer, and from an image', () => {
    const n = 70_000;
    const fleet = Array.from({ length: n }, (_, i): Timeline => ({ uid: `u${i}`, namespace: 'a', name: `j${i % 1000}`, labels: {}, accelerator: null, topology: null, accelerators: i % 5, checkpointIntervalMs: i % 4 === 0 ? 600_000 : null, createdAt: T0 + 1000 * i, transitions: [] }));
    const index = new FleetIndex();
    // A stream: every JobSet created, then every one up, then each down or ended, read between.
    const steps: ((tl: Timeline, i: number) => { at: number; state: 'provisioning' | 'up' | 'down' | 'completed' | 'failed' })[] = [
      (tl) => ({ at: tl.createdAt, state: 'provisioning' }),
      (tl, i) => ({ at: tl.createdAt + 300_000 + 1000 * (i % 17), state: 'up' }),
      // One in 10,000 ends only at the last: its place lies far below its block's others (kept apart).
      (tl, i) => ({ at: i % 10_000 === 5 ? T0 + 1000 * n + 3_900_000 : tl.createdAt + 3_600_000 + 1000 * (i % 13), state: i % 3 === 0 ? 'down' : i % 3 === 1 ? 'completed' : 'failed' }),
    ];
    const horizon = T0 + 1000 * n + 4_000_000;
    for (const step of steps) {
      fleet.forEach((tl, i) => {
        openTransitions(tl).push(step(tl, i));
        index.grew(tl, transitionsOf(tl).length - 1);
      });
      index.window(index.partitions(), horizon, T0, horizon);
    }
    const windows = [[T0 - 1, horizon], [T0 + 10_000_000, T0 + 30_000_000], [T0 + 65_000_000, T0 + 67_000_000]] as const;
    // The per-JobSet path's answers, worked out once for each list of timelines.
    const answers = new Map<readonly Timeline[], ReturnType<typeof slow>[]>();
    const expectAsSlowAll = (ix: FleetIndex, kept: readonly Timeline[]): void => {
      if (!answers.has(kept)) answers.set(kept, windows.map(([from, to]) => slow(kept, [], horizon, from, to)));
      for (const [w, [from, to]] of windows.entries()) {
        const fast = ix.window(ix.partitions(), horizon, from, to);
        const expected = answers.get(kept)![w]!;
        expect(Array.from(fast.totals)).toEqual(Array.from(expected.totals));
        expect(fast.count).toBe(expected.count);
      }
    };
    const [p] = index.partitions();
    expect(p!.timelines.length).toBe(n);
    expect(p!.owners.apart).toBeGreaterThan(0);
    expectAsSlowAll(index, fleet);
    // From an image of it, the table made again from the image's positions.
    const positions = new Map(fleet.map((tl, i) => [tl, i]));
    const image = index.image((tl) => positions.get(tl))!;
    const kept = new FleetIndex();
    expect(kept.adopt(image, fleet, fleet.map(() => 3))).toBeNull();
    kept.prepare();
    expect(kept.partitions()[0]!.timelines.length).toBe(n);
    expect(kept.partitions()[0]!.owners.apart).toBe(p!.owners.apart);
    expectAsSlowAll(kept, fleet);
    // Built from the whole timelines in a scrambled order (a restore's is not the order of time):
    // listed again in the order of their first events, as few kept apart.
    const built = new FleetIndex();
    for (let k = 0; k < n; k++) built.grew(fleet[(k * 7919) % n]!);
    built.prepare();
    expect(built.partitions()[0]!.owners.apart).toBe(p!.owners.apart);
    expectAsSlowAll(built, fleet);
    // Built in two batches, the second's events merged among the first's (a selection's build of
    // more than a batch): listed again as well.
    const halves = new FleetIndex();
    for (const odd of [0, 1]) {
      for (let i = odd; i < n; i += 2) halves.grew(fleet[i]!);
      halves.prepare();
    }
    expect(halves.partitions()[0]!.owners.apart).toBe(p!.owners.apart);
    expectAsSlowAll(halves, fleet);
    // Retention forgets most, and those that ended last (kept apart) among them.
    const gone = fleet.filter((_, i) => i % 7 !== 3 || i % 10_000 === 5);
    const left = fleet.filter((_, i) => i % 7 === 3 && i % 10_000 !== 5);
    for (const ix of [index, kept]) {
      ix.forgot(gone);
      const [q] = ix.partitions();
      expect(q!.timelines).toEqual(left);
      expect(q!.owners.apart).toBe(0);
      expectAsSlowAll(ix, left);
    }
  });

  it('answers at every event of a partition of many checkpoints, reached from the checkpoint before or taken back from the one after', () => {
    const arbOnePartition = fc
      .array(arbTimelines(12), { minLength: 60, maxLength: 120 })
      .map((list) => list.map((tl, i): Timeline => ({ ...tl, uid: `u${i}`, namespace: 'a' })));
    fc.assert(
      fc.property(arbOnePartition, fc.array(fc.nat(), { minLength: 8, maxLength: 8 }), (fleet, picks) => {
        const index = new FleetIndex();
        for (const tl of fleet) index.grew(tl);
        const edges = [...new Set(fleet.flatMap((tl) => transitionsOf(tl).map((t) => t.at)))].sort((x, y) => x - y);
        const horizon = edges[edges.length - 1]!;
        // Bounds on events, just before them and just after, each window alone (nothing kept between).
        const bounds = picks.map((k, n) => edges[k % edges.length]! + (n % 3) - 1).sort((x, y) => x - y);
        for (let n = 0; n + 1 < bounds.length; n++) {
          const fast = index.window(index.partitions(), horizon, bounds[n]!, bounds[n + 1]!);
          const expected = slow(fleet, [], horizon, bounds[n]!, bounds[n + 1]!);
          expect(Array.from(fast.totals)).toEqual(Array.from(expected.totals));
          expect(fast.count).toBe(expected.count);
        }
        // And as a series' steps, one sweep.
        const many = index.windows(index.partitions(), horizon, bounds, [0, 2, 4, 6], [1, 3, 5, 7]);
        many.forEach((w, k) => expect(Array.from(w.totals)).toEqual(Array.from(slow(fleet, [], horizon, bounds[2 * k]!, bounds[2 * k + 1]!).totals)));
      }),
      { numRuns: 150 },
    );
  });

  it('says when it cannot answer: an event after the horizon', () => {
    const index = new FleetIndex();
    const tl: Timeline = {
      uid: 'u', namespace: 'a', name: 'x', labels: {}, accelerator: null, topology: null, createdAt: T0,
      transitions: [{ at: T0, state: 'provisioning' }, { at: T0 + 60_000, state: 'up' }],
    };
    index.grew(tl);
    expect(index.covers(index.partitions(), T0 + 60_000)).toBe(true);
    expect(index.covers(index.partitions(), T0 + 59_999)).toBe(false);
  });
});
