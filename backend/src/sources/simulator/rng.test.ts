import fc from 'fast-check';
import { isoMillis, kubeTime } from './kube-time.ts';
import { Rng } from './rng.ts';

describe('Rng', () => {
  it('gives the same stream for the same seed and keys, and another for other keys', () => {
    const draw = (r: Rng) => Array.from({ length: 8 }, () => r.u32());
    expect(draw(new Rng(7, 1, 2))).toEqual(draw(new Rng(7, 1, 2)));
    expect(draw(new Rng(7, 1, 2))).not.toEqual(draw(new Rng(7, 1, 3)));
    expect(draw(new Rng(7, 1, 2))).not.toEqual(draw(new Rng(8, 1, 2)));
    // Seeds differing only above 32 bits are different seeds.
    expect(draw(new Rng(1))).not.toEqual(draw(new Rng(1 + 2 ** 32)));
  });

  it('keeps draws in their ranges', () => {
    fc.assert(
      fc.property(fc.integer(), fc.integer({ min: -1000, max: 1000 }), fc.integer({ min: 0, max: 1000 }), (seed, min, width) => {
        const r = new Rng(seed);
        for (let i = 0; i < 20; i++) {
          const f = r.float();
          expect(f).toBeGreaterThanOrEqual(0);
          expect(f).toBeLessThan(1);
          const n = r.int(min, min + width);
          expect(Number.isInteger(n)).toBe(true);
          expect(n).toBeGreaterThanOrEqual(min);
          expect(n).toBeLessThanOrEqual(min + width);
          const x = r.lognormal(100, 1, 10, 1000);
          expect(x).toBeGreaterThanOrEqual(10);
          expect(x).toBeLessThanOrEqual(1000);
          expect(r.exp(5)).toBeGreaterThanOrEqual(0);
        }
      }),
    );
  });

  it('has roughly the asked-for means', () => {
    const r = new Rng(42);
    let sum = 0;
    const n = 20000;
    for (let i = 0; i < n; i++) sum += r.exp(10);
    expect(sum / n).toBeGreaterThan(9.5);
    expect(sum / n).toBeLessThan(10.5);
    const samples = Array.from({ length: n }, () => r.lognormal(50, 0.8)).sort((a, b) => a - b);
    expect(samples[n / 2]).toBeGreaterThan(47);
    expect(samples[n / 2]).toBeLessThan(53);
  });

  it('makes version-4 UUIDs', () => {
    const r = new Rng(3);
    const seen = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const u = r.uuid();
      expect(u).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      seen.add(u);
    }
    expect(seen.size).toBe(1000);
  });
});

describe('timestamps', () => {
  it('format like toISOString, kubeTime without the milliseconds', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Date.UTC(9999, 11, 31) }), (ms) => {
        const iso = new Date(ms).toISOString();
        expect(isoMillis(ms)).toBe(iso);
        expect(kubeTime(ms)).toBe(iso.slice(0, 19) + 'Z');
      }),
      { numRuns: 2000 },
    );
    expect(kubeTime(Date.UTC(2026, 0, 1, 0, 0, 5, 999))).toBe('2026-01-01T00:00:05Z');
  });
});

describe('UIDs of a fleet', () => {
  it('never repeat, even across hundreds of thousands of JobSets (random ones did: a stream has a 32-bit seed)', () => {
    const seen = new Set<string>();
    for (let slot = 0; slot < 2000; slot++) {
      for (let run = 0; run < 200; run++) seen.add(new Rng(42, 2, slot, run).uuid([slot, run]));
    }
    expect(seen.size).toBe(2000 * 200);
  });

  it('keep the shape of a version-4 UUID', () => {
    expect(new Rng(1).uuid([5, 7])).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-000005000007$/);
  });
});
