import { min } from '../../../../test/support/scenario.ts';
import type { Timeline, Transition } from '../../timeline/types.ts';
import type { QueryContext, ResolvedQuery } from '../context.ts';
import { describeCause, describeSuspension, eventsFrames } from './events.ts';

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
    const ctx = { query: { refId: 'A' } as ResolvedQuery, timelines: [timeline], horizon: min(90), from: min(0), to: min(90), selectFrom: min(0), steps: { stepMs: 1, first: 0, last: 0 }, index: null, now: 0 } as QueryContext;
    const [frame] = eventsFrames(ctx);
    expect(frame!.data.values[3]).toEqual(['Down for 5m, then recovered. Causes: NodeNotReady node-7; PodFailed train-0 (OOMKilled, exit 137).']);
    expect(describeCause({ kind: 'JobSetRestart', at: 0 })).toBe('JobSetRestart');
  });
});

describe('suspensions', () => {
  //   0 ─queued (SuspendedJobs)─ 10 ─prov─ 15 ─up─ 40 ─suspended (Preempted)─ 65 ─prov─ 70 ─up─ 80 ─suspended (no reason)─ (90: range end)
  const suspended: Timeline = {
    uid: 's', namespace: 'ml', name: 'queued', labels: {}, accelerator: null, topology: null, createdAt: min(0),
    transitions: [
      { at: min(0), state: 'suspended', suspension: { reason: 'SuspendedJobs', message: 'jobset is suspended' } },
      { at: min(10), state: 'provisioning' },
      { at: min(15), state: 'up' },
      { at: min(40), state: 'suspended', suspension: { reason: 'Preempted', message: 'Preempted to accommodate a higher priority Workload' } },
      { at: min(65), state: 'provisioning' },
      { at: min(70), state: 'up' },
      { at: min(80), state: 'suspended' },
    ],
  };
  const ctxOf = (from: number, to: number) =>
    ({ query: { refId: 'A' } as ResolvedQuery, timelines: [suspended], horizon: min(90), from, to, selectFrom: from, steps: { stepMs: 1, first: 0, last: 0 }, index: null, now: 0 }) as QueryContext;
  const columns = (frame: { schema: { fields: { name: string }[] }; data: { values: unknown[][] } }): Record<string, unknown[]> =>
    Object.fromEntries(frame.schema.fields.map((f, i) => [f.name, frame.data.values[i]!]));

  it('each suspension in (from, to] is a region until its end, named queued before the first start, with its reason and message', () => {
    const c = columns(eventsFrames(ctxOf(min(-1), min(90)))[0]!);
    expect(c.time).toEqual([min(0), min(40), min(80)]);
    expect(c.timeEnd).toEqual([min(10), min(65), min(90)]);
    expect(c.kind).toEqual(['suspension', 'suspension', 'suspension']);
    expect(c.title).toEqual(['Queued: ml/queued', 'Suspended: ml/queued', 'Suspended: ml/queued']);
    expect(c.text).toEqual([
      'Suspended for 10m, then provisioning. Reason: SuspendedJobs (jobset is suspended).',
      'Suspended for 25m, then provisioning. Reason: Preempted (Preempted to accommodate a higher priority Workload).',
      'Suspended for 10m so far. Reason: not reported.',
    ]);
    expect(c.tags).toEqual(['suspension,ml,queued,SuspendedJobs', 'suspension,ml,queued,Preempted', 'suspension,ml,queued']);
    expect(c.reason).toEqual(['SuspendedJobs', 'Preempted', null]);
    expect(c.message).toEqual(['jobset is suspended', 'Preempted to accommodate a higher priority Workload', null]);
  });

  it('a suspension that began at or before `from` is not listed (as for interruptions); one ending after `to` is cut there', () => {
    const c = columns(eventsFrames(ctxOf(min(0), min(50)))[0]!);
    expect(c.time).toEqual([min(40)]);
    expect(c.timeEnd).toEqual([min(50)]);
  });

  it('is queued only before the first start, as queuedSeconds counts it: suspended while provisioning for the first time is not queued', () => {
    //   0 ─prov─ 5 ─suspended─ 20 ─prov─ 25 ─up─ (30)
    const early: Timeline = {
      uid: 'e', namespace: 'ml', name: 'early', labels: {}, accelerator: null, topology: null, createdAt: min(0),
      transitions: [
        { at: min(0), state: 'provisioning' },
        { at: min(5), state: 'suspended' },
        { at: min(20), state: 'provisioning' },
        { at: min(25), state: 'up' },
      ],
    };
    const [frame] = eventsFrames({ ...ctxOf(min(-1), min(30)), timelines: [early], horizon: min(30) });
    expect(columns(frame!).title).toEqual(['Suspended: ml/early']);
  });

  it('describes a reason without a message, and a message without a reason', () => {
    expect(describeSuspension({ reason: 'QueueFull', message: null })).toBe('Reason: QueueFull.');
    expect(describeSuspension({ reason: null, message: 'held by an operator' })).toBe('Reason: not reported (held by an operator).');
  });
});

describe('interruptions by cause category (groupBy: cause)', () => {
  //   0 ─prov─ 10 ─up─ 20 ─down (node + OOM)─ 25 ─up─ 30 ─down (OOM)─ 35 ─up─ 40 ─down (evicted)─ 45 ─up─
  //   50 ─down (failure policy restart)─ 55 ─up─ 60 ─down (nothing seen)─ 65 ─up─ 70 ─down (preempted; window ends at 70)
  const at = (m: number, state: Transition['state'], causes?: Transition['causes']) =>
    causes === undefined ? { at: min(m), state } : { at: min(m), state, causes };
  const broken: Timeline = {
    uid: 'b', namespace: 'ml', name: 'broken', labels: {}, accelerator: null, topology: null, createdAt: min(0),
    transitions: [
      at(0, 'provisioning'),
      at(10, 'up'),
      at(20, 'down', [{ kind: 'PodFailed', at: min(20), pod: 'p', reason: 'OOMKilled' }, { kind: 'NodeNotReady', at: min(20), node: 'n' }]),
      at(25, 'up'),
      at(30, 'down', [{ kind: 'JobSetRestart', at: min(30), restarts: 1 }, { kind: 'PodFailed', at: min(30), pod: 'p', reason: 'OOMKilled', exitCode: 137 }]),
      at(35, 'up'),
      at(40, 'down', [{ kind: 'PodFailed', at: min(40), pod: 'p', reason: 'Evicted' }]),
      at(45, 'up'),
      at(50, 'down', [{ kind: 'JobSetRestart', at: min(50), restarts: 2, reason: 'FailurePolicyRestart' }]),
      at(55, 'up'),
      at(60, 'down'),
      at(65, 'up'),
      at(70, 'down', [{ kind: 'PodDisruption', at: min(70), pod: 'p', reason: 'PreemptionByScheduler' }]),
    ],
  };
  const ctxOf = (timelines: Timeline[], from: number, to: number) =>
    ({ query: { refId: 'A', groupBy: 'cause' } as ResolvedQuery, timelines, horizon: min(90), from, to, selectFrom: from, steps: { stepMs: 1, first: 0, last: 0 }, index: null, now: 0 }) as QueryContext;

  it('counts each interruption once, in its most specific category, every category a row', () => {
    const [frame] = eventsFrames(ctxOf([broken, timeline], min(0), min(90)));
    expect(frame!.schema.fields.map((f) => f.name)).toEqual(['cause', 'interruptions']);
    expect(frame!.data.values[0]).toEqual(['node', 'pod OOM', 'pod evicted/preempted', 'failure policy', 'unknown']);
    // node: broken at 20, timeline at 60 (node-7 + OOM); OOM: 30; evicted/preempted: 40, 70; policy: 50; unknown: 60.
    expect(frame!.data.values[1]).toEqual([2, 1, 2, 1, 1]);
  });

  it('counts the suspensions that began in the window by reason, most first, beside the interruptions', () => {
    const suspended: Timeline = {
      ...broken,
      uid: 's',
      transitions: [
        { at: min(0), state: 'suspended', suspension: { reason: 'SuspendedJobs', message: 'jobset is suspended' } },
        at(10, 'provisioning'),
        at(15, 'up'),
        { at: min(20), state: 'suspended', suspension: { reason: 'Preempted', message: 'Preempted to accommodate a workload' } },
        at(30, 'provisioning'),
        at(35, 'up'),
        { at: min(40), state: 'suspended', suspension: { reason: 'Preempted', message: 'Preempted to accommodate a workload' } },
        at(50, 'provisioning'),
        at(55, 'up'),
        { at: min(60), state: 'suspended' },
      ],
    };
    const [, byReason] = eventsFrames(ctxOf([suspended], min(0), min(90)));
    // 0 is at `from`: not in the window. 20 and 40 Preempted, 60 without a reason.
    expect(byReason!.schema.fields.map((f) => f.name)).toEqual(['reason', 'suspensions']);
    expect(byReason!.data.values).toEqual([['Preempted', 'not reported'], [2, 1]]);
    expect(eventsFrames(ctxOf([suspended], min(-1), min(30)))[1]!.data.values).toEqual([['Preempted', 'SuspendedJobs'], [1, 1]]);
  });

  it('counts only the interruptions inside the window (from < t ≤ to)', () => {
    const [frame] = eventsFrames(ctxOf([broken], min(30), min(60)));
    // 30 is at `from` (not in it); 40, 50 and 60 are.
    expect(frame!.data.values[1]).toEqual([0, 0, 1, 1, 1]);
  });
});
