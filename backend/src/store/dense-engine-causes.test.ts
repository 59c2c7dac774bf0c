// The snapshot reader's fast paths (./dense.ts #sideTable) read a closed run's causes from their
// bytes only when they are written as the engine writes them (nodes/objects.ts jobsetCauses): the
// literals there must follow that shape. Here a simulated fleet goes through the real engine and
// writer, and every closed run (one cause a transition or several) must be read without JSON.parse; a change of the engine's shape that the literals miss would send them all to JSON
// (still exact, but a restart of a large fleet slower): this test says so instead.

import { ClusterEngine } from '../nodes/engine.ts';
import { simulateFleet } from '../sources/simulator/index.ts';
import { isClosed, machineAsRead, machineOf, type MachineState } from '../timeline/machine.ts';
import { transitionsOf, type Timeline } from '../timeline/types.ts';
import { DenseReader, DenseWriter } from './dense.ts';

describe("the snapshot reader's fast paths and the engine's causes", () => {
  it("reads every closed run whose transitions carry engine-made causes from its bytes, without JSON.parse", () => {
    const engine = new ClusterEngine();
    for (const o of simulateFleet({ jobsets: 30, days: 6, seed: 11, profile: 'realistic' }).observations()) engine.observe(o);
    const writer = new DenseWriter();
    const reader = new DenseReader();
    const parse = jest.spyOn(JSON, 'parse');
    const seen = new Map<string, number>();
    let fast = 0;
    let several = 0;
    try {
      for (const m of engine.machines()) {
        const line = Buffer.from(JSON.stringify(writer.encode(m)));
        parse.mockClear();
        const read = reader.read(line, 0, line.length);
        const parsed = parse.mock.calls.length;
        // An element the scan does not take (a label set written in full) is parsed whole: as the store does.
        const kept = read ?? reader.decode(JSON.parse(line.toString('utf8')));
        expect(machineAsRead(machineOf(kept)).timeline.transitions).toEqual(transitionsOf(machineOf(m as MachineState | Timeline).timeline));
        if (!isClosed(m) || read === null) continue;
        const transitions = transitionsOf(machineOf(m).timeline);
        for (const t of transitions) for (const c of t.causes ?? []) seen.set(`${c.kind}(${Object.keys(c).join(',')})`, (seen.get(`${c.kind}(${Object.keys(c).join(',')})`) ?? 0) + 1);
        // Several causes on one transition (two restarts between two observations) too.
        if (transitions.some((t) => (t.causes?.length ?? 0) > 1)) several++;
        expect({ uid: m.timeline.uid, parsed }).toEqual({ uid: m.timeline.uid, parsed: 0 });
        fast++;
      }
    } finally {
      parse.mockRestore();
    }
    // The fleet held what the fast paths are for: restarts and failures as the engine makes them.
    expect([...seen.keys()].sort()).toEqual(['JobSetFailed(kind,at,reason,message)', 'JobSetRestart(kind,at,restarts,reason)']);
    expect(seen.get('JobSetFailed(kind,at,reason,message)')).toBeGreaterThan(10);
    expect(fast).toBeGreaterThan(300);
    expect(several).toBeGreaterThan(0);
  });
});
