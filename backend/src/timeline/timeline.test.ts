// The rules of the state machine, each drawn as a timeline (minutes after T0) above its case.
// Figures are computed over the whole life unless a case says otherwise.

import { figures } from '../series/figures.ts';
import { merge, min, Scenario } from '../../../test/support/scenario.ts';
import { TimelineEngine } from './engine.ts';
import type { Observation } from '../observation/types.ts';
import { transitionsOf, type Timeline } from './types.ts';

function run(observations: Observation[], watchedFrom?: number): TimelineEngine {
  const engine = new TimelineEngine(watchedFrom === undefined ? {} : { watchedFrom });
  for (const o of observations) engine.observe(o);
  return engine;
}

function only(engine: TimelineEngine): Timeline {
  const all = engine.timelines();
  expect(all).toHaveLength(1);
  return all[0]!;
}

/** The transitions as "minute:state" strings, for compact assertions. */
function drawn(timeline: Timeline): string[] {
  return transitionsOf(timeline).map((t) => `${(t.at - min(0)) / 60_000}:${t.state}`);
}

const s = (minutes: number): number => minutes * 60;

describe("MegaMon's README examples, corrected", () => {
  //   created           d0=10   u0=60   d1=5  u1=120  d2=15  u2=30
  //   0 ─provisioning─ 10 ─up─ 70 ─down─ 75 ─up─ 195 ─down─ 210 ─up─ 240 completed
  it('provisions, runs, breaks twice, recovers twice and completes', () => {
    const js = new Scenario({ uid: 'a' }, min(0))
      .created()
      .up(min(10))
      .down(min(70), { restarts: 1 })
      .up(min(75))
      .down(min(195), { restarts: 2 })
      .up(min(210))
      .at(min(240), { completedAt: min(240), succeeded: 2, ready: 0 });
    const engine = run(js.observations);
    const tl = only(engine);
    expect(drawn(tl)).toEqual(['0:provisioning', '10:up', '70:down', '75:up', '195:down', '210:up', '240:completed']);
    const f = figures(tl, engine.horizon!, min(0), min(300));
    expect(f.upSeconds).toBe(s(60 + 120 + 30));
    expect(f.downSeconds).toBe(s(10 + 5 + 15));
    expect(f.provisioningSeconds).toBe(s(10));
    expect(f.interruptionDowntimeSeconds).toBe(s(5 + 15));
    expect(f.interruptions).toBe(2);
    expect(f.recoveries).toBe(2);
    expect(f.mttrSeconds).toBe(s((5 + 15) / 2));
    expect(f.mtbiSeconds).toBe(s((60 + 120) / 2));
    expect(f.uptimeRatio).toBeCloseTo(210 / 240, 12);
    expect(f.timeToFirstUpSeconds).toBe(s(10));
  });

  //   0 ─provisioning─ 10 ─up─ 70 ─down─ 75 ─up─ 195 ─down─ 210 failed
  it('the same JobSet failing after d2', () => {
    const js = new Scenario({ uid: 'a' }, min(0))
      .created()
      .up(min(10))
      .down(min(70), { restarts: 1 })
      .up(min(75))
      .down(min(195), { restarts: 2 })
      .at(min(210), { failedAt: min(210) });
    const engine = run(js.observations);
    const tl = only(engine);
    const f = figures(tl, engine.horizon!, min(0), min(300));
    expect(f.upSeconds).toBe(s(60 + 120));
    expect(f.downSeconds).toBe(s(10 + 5 + 15));
    expect(f.interruptions).toBe(2);
    expect(f.recoveries).toBe(1);
    expect(f.mttrSeconds).toBe(s(5));
    expect(f.mtbiSeconds).toBe(s((60 + 120) / 2));
  });
});

describe('restarts', () => {
  //   0 ─prov─ 10 ─up─ 30 ─down (restarts 0→1 in the same observation)─ 35 ─up─ 60
  it('a rise of status.restarts seen together with a drop to down counts once', () => {
    const js = new Scenario({ uid: 'a' }, min(0)).created().up(min(10)).down(min(30), { restarts: 1 }).up(min(35)).at(min(60));
    const engine = run(js.observations);
    const f = figures(only(engine), engine.horizon!, min(0), min(60));
    expect(f.interruptions).toBe(1);
    expect(f.recoveries).toBe(1);
  });

  //   0 ─prov─ 10 ─up─ 30 ─down─ 31 (restarts 0→1 while still down) ─ 35 ─up─ 60
  it('a rise of status.restarts during an observed down period adds nothing', () => {
    const js = new Scenario({ uid: 'a' }, min(0))
      .created()
      .up(min(10))
      .down(min(30))
      .at(min(31), { restarts: 1, ready: 0 })
      .up(min(35))
      .at(min(60));
    const engine = run(js.observations);
    const f = figures(only(engine), engine.horizon!, min(0), min(60));
    expect(f.interruptions).toBe(1);
    expect(f.recoveries).toBe(1);
    expect(f.mttrSeconds).toBe(s(5));
  });

  //   0 ─prov─ 10 ─up─ 40 (restarts 0→1, still up) ─up─ 100
  //                    └ one interruption and one recovery of 0 s
  it('a rise of status.restarts with no observed down is one interruption and one recovery of 0 s', () => {
    const js = new Scenario({ uid: 'a' }, min(0)).created().up(min(10)).at(min(40), { restarts: 1 }).at(min(100));
    const engine = run(js.observations);
    const tl = only(engine);
    expect(drawn(tl)).toEqual(['0:provisioning', '10:up', '40:down', '40:up']);
    const f = figures(tl, engine.horizon!, min(0), min(100));
    expect(f.interruptions).toBe(1);
    expect(f.recoveries).toBe(1);
    expect(f.mttrSeconds).toBe(0);
    expect(f.mtbiSeconds).toBe(s(30));
    expect(f.upSeconds).toBe(s(90));
    expect(f.interruptionDowntimeSeconds).toBe(0);
  });

  it('a rise of several restarts between two up observations counts as one (all that can be proven)', () => {
    const js = new Scenario({ uid: 'a' }, min(0)).created().up(min(10)).at(min(40), { restarts: 3 }).at(min(50));
    const engine = run(js.observations);
    expect(figures(only(engine), engine.horizon!, min(0), min(50)).interruptions).toBe(1);
  });

  it('restarts rising while provisioning are not interruptions', () => {
    const js = new Scenario({ uid: 'a' }, min(0)).created().at(min(5), { restarts: 1 }).up(min(10)).at(min(20));
    const engine = run(js.observations);
    const f = figures(only(engine), engine.horizon!, min(0), min(20));
    expect(f.interruptions).toBe(0);
    expect(f.provisioningSeconds).toBe(s(10));
  });
});

describe('endings', () => {
  //   0 ─prov─ 10 ─up─ 50 (jobs finish one by one: ready 4→3→1, succeeded 1→3) ─ 55 completed
  it('jobs finishing one after another, then completion: no interruption', () => {
    const js = new Scenario({ uid: 'a', replicas: [2, 2] }, min(0))
      .created()
      .up(min(10))
      .at(min(50), { ready: 3, succeeded: 1 })
      .at(min(52), { ready: 1, succeeded: 3 })
      .at(min(55), { ready: 0, succeeded: 4, completedAt: min(55) });
    const engine = run(js.observations);
    const tl = only(engine);
    expect(drawn(tl)).toEqual(['0:provisioning', '10:up', '55:completed']);
    const f = figures(tl, engine.horizon!, min(0), min(60));
    expect(f.interruptions).toBe(0);
    expect(f.upSeconds).toBe(s(45));
    expect(f.mtbiSeconds).toBeNull();
  });

  // A closed run keeps no resourceVersion (only a gap's first observation of an open run reads it).
  it('the resourceVersion is kept while open and dropped on closing', () => {
    const js = new Scenario({ uid: 'a' }, min(0)).created().up(min(10));
    const engine = run(js.observations);
    expect([...engine.machines()][0]!.resourceVersion).toBe(js.observations.at(-1)!.object.metadata.resourceVersion);
    expect(typeof [...engine.machines()][0]!.resourceVersion).toBe('string');
    engine.observe(js.at(min(20), { completedAt: min(20) }).observations.at(-1)!);
    expect([...engine.machines()][0]!.resourceVersion).toBeNull();
    expect(drawn(only(engine))).toEqual(['0:provisioning', '10:up', '20:completed']);
  });

  //   a: 0 ─prov─ 10 ─up─ 20 ─down─ 25 ─up─ 40 completed · · · 70 DELETED
  //   b: 0 ─prov─ 10 ─up─ 30 deleted (the deletionTimestamp; DELETED seen at 31)
  //   c: 0 ─prov─ 10 ─up─ (open)
  // A closed run keeps no machine of its own: its memory (restarts, ever up, deletion, including a
  // deletion seen after it closed) lives in its packed columns and comes back exactly.
  it("a closed run's machine is kept in its columns and given back exactly, a deletion seen after it closed too", () => {
    const a = new Scenario({ uid: 'a' }, min(0)).created().up(min(10)).down(min(20), { restarts: 1 }).up(min(25)).at(min(40), { completedAt: min(40), ready: 0, succeeded: 2 });
    const b = new Scenario({ uid: 'b' }, min(0)).created().up(min(10)).at(min(30.5), { deletionAt: min(30), ready: 1 }).deleted(min(31));
    const c = new Scenario({ uid: 'c' }, min(0)).created().up(min(10));
    const engine = run(merge(a, b, c));
    const memory = (): [string, number, boolean, boolean, number | null][] => [...engine.machines()].map((m) => [m.timeline.uid, m.restarts, m.everUp, m.resourceVersion === null, m.deletedAt]);
    expect(memory()).toEqual([
      ['a', 1, true, true, null],
      ['b', 0, true, true, min(30)],
      ['c', 0, true, false, null],
    ]);
    expect(engine.machinesKept).toBe(1);
    engine.observe(a.deleted(min(70)).observations.at(-1)!);
    expect(memory()[0]).toEqual(['a', 1, true, true, min(70)]);
    expect(engine.machinesKept).toBe(1);
    expect(drawn(engine.timeline('a')!)).toEqual(['0:provisioning', '10:up', '20:down', '25:up', '40:completed']);
    // Restored from what machines() gives (a store's snapshot), it is kept the same way.
    const restored = new TimelineEngine();
    restored.restore([...engine.machines()].map((m) => ({ ...m })), min(70));
    expect([...restored.machines()].map((m) => [m.timeline.uid, m.restarts, m.everUp, m.deletedAt])).toEqual(memory().map(([uid, r, e, , d]) => [uid, r, e, d]));
    expect(restored.machinesKept).toBe(1);
  });

  //   0 ─prov─ 10 ─up─ 40 failed (the condition says 40; the watch saw it at 41)
  it('up → failed is an interruption, timed by the condition', () => {
    const js = new Scenario({ uid: 'a' }, min(0)).created().up(min(10)).at(min(41), { failedAt: min(40) });
    const engine = run(js.observations);
    const tl = only(engine);
    expect(drawn(tl)).toEqual(['0:provisioning', '10:up', '40:failed']);
    const f = figures(tl, engine.horizon!, min(0), min(60));
    expect(f.interruptions).toBe(1);
    expect(f.recoveries).toBe(0);
    expect(f.mtbiSeconds).toBe(s(30));
    expect(f.upSeconds).toBe(s(30));
  });

  it('down → failed is not a second interruption', () => {
    const js = new Scenario({ uid: 'a' }, min(0)).created().up(min(10)).down(min(20)).at(min(25), { failedAt: min(25) });
    const engine = run(js.observations);
    expect(figures(only(engine), engine.horizon!, min(0), min(60)).interruptions).toBe(1);
  });

  //   0 ─prov─ 10 ─up─ 40 completed · · · observations after it change nothing · · · 100
  it('a closed timeline never accrues time', () => {
    const js = new Scenario({ uid: 'a' }, min(0))
      .created()
      .up(min(10))
      .at(min(40), { completedAt: min(40), ready: 0, succeeded: 2 })
      .at(min(60), { ready: 0 })
      .deleted(min(100));
    const engine = run(js.observations);
    const tl = only(engine);
    expect(drawn(tl)).toEqual(['0:provisioning', '10:up', '40:completed']);
    const f = figures(tl, engine.horizon!, min(0), min(200));
    expect(f.upSeconds + f.downSeconds + f.suspendedSeconds + f.unknownSeconds).toBe(s(40));
    expect(figures(tl, engine.horizon!, min(50), min(200)).upSeconds).toBe(0);
  });

  //   0 ─prov─ 10 ─up─ 30 deleted (pods torn down after the deletionTimestamp)
  it('deleting a running JobSet is not an interruption', () => {
    const js = new Scenario({ uid: 'a' }, min(0))
      .created()
      .up(min(10))
      .at(min(30.5), { deletionAt: min(30), ready: 1 })
      .deleted(min(31));
    const engine = run(js.observations);
    const tl = only(engine);
    expect(drawn(tl)).toEqual(['0:provisioning', '10:up', '30:deleted']);
    const f = figures(tl, engine.horizon!, min(0), min(60));
    expect(f.interruptions).toBe(0);
    expect(f.upSeconds).toBe(s(20));
  });

  it('a DELETED observation without a deletionTimestamp closes at the time received', () => {
    const js = new Scenario({ uid: 'a' }, min(0)).created().up(min(10)).at(min(30), {}, 'DELETED');
    expect(drawn(only(run(js.observations)))).toEqual(['0:provisioning', '10:up', '30:deleted']);
  });
});

describe('suspension', () => {
  //   0 ─prov─ 10 ─up─ 40 ─suspended─ 60 ─prov─ 70 ─up─ 100
  it('up → suspended is not an interruption; after a resume it provisions again and its up is not a recovery', () => {
    const js = new Scenario({ uid: 'a' }, min(0))
      .created()
      .up(min(10))
      .at(min(40), { suspend: true, suspended: { status: 'True', at: min(40) }, ready: 0 })
      .at(min(60), { suspend: false, suspended: { status: 'False', at: min(60) } })
      .up(min(70))
      .at(min(100));
    const engine = run(js.observations);
    const tl = only(engine);
    expect(drawn(tl)).toEqual(['0:provisioning', '10:up', '40:suspended', '60:provisioning', '70:up']);
    const f = figures(tl, engine.horizon!, min(0), min(100));
    expect(f.interruptions).toBe(0);
    expect(f.recoveries).toBe(0);
    expect(f.suspendedSeconds).toBe(s(20));
    expect(f.queuedSeconds).toBe(0);
    expect(f.provisioningSeconds).toBe(s(20));
    expect(f.upSeconds).toBe(s(60));
    expect(f.mtbiSeconds).toBeNull();
    expect(f.uptimeRatio).toBeCloseTo(60 / 80, 12);
  });

  //   0 ─suspended (queued)─ 25 ─prov─ 35 ─up─ 60
  it('suspended time before the first start is queued time; time to first up runs from the first resume', () => {
    const js = new Scenario({ uid: 'a' }, min(0), { suspend: true, suspended: { status: 'True', at: min(0) } })
      .created()
      .at(min(25), { suspend: false, suspended: { status: 'False', at: min(25) } })
      .up(min(35))
      .at(min(60));
    const engine = run(js.observations);
    const tl = only(engine);
    expect(drawn(tl)).toEqual(['0:suspended', '25:provisioning', '35:up']);
    const f = figures(tl, engine.horizon!, min(0), min(60));
    expect(f.queuedSeconds).toBe(s(25));
    expect(f.suspendedSeconds).toBe(s(25));
    expect(f.timeToFirstUpSeconds).toBe(s(10));
    expect(f.uptimeRatio).toBeCloseTo(25 / 35, 12);
  });

  it('the suspension is timed by the Suspended condition, not by when it was seen', () => {
    const js = new Scenario({ uid: 'a' }, min(0))
      .created()
      .up(min(10))
      .at(min(21), { suspend: true, suspended: { status: 'True', at: min(20) }, ready: 0 });
    expect(drawn(only(run(js.observations)))).toEqual(['0:provisioning', '10:up', '20:suspended']);
  });

  it('spec.suspend alone (no condition yet) suspends at the time received', () => {
    const js = new Scenario({ uid: 'a' }, min(0)).created().up(min(10)).at(min(21), { suspend: true });
    expect(drawn(only(run(js.observations)))).toEqual(['0:provisioning', '10:up', '21:suspended']);
  });

  //   0 ─prov─ 10 ─up─ 20 ─down─ 30 ─suspended─ 40 ─prov─ 50 ─up─ 60
  it('a down period ended by a suspension is not recovered; its MTTR is undefined', () => {
    const js = new Scenario({ uid: 'a' }, min(0))
      .created()
      .up(min(10))
      .down(min(20))
      .at(min(30), { suspend: true, suspended: { status: 'True', at: min(30) } })
      .at(min(40), { suspend: false, suspended: { status: 'False', at: min(40) }, ready: 0 })
      .up(min(50))
      .at(min(60));
    const engine = run(js.observations);
    const f = figures(only(engine), engine.horizon!, min(0), min(60));
    expect(f.interruptions).toBe(1);
    expect(f.recoveries).toBe(0);
    expect(f.mttrSeconds).toBeNull();
    expect(f.provisioningSeconds).toBe(s(10 + 10));
    expect(f.interruptionDowntimeSeconds).toBe(s(10));
  });
});

describe('why it was suspended', () => {
  const why = (tl: Timeline): (string | null)[] => transitionsOf(tl).map((t) => (t.suspension === undefined ? null : `${t.suspension.reason}: ${t.suspension.message}`));

  //   0 ─suspended (queued: SuspendedJobs)─ 10 ─prov─ 15 ─up─ 40 ─suspended (Preempted)─ 55 ─prov─ 60 ─up─ 70
  it('each transition into suspended carries the Suspended condition’s reason and message; the others none', () => {
    const js = new Scenario({ uid: 'a' }, min(0), { suspend: true, suspended: { status: 'True', at: min(0), reason: 'SuspendedJobs', message: 'jobset is suspended' } })
      .created()
      .at(min(10), { suspend: false, suspended: { status: 'False', at: min(10), reason: 'ResumeJobs', message: 'jobset is resumed' } })
      .up(min(15))
      .at(min(40), { suspend: true, suspended: { status: 'True', at: min(40), reason: 'Preempted', message: 'Preempted to accommodate a higher priority Workload' }, ready: 0 })
      .at(min(55), { suspend: false, suspended: { status: 'False', at: min(55), reason: 'ResumeJobs' } })
      .up(min(60))
      .at(min(70));
    const tl = only(run(js.observations));
    expect(drawn(tl)).toEqual(['0:suspended', '10:provisioning', '15:up', '40:suspended', '55:provisioning', '60:up']);
    expect(why(tl)).toEqual(['SuspendedJobs: jobset is suspended', null, null, 'Preempted: Preempted to accommodate a higher priority Workload', null, null]);
  });

  //   0 ─prov─ 10 ─up─ 21 ─suspended (spec.suspend first; the condition's reason seen at 22)─ 30
  it('spec.suspend seen before the condition: the reason is learned with the condition, once, and reported as a fact of its own', () => {
    const js = new Scenario({ uid: 'a' }, min(0))
      .created()
      .up(min(10))
      .at(min(21), { suspend: true, ready: 0 })
      .at(min(22), { suspend: true, suspended: { status: 'True', at: min(21), reason: 'SuspendedJobs', message: 'jobset is suspended' }, ready: 0 })
      .at(min(30), { suspend: true, suspended: { status: 'True', at: min(21), reason: 'SuspendedJobs', message: 'changed later' }, ready: 0 });
    const learned: unknown[] = [];
    const engine = new TimelineEngine({ onUpdate: (u) => learned.push(u.suspension ?? null) });
    for (const o of js.observations) engine.observe(o);
    const tl = only(engine);
    expect(drawn(tl)).toEqual(['0:provisioning', '10:up', '21:suspended']);
    expect(why(tl)).toEqual([null, null, 'SuspendedJobs: jobset is suspended']);
    // Reported by the observation at 22 only: the first reason seen is kept (a generic one gives way only to a specific one: workload.test.ts).
    expect(learned).toEqual([null, null, null, { seq: 2, suspension: { reason: 'SuspendedJobs', message: 'jobset is suspended' } }, null]);
  });

  //   0 ─prov─ 10 ─up─ 20 ─suspended (reason only)─ 30
  it('a condition with a reason and no message carries the reason alone', () => {
    const js = new Scenario({ uid: 'a' }, min(0))
      .created()
      .up(min(10))
      .at(min(20), { suspend: true, suspended: { status: 'True', at: min(20), reason: 'QueueFull' }, ready: 0 })
      .at(min(30), { suspend: true, suspended: { status: 'True', at: min(20), reason: 'QueueFull' }, ready: 0 });
    expect(transitionsOf(only(run(js.observations)))[2]).toEqual({ at: min(20), state: 'suspended', suspension: { reason: 'QueueFull', message: null } });
  });
});

describe('identity', () => {
  //   uid a: 0 ─prov─ 10 ─up─ 30 deleted
  //   uid b (same name):    40 ─prov─ 45 ─up─ 60
  it('a JobSet deleted and created again with the same name is a new timeline', () => {
    const a = new Scenario({ uid: 'a', name: 'train' }, min(0)).created().up(min(10)).deleted(min(30));
    const b = new Scenario({ uid: 'b', name: 'train' }, min(40)).created().up(min(45)).at(min(60));
    const engine = run(merge(a, b));
    const [ta, tb] = engine.timelines();
    expect(drawn(ta!)).toEqual(['0:provisioning', '10:up', '30:deleted']);
    expect(drawn(tb!)).toEqual(['40:provisioning', '45:up']);
    expect(figures(tb!, engine.horizon!, min(0), min(60)).upSeconds).toBe(s(15));
    expect(figures(tb!, engine.horizon!, min(0), min(60)).timeToFirstUpSeconds).toBe(s(5));
  });

  it('Pod and Node observations are kept and do not disturb the JobSet figures', () => {
    const js = new Scenario({ uid: 'a' }, min(0)).created().up(min(10)).at(min(60));
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { uid: 'p1', name: 'train-rj0-0', namespace: 'default', labels: { 'jobset.sigs.k8s.io/jobset-name': 'train' } },
      status: { phase: 'Failed' },
    };
    const node = { apiVersion: 'v1', kind: 'Node', metadata: { uid: 'n1', name: 'node-1' }, status: { conditions: [] } };
    const observations = merge(js);
    observations.splice(2, 0, { receivedAt: min(20), type: 'ADDED', object: pod }, { receivedAt: min(20), type: 'ADDED', object: node });
    observations.splice(4, 0, { receivedAt: min(30), type: 'DELETED', object: node });
    const engine = run(observations);
    expect(engine.kept('Pod').size).toBe(1);
    expect(engine.kept('Node').size).toBe(0);
    expect(engine.counts).toMatchObject({ jobsets: 1, pods: 1, nodes: 0, skipped: 0, observations: 6 });
    const f = figures(only(engine), engine.horizon!, min(0), min(60));
    expect(f.upSeconds).toBe(s(50));
    expect(f.interruptions).toBe(0);
  });

  it('objects of other kinds are counted and skipped', () => {
    const engine = run([
      { receivedAt: min(0), type: 'ADDED', object: { apiVersion: 'batch/v1', kind: 'Job', metadata: { uid: 'j', name: 'j' } } },
    ]);
    expect(engine.counts.skipped).toBe(1);
    expect(engine.timelines()).toHaveLength(0);
  });
});

describe('observation and timestamps', () => {
  //   created at 0, first seen at 30 (watching began at 30), already up:
  //   0 ─unknown─ 30 ─up─ 60
  it('time before the first observation of a JobSet created before watching began is unknown', () => {
    const js = new Scenario({ uid: 'a' }, min(0)).at(min(30), { ready: 2 }, 'ADDED').at(min(60));
    const engine = run(js.observations);
    const tl = only(engine);
    expect(drawn(tl)).toEqual(['0:unknown', '30:up']);
    const f = figures(tl, engine.horizon!, min(0), min(60));
    expect(f.unknownSeconds).toBe(s(30));
    expect(f.upSeconds).toBe(s(30));
    expect(f.timeToFirstUpSeconds).toBeNull();
    expect(f.uptimeRatio).toBe(1);
  });

  it('a JobSet that completed before watching began: unknown until its Completed condition', () => {
    const js = new Scenario({ uid: 'a' }, min(0)).at(min(30), { completedAt: min(20), succeeded: 2 }, 'ADDED');
    const tl = only(run(js.observations));
    expect(drawn(tl)).toEqual(['0:unknown', '20:completed']);
  });

  it('created suspended before watching began: its Suspended condition proves the queued time', () => {
    const js = new Scenario({ uid: 'a' }, min(0)).at(min(30), { suspend: true, suspended: { status: 'True', at: min(0) } }, 'ADDED');
    const tl = only(run(js.observations, min(30)));
    expect(drawn(tl)).toEqual(['0:unknown', '0:suspended']);
    const engine = run(js.observations, min(30));
    expect(figures(only(engine), engine.horizon!, min(0), min(30)).queuedSeconds).toBe(s(30));
  });

  it('creationTimestamp truncated to the second is not mistaken for a JobSet created before watching', () => {
    const js = new Scenario({ uid: 'a' }, min(0)).at(min(0) + 400, {}, 'ADDED');
    const tl = only(run(js.observations, min(0) + 300));
    expect(drawn(tl)).toEqual(['0:provisioning']);
  });

  it('a condition time later than the time received (another clock) is held to the time received', () => {
    const js = new Scenario({ uid: 'a' }, min(0)).created().up(min(10)).at(min(20), { completedAt: min(21), succeeded: 2, ready: 0 });
    expect(drawn(only(run(js.observations)))).toEqual(['0:provisioning', '10:up', '20:completed']);
  });

  it('a condition time earlier than the last transition is held to it, keeping the order', () => {
    const js = new Scenario({ uid: 'a' }, min(0)).created().up(min(10)).down(min(20)).at(min(21), { failedAt: min(19) });
    expect(drawn(only(run(js.observations)))).toEqual(['0:provisioning', '10:up', '20:down', '20:failed']);
  });

  it('refuses an observation older than the last one', () => {
    const engine = new TimelineEngine();
    const js = new Scenario({ uid: 'a' }, min(0)).created().at(min(10)).at(min(5));
    engine.observe(js.observations[0]!);
    engine.observe(js.observations[1]!);
    expect(() => engine.observe(js.observations[2]!)).toThrow(/older than the last one/);
  });

  it('reports what an update added, so a store can append it', () => {
    const engine = new TimelineEngine();
    const js = new Scenario({ uid: 'a' }, min(0)).created().at(min(5), { ready: 1 }).up(min(10));
    const updates = js.observations.map((o) => engine.observe(o)!.added.map((t) => t.state));
    expect(updates).toEqual([['provisioning'], [], ['up']]);
  });
});

describe('gaps in the watch', () => {
  /** Runs the scenarios' observations, breaking the watch at gapStart and resyncing at gapEnd:
   *  observations inside the gap are lost, except the last of each JobSet, delivered at gapEnd as
   *  the relist would (only when it changed since the last one seen before the gap). */
  function runWithGap(gapStart: number, gapEnd: number, ...scenarios: Scenario[]): TimelineEngine {
    const engine = new TimelineEngine();
    const all = merge(...scenarios);
    const before = all.filter((o) => o.receivedAt < gapStart);
    const during = all.filter((o) => o.receivedAt >= gapStart && o.receivedAt <= gapEnd);
    const after = all.filter((o) => o.receivedAt > gapEnd);
    for (const o of before) engine.observe(o);
    engine.beginGap(gapStart);
    const latest = new Map<string, Observation>();
    for (const o of during) latest.set(o.object.metadata.uid, o);
    for (const o of latest.values()) engine.observe({ ...o, receivedAt: gapEnd });
    engine.endGap(gapEnd);
    for (const o of after) engine.observe(o);
    return engine;
  }

  //   0 ─prov─ 10 ─up─ 40 ╳ watch broken ╳ 50 (object unchanged) ─up─ 60
  it('an object that did not change during the gap held its state: no unknown time', () => {
    const js = new Scenario({ uid: 'a' }, min(0)).created().up(min(10)).at(min(60), { ready: 2 });
    const engine = runWithGap(min(40), min(50), js);
    expect(drawn(only(engine))).toEqual(['0:provisioning', '10:up']);
    expect(figures(only(engine), engine.horizon!, min(0), min(60)).upSeconds).toBe(s(50));
  });

  it('while the watch is broken, nothing is vouched for after the break', () => {
    const js = new Scenario({ uid: 'a' }, min(0)).created().up(min(10));
    const engine = run(js.observations);
    engine.beginGap(min(40));
    expect(engine.horizon).toBe(min(40));
    engine.endGap(min(50));
    expect(engine.horizon).toBe(min(50));
  });

  //   0 ─prov─ 10 ─up─ 40 ╳ (restarts 0→1, up again) ╳ 50 ─up─ 60
  //   → unknown 40─50; one interruption and one recovery proven, their lengths unknown
  it('a restart during the gap counts as an interruption and a recovery, outside MTTR and MTBI', () => {
    const js = new Scenario({ uid: 'a' }, min(0)).created().up(min(10)).down(min(42), { restarts: 1 }).up(min(45)).at(min(60));
    const engine = runWithGap(min(40), min(50), js);
    const tl = only(engine);
    expect(drawn(tl)).toEqual(['0:provisioning', '10:up', '40:unknown', '50:up']);
    expect(transitionsOf(tl)[3]!.unobserved).toEqual({ interruptions: 1, recoveries: 1 });
    const f = figures(tl, engine.horizon!, min(0), min(60));
    expect(f).toMatchObject({ interruptions: 1, recoveries: 1, mttrSeconds: null, mtbiSeconds: null, unknownSeconds: s(10), upSeconds: s(40) });
  });

  //   0 ─prov─ 10 ─up─ 40 ╳ (Completed at 45) ╳ 50
  it("the object's own timestamps prove what they can: unknown only until the completion", () => {
    const js = new Scenario({ uid: 'a' }, min(0)).created().up(min(10)).at(min(45), { completedAt: min(45), ready: 0, succeeded: 2 });
    const engine = runWithGap(min(40), min(50), js);
    expect(drawn(only(engine))).toEqual(['0:provisioning', '10:up', '40:unknown', '45:completed']);
    expect(figures(only(engine), engine.horizon!, min(0), min(60)).interruptions).toBe(0);
  });

  //   0 ─prov─ 10 ─up─ 40 ╳ (deleted, no trace of when) ╳ 50 deleted
  it('a JobSet that vanished during the gap is closed as deleted at the resync', () => {
    const js = new Scenario({ uid: 'a' }, min(0)).created().up(min(10)).at(min(45), {}, 'DELETED');
    const engine = runWithGap(min(40), min(50), js);
    expect(drawn(only(engine))).toEqual(['0:provisioning', '10:up', '40:unknown', '50:deleted']);
  });

  //   0 ─prov─ 10 ─up─ 40 ╳ (suspended at 42, resumed at 45) ╳ 50 not up yet: provisioning, not down
  it('a JobSet suspended and resumed during the gap provisions again: its Suspended condition proves the resume', () => {
    const js = new Scenario({ uid: 'a' }, min(0))
      .created()
      .up(min(10))
      .at(min(42), { suspend: true, suspended: { status: 'True', at: min(42) }, ready: 0 })
      .at(min(45), { suspend: false, suspended: { status: 'False', at: min(45) } });
    const engine = runWithGap(min(40), min(50), js);
    expect(drawn(only(engine))).toEqual(['0:provisioning', '10:up', '40:unknown', '50:provisioning']);
  });

  //   0 ─prov─ 10 ─up─ 20 ─susp─ 40.5 ╳ (resumed at 40.7; the condition says 40:00, before the gap) ╳ 50
  //   not up yet: provisioning, not down — it was suspended when the gap began, and is not any more
  it('a JobSet suspended when the gap began and active after it was resumed, whatever its condition time says', () => {
    const js = new Scenario({ uid: 'a' }, min(0))
      .created()
      .up(min(10))
      .at(min(20), { suspend: true, suspended: { status: 'True', at: min(20) }, ready: 0 })
      // lastTransitionTime has whole seconds: a resume just after the gap began can read as before it.
      .at(min(40.7), { suspend: false, suspended: { status: 'False', at: min(40) } });
    const engine = runWithGap(min(40.5), min(50), js);
    expect(drawn(only(engine))).toEqual(['0:provisioning', '10:up', '20:suspended', '40.5:unknown', '50:provisioning']);
  });

  //   created at 44, inside the gap; seen at the resync, already up
  it('a JobSet created during the gap is unknown from its creation until seen', () => {
    const other = new Scenario({ uid: 'o', name: 'other' }, min(0)).created();
    const js = new Scenario({ uid: 'a' }, min(44)).created().up(min(47));
    const engine = runWithGap(min(40), min(50), other, js);
    expect(drawn(engine.timeline('a')!)).toEqual(['44:unknown', '50:up']);
    expect(figures(engine.timeline('a')!, engine.horizon!, min(0), min(60)).timeToFirstUpSeconds).toBeNull();
  });

  it.each([
    //  before, change during the gap,              after,  proven interruptions, recoveries
    ['up', { ready: 1 }, 'down', 1, 0],
    ['down', { ready: 2 }, 'up', 0, 1],
    ['down', { ready: 2, restarts: 2 }, 'up', 0, 1],
    ['down', { restarts: 2 }, 'down', 0, 0],
    ['up', { restarts: 3 }, 'up', 1, 1],
  ] as const)('%s, then %j during the gap, then %s: %i interruption(s), %i recovery(ies) proven', (before, change, after, interruptions, recoveries) => {
    const js = new Scenario({ uid: 'a' }, min(0)).created().up(min(10));
    if (before === 'down') js.down(min(20));
    js.at(min(45), change);
    const engine = runWithGap(min(40), min(50), js);
    const tl = only(engine);
    expect(transitionsOf(tl)[transitionsOf(tl).length - 1]!.state).toBe(after);
    const f = figures(tl, engine.horizon!, min(39), min(60));
    expect([f.interruptions, f.recoveries]).toEqual([interruptions, recoveries]);
  });
});

describe('reconcile: the relist after a time without watching', () => {
  //   a (default): 0 ─prov─ 10 ─up─ 40 ╳ not watching ╳ 50 not listed        → 40 unknown, 50 deleted
  //   b (default): 0 ─prov─ 10 ─up─ 40 ╳ not watching ╳ 50 listed, unchanged → up throughout
  //   c (other):   0 ─prov─ 10 ─up─ 40 ╳ not watching ╳ 50 outside the listing's namespaces → untouched
  //   d (default): 0 ─prov─ 10 ─up─ 20 completed ╳ 50 not listed           → closed already, untouched
  function watchedUntil40(): { engine: TimelineEngine; updates: string[] } {
    const updates: string[] = [];
    const engine = new TimelineEngine({ onUpdate: (u) => updates.push(`${u.timeline.uid}:${u.deleted}:${u.added.map((t) => t.state).join(',')}`) });
    const a = new Scenario({ uid: 'a', name: 'a', labels: { team: 'x' }, nodeSelector: { 'cloud.google.com/gke-tpu-accelerator': 'tpu-v5p-slice', 'cloud.google.com/gke-tpu-topology': '2x2x2' } }, min(0))
      .created()
      .up(min(10));
    const b = new Scenario({ uid: 'b', name: 'b' }, min(0)).created().up(min(10));
    const c = new Scenario({ uid: 'c', name: 'c', namespace: 'other' }, min(0)).created().up(min(10));
    const d = new Scenario({ uid: 'd', name: 'd' }, min(0)).created().up(min(10)).at(min(20), { completedAt: min(20), succeeded: 2, ready: 0 });
    for (const o of merge(a, b, c, d)) engine.observe(o);
    engine.beginGap(min(40));
    updates.length = 0;
    return { engine, updates };
  }

  it('closes as deleted, at the relist, what the listing covers and no longer names; nothing else', () => {
    const { engine, updates } = watchedUntil40();
    const observations = engine.counts.observations;
    const changed = engine.reconcile({ uids: new Set(['b']), namespaces: ['default'] }, min(50));
    engine.endGap(min(50));
    expect(changed.map((u) => u.timeline.uid)).toEqual(['a']);
    expect(updates).toEqual(['a:true:unknown,deleted']);
    expect(drawn(engine.timeline('a')!)).toEqual(['0:provisioning', '10:up', '40:unknown', '50:deleted']);
    expect(drawn(engine.timeline('b')!)).toEqual(['0:provisioning', '10:up']);
    expect(drawn(engine.timeline('c')!)).toEqual(['0:provisioning', '10:up']);
    expect(drawn(engine.timeline('d')!)).toEqual(['0:provisioning', '10:up', '20:completed']);
    // Up 10─40, unknown 40─50: the vanishing is no interruption (deletion is deliberate).
    const f = figures(engine.timeline('a')!, engine.horizon!, min(0), min(60));
    expect(f).toMatchObject({ upSeconds: s(30), unknownSeconds: s(10), interruptions: 0 });
    // A relist is not an observation of any object.
    expect(engine.counts.observations).toBe(observations);
  });

  it('a listing of every namespace (none named) covers them all', () => {
    const { engine } = watchedUntil40();
    engine.reconcile({ uids: new Set(['b']), namespaces: [] }, min(50));
    engine.endGap(min(50));
    expect(drawn(engine.timeline('c')!)).toEqual(['0:provisioning', '10:up', '40:unknown', '50:deleted']);
    expect(drawn(engine.timeline('b')!)).toEqual(['0:provisioning', '10:up']);
  });

  it('keeps what the timeline knew of the JobSet (its names, labels, accelerator)', () => {
    const { engine } = watchedUntil40();
    engine.reconcile({ uids: new Set(), namespaces: [] }, min(50));
    expect(engine.timeline('a')).toMatchObject({ namespace: 'default', name: 'a', labels: { team: 'x' }, accelerator: 'tpu-v5p-slice', topology: '2x2x2' });
  });

  it('refuses a relist older than the last observation', () => {
    const { engine } = watchedUntil40();
    expect(() => engine.reconcile({ uids: new Set(), namespaces: [] }, min(5))).toThrow(/older than the last observation/);
  });
});
