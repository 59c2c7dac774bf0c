// The histories the store contract (./contract.ts) writes, each with the truth to compare with: an
// engine fed the same observations. Shared with ./crash-writer.ts, which writes one in a process of its
// own so that the test can kill it.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ClusterEngine } from '../../../backend/src/nodes/engine.ts';
import type { Observation } from '../../../backend/src/observation/types.ts';
import { simulateFleet } from '../../../backend/src/sources/simulator/index.ts';
import { parseTraceLine } from '../../../backend/src/sources/trace/parse.ts';
import { TimelineEngine } from '../../../backend/src/timeline/engine.ts';
import type { MachineState } from '../../../backend/src/timeline/machine.ts';
import { timelineFields, transitionsOf, type Timeline } from '../../../backend/src/timeline/types.ts';
import { min, Scenario, T0 } from '../scenario.ts';
import type { TimelineStore } from '../../../backend/src/store/store.ts';

/**
 * A simulated fleet through `engine`, whose updates go to `store`. With `gap`, the watch breaks for
 * that long a third of the way in (the observations in it are missed), so that the first ones after it
 * prove events nobody saw (unobserved interruptions and recoveries).
 */
export function feedFleet(engine: TimelineEngine, store: Pick<TimelineStore, 'observed'> | null, options: { jobsets?: number; days?: number; seed?: number; gap?: number; start?: number } = {}): void {
  const fleet = simulateFleet({ jobsets: options.jobsets ?? 12, days: options.days ?? 2, seed: options.seed ?? 1, ...(options.start === undefined ? {} : { start: options.start }) });
  const gapFrom = options.gap === undefined ? Infinity : fleet.start + (fleet.end - fleet.start) / 3;
  const gapTo = gapFrom + (options.gap ?? 0);
  let n = 0;
  for (const o of fleet.observations()) {
    if (o.receivedAt >= gapFrom && engine.gapStart === null && o.receivedAt < gapTo) engine.beginGap(gapFrom);
    if (engine.gapStart !== null && o.receivedAt < gapTo) continue;
    engine.observe(o);
    if (engine.gapStart !== null && o.receivedAt > gapTo + 3_600_000) engine.endGap(o.receivedAt);
    if (++n % 100 === 0) store?.observed(engine.horizon);
  }
  store?.observed(engine.horizon);
}

/** The fleet the crash scenario writes (in another process for the embedded store): 8 JobSets, a day, a 6-hour gap. */
export function crashFleet(store: TimelineStore | null): TimelineEngine {
  const engine = new TimelineEngine(store === null ? {} : { onUpdate: (u, m) => store.record(u, m) });
  feedFleet(engine, store, { jobsets: 8, days: 1, seed: 5, gap: 6 * 3_600_000 });
  return engine;
}

// The cluster trace of ../fixtures/README.md: the JobSet ml/train on nodes n1 and n2.
//   minute     0      3        10 10.5          20 21       30   32          45 45.25
//   nodes      prov---up-------down-------------up-----------------------------down
//   jobset     prov---up-----------down------------up--------down-up----------down
//                              ^ n2 NotReady                 ^ restart       ^ n1 NotReady, received after the down was written
export const clusterTrace = (): Observation[] =>
  readFileSync(join(import.meta.dirname, '..', '..', '..', 'backend', 'src', 'store', 'fixtures', 'cluster.jsonl'), 'utf8')
    .trimEnd()
    .split('\n')
    .map((line, i) => parseTraceLine(line, i + 1));
export const JOBSET = ['0:provisioning', '3:up', '10.5:down(NodeNotReady@10)', '21:up', '30:down(JobSetRestart@30)', '32:up', '45:down(NodeNotReady@45)'];
export const NODES = ['0:provisioning', '2:up', '10:down(NodeNotReady@10)', '20:up', '45:down(NodeNotReady@45)'];
/** Where the trace's late cause arrives: the observation of n1 NotReady received at 45.25. */
export const lateCause = (observations: Observation[]): number => observations.findIndex((o) => o.object.kind === 'Node' && o.receivedAt === min(45.25));

/** A cluster's engine whose updates and facts go to the store. */
export const clusterEngine = (store: TimelineStore): ClusterEngine => new ClusterEngine({ onUpdate: (u, m) => store.record(u, m), onFact: (f) => store.fact(f) });

/** A timeline drawn: minute:state(causes). */
export const drawn = (tl: Timeline | undefined): string[] =>
  (tl === undefined ? [] : transitionsOf(tl)).map((t) => `${(t.at - T0) / 60_000}:${t.state}${t.causes ? `(${t.causes.map((c) => `${c.kind}@${(c.at - T0) / 60_000}`).join(',')})` : ''}`);

//   0 ─suspended (SuspendedJobs: queued; spec.suspend seen first, the condition at 1)─ 10 ─prov─ 15 ─up─
//   40 ─suspended (Preempted)─ 55 ─prov─ 60 ─up─ 70 ─suspended (spec.suspend first; QueueFull seen at 71)─ 75
export const suspensions = (): { first: Observation[]; more: Observation[] } => ({
  first: new Scenario({ uid: 'a' }, min(0), { suspend: true })
    .created()
    .at(min(1), { suspended: { status: 'True', at: min(0), reason: 'SuspendedJobs', message: 'jobset is suspended' } })
    .at(min(10), { suspend: false, suspended: { status: 'False', at: min(10), reason: 'ResumeJobs' } })
    .up(min(15)).observations,
  more: new Scenario({ uid: 'a' }, min(0))
    .at(min(40), { suspend: true, suspended: { status: 'True', at: min(40), reason: 'Preempted', message: 'Preempted to accommodate a higher priority Workload' }, ready: 0 })
    .at(min(55), { suspend: false, suspended: { status: 'False', at: min(55), reason: 'ResumeJobs' } })
    .up(min(60))
    .at(min(70), { suspend: true, ready: 0 })
    .at(min(71), { suspended: { status: 'True', at: min(70), reason: 'QueueFull' } })
    .at(min(75)).observations,
});
export const WHY = [
  { reason: 'SuspendedJobs', message: 'jobset is suspended' },
  null,
  null,
  { reason: 'Preempted', message: 'Preempted to accommodate a higher priority Workload' },
  null,
  null,
  { reason: 'QueueFull', message: null },
];
export const why = (tl: Timeline | undefined): unknown[] => (tl === undefined ? [] : transitionsOf(tl)).map((t) => t.suspension ?? null);

/** Timelines as plain data, sorted, without a follower's cluster field. */
export function plainTimelines(timelines: Iterable<Timeline>): unknown[] {
  return [...timelines]
    .map((tl) => {
      // Every field (the engine's own timeline reads its shared ones through accessors, which a spread leaves out).
      const { cluster: _c, ...rest } = timelineFields(tl) as Timeline & { cluster?: string };
      // Its transitions as they read, whatever form it is held in (a closed one in memory is packed, one read back not yet).
      return JSON.parse(JSON.stringify({ ...rest, transitions: transitionsOf(tl) }));
    })
    .sort((a, b) => (a.uid < b.uid ? -1 : 1));
}

/** Machines as plain data, sorted. The resourceVersion is left out: a store writes it only along with other changes. */
export function plainMachines(machines: Iterable<MachineState>): unknown[] {
  return [...machines]
    .map(({ resourceVersion: _rv, ...m }) => {
      const { cluster: _c, ...timeline } = timelineFields(m.timeline) as Timeline & { cluster?: string };
      return JSON.parse(JSON.stringify({ ...m, timeline: { ...timeline, transitions: transitionsOf(m.timeline) } }));
    })
    .sort((a, b) => (a.timeline.uid < b.timeline.uid ? -1 : 1));
}
