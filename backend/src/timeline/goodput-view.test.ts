// What a JobSet object says about goodput (issue 13 §3): the accelerators its pod templates hold,
// the checkpoint interval it declares, why it is suspended, the objective its label sets. All of it
// in the object → state function (jobset.ts).

import type { KubeObject } from '../observation/types.ts';
import { objectiveOf, parseInterval, viewJobSet } from './jobset.ts';

function jobSet(replicatedJobs: unknown[], annotations?: Record<string, unknown>): KubeObject {
  return {
    apiVersion: 'jobset.x-k8s.io/v1alpha2',
    kind: 'JobSet',
    metadata: { uid: 'u', name: 'train', namespace: 'ml', creationTimestamp: '2026-01-01T00:00:00Z', ...(annotations ? { annotations } : {}) },
    spec: { replicatedJobs },
  };
}

function replicatedJob(replicas: number | undefined, parallelism: number | undefined, containers: Record<string, unknown>[]): unknown {
  return {
    name: 'rj',
    ...(replicas === undefined ? {} : { replicas }),
    template: {
      spec: {
        ...(parallelism === undefined ? {} : { parallelism }),
        template: { spec: { containers: containers.map((limits, i) => ({ name: `c${i}`, resources: { limits } })) } },
      },
    },
  };
}

describe('accelerators of a JobSet', () => {
  it.each<[string, unknown[], number]>([
    // 2 slices × 4 hosts × 4 TPU chips = 32
    ['TPU slices', [replicatedJob(2, 4, [{ 'google.com/tpu': '4' }])], 32],
    // replicas and parallelism default to 1: one pod of 8 GPUs
    ['defaults', [replicatedJob(undefined, undefined, [{ 'nvidia.com/gpu': 8 }])], 8],
    // two containers in the pod add up; a driver job without accelerators adds nothing
    ['containers and jobs add up', [replicatedJob(3, 2, [{ 'nvidia.com/gpu': '2' }, { 'nvidia.com/gpu': '1', cpu: '4' }]), replicatedJob(1, 1, [{ cpu: '1' }])], 18],
    ['none', [replicatedJob(4, 4, [{ cpu: '8', memory: '32Gi' }])], 0],
    // Not a whole number: not counted rather than guessed
    ['unreadable quantity', [replicatedJob(1, 1, [{ 'nvidia.com/gpu': '1.5' }, { 'google.com/tpu': 'lots' }])], 0],
    ['zero replicas', [replicatedJob(0, 4, [{ 'google.com/tpu': '4' }])], 0],
  ])('%s', (_name, replicatedJobs, expected) => {
    expect(viewJobSet(jobSet(replicatedJobs)).accelerators).toBe(expected);
  });
});

describe('checkpoint interval annotation', () => {
  it.each<[unknown, number | null]>([
    ['30m', 1_800_000],
    ['1h30m', 5_400_000],
    ['90s', 90_000],
    [' 2h ', 7_200_000],
    ['0m', null],
    ['30', null],
    ['half an hour', null],
    [30, null],
    [undefined, null],
  ])('%j → %j', (value, expected) => {
    expect(parseInterval(value)).toBe(expected);
    const annotations = value === undefined ? undefined : { 'upness.dev/checkpoint-interval': value };
    expect(viewJobSet(jobSet([], annotations)).checkpointIntervalMs).toBe(expected);
  });
});

describe('the Suspended condition in the view', () => {
  const withConditions = (suspend: boolean, conditions: unknown[]): KubeObject => ({ ...jobSet([]), spec: { replicatedJobs: [], suspend }, status: { conditions } });
  it.each<[string, boolean, unknown[], { reason: string | null; message: string | null } | null]>([
    ['True with reason and message', true, [{ type: 'Suspended', status: 'True', reason: 'SuspendedJobs', message: 'jobset is suspended' }], { reason: 'SuspendedJobs', message: 'jobset is suspended' }],
    ['True with a reason only', true, [{ type: 'Suspended', status: 'True', reason: 'Preempted' }], { reason: 'Preempted', message: null }],
    ['True with neither', true, [{ type: 'Suspended', status: 'True' }], null],
    ['False (resumed): no suspension', false, [{ type: 'Suspended', status: 'False', reason: 'ResumeJobs', message: 'jobset is resumed' }], null],
    ['spec.suspend without the condition', true, [], null],
    ['not text', true, [{ type: 'Suspended', status: 'True', reason: 7, message: '' }], null],
  ])('%s', (_name, suspend, conditions, expected) => {
    expect(viewJobSet(withConditions(suspend, conditions)).suspension).toEqual(expected);
  });
});

describe('a JobSet name’s objective, from its upness.dev/objective label', () => {
  it.each([
    ['0.97', 0.97],
    ['.9', 0.9],
    ['0.999', 0.999],
  ])('reads %s', (text, expected) => {
    expect(objectiveOf({ 'upness.dev/objective': text })).toBe(expected);
  });

  // Anything else is no objective of its own: the query's applies (never NaN, never 1 or more).
  it.each(['', '1', '1.0', '0', '0.0', '97%', '97', '0.97 ', 'abc', '-0.5', '0.9.7', '1e-1'])('ignores %j', (text) => {
    expect(objectiveOf({ 'upness.dev/objective': text })).toBeNull();
  });

  it('is absent without the label', () => {
    expect(objectiveOf({ team: 'a' })).toBeNull();
  });
});
