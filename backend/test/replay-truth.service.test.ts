// The simulator knows the exact timelines it generated; replaying its trace must rebuild them
// transition by transition, through the same path a live watch uses, for many seeds and both profiles.

import { simulateFleet } from '../src/sources/simulator/index.ts';
import { summarize } from '../src/series/summary.ts';
import { TimelineEngine } from '../src/timeline/engine.ts';
import type { Timeline } from '../src/timeline/types.ts';
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
    expect(truth.some((t) => t.transitions.some((tr) => tr.suspension?.reason === 'SuspendedJobs'))).toBe(true);
    for (const expected of truth) {
      const actual = rebuilt.get(expected.uid);
      expect(actual).toBeDefined();
      expect(actual!.transitions).toEqual(expected.transitions);
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
    }
  });

  it.each([11, 12])('seed %i, demo profile (busy), 10 JobSets × 2 days', (seed) => {
    const fleet = simulateFleet({ jobsets: 10, days: 2, seed, profile: 'demo' });
    const engine = new TimelineEngine();
    for (const o of fleet.observations()) engine.observe(o);
    const rebuilt = byUid(engine.timelines());
    for (const expected of fleet.truth()) expect(rebuilt.get(expected.uid)!.transitions).toEqual(expected.transitions);
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
