// `upness demo`: the quick start until the service exists: a simulated fleet, replayed through the
// same observation path as a live watch, and its figures as a table.

import { simulateFleet } from '../sources/simulator/index.ts';
import { earliestCreation, summarize } from '../series/summary.ts';
import { TimelineEngine } from '../timeline/engine.ts';
import { formatTable } from './table.ts';

export async function demoCommand(options: { jobsets: number; days: number; seed: number }): Promise<string> {
  const fleet = simulateFleet({
    jobsets: options.jobsets,
    days: options.days,
    seed: options.seed,
  });
  const engine = new TimelineEngine();
  for (const observation of fleet.observations()) engine.observe(observation);
  const timelines = engine.timelines();
  const horizon = engine.horizon ?? fleet.start;
  const rows = summarize(timelines, horizon, earliestCreation(timelines) ?? horizon, horizon);
  const c = engine.counts;
  return `${c.observations} observations of ${c.jobsets} JobSets over ${options.days} days (seed ${options.seed}):\n\n${formatTable(rows)}`;
}
