// Kueue's reasons (issue 20 §5): a JobSet's suspension takes the reason of its Workload's eviction,
// each case drawn as a timeline (minutes after T0) above it.

import { min, Scenario, workloadObject, type WorkloadCondition } from '../../../test/support/scenario.ts';
import { describeSuspension } from '../frames/query-types/events.ts';
import type { Observation } from '../observation/types.ts';
import { TimelineEngine } from './engine.ts';
import { FactJoin, type SuspensionFact } from './facts.ts';
import { transitionsOf, type Timeline } from './types.ts';
import { viewWorkload } from './workload.ts';

const PREEMPTED_MESSAGE = 'Preempted to accommodate a workload (UID: w-hi, JobUID: j-hi) due to prioritization in the ClusterQueue';
const evicted = (at: number, reason = 'Preempted', message = PREEMPTED_MESSAGE): WorkloadCondition[] => [
  { type: 'QuotaReserved', status: 'False', at, reason: 'Pending', message: 'evicted' },
  { type: 'Evicted', status: 'True', at, reason, message },
  ...(reason === 'Preempted' ? [{ type: 'Preempted' as const, status: 'True' as const, at, reason: 'InClusterQueue', message }] : []),
  { type: 'Requeued', status: 'False', at, reason, message },
];
/** Kueue gave the Workload its quota back: Evicted and Preempted are False again. */
const readmitted = (at: number): WorkloadCondition[] => [
  { type: 'QuotaReserved', status: 'True', at, reason: 'QuotaReserved', message: 'Quota reserved in ClusterQueue cq' },
  { type: 'Evicted', status: 'False', at, reason: 'QuotaReserved' },
  { type: 'Preempted', status: 'False', at, reason: 'QuotaReserved' },
  { type: 'Requeued', status: 'True', at, reason: 'BackoffFinished' },
];
const workload = (at: number, conditions: WorkloadCondition[], type: Observation['type'] = 'MODIFIED'): Observation => ({ receivedAt: at, type, object: workloadObject('w', 'a', conditions) });

/** A Kueue JobSet: created suspended (queued), admitted at 10, up at 15. */
function kueueJobSet(): Scenario {
  return new Scenario({ uid: 'a', labels: { 'kueue.x-k8s.io/queue-name': 'team' } }, min(0), { suspend: true, suspended: { status: 'True', at: min(0), reason: 'SuspendedJobs', message: 'jobset is suspended' } })
    .created()
    .at(min(10), { suspend: false, suspended: { status: 'False', at: min(10), reason: 'ResumeJobs', message: 'jobset is resumed' } })
    .up(min(15));
}

function run(observations: Observation[]): { timeline: Timeline; facts: SuspensionFact[]; learned: unknown[] } {
  const facts: SuspensionFact[] = [];
  const learned: unknown[] = [];
  const engine = new TimelineEngine({ onFact: (f) => facts.push(f), onUpdate: (u) => u.suspension !== undefined && learned.push(u.suspension) });
  for (const o of [...observations].sort((a, b) => a.receivedAt - b.receivedAt)) engine.observe(o);
  expect(engine.timelines()).toHaveLength(1);
  return { timeline: engine.timelines()[0]!, facts, learned };
}

const reasons = (tl: Timeline): (string | null)[] => transitionsOf(tl).map((t) => (t.suspension === undefined ? null : t.suspension.reason));

describe('a Workload', () => {
  it('says why it was evicted (Evicted, with the Preempted message), or else why it waits to be requeued, and which JobSet owns it', () => {
    expect(viewWorkload(workloadObject('w', 'a', evicted(min(40))))).toEqual({
      uid: 'w',
      jobsetUid: 'a',
      eviction: { at: min(40), suspension: { reason: 'Preempted', message: PREEMPTED_MESSAGE } },
    });
    expect(viewWorkload(workloadObject('w', 'a', readmitted(min(55)))).eviction).toBeNull();
    const requeuedOnly: WorkloadCondition[] = [{ type: 'Requeued', status: 'False', at: min(40), reason: 'PodsReadyTimeout', message: 'Exceeded the PodsReady timeout default/train' }];
    expect(viewWorkload(workloadObject('w', 'a', requeuedOnly)).eviction).toEqual({ at: min(40), suspension: { reason: 'PodsReadyTimeout', message: 'Exceeded the PodsReady timeout default/train' } });
    const orphan = workloadObject('w', 'a', evicted(min(40)));
    orphan.metadata.ownerReferences = [{ apiVersion: 'batch/v1', kind: 'Job', name: 'j', uid: 'job' }];
    expect(viewWorkload(orphan).jobsetUid).toBeNull();
  });
});

describe("a JobSet's suspension takes its Workload's eviction reason", () => {
  //   0 ─queued (SuspendedJobs)─ 10 ─prov─ 15 ─up─ 40.5 ─suspended (Preempted)─ 50
  //   Workload evicted at 40 (seen at 40), spec.suspend seen at 40.5, the controller's condition at 41
  it('known before the JobSet is suspended: the suspension gets it as a fact after its transition; the generic condition later does not replace it', () => {
    const js = kueueJobSet()
      .at(min(40.5), { suspend: true, ready: 0 })
      .at(min(41), { suspend: true, suspended: { status: 'True', at: min(40.5), reason: 'SuspendedJobs', message: 'jobset is suspended' }, ready: 0 })
      .at(min(50));
    const { timeline, facts, learned } = run([...js.observations, workload(min(40), evicted(min(40)))]);
    expect(transitionsOf(timeline).map((t) => `${(t.at - min(0)) / 60_000}:${t.state}`)).toEqual(['0:suspended', '10:provisioning', '15:up', '40.5:suspended']);
    expect(reasons(timeline)).toEqual(['SuspendedJobs', null, null, 'Preempted']);
    expect(facts).toEqual([{ kind: 'suspension', uid: 'a', seq: 3, suspension: { reason: 'Preempted', message: PREEMPTED_MESSAGE } }]);
    expect(learned).toEqual([]);
    expect(describeSuspension(transitionsOf(timeline)[3]!.suspension)).toBe(`Reason: Preempted (${PREEMPTED_MESSAGE}).`);
  });

  //   0 ─queued─ 10 ─prov─ 15 ─up─ 40 ─suspended (SuspendedJobs, then PodsReadyTimeout from the Workload seen at 42)─ 50
  it('known after the JobSet said its generic reason: the Workload’s replaces it, as a fact of its own', () => {
    const js = kueueJobSet()
      .at(min(40), { suspend: true, suspended: { status: 'True', at: min(40), reason: 'SuspendedJobs', message: 'jobset is suspended' }, ready: 0 })
      .at(min(50));
    const { timeline, facts } = run([...js.observations, workload(min(42), evicted(min(40), 'PodsReadyTimeout', 'Exceeded the PodsReady timeout default/train'))]);
    expect(reasons(timeline)).toEqual(['SuspendedJobs', null, null, 'PodsReadyTimeout']);
    expect(facts).toEqual([{ kind: 'suspension', uid: 'a', seq: 3, suspension: { reason: 'PodsReadyTimeout', message: 'Exceeded the PodsReady timeout default/train' } }]);
  });

  //   0 ─queued─ 10 ─prov─ 15 ─up─ 40 ─suspended (Preempted)─ 55 ─prov─ 60 ─up─ 80 ─suspended (a user: SuspendedJobs)─ 90
  //   Workload: evicted at 40 (seen at 41), quota again at 55 (seen at 55)
  it('a Workload given its quota again takes its eviction back: a later suspension by a user keeps the controller’s reason', () => {
    const js = kueueJobSet()
      .at(min(40), { suspend: true, suspended: { status: 'True', at: min(40), reason: 'SuspendedJobs', message: 'jobset is suspended' }, ready: 0 })
      .at(min(55), { suspend: false, suspended: { status: 'False', at: min(55), reason: 'ResumeJobs' } })
      .up(min(60))
      .at(min(80), { suspend: true, suspended: { status: 'True', at: min(80), reason: 'SuspendedJobs', message: 'jobset is suspended' }, ready: 0 })
      .at(min(90));
    const { timeline, facts } = run([...js.observations, workload(min(41), evicted(min(40))), workload(min(55), readmitted(min(55)))]);
    expect(reasons(timeline)).toEqual(['SuspendedJobs', null, null, 'Preempted', null, null, 'SuspendedJobs']);
    expect(facts.map((f) => f.seq)).toEqual([3]);
  });

  //   0 ─queued─ 10 ─prov─ 15 ─up─ 40 ─suspended─ 55 ─prov─ 60 ─up─ 80 ─suspended (a user)─ 90
  //   the Workload's eviction at 40 is first seen at 85 (its watch was late), still True
  it('an eviction older than the JobSet’s last run is not the current suspension’s', () => {
    const js = kueueJobSet()
      .at(min(40), { suspend: true, suspended: { status: 'True', at: min(40), reason: 'SuspendedJobs', message: 'jobset is suspended' }, ready: 0 })
      .at(min(55), { suspend: false, suspended: { status: 'False', at: min(55), reason: 'ResumeJobs' } })
      .up(min(60))
      .at(min(80), { suspend: true, suspended: { status: 'True', at: min(80), reason: 'SuspendedJobs', message: 'jobset is suspended' }, ready: 0 })
      .at(min(90));
    const { timeline, facts } = run([...js.observations, workload(min(85), evicted(min(40)))]);
    expect(reasons(timeline)).toEqual(['SuspendedJobs', null, null, 'SuspendedJobs', null, null, 'SuspendedJobs']);
    expect(facts).toEqual([]);
  });

  //   0 ─queued─ 10 ─prov─ 15 ─up─ 40 ─suspended (a user's own reason: Maintenance)─ 50;  Workload evicted at 40 (InactiveWorkload)
  it('a specific reason already known is kept: only a generic one gives way', () => {
    const js = kueueJobSet()
      .at(min(40), { suspend: true, suspended: { status: 'True', at: min(40), reason: 'Maintenance', message: 'drained by ops' }, ready: 0 })
      .at(min(50));
    const { timeline, facts } = run([...js.observations, workload(min(41), evicted(min(40), 'InactiveWorkload', 'The workload is deactivated'))]);
    expect(reasons(timeline)).toEqual(['SuspendedJobs', null, null, 'Maintenance']);
    expect(facts).toEqual([]);
  });

  it('a Workload deleted takes its eviction back; one whose JobSet is not known is kept until the JobSet is seen', () => {
    // Deleted before the JobSet suspends: nothing to give.
    const gone = kueueJobSet().at(min(40.5), { suspend: true, ready: 0 }).at(min(50));
    const deleted = run([...gone.observations, workload(min(40), evicted(min(40))), { ...workload(min(40.2), evicted(min(40))), type: 'DELETED' }]);
    expect(reasons(deleted.timeline)).toEqual(['SuspendedJobs', null, null, null]);
    // The Workload seen before its JobSet ever was (a watch's first sync lists JobSets after Workloads, or a late JobSet event).
    const late = new Scenario({ uid: 'a' }, min(0), { suspend: true, suspended: { status: 'True', at: min(0), reason: 'SuspendedJobs' } }).at(min(1));
    const first = run([workload(min(0), [{ type: 'Evicted', status: 'True', at: min(0), reason: 'InactiveWorkload', message: 'deactivated' }]), ...late.observations]);
    expect(reasons(first.timeline)).toEqual(['InactiveWorkload']);
  });
});

describe('the facts read back (a store’s recovery, a follower)', () => {
  //   transitions as written: 0 queued (SuspendedJobs), 10 prov, 15 up, 40 suspended (SuspendedJobs)
  it('give the same reason whichever order the generic and the specific facts come in, and read twice change nothing', () => {
    const written = (): Timeline => ({
      uid: 'a',
      namespace: 'default',
      name: 'train',
      labels: {},
      accelerator: null,
      topology: null,
      createdAt: min(0),
      transitions: [
        { at: min(0), state: 'suspended', suspension: { reason: 'SuspendedJobs', message: 'jobset is suspended' } },
        { at: min(10), state: 'provisioning' },
        { at: min(15), state: 'up' },
        { at: min(40), state: 'suspended' },
      ],
    });
    const generic: SuspensionFact = { kind: 'suspension', uid: 'a', seq: 3, suspension: { reason: 'SuspendedJobs', message: 'jobset is suspended' } };
    const specific: SuspensionFact = { kind: 'suspension', uid: 'a', seq: 3, suspension: { reason: 'Preempted', message: PREEMPTED_MESSAGE } };
    for (const order of [[generic, specific, specific], [specific, generic, specific]]) {
      const tl = written();
      const join = new FactJoin((uid) => (uid === 'a' ? tl : undefined));
      for (const f of order) expect(join.join(f)).toBe(true);
      expect(transitionsOf(tl)[3]!.suspension).toEqual({ reason: 'Preempted', message: PREEMPTED_MESSAGE });
      expect(transitionsOf(tl)[0]!.suspension).toEqual({ reason: 'SuspendedJobs', message: 'jobset is suspended' });
    }
  });
});
