// A start from what a sink kept (a data dir's recovery): the engine holds the restored runs, and the
// sink's recovery lets go of their machines (a closed run's the engine keeps as its timeline alone,
// timeline/machine.ts settledMachine: kept by the recovery too, every one would stay).

import { pino } from 'pino';
import { merge, min, Scenario } from '../../../test/support/scenario.ts';
import { TimelineEngine } from '../timeline/engine.ts';
import { traceFeed } from './feeds.ts';
import { memorySink } from './sinks.ts';

//   a: 0 ─prov─ 10 ─up─ 20 ─down─ 25 ─up─ 40 completed
//   b: 0 ─prov─ 10 ─up─ (open)
test("a restored engine holds the sink's runs, and the sink's recovery no longer holds their machines", async () => {
  const a = new Scenario({ uid: 'a' }, min(0)).created().up(min(10)).down(min(20), { restarts: 1 }).up(min(25)).at(min(40), { completedAt: min(40), ready: 0, succeeded: 2 });
  const b = new Scenario({ uid: 'b' }, min(0)).created().up(min(10));
  const before = new TimelineEngine();
  for (const o of merge(a, b)) before.observe(o);
  const memory = (engine: TimelineEngine): unknown[] => [...engine.machines()].map((m) => [m.timeline.uid, m.restarts, m.everUp, m.deletedAt]);
  const recovery = { machines: [...before.machines()].map((m) => ({ ...m })), observedUntil: min(40), nodeLayers: [], derivedNodeLayers: [], pools: [] };
  const running = await traceFeed('-').open({ sink: { ...memorySink(), recovery }, logger: pino({ level: 'silent' }) });
  try {
    expect(recovery.machines).toEqual([]);
    expect(memory(running.view.engine)).toEqual(memory(before));
    expect(running.view.engine.machinesKept).toBe(1);
  } finally {
    await running.stop();
  }
});
