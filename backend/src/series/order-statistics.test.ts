// The k-th smallest by selection is the value a sort puts at k, bit for bit (Object.is: -0 and 0
// told apart, NaN last), over many generated arrays: duplicates, signed zeros, NaN, already sorted,
// reversed, all equal, and organ pipes (an order that defeats some medians of three).

import { Rng } from '../sources/simulator/rng.ts';
import { OrderStatistics } from './order-statistics.ts';
import { percentile } from './fleet.ts';

function generated(rng: Rng, n: number, shape: number): Float64Array {
  const a = new Float64Array(n);
  const pool = [0, -0, 1, -1, 2.5, 1e300, -1e300, 5e-324, NaN];
  for (let i = 0; i < n; i++) {
    switch (shape) {
      case 0:
        a[i] = Math.floor(rng.float() * 10) - 3;
        break;
      case 1:
        a[i] = pool[Math.floor(rng.float() * (pool.length - 1))]!;
        break;
      case 2:
        a[i] = pool[Math.floor(rng.float() * pool.length)]!;
        break;
      case 3:
        a[i] = i;
        break;
      case 4:
        a[i] = n - i;
        break;
      case 5:
        a[i] = 7;
        break;
      case 6:
        // Organ pipe: up then down.
        a[i] = i < n / 2 ? i : n - i;
        break;
      default:
        a[i] = (rng.float() - 0.5) * 1e6;
    }
  }
  return a;
}

describe('order statistics', () => {
  it('give the value a sort puts at every rank, over 3,000 generated arrays', () => {
    const rng = new Rng(21);
    let compared = 0;
    for (let t = 0; t < 3_000; t++) {
      const n = 1 + Math.floor(rng.float() * (t % 10 === 0 ? 5_000 : 60));
      const values = generated(rng, n, t % 8);
      const sorted = values.slice().sort();
      const before = values.slice();
      const order = new OrderStatistics(values);
      // Every rank of a small array; a sample of a large one, in any order (each selection starts
      // from the order the one before left).
      const ranks = n <= 60 ? Array.from({ length: n }, (_, k) => k).reverse() : Array.from({ length: 40 }, () => Math.floor(rng.float() * n));
      for (const k of ranks) {
        const got = order.at(k);
        if (!Object.is(got, sorted[k])) throw new Error(`array ${t} (n ${n}, shape ${t % 8}) rank ${k}: ${got} ≠ ${sorted[k]}`);
        compared++;
      }
      // The values themselves are left as they were.
      expect(values.every((v, i) => Object.is(v, before[i]))).toBe(true);
    }
    expect(compared).toBeGreaterThan(50_000);
  });

  it('give the percentiles of a sorted copy', () => {
    const rng = new Rng(5);
    for (let t = 0; t < 500; t++) {
      const values = generated(rng, 1 + Math.floor(rng.float() * 300), t % 8);
      const sorted = values.slice().sort();
      const order = new OrderStatistics(values);
      for (const phi of [0, 0.5, 0.9, 0.99, 1]) {
        const rank = phi * (values.length - 1);
        const low = order.at(Math.floor(rank));
        expect(Object.is(low + (order.at(Math.ceil(rank)) - low) * (rank - Math.floor(rank)), percentile(sorted, phi))).toBe(true);
      }
    }
  });
});
