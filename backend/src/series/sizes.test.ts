// Job sizes against hand-computed truth: the size of a JobSet, the buckets' labels and edges, and
// the buckets a query may not give.

import { DEFAULT_SIZE_BUCKETS, sizeBucketLabels, sizeBucketOf, sizeBucketsProblem, sizeOf } from './sizes.ts';

test('a size is the accelerators, or the pods without any; 0 when neither is known', () => {
  expect(sizeOf({ accelerators: 16, pods: 4 })).toBe(16);
  expect(sizeOf({ accelerators: 0, pods: 4 })).toBe(4);
  expect(sizeOf({ pods: 3 })).toBe(3);
  // Written before pods were kept (absent or 0) and holding no accelerators: not known.
  expect(sizeOf({ accelerators: 0 })).toBe(0);
  expect(sizeOf({})).toBe(0);
});

test('the default buckets are 1, 2-8, 9-64, 65-512 and >512', () => {
  expect(sizeBucketLabels(DEFAULT_SIZE_BUCKETS)).toEqual(['1', '2-8', '9-64', '65-512', '>512']);
  expect(sizeBucketLabels([8, 512])).toEqual(['1-8', '9-512', '>512']);
  expect(sizeBucketLabels([1, 2, 3])).toEqual(['1', '2', '3', '>3']);
});

test('a size falls in the first bucket whose upper bound holds it: the edges', () => {
  const label = (size: number, bounds = DEFAULT_SIZE_BUCKETS): string => sizeBucketOf(size, bounds).label;
  expect([1, 2, 8, 9, 64, 65, 512, 513, 100_000].map((s) => label(s))).toEqual(['1', '2-8', '2-8', '9-64', '9-64', '65-512', '65-512', '>512', '>512']);
  expect([1, 8, 9, 512, 513].map((s) => label(s, [8, 512]))).toEqual(['1-8', '1-8', '9-512', '9-512', '>512']);
  expect(label(0)).toBe('unknown');
});

test('bucket keys sort by size, the unknown last, with more than ten buckets too', () => {
  const bounds = Array.from({ length: 12 }, (_, i) => 2 ** i);
  const sizes = [0, 3000, 1, 5, 2048, 2, 600, 64];
  const sorted = sizes.map((s) => ({ s, key: sizeBucketOf(s, bounds).key })).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  expect(sorted.map((x) => x.s)).toEqual([1, 2, 5, 64, 600, 2048, 3000, 0]);
});

test('buckets must be strictly ascending whole numbers from 1, at least one and at most 32', () => {
  expect(sizeBucketsProblem([1, 8, 64, 512])).toBeNull();
  expect(sizeBucketsProblem([3])).toBeNull();
  expect(sizeBucketsProblem([])).toBe('must hold at least one upper bound');
  expect(sizeBucketsProblem([0, 8])).toBe('[0] must be a whole number from 1');
  expect(sizeBucketsProblem([1, 2.5])).toBe('[1] must be a whole number from 1');
  expect(sizeBucketsProblem([1, -4])).toBe('[1] must be a whole number from 1');
  expect(sizeBucketsProblem([8, 1])).toBe('must be strictly ascending ([1] is 1, after 8)');
  expect(sizeBucketsProblem([1, 1])).toBe('must be strictly ascending ([1] is 1, after 1)');
  expect(sizeBucketsProblem(Array.from({ length: 33 }, (_, i) => i + 1))).toBe('must hold at most 32 upper bounds');
  expect(sizeBucketsProblem(Array.from({ length: 32 }, (_, i) => i + 1))).toBeNull();
});
