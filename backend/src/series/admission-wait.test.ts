// Admission wait by Kueue queue (issue 20 §5): the spread, across the JobSets of each queue, of their
// queued time (suspended from creation to the first admission, `queuedSeconds`), as the fleet
// overview's table asks for it (a `fleet` query of queuedSeconds grouped by queue). Hand-computed.

import { min, Scenario } from '../../../test/support/scenario.ts';
import { TimelineEngine } from '../timeline/engine.ts';
import { fleetFigure } from './fleet.ts';

const QUEUE = 'kueue.x-k8s.io/queue-name';

/** Created suspended at `created` in `queue`, admitted `wait` minutes later, up 5 minutes after that. */
function queued(uid: string, queue: string, created: number, wait: number): Scenario {
  return new Scenario({ uid, name: uid, labels: { [QUEUE]: queue } }, min(created), { suspend: true, suspended: { status: 'True', at: min(created), reason: 'SuspendedJobs' } })
    .created()
    .at(min(created + wait), { suspend: false, suspended: { status: 'False', at: min(created + wait), reason: 'ResumeJobs' } })
    .up(min(created + wait + 5));
}

//   queue a:  a1  0 ─queued 10─ 10 ─prov─ 15 ─up─ … 60 ─suspended (preempted: not an admission wait of queuedSeconds)─ 90 ─prov─ …
//             a2  0 ─queued 20─ 20 ─prov─ 25 ─up─ …
//             a3 20 ─queued 40─ 60 ─prov─ 65 ─up─ …
//   queue b:  b1 30 ─queued  5─ 35 ─prov─ 40 ─up─ …
//             b2 100 ─queued (still waiting at 200: 100 so far)
//   no queue: n1  0 ─prov─ 5 ─up─ …
function fleet(): TimelineEngine {
  const a1 = queued('a1', 'a', 0, 10)
    .at(min(60), { suspend: true, suspended: { status: 'True', at: min(60), reason: 'SuspendedJobs' }, ready: 0 })
    .at(min(90), { suspend: false, suspended: { status: 'False', at: min(90), reason: 'ResumeJobs' } });
  const b2 = new Scenario({ uid: 'b2', name: 'b2', labels: { [QUEUE]: 'b' } }, min(100), { suspend: true, suspended: { status: 'True', at: min(100), reason: 'SuspendedJobs' } }).created();
  const n1 = new Scenario({ uid: 'n1', name: 'n1' }, min(0)).created().up(min(5));
  const engine = new TimelineEngine({ watchedFrom: min(0) });
  const all = [a1, queued('a2', 'a', 0, 20), queued('a3', 'a', 20, 40), queued('b1', 'b', 30, 5), b2, n1].flatMap((s) => s.observations);
  for (const o of all.sort((x, y) => x.receivedAt - y.receivedAt)) engine.observe(o);
  engine.observe({ receivedAt: min(200), type: 'MODIFIED', object: b2.observations[0]!.object });
  return engine;
}

describe('admission wait by queue: queuedSeconds across the JobSets of each queue', () => {
  const engine = fleet();
  const at = (how: Parameters<typeof fleetFigure>[6]): [string, number | null, number][] =>
    fleetFigure(engine.timelines(), min(200), min(0), min(200), 'queuedSeconds', 'queue', how).map((g) => [g.labels.queue!, g.value, g.count]);

  it('p50, p90, p99 (PromQL quantile: linear between closest ranks) and the JobSets counted, per queue', () => {
    // a: 10, 20, 40 min (a1's preemption is suspended time after its start, not queued);
    //    p50 = 20; p90: rank 0.9 × 2 = 1.8 → 20 + 0.8 × 20 = 36; p99: rank 1.98 → 20 + 0.98 × 20 = 39.6.
    // b: 5 and 100 (b2 still waits at 200: its wait so far); p50 = 52.5, p90 = 5 + 0.9 × 95 = 90.5, p99 = 5 + 0.99 × 95 = 99.05.
    // "": the JobSet no queue manages, never queued.
    expect(at('p50')).toEqual([['', 0, 1], ['a', 20 * 60, 3], ['b', 52.5 * 60, 2]]);
    expect(at('p90').map(([q, v]) => [q, v])).toEqual([['', 0], ['a', 36 * 60], ['b', 90.5 * 60]]);
    const p99 = at('p99');
    expect(p99[1]![1]).toBeCloseTo(39.6 * 60, 9);
    expect(p99[2]![1]).toBeCloseTo(99.05 * 60, 9);
    expect(at('max').map(([q, v]) => [q, v])).toEqual([['', 0], ['a', 40 * 60], ['b', 100 * 60]]);
  });

  it('a window counts the wait inside it: [30, 200] clips a3’s 40 min to the 30 after 30', () => {
    const a = fleetFigure(engine.timelines(), min(200), min(30), min(200), 'queuedSeconds', 'queue', 'max').find((g) => g.labels.queue === 'a')!;
    expect(a.value).toBe(30 * 60);
  });
});
