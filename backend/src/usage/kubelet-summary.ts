// A kubelet's stats/summary answer (GET /api/v1/nodes/{node}/proxy/stats/summary, the kubelet's
// stats API v1alpha1) read into one sample per pod: CPU, memory working set, network counters and
// the storage it uses. Pure: the parsed JSON in, values out. A field the kubelet left out (a pod just
// started, a runtime that does not report it) is null, never 0: 0 would be a measurement.

import { z } from 'zod';

/** One pod's usage at one moment, as its node's kubelet reported it. */
export interface PodSample {
  node: string;
  namespace: string;
  name: string;
  uid: string;
  /** When the kubelet measured it (its CPU stats' time, else the memory's, else the network's), epoch ms; null: not said. */
  at: number | null;
  /** cpu.usageNanoCores / 1e9: cores in use, averaged by the kubelet over its own short window. */
  cpuCores: number | null;
  /** memory.workingSetBytes: what the OOM killer and the eviction manager look at. */
  memoryBytes: number | null;
  /** Counters since the pod's network namespace was made: Σ over its interfaces (or the default one). */
  networkRxBytes: number | null;
  networkTxBytes: number | null;
  /** When the network counters were read (they may be read apart from the CPU), epoch ms. */
  networkAt: number | null;
  /** ephemeral-storage.usedBytes: the pod's writable layers, logs and emptyDir volumes. */
  ephemeralStorageBytes: number | null;
  /** Σ volume[].usedBytes: every volume the kubelet measures (emptyDir, persistent volumes, ...). */
  volumeBytes: number | null;
}

const count = z.number().finite().nonnegative().optional().catch(undefined);
const time = z.string().optional().catch(undefined);
const iface = z.object({ rxBytes: count, txBytes: count }).passthrough();

/** The parts of the answer read here; everything else (containers, node stats) passes by. */
const summarySchema = z.object({
  node: z.object({ nodeName: z.string().optional() }).passthrough().optional(),
  pods: z
    .array(
      z
        .object({
          podRef: z.object({ name: z.string(), namespace: z.string(), uid: z.string() }),
          cpu: z.object({ time, usageNanoCores: count }).passthrough().optional().catch(undefined),
          memory: z.object({ time, workingSetBytes: count }).passthrough().optional().catch(undefined),
          network: z
            .object({ time, rxBytes: count, txBytes: count, interfaces: z.array(iface).optional().catch(undefined) })
            .passthrough()
            .optional()
            .catch(undefined),
          volume: z.array(z.object({ usedBytes: count }).passthrough()).optional().catch(undefined),
          'ephemeral-storage': z.object({ usedBytes: count }).passthrough().optional().catch(undefined),
        })
        .passthrough(),
    )
    .optional()
    .default([]),
});

export class KubeletSummaryError extends Error {}

function epochMs(value: string | undefined): number | null {
  if (value === undefined) return null;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : null;
}

/** Σ of the values that are there; null when none is. */
function sum(values: (number | undefined)[]): number | null {
  let total: number | null = null;
  for (const v of values) if (v !== undefined) total = (total ?? 0) + v;
  return total;
}

/**
 * The pods of one summary answer. `node` names the node asked (the answer's own node name is used
 * when it says one). Throws KubeletSummaryError when the answer is not a summary at all; a pod whose
 * podRef is incomplete makes the whole answer suspect and is refused the same way.
 */
export function parseKubeletSummary(answer: unknown, node: string): PodSample[] {
  const parsed = summarySchema.safeParse(answer);
  if (!parsed.success) throw new KubeletSummaryError(`not a kubelet stats/summary answer from node ${node}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  const nodeName = parsed.data.node?.nodeName ?? node;
  return parsed.data.pods.map((pod) => {
    const network = pod.network;
    // Kubelets list every interface in `interfaces` and repeat the default one at the top level:
    // the sum over the list is the pod's traffic; the top level is the fallback for older ones.
    const interfaces = network?.interfaces ?? [];
    const rx = interfaces.length > 0 ? sum(interfaces.map((i) => i.rxBytes)) : (network?.rxBytes ?? null);
    const tx = interfaces.length > 0 ? sum(interfaces.map((i) => i.txBytes)) : (network?.txBytes ?? null);
    const volumes = pod.volume ?? [];
    return {
      node: nodeName,
      namespace: pod.podRef.namespace,
      name: pod.podRef.name,
      uid: pod.podRef.uid,
      at: epochMs(pod.cpu?.time) ?? epochMs(pod.memory?.time) ?? epochMs(network?.time),
      cpuCores: pod.cpu?.usageNanoCores !== undefined ? pod.cpu.usageNanoCores / 1e9 : null,
      memoryBytes: pod.memory?.workingSetBytes ?? null,
      networkRxBytes: rx,
      networkTxBytes: tx,
      networkAt: epochMs(network?.time),
      ephemeralStorageBytes: pod['ephemeral-storage']?.usedBytes ?? null,
      volumeBytes: volumes.length > 0 ? sum(volumes.map((v) => v.usedBytes)) : null,
    };
  });
}
