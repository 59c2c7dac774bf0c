// The simulator's usage model: deterministic per seed, busy while up, near idle while provisioning or
// down, nothing while no pod runs, and in proportion to the JobSet's size.

import { simulatedUsage } from './usage.ts';

const T = Date.UTC(2026, 0, 1, 12);
const small = { uid: 'u-small', pods: 2 };
const large = { uid: 'u-large', pods: 32 };

describe('simulatedUsage', () => {
  it('gives the same values for the same seed, JobSet and moment, and others for another seed or moment', () => {
    expect(simulatedUsage(7, small, 'up', T)).toEqual(simulatedUsage(7, small, 'up', T));
    expect(simulatedUsage(8, small, 'up', T)!.cpuCores).not.toBe(simulatedUsage(7, small, 'up', T)!.cpuCores);
    expect(simulatedUsage(7, small, 'up', T + 30_000)!.cpuCores).not.toBe(simulatedUsage(7, small, 'up', T)!.cpuCores);
  });

  it('is busy while up (6 to 8 cores and 24 to 32 GiB a pod), near idle while provisioning or down', () => {
    for (let k = 0; k < 200; k++) {
      const at = T + k * 30_000;
      const up = simulatedUsage(1, small, 'up', at)!;
      expect(up.cpuCores / 2).toBeGreaterThanOrEqual(6);
      expect(up.cpuCores / 2).toBeLessThan(8);
      expect(up.memoryBytes / 2 / 2 ** 30).toBeGreaterThanOrEqual(24);
      expect(up.memoryBytes / 2 / 2 ** 30).toBeLessThan(32);
      expect(up.networkTransmitBytesPerSecond).toBeCloseTo(up.networkReceiveBytesPerSecond * 0.8, 6);
      expect(up.pods).toBe(2);
      for (const state of ['provisioning', 'down'] as const) {
        const idle = simulatedUsage(1, small, state, at)!;
        expect(idle.cpuCores / 2).toBeLessThanOrEqual(0.2);
        expect(idle.memoryBytes / 2 / 2 ** 30).toBeLessThanOrEqual(1);
      }
    }
  });

  it('is nothing while no pod runs: suspended, ended, unknown, not yet created', () => {
    for (const state of ['suspended', 'completed', 'failed', 'deleted', 'unknown', null] as const) expect(simulatedUsage(1, small, state, T)).toBeNull();
  });

  it('grows with the JobSet: its pods, each within the same bounds', () => {
    const u = simulatedUsage(1, large, 'up', T)!;
    expect(u.pods).toBe(32);
    expect(u.cpuCores).toBeGreaterThanOrEqual(6 * 32);
    expect(u.cpuCores).toBeLessThan(8 * 32);
  });
});
