// Per-pod samples summed per JobSet. A pod belongs to the JobSet its labels name, as the node layer
// ties them (nodes/objects.ts viewPod): by the JobSet's UID label, else by namespace/name. Network
// counters become rates here: each pod's counter against its own previous reading, a counter that
// went down (the pod's sandbox was made again) counting from zero, as Prometheus' rate() does.
// Pure: samples and the pods' owners in, sums out; the previous readings are the caller's state.

import type { KubeObject } from '../observation/types.ts';
import { isPod, viewPod } from '../nodes/objects.ts';
import type { PodSample } from './kubelet-summary.ts';
import { USAGE_METRICS, type UsageMetric } from './metrics.ts';

export { USAGE_METRICS, type UsageMetric };

/** One JobSet's usage at one sampling; a metric no pod reported is null. */
export interface JobSetUsage {
  /** The JobSet's UID, or `name:namespace/name` for pods without the UID label. */
  owner: string;
  namespace: string;
  name: string;
  at: number;
  values: Record<UsageMetric, number | null>;
}

export interface PodOwner {
  owner: string;
  namespace: string;
  name: string;
}

/** Pods (their objects, as watched) → the JobSet each belongs to, by pod UID; pods of no JobSet are left out. */
export function podOwners(pods: Iterable<KubeObject>): Map<string, PodOwner> {
  const owners = new Map<string, PodOwner>();
  for (const object of pods) {
    if (!isPod(object)) continue;
    const pod = viewPod(object);
    if (pod.jobsetName === null) continue;
    owners.set(pod.uid, { owner: pod.jobsetUid ?? `name:${pod.namespace}/${pod.jobsetName}`, namespace: pod.namespace, name: pod.jobsetName });
  }
  return owners;
}

/** A pod's last network reading: what the next one's rate is measured against. */
export interface CounterReading {
  at: number;
  rx: number;
  tx: number;
}

/** Increase of a counter from `before` to `now`: a drop means it restarted from 0, so all of `now` is new. */
export function counterIncrease(before: number, now: number): number {
  return now >= before ? now - before : now;
}

export interface Attribution {
  usages: JobSetUsage[];
  /** Pods in the answers that belong to no known JobSet (other workloads on the same nodes). */
  unattributedPods: number;
  /** The readings to pass to the next call (only pods still reported: a pod gone is forgotten). */
  readings: Map<string, CounterReading>;
}

function add(values: Record<UsageMetric, number | null>, metric: UsageMetric, value: number | null): void {
  if (value === null) return;
  values[metric] = (values[metric] ?? 0) + value;
}

/**
 * Sums one sampling's pods (from every node asked) per JobSet, at `at` (when the sampling ran). A
 * pod's network rate needs two readings: a pod seen for the first time adds nothing to the rate
 * (and says so: no value rather than 0, when none of its JobSet's pods has two readings yet).
 */
export function attribute(samples: PodSample[], owners: ReadonlyMap<string, PodOwner>, previous: ReadonlyMap<string, CounterReading>, at: number): Attribution {
  const byOwner = new Map<string, JobSetUsage>();
  const readings = new Map<string, CounterReading>();
  let unattributedPods = 0;
  for (const pod of samples) {
    const owner = owners.get(pod.uid);
    if (owner === undefined) {
      unattributedPods++;
      continue;
    }
    let usage = byOwner.get(owner.owner);
    if (usage === undefined) {
      const values = Object.fromEntries(USAGE_METRICS.map((m) => [m, null])) as Record<UsageMetric, number | null>;
      usage = { owner: owner.owner, namespace: owner.namespace, name: owner.name, at, values };
      byOwner.set(owner.owner, usage);
    }
    const v = usage.values;
    add(v, 'pods', 1);
    add(v, 'cpuCores', pod.cpuCores);
    add(v, 'memoryBytes', pod.memoryBytes);
    add(v, 'ephemeralStorageBytes', pod.ephemeralStorageBytes);
    add(v, 'volumeBytes', pod.volumeBytes);
    if (pod.networkRxBytes !== null && pod.networkTxBytes !== null) {
      const readAt = pod.networkAt ?? pod.at ?? at;
      const now: CounterReading = { at: readAt, rx: pod.networkRxBytes, tx: pod.networkTxBytes };
      const before = previous.get(pod.uid);
      if (before !== undefined && now.at > before.at) {
        const seconds = (now.at - before.at) / 1000;
        add(v, 'networkReceiveBytesPerSecond', counterIncrease(before.rx, now.rx) / seconds);
        add(v, 'networkTransmitBytesPerSecond', counterIncrease(before.tx, now.tx) / seconds);
        readings.set(pod.uid, now);
      } else {
        // The same reading again (the kubelet had not refreshed it): keep the older one to measure from.
        readings.set(pod.uid, before !== undefined && now.at === before.at ? before : now);
      }
    }
  }
  return { usages: [...byOwner.values()], unattributedPods, readings };
}
