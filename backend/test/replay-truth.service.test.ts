// The simulator knows the exact timelines it generated; replaying its trace must rebuild them
// transition by transition, through the same path a live watch uses, for many seeds and both profiles.

import { simulateFleet } from '../src/sources/simulator/index.ts';
import { summarize } from '../src/series/summary.ts';
import { DEFAULT_SIZE_BUCKETS, sizeBucketOf, sizeOf } from '../src/series/sizes.ts';
import { TimelineEngine } from '../src/timeline/engine.ts';
import { ClusterEngine } from '../src/nodes/engine.ts';
import { transitionsOf, type Cause, type Timeline, type Transition } from '../src/timeline/types.ts';
import { parseTraceLine } from '../src/sources/trace/parse.ts';
import { upness } from '../../test/support/cli.ts';

function byUid(timelines: readonly Timeline[]): Map<string, Timeline> {
  return new Map(timelines.map((t) => [t.uid, t]));
}

describe('replaying a simulated fleet rebuilds the simulator\'s truth exactly', () => {
  it.each([1, 2, 3, 4, 5, 6, 7, 8])('seed %i, realistic profile, 25 JobSets × 4 days', (seed) => {
    const fleet = simulateFleet({ jobsets: 25, days: 4, seed });
    const truth: Timeline[] = [];
    const engine = new TimelineEngine();
    // Through the trace text, as a file would carry it.
    for (const line of fleet.traceLines((t) => truth.push(t))) engine.observe(parseTraceLine(line, 0));
    const rebuilt = byUid(engine.timelines());
    expect(rebuilt.size).toBe(truth.length);
    // Suspensions carry why (the Suspended condition's reason and message), in the truth as rebuilt.
    expect(truth.some((t) => transitionsOf(t).some((tr) => tr.suspension?.reason === 'SuspendedJobs'))).toBe(true);
    for (const expected of truth) {
      const actual = rebuilt.get(expected.uid);
      expect(actual).toBeDefined();
      expect(transitionsOf(actual!)).toEqual(transitionsOf(expected));
      expect(actual!.createdAt).toBe(expected.createdAt);
      expect([actual!.namespace, actual!.name, actual!.accelerator, actual!.topology]).toEqual([
        expected.namespace,
        expected.name,
        expected.accelerator,
        expected.topology,
      ]);
      // Goodput inputs: the accelerators the simulator chose, read back from the pod templates; the
      // checkpoint interval it declared, read back from the annotation.
      expect([actual!.accelerators, actual!.checkpointIntervalMs]).toEqual([expected.accelerators, expected.checkpointIntervalMs]);
      // Job size (issue 20 §3): the pods the simulator chose, read back from replicas × parallelism.
      expect(actual!.pods).toBe(expected.pods);
    }
    // Every JobSet has its pods; the fleet spans several size buckets.
    expect(truth.every((t) => (t.pods ?? 0) > 0)).toBe(true);
    expect(new Set(truth.map((t) => sizeBucketOf(sizeOf(t), DEFAULT_SIZE_BUCKETS).label)).size).toBeGreaterThanOrEqual(2);
  });

  it.each([11, 12])('seed %i, demo profile (busy), 10 JobSets × 2 days', (seed) => {
    const fleet = simulateFleet({ jobsets: 10, days: 2, seed, profile: 'demo' });
    const engine = new TimelineEngine();
    for (const o of fleet.observations()) engine.observe(o);
    const rebuilt = byUid(engine.timelines());
    for (const expected of fleet.truth()) expect(transitionsOf(rebuilt.get(expected.uid)!)).toEqual(transitionsOf(expected));
  });

  it('`upness simulate | upness replay -` prints the figures of the truth', () => {
    const sim = upness(['simulate', '--jobsets', '12', '--days', '3', '--seed', '42']);
    expect(sim.status).toBe(0);
    const replay = upness(['replay', '-'], sim.stdout);
    expect(replay.stderr).toBe('');
    expect(replay.status).toBe(0);
    const lines = sim.stdout.trimEnd().split('\n');
    const horizon = parseTraceLine(lines[lines.length - 1]!, lines.length).receivedAt;
    const truth = simulateFleet({ jobsets: 12, days: 3, seed: 42 }).truth();
    const from = Math.min(...truth.map((t) => t.createdAt));
    expect(JSON.parse(replay.stdout).jobsets).toEqual(JSON.parse(JSON.stringify(summarize(truth, horizon, from, horizon))));
  });
});

/** A JobSet-layer transition with only the causes a node gave it (the truth names those alone). */
function nodeCausesOnly(t: Transition): Transition {
  const { causes, ...rest } = t;
  const byNodes = (causes ?? []).filter((c) => c.kind === 'NodeNotReady' || c.kind === 'NodeDeleted');
  return byNodes.length > 0 ? { ...rest, causes: byNodes } : rest;
}

describe('replaying a simulated fleet with its nodes rebuilds both layers, the node pools and the node causes exactly', () => {
  /** Replays the fleet into a ClusterEngine and checks every UID's JobSet layer and node layer, and every node pool, against the truth. */
  function check(fleet: ReturnType<typeof simulateFleet>, through: 'trace' | 'objects'): { truth: Timeline[]; nodes: Timeline[]; pools: Timeline[] } {
    const truth: Timeline[] = [];
    const nodes: Timeline[] = [];
    const pools: Timeline[] = [];
    const engine = new ClusterEngine();
    const collect = (t: Timeline, n: Timeline | null, p: readonly Timeline[]): void => {
      truth.push(t);
      nodes.push(n!);
      pools.push(...p);
    };
    if (through === 'trace') for (const line of fleet.traceLines(collect)) engine.observe(parseTraceLine(line, 0));
    else for (const o of fleet.observations(collect)) engine.observe(o);
    const jobsets = byUid(engine.timelines());
    const nodeLayers = byUid(engine.nodeTimelines());
    expect(jobsets.size).toBe(truth.length);
    expect(nodeLayers.size).toBe(nodes.length);
    for (const expected of truth) expect(transitionsOf(jobsets.get(expected.uid)!).map(nodeCausesOnly)).toEqual(transitionsOf(expected));
    for (const expected of nodes) expect(transitionsOf(nodeLayers.get(expected.uid)!)).toEqual(transitionsOf(expected));
    // Node pools: identity, labels, the JobSets that ran on them, transitions and their node causes.
    const poolTimelines = byUid(engine.poolTimelines());
    expect(poolTimelines.size).toBe(pools.length);
    for (const expected of pools) expect(poolTimelines.get(expected.uid)).toEqual(expected);
    return { truth, nodes, pools };
  }

  it.each([1, 2, 3, 4])('seed %i, realistic profile, 25 JobSets × 4 days', (seed) => {
    const { truth, nodes, pools } = check(simulateFleet({ jobsets: 25, days: 4, seed, nodes: true }), 'trace');
    // Pools: most end as planned (a scale-down), none goes down without its node, and planned changes cost nothing.
    const poolStates = pools.flatMap((t) => transitionsOf(t));
    expect(poolStates.filter((tr) => tr.state === 'completed').length).toBeGreaterThan(pools.length / 2);
    for (const tr of poolStates) if (tr.state === 'down') expect(tr.causes).toHaveLength(1);
    expect(new Set(poolStates.flatMap((tr) => tr.causes ?? []).map((c) => c.kind))).toEqual(new Set(['NodeNotReady', 'NodeDeleted']));
    const causes = (timelines: Timeline[]): Cause[] => timelines.flatMap((t) => transitionsOf(t).flatMap((tr) => tr.causes ?? []));
    // Nodes break both ways, and each breakage is the cause of an interruption of both layers.
    const kinds = new Set(causes(nodes).map((c) => c.kind));
    expect(kinds).toEqual(new Set(['NodeNotReady', 'NodeDeleted']));
    expect(causes(truth)).toEqual(expect.arrayContaining(causes(nodes)));
    // The node layer goes down only when a node breaks: every interruption of it carries its node.
    for (const t of nodes) for (const tr of transitionsOf(t)) if (tr.state === 'down') expect(tr.causes).toHaveLength(1);
    // ... and most JobSet interruptions are not the nodes' doing.
    const jobsetDowns = truth.flatMap((t) => transitionsOf(t).filter((tr) => tr.state === 'down'));
    expect(jobsetDowns.filter((tr) => tr.causes !== undefined).length).toBeLessThan(jobsetDowns.length / 2);
  });

  it.each([11, 12])('seed %i, demo profile (busy), 10 JobSets × 2 days', (seed) => {
    check(simulateFleet({ jobsets: 10, days: 2, seed, profile: 'demo', nodes: true }), 'objects');
  });

  it('`upness simulate --nodes` writes the same stream, Pods and Nodes included', () => {
    const sim = upness(['simulate', '--jobsets', '3', '--days', '0.5', '--seed', '42', '--nodes']);
    expect(sim.status).toBe(0);
    expect(sim.stdout).toBe([...simulateFleet({ jobsets: 3, days: 0.5, seed: 42, nodes: true }).traceLines()].join('\n') + '\n');
    expect(sim.stdout).toContain('"kind":"Node"');
    expect(sim.stdout).toContain('"kind":"Pod"');
  });
});

describe('replaying a simulated fleet with its Kueue Workloads gives each preemption the Workload\'s reason, as the truth has it', () => {
  /** The transitions without their suspension reasons. */
  const bare = (tl: Timeline): Transition[] => transitionsOf(tl).map(({ suspension: _s, ...t }) => t);

  it.each([1, 2, 3])('seed %i, realistic profile, 25 JobSets × 4 days, through the trace', (seed) => {
    const fleet = simulateFleet({ jobsets: 25, days: 4, seed, workloads: true });
    const truth: Timeline[] = [];
    const facts: unknown[] = [];
    const engine = new TimelineEngine({ onFact: (f) => facts.push(f) });
    for (const line of fleet.traceLines((t) => truth.push(t))) engine.observe(parseTraceLine(line, 0));
    const rebuilt = byUid(engine.timelines());
    expect(rebuilt.size).toBe(truth.length);
    for (const expected of truth) expect(transitionsOf(rebuilt.get(expected.uid)!)).toEqual(transitionsOf(expected));
    // Every preemption's reason is the Workload's (Kueue's message), written as a fact; queued periods keep the controller's.
    const reasons = truth.flatMap((t) => transitionsOf(t).flatMap((tr) => (tr.suspension === undefined ? [] : [tr.suspension.reason])));
    const preempted = reasons.filter((r) => r === 'Preempted').length;
    expect(preempted).toBeGreaterThan(0);
    expect(reasons).toContain('SuspendedJobs');
    expect(facts).toHaveLength(preempted);
    expect(truth.flatMap((t) => transitionsOf(t)).filter((tr) => tr.suspension?.reason === 'Preempted').every((tr) => /^Preempted to accommodate a workload \(UID: [-0-9a-f]+, JobUID: [-0-9a-f]+\) due to /.test(tr.suspension!.message!))).toBe(true);
    // The JobSets live the same lives as without Workloads: only the reasons differ.
    const plain = byUid(simulateFleet({ jobsets: 25, days: 4, seed }).truth());
    for (const t of truth) expect(bare(t)).toEqual(bare(plain.get(t.uid)!));
  });

  it('with nodes too (the simulated cluster of `npm start`): both layers as the truth has them', () => {
    const fleet = simulateFleet({ jobsets: 10, days: 2, seed: 11, profile: 'demo', nodes: true, workloads: true });
    const truth: Timeline[] = [];
    const engine = new ClusterEngine();
    for (const o of fleet.observations((t) => truth.push(t))) engine.observe(o);
    const rebuilt = byUid(engine.timelines());
    for (const expected of truth) expect(transitionsOf(rebuilt.get(expected.uid)!).map(nodeCausesOnly)).toEqual(transitionsOf(expected));
    expect(truth.some((t) => transitionsOf(t).some((tr) => tr.suspension?.reason === 'Preempted'))).toBe(true);
  });
});
