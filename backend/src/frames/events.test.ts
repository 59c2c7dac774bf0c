import { min } from '../../test/scenario.ts';
import type { Timeline } from '../timeline/types.ts';
import type { QueryContext, ResolvedQuery } from './context.ts';
import { describeCause, eventsFrames } from './events.ts';

//   0 ─prov─ 10 ─up─ 60 ─down (node-7 NotReady; train-0 OOMKilled)─ 65 ─up─ 90
const timeline: Timeline = {
  uid: 'u', namespace: 'ml', name: 'train', labels: {}, accelerator: null, topology: null, createdAt: min(0),
  transitions: [
    { at: min(0), state: 'provisioning' },
    { at: min(10), state: 'up' },
    { at: min(60), state: 'down', causes: [{ kind: 'NodeNotReady', at: min(60), node: 'node-7' }, { kind: 'PodFailed', at: min(60), pod: 'train-0', reason: 'OOMKilled', exitCode: 137 }] },
    { at: min(65), state: 'up' },
  ],
};

describe('annotations', () => {
  it('name the causes observed around an interruption', () => {
    const ctx = { query: { refId: 'A' } as ResolvedQuery, timelines: [timeline], horizon: min(90), from: min(0), to: min(90), selectFrom: min(0), steps: { stepMs: 1, first: 0, last: 0 }, index: null } as QueryContext;
    const [frame] = eventsFrames(ctx);
    expect(frame!.data.values[3]).toEqual(['Down for 5m, then recovered. Causes: NodeNotReady node-7; PodFailed train-0 (OOMKilled, exit 137).']);
    expect(describeCause({ kind: 'JobSetRestart', at: 0 })).toBe('JobSetRestart');
  });
});
