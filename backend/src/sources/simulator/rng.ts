// Deterministic randomness for the simulator. Every JobSet gets its own stream, keyed by
// (seed, slot, run), so a JobSet's life does not depend on how the fleet merge interleaves the
// others, and adding a slot does not change the lives of the existing ones.

import { xoroshiro128plusFromState } from 'pure-rand/generator/xoroshiro128plus';
import type { RandomGenerator } from 'pure-rand/types/RandomGenerator';

/** A 32-bit avalanche mix (the splitmix/murmur finalizer family). */
export function mix32(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x7feb352d);
  x = Math.imul(x ^ (x >>> 15), 0x846ca68b);
  return (x ^ (x >>> 16)) >>> 0;
}

const TWO_32 = 4294967296;
const HEX: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

function hex32(x: number): string {
  return HEX[(x >>> 24) & 255]! + HEX[(x >>> 16) & 255]! + HEX[(x >>> 8) & 255]! + HEX[x & 255]!;
}

function hex24(n: number): string {
  if (!Number.isInteger(n) || n < 0 || n >= 2 ** 24) throw new RangeError(`${n} does not fit a UID's 24 bits`);
  return n.toString(16).padStart(6, '0');
}

export class Rng {
  private readonly g: RandomGenerator;

  /** A stream for `seed` and a path of non-negative integer keys; different paths are unrelated. */
  constructor(seed: number, ...keys: number[]) {
    // Fold the whole seed (not just its low 32 bits) and the keys into one hash, then expand it.
    let h = mix32((seed >>> 0) ^ 0x9e3779b9);
    h = mix32(h ^ Math.floor(Math.abs(seed) / TWO_32));
    for (const k of keys) h = mix32((h + Math.imul(k + 1, 0x85ebca6b)) >>> 0);
    const state = [mix32(h ^ 0x243f6a88), mix32(h ^ 0x85a308d3), mix32(h ^ 0x13198a2e), mix32(h ^ 0x03707344)];
    // xoroshiro must not start from all zeros.
    if ((state[0]! | state[1]! | state[2]! | state[3]!) === 0) state[0] = 1;
    this.g = xoroshiro128plusFromState(state.map((w) => w | 0));
    // The first outputs of a freshly seeded xoroshiro are weakly mixed: skip a few.
    for (let i = 0; i < 4; i++) this.g.next();
  }

  /** 32 random bits as an unsigned integer. */
  u32(): number {
    return this.g.next() >>> 0;
  }

  /** Uniform in [0, 1). */
  float(): number {
    return (this.g.next() >>> 0) / TWO_32;
  }

  /** Uniform integer in [min, max] (both included). */
  int(min: number, max: number): number {
    return min + Math.floor(this.float() * (max - min + 1));
  }

  /** Uniform real in [min, max). */
  between(min: number, max: number): number {
    return min + this.float() * (max - min);
  }

  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.float() * items.length)];
    if (item === undefined) throw new RangeError('pick from an empty list');
    return item;
  }

  /** Pick with weights; `weights` has the same length as `items`. */
  weighted<T>(items: readonly T[], weights: readonly number[]): T {
    let total = 0;
    for (const w of weights) total += w;
    let x = this.float() * total;
    for (let i = 0; i < items.length; i++) {
      x -= weights[i]!;
      if (x < 0) return items[i]!;
    }
    return items[items.length - 1]!;
  }

  /** Exponential with the given mean (Infinity gives Infinity: a hazard that never fires). */
  exp(mean: number): number {
    if (mean === Infinity) return Infinity;
    return -mean * Math.log(1 - this.float());
  }

  /** Standard normal (Box–Muller; the second value is dropped to keep the stream simple). */
  normal(): number {
    const u = 1 - this.float();
    const v = this.float();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** Log-normal with the given median and log-space sigma, clamped to [min, max]. */
  lognormal(median: number, sigma: number, min = 0, max = Infinity): number {
    const x = median * Math.exp(sigma * this.normal());
    return x < min ? min : x > max ? max : x;
  }

  /** In-place Fisher–Yates shuffle. */
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = Math.floor(this.float() * (i + 1));
      const tmp = items[i]!;
      items[i] = items[j]!;
      items[j] = tmp;
    }
    return items;
  }

  /**
   * An RFC 4122 version-4-shaped UUID, as the API server assigns to metadata.uid. With `unique`
   * (two numbers below 2^24, e.g. a slot and a run), the last 12 hex digits are those numbers, so
   * UIDs never repeat within a fleet: random ones would (a stream has a 32-bit seed), and
   * Kubernetes never reuses a UID.
   */
  uuid(unique?: [number, number]): string {
    const a = this.u32();
    const b = this.u32();
    const c = this.u32();
    const d = this.u32();
    const bh = hex32(((b & 0xffff0fff) | 0x00004000) >>> 0);
    const ch = hex32(((c & 0x3fffffff) | 0x80000000) >>> 0);
    const tail = unique === undefined ? `${ch.slice(4)}${hex32(d)}` : `${hex24(unique[0])}${hex24(unique[1])}`;
    return `${hex32(a)}-${bh.slice(0, 4)}-${bh.slice(4)}-${ch.slice(0, 4)}-${tail}`;
  }
}
