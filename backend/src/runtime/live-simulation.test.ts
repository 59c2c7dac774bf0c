// The simulated cluster of `npm start` with its Pods and Nodes: the node layer after a restart. The
// store keeps the node layer's transitions, not where the pods ran: resuming must relist every Pod
// and Node that exists (as a watch's relist would), or every running JobSet's node layer would
// turn unknown and then down for no reason.

import { ClusterEngine } from '../nodes/engine.ts';
import { lastState, transitionsOf, type State, type Timeline } from '../timeline/types.ts';
import { machineAsRead } from '../timeline/machine.ts';
import { LiveSimulation } from './live-simulation.ts';

const HOUR = 3_600_000;
const WALL = Date.UTC(2026, 2, 1);
const settings = { jobsets: 6, historyDays: 1, seed: 3, profile: 'demo' as const, nodes: true };

const stateAt = (timeline: Timeline | undefined): State | null => (timeline === undefined ? null : lastState(timeline));

describe('LiveSimulation with nodes', () => {
  it('serves the node layer, and after a restart resumes it where nothing changed', () => {
    let wall = WALL;
    const first = new ClusterEngine();
    const before = new LiveSimulation(first, { ...settings, now: () => wall });
    before.advance();
    const observedUntil = before.advancedTo!;
    const up = first.nodeTimelines().filter((t) => stateAt(t) === 'up');
    expect(up.length).toBeGreaterThan(0);

    // Restarted a minute later, from what a store keeps: the machines and the node layer's transitions.
    wall += 60_000;
    const second = new ClusterEngine();
    second.restore(structuredClone([...first.machines()].map(machineAsRead)), observedUntil);
    second.restoreNodeLayer(structuredClone([...first.nodeTimelines()]), observedUntil, structuredClone([...first.poolTimelines()]));
    const after = new LiveSimulation(second, { ...settings, now: () => wall, anchor: before.anchor });
    after.resume(observedUntil);

    // The same fleet watched without a break, to the same moment.
    const watched = new ClusterEngine();
    new LiveSimulation(watched, { ...settings, now: () => wall, anchor: before.anchor }).advance();
    let kept = 0;
    for (const t of up) {
      if (stateAt(watched.nodeLayer.timeline(t.uid)) !== 'up') continue;
      // Up before the gap and up after it: it held, with no unknown stretch in between.
      const resumed = second.nodeLayer.timeline(t.uid)!;
      expect(transitionsOf(resumed)).toEqual(transitionsOf(t));
      kept++;
    }
    expect(kept).toBeGreaterThan(0);
    expect(second.nodeLayer.gapStart).toBeNull();

    // The node pools too: the nodes listed again are the open pools' members, so a pool up before
    // the gap and up after it held, with no unknown stretch.
    const upPools = first.poolTimelines().filter((t) => stateAt(t) === 'up');
    expect(upPools.length).toBeGreaterThan(0);
    let pools = 0;
    for (const t of upPools) {
      if (stateAt(watched.poolLayer.timeline(t.uid)) !== 'up') continue;
      expect(transitionsOf(second.poolLayer.timeline(t.uid)!)).toEqual(transitionsOf(t));
      pools++;
    }
    expect(pools).toBeGreaterThan(0);
    expect(second.poolLayer.gapStart).toBeNull();
  });

  it('feeds Pods and Nodes only when asked to', () => {
    const engine = new ClusterEngine();
    new LiveSimulation(engine, { ...settings, nodes: false, now: () => WALL + HOUR }).advance();
    expect(engine.timelines().length).toBeGreaterThan(0);
    // Without Pods and Nodes no JobSet ever has its nodes: none is up in the node layer.
    expect(engine.nodeTimelines().some((t) => stateAt(t) === 'up')).toBe(false);
  });
});
