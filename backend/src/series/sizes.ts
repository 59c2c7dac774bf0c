// Job sizes (issue 20 §3): a JobSet's size is its accelerator count (Σ replicas × parallelism ×
// accelerators per pod) or, without accelerators, its pod count (Σ replicas × parallelism). Grouped
// into buckets by ascending upper bounds: [1, 8, 64, 512] makes 1, 2-8, 9-64, 65-512 and >512, as
// Apache Aurora's SLA statistics group by job size. A size of 0 (no pod known: a JobSet of no
// replicas, or a timeline written before sizes were kept and not observed since) is `unknown`.

/** The default buckets' upper bounds. */
export const DEFAULT_SIZE_BUCKETS: readonly number[] = [1, 8, 64, 512];
/** The most upper bounds a query may give (so the group keys stay short and ordered). */
export const MAX_SIZE_BUCKETS = 32;
/** The group of a timeline whose size is not known. */
export const UNKNOWN_SIZE = 'unknown';

/** What a timeline carries of its size (the identity fields). */
export interface Sized {
  accelerators?: number;
  pods?: number;
}

/** Accelerators when it has any, else pods; 0 when neither is known. */
export function sizeOf(tl: Sized): number {
  const accelerators = tl.accelerators ?? 0;
  return accelerators > 0 ? accelerators : (tl.pods ?? 0);
}

/** Why `bounds` are not usable buckets; null when they are (ascending whole numbers from 1, at most MAX_SIZE_BUCKETS). */
export function sizeBucketsProblem(bounds: readonly number[]): string | null {
  if (bounds.length === 0) return 'must hold at least one upper bound';
  if (bounds.length > MAX_SIZE_BUCKETS) return `must hold at most ${MAX_SIZE_BUCKETS} upper bounds`;
  for (let i = 0; i < bounds.length; i++) {
    const b = bounds[i]!;
    if (!Number.isSafeInteger(b) || b < 1) return `[${i}] must be a whole number from 1`;
    if (i > 0 && b <= bounds[i - 1]!) return `must be strictly ascending ([${i}] is ${b}, after ${bounds[i - 1]})`;
  }
  return null;
}

/** The labels of the buckets of `bounds`: one per bound (`1`, `2-8`), then `>last`. */
export function sizeBucketLabels(bounds: readonly number[]): string[] {
  const labels = bounds.map((upper, i) => {
    const lower = i === 0 ? 1 : bounds[i - 1]! + 1;
    return lower === upper ? String(upper) : `${lower}-${upper}`;
  });
  labels.push(`>${bounds.at(-1)}`);
  return labels;
}

export interface SizeBucket {
  /** Sorts the buckets by size (the unknown last): the bucket's index, zero-padded. */
  key: string;
  label: string;
}

/** The bucket of a size: the first whose upper bound holds it (`bounds` as sizeBucketsProblem accepts). */
export function sizeBucketOf(size: number, bounds: readonly number[], labels: readonly string[] = sizeBucketLabels(bounds)): SizeBucket {
  const at = sizeBucketIndex(size, bounds);
  return at < 0 ? { key: UNKNOWN_SIZE_KEY, label: UNKNOWN_SIZE } : { key: sizeBucketKey(at), label: labels[at]! };
}

/** The index of a size's bucket in `bounds` (bounds.length: the open one past the last); -1 for a size not known. */
export function sizeBucketIndex(size: number, bounds: readonly number[]): number {
  if (!(size > 0)) return -1;
  // Bisect: the first bound ≥ size; past the last, the open bucket.
  let lo = 0;
  let hi = bounds.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (bounds[mid]! < size) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The key of the bucket at an index: the index, zero-padded, so that the keys sort by size. */
export const sizeBucketKey = (at: number): string => String(at).padStart(2, '0');

/** The key of the unknown size's bucket: after every other. */
export const UNKNOWN_SIZE_KEY = 'zz';
