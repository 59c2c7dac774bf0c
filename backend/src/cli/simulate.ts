// `upness simulate`: a realistic trace of a JobSet fleet, deterministic for a seed.

import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import type { Writable } from 'node:stream';
import { simulateFleet, type ProfileName } from '../sources/simulator/index.ts';
import { parseTime } from './options.ts';

export interface SimulateOptions {
  jobsets: number;
  days: number;
  seed: number;
  start?: string;
  profile: ProfileName;
  nodes?: boolean;
  workloads?: boolean;
  out?: string;
}

export async function simulateCommand(options: SimulateOptions): Promise<void> {
  const fleet = simulateFleet({
    jobsets: options.jobsets,
    days: options.days,
    seed: options.seed,
    ...(options.start === undefined ? {} : { start: parseTime(options.start, '--start') }),
    profile: options.profile,
    nodes: options.nodes === true,
    workloads: options.workloads === true,
  });
  const out: Writable = options.out === undefined || options.out === '-' ? process.stdout : createWriteStream(options.out);
  const started = Date.now();
  let lastReport = started;
  let lines = 0;
  let buffer = '';
  for (const line of fleet.traceLines()) {
    buffer += line + '\n';
    lines++;
    if (buffer.length < 1 << 20) continue;
    if (!out.write(buffer)) await once(out, 'drain');
    buffer = '';
    if (Date.now() - lastReport > 2000) {
      lastReport = Date.now();
      process.stderr.write(`simulated ${lines} observations (${Math.round(lines / ((lastReport - started) / 1000))}/s)\n`);
    }
  }
  out.write(buffer);
  if (out !== process.stdout) {
    out.end();
    await once(out, 'finish');
    process.stderr.write(`wrote ${lines} observations to ${options.out}\n`);
  }
}
