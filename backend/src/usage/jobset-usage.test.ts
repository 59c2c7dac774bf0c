// Pods summed per JobSet, and network rates from counters, against numbers worked out by hand.

import { JOBSET_NAME_LABEL } from '../observation/resources.ts';
import type { KubeObject } from '../observation/types.ts';
import { JOBSET_UID_LABEL } from '../nodes/objects.ts';
import type { PodSample } from './kubelet-summary.ts';
import { attribute, counterIncrease, podOwners, type CounterReading } from './jobset-usage.ts';

const T = Date.parse('2026-01-01T00:00:00Z');

function pod(uid: string, labels: Record<string, string>): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { uid, name: `pod-${uid}`, namespace: 'ml', labels }, spec: { nodeName: 'n1' } };
}

function sample(uid: string, s: Partial<PodSample> = {}): PodSample {
  return {
    node: 'n1',
    namespace: 'ml',
    name: `pod-${uid}`,
    uid,
    at: T,
    cpuCores: null,
    memoryBytes: null,
    networkRxBytes: null,
    networkTxBytes: null,
    networkAt: null,
    ephemeralStorageBytes: null,
    volumeBytes: null,
    ...s,
  };
}

const owners = podOwners([
  pod('a', { [JOBSET_NAME_LABEL]: 'train', [JOBSET_UID_LABEL]: 'js-1' }),
  pod('b', { [JOBSET_NAME_LABEL]: 'train', [JOBSET_UID_LABEL]: 'js-1' }),
  pod('c', { [JOBSET_NAME_LABEL]: 'eval' }),
  pod('web', { app: 'web' }),
  { apiVersion: 'v1', kind: 'Node', metadata: { uid: 'n', name: 'n1' } },
]);

describe('podOwners', () => {
  it('ties pods to their JobSet by its UID label, else by namespace/name, and leaves out the rest', () => {
    expect(owners.get('a')).toEqual({ owner: 'js-1', namespace: 'ml', name: 'train' });
    expect(owners.get('c')).toEqual({ owner: 'name:ml/eval', namespace: 'ml', name: 'eval' });
    expect(owners.has('web')).toBe(false);
    expect(owners.size).toBe(3);
  });
});

describe('counterIncrease', () => {
  it('is the difference, or the whole counter after a reset', () => {
    expect(counterIncrease(100, 250)).toBe(150);
    expect(counterIncrease(100, 100)).toBe(0);
    expect(counterIncrease(1_000, 40)).toBe(40);
  });
});

describe('attribute', () => {
  it('sums CPU, memory and storage per JobSet and counts the pods of none', () => {
    const { usages, unattributedPods } = attribute(
      [
        sample('a', { cpuCores: 1.5, memoryBytes: 100, ephemeralStorageBytes: 3, volumeBytes: 7 }),
        sample('b', { cpuCores: 0.25, memoryBytes: 50 }),
        sample('c', { cpuCores: 2 }),
        sample('web', { cpuCores: 9 }),
      ],
      owners,
      new Map(),
      T + 5,
    );
    expect(unattributedPods).toBe(1);
    const train = usages.find((u) => u.owner === 'js-1')!;
    expect(train).toMatchObject({ namespace: 'ml', name: 'train', at: T + 5 });
    expect(train.values).toEqual({
      cpuCores: 1.75,
      memoryBytes: 150,
      ephemeralStorageBytes: 3,
      volumeBytes: 7,
      pods: 2,
      // First readings: no rate yet, and no pretend 0.
      networkReceiveBytesPerSecond: null,
      networkTransmitBytesPerSecond: null,
    });
    expect(usages.find((u) => u.owner === 'name:ml/eval')!.values).toMatchObject({ cpuCores: 2, memoryBytes: null, pods: 1 });
  });

  //   pod a:  rx 1 000 → 4 000 over 30 s = 100 B/s;  tx 0 → 600 = 20 B/s
  //   pod b:  rx 9 000 → 300 (reset: 300 new) over 30 s = 10 B/s;  tx 50 → 350 = 10 B/s
  it('measures network rates per pod from its previous reading, a reset counting from zero', () => {
    const first = attribute(
      [sample('a', { networkRxBytes: 1_000, networkTxBytes: 0, networkAt: T }), sample('b', { networkRxBytes: 9_000, networkTxBytes: 50, networkAt: T })],
      owners,
      new Map(),
      T,
    );
    expect(first.readings.get('a')).toEqual({ at: T, rx: 1_000, tx: 0 });
    const second = attribute(
      [sample('a', { networkRxBytes: 4_000, networkTxBytes: 600, networkAt: T + 30_000 }), sample('b', { networkRxBytes: 300, networkTxBytes: 350, networkAt: T + 30_000 })],
      owners,
      first.readings,
      T + 30_000,
    );
    expect(second.usages[0]!.values.networkReceiveBytesPerSecond).toBe(110);
    expect(second.usages[0]!.values.networkTransmitBytesPerSecond).toBe(30);
  });

  it('a reading the kubelet did not refresh keeps the older one to measure from; a pod gone is forgotten', () => {
    const before: Map<string, CounterReading> = new Map([
      ['a', { at: T, rx: 0, tx: 0 }],
      ['gone', { at: T, rx: 5, tx: 5 }],
    ]);
    const same = attribute([sample('a', { networkRxBytes: 0, networkTxBytes: 0, networkAt: T })], owners, before, T + 30_000);
    expect(same.usages[0]!.values.networkReceiveBytesPerSecond).toBeNull();
    expect(same.readings.get('a')).toEqual({ at: T, rx: 0, tx: 0 });
    expect(same.readings.has('gone')).toBe(false);
    // Without a network time, the pod's own time is the reading's time.
    const later = attribute([sample('a', { networkRxBytes: 600, networkTxBytes: 0, at: T + 60_000 })], owners, same.readings, T + 60_000);
    expect(later.usages[0]!.values.networkReceiveBytesPerSecond).toBe(10);
  });
});
