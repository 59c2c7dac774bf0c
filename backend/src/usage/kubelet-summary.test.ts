// A kubelet's stats/summary answer, written as the kubelet writes it (trimmed to what matters),
// read into per-pod samples; the numbers are the answer's own, converted by hand.

import { KubeletSummaryError, parseKubeletSummary } from './kubelet-summary.ts';

const answer = {
  node: { nodeName: 'node-a', cpu: { time: '2026-01-01T00:00:00Z', usageNanoCores: 9_000_000_000 } },
  pods: [
    {
      podRef: { name: 'trainer-0', namespace: 'ml', uid: 'pod-1' },
      startTime: '2026-01-01T00:00:00Z',
      containers: [{ name: 'main', cpu: { usageNanoCores: 1_500_000_000 } }],
      cpu: { time: '2026-01-01T00:10:00Z', usageNanoCores: 2_250_000_000, usageCoreNanoSeconds: 123 },
      memory: { time: '2026-01-01T00:10:01Z', workingSetBytes: 3_000_000_000, usageBytes: 4_000_000_000 },
      network: {
        time: '2026-01-01T00:10:02Z',
        name: 'eth0',
        rxBytes: 100,
        txBytes: 200,
        interfaces: [
          { name: 'eth0', rxBytes: 100, txBytes: 200 },
          { name: 'net1', rxBytes: 1_000, txBytes: 2_000 },
        ],
      },
      volume: [
        { name: 'scratch', usedBytes: 10 },
        { name: 'token', usedBytes: 5 },
      ],
      'ephemeral-storage': { time: '2026-01-01T00:10:00Z', usedBytes: 77 },
    },
    // Just started: the kubelet has no stats for it yet.
    { podRef: { name: 'trainer-1', namespace: 'ml', uid: 'pod-2' } },
    // An older kubelet: the default interface only.
    { podRef: { name: 'web', namespace: 'default', uid: 'pod-3' }, network: { time: '2026-01-01T00:10:05Z', rxBytes: 7, txBytes: 8 } },
  ],
};

describe('parseKubeletSummary', () => {
  const [full, fresh, old] = parseKubeletSummary(answer, 'asked-node');

  it('reads CPU in cores, the working set, every interface and every volume', () => {
    expect(full).toEqual({
      node: 'node-a',
      namespace: 'ml',
      name: 'trainer-0',
      uid: 'pod-1',
      at: Date.parse('2026-01-01T00:10:00Z'),
      cpuCores: 2.25,
      memoryBytes: 3_000_000_000,
      networkRxBytes: 1_100,
      networkTxBytes: 2_200,
      networkAt: Date.parse('2026-01-01T00:10:02Z'),
      ephemeralStorageBytes: 77,
      volumeBytes: 15,
    });
  });

  it('leaves what the kubelet did not say as null, never 0', () => {
    expect(fresh).toMatchObject({ uid: 'pod-2', at: null, cpuCores: null, memoryBytes: null, networkRxBytes: null, volumeBytes: null, ephemeralStorageBytes: null });
  });

  it('falls back to the default interface and the network time', () => {
    expect(old).toMatchObject({ networkRxBytes: 7, networkTxBytes: 8, at: Date.parse('2026-01-01T00:10:05Z'), cpuCores: null });
  });

  it('names the node asked when the answer does not', () => {
    expect(parseKubeletSummary({ pods: [{ podRef: { name: 'p', namespace: 'n', uid: 'u' } }] }, 'asked')[0]!.node).toBe('asked');
  });

  it('an answer without pods is no pods; a field of the wrong type is not reported', () => {
    expect(parseKubeletSummary({ node: { nodeName: 'x' } }, 'x')).toEqual([]);
    const [pod] = parseKubeletSummary({ pods: [{ podRef: { name: 'p', namespace: 'n', uid: 'u' }, cpu: { usageNanoCores: 'lots' }, memory: { workingSetBytes: -1 } }] }, 'x');
    expect(pod).toMatchObject({ cpuCores: null, memoryBytes: null });
  });

  it('refuses what is not a summary', () => {
    expect(() => parseKubeletSummary('<html>', 'x')).toThrow(KubeletSummaryError);
    expect(() => parseKubeletSummary({ pods: [{ podRef: { name: 'p' } }] }, 'x')).toThrow(/node x/);
    expect(() => parseKubeletSummary({ pods: 'none' }, 'x')).toThrow(KubeletSummaryError);
  });
});
