// A timeline's identity: read alone (goodput inputs and pods absent before they were kept are none known),
// given anew, and compared field by field, as the stores decide whether to write it again.

import { identityChanged, identityOf, setIdentity, type TimelineIdentity } from './identity.ts';
import type { Timeline } from './types.ts';

const identity: TimelineIdentity = {
  namespace: 'ml',
  name: 'train',
  labels: { team: 'a' },
  accelerator: 'tpu-v5p',
  topology: '4x4x4',
  createdAt: 1_000,
  accelerators: 64,
  checkpointIntervalMs: 600_000,
  pods: 16,
};

const timeline = (): Timeline => ({ uid: 'u', ...identity, transitions: [{ at: 1_000, state: 'provisioning' }] });

test('identityOf keeps only the identity, and reads absent goodput inputs as none known', () => {
  expect(identityOf(timeline())).toEqual(identity);
  const { accelerators: _a, checkpointIntervalMs: _c, pods: _p, ...before } = identity;
  expect(identityOf(before)).toEqual({ ...before, accelerators: 0, checkpointIntervalMs: null, pods: 0 });
});

test('setIdentity gives a timeline a newer identity and leaves its UID and transitions', () => {
  const tl = timeline();
  const newer = { ...identity, name: 'train-2', labels: { team: 'b' }, accelerators: 128 };
  setIdentity(tl, newer);
  expect(tl).toEqual({ uid: 'u', ...newer, transitions: [{ at: 1_000, state: 'provisioning' }] });
});

test('identityChanged: nothing written yet, or any field different', () => {
  expect(identityChanged(undefined, identity)).toBe(true);
  expect(identityChanged(identity, { ...identity, labels: { team: 'a' } })).toBe(false);
  const changes: Partial<TimelineIdentity>[] = [
    { namespace: 'other' },
    { name: 'other' },
    { labels: { team: 'b' } },
    { labels: { team: 'a', queue: 'q' } },
    { accelerator: null },
    { topology: null },
    { createdAt: 2_000 },
    { accelerators: 0 },
    { checkpointIntervalMs: null },
    { pods: 0 },
    { pods: 17 },
  ];
  for (const change of changes) expect([change, identityChanged(identity, { ...identity, ...change })]).toEqual([change, true]);
});

test('identityChanged: goodput inputs absent (written before they were kept) equal none known', () => {
  const { accelerators: _a, checkpointIntervalMs: _c, pods: _p, ...before } = identity;
  expect(identityChanged(before, { ...before, accelerators: 0, checkpointIntervalMs: null, pods: 0 })).toBe(false);
  expect(identityChanged(before, { ...before, accelerators: 8, checkpointIntervalMs: null, pods: 0 })).toBe(true);
  expect(identityChanged(before, { ...before, accelerators: 0, checkpointIntervalMs: null, pods: 2 })).toBe(true);
});
