// The simulated fleet's resource usage: what a JobSet's pods use at a moment, from its size and its
// state then. Busy while up (cores, memory and network per pod, varying a little from sampling to
// sampling), near idle while provisioning or down (pods starting, or waiting for the restart), and
// nothing while suspended, ended or unknown (no pods run). Deterministic: the same seed, JobSet and
// moment give the same values, so a restarted simulation makes the same usage again and a test can
// compute the truth. Pure; the runtime feeds it into the usage book as the sampler feeds the kubelets'.

import type { State, Timeline } from '../../timeline/types.ts';
import { mix32 } from './rng.ts';

/** How often the simulated cluster is sampled (the sampler's default interval). */
export const SIMULATED_USAGE_INTERVAL_MS = 30_000;

const GiB = 2 ** 30;
const MB = 1e6;

/** One JobSet's usage at one sampling, in the usage metrics' names and units (usage/metrics.ts). */
export interface SimulatedUsage {
  cpuCores: number;
  memoryBytes: number;
  networkReceiveBytesPerSecond: number;
  networkTransmitBytesPerSecond: number;
  pods: number;
}

/** Per pod: [cores, memory bytes, bytes/s received] at the low end, and the spread above it (times u ∈ [0, 1)). */
const PER_POD: Partial<Record<State, { cpu: [number, number]; memory: [number, number]; rx: [number, number] }>> = {
  up: { cpu: [6, 2], memory: [24 * GiB, 8 * GiB], rx: [50 * MB, 50 * MB] },
  provisioning: { cpu: [0.05, 0.05], memory: [0.25 * GiB, 0.25 * GiB], rx: [0.1 * MB, 0.1 * MB] },
  down: { cpu: [0.1, 0.1], memory: [0.5 * GiB, 0.5 * GiB], rx: [0.1 * MB, 0.1 * MB] },
};

/** A number in [0, 1) from the seed, the JobSet, the moment and which draw: the same inputs, the same number. */
function unit(seed: number, uid: string, at: number, draw: number): number {
  let h = mix32((seed >>> 0) ^ 0x5bd1e995);
  for (let i = 0; i < uid.length; i++) h = mix32((h + Math.imul(uid.charCodeAt(i), 0x9e3779b1)) >>> 0);
  h = mix32((h + Math.floor(at / 1000)) >>> 0);
  h = mix32((h + Math.floor(at / 1000 / 2 ** 32)) >>> 0);
  return mix32((h + draw) >>> 0) / 2 ** 32;
}

/** The pods a JobSet runs: its size (Σ replicas × parallelism), at least one. */
export function simulatedPods(timeline: Pick<Timeline, 'pods'>): number {
  return Math.max(1, timeline.pods ?? 1);
}

/** The usage of a JobSet in `state` at `at`; null when no pod runs (suspended, ended, unknown, not yet created). */
export function simulatedUsage(seed: number, timeline: Pick<Timeline, 'uid' | 'pods'>, state: State | null, at: number): SimulatedUsage | null {
  const model = state === null ? undefined : PER_POD[state];
  if (model === undefined) return null;
  const pods = simulatedPods(timeline);
  const rx = pods * (model.rx[0] + model.rx[1] * unit(seed, timeline.uid, at, 2));
  return {
    cpuCores: pods * (model.cpu[0] + model.cpu[1] * unit(seed, timeline.uid, at, 0)),
    memoryBytes: pods * (model.memory[0] + model.memory[1] * unit(seed, timeline.uid, at, 1)),
    networkReceiveBytesPerSecond: rx,
    // Sends a little less than it receives (gradients out, data and gradients in).
    networkTransmitBytesPerSecond: rx * 0.8,
    pods,
  };
}
