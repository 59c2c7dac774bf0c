// Two answers equal but for the last bits of their numbers (relative 1e-12): what one figure gives
// when it is summed in another order, e.g. from the fleet index rather than JobSet by JobSet.

/** Throws naming the first path where `a` and `b` differ (numbers compared to 1e-12 relative). */
export function expectSame(a: unknown, b: unknown, path = ''): void {
  if (typeof a === 'number' && typeof b === 'number') {
    if (Math.abs(a - b) > 1e-12 * Math.max(1, Math.abs(b))) throw new Error(`${path}: ${a} ≠ ${b}`);
    return;
  }
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') {
    if (a !== b) throw new Error(`${path}: ${String(a)} ≠ ${String(b)}`);
    return;
  }
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of keys) expectSame((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}.${k}`);
}
