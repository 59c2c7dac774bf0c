// The restart part of `npm run bench:store`, run in a child process of its own for each step, so
// that a measured start begins with an empty heap as a restarted service does:
//   build    simulates the realistic fleet (`--jobsets N --days D --seed S`, JobSets alone, as
//            `npm run bench` does) into the engine a trace feeds, and writes its data dir as a
//            service stopping writes it (a snapshot); then `fleet.json` beside, with its size and the
//            fleet summary as the simulated service answered it
//   refresh  starts from the data dir and stops, so the snapshot is in the form this code writes
//   measure  starts from it as `upness serve --data-dir` does, to the first fleet query answered,
//            and prints each part's time as JSON; the peer: reading the data dir's bytes alone.
//            `--rebuild`: the fleet index kept with the snapshot is ignored and built again (the start before it was kept)
// Usage: node backend/bench/restart.ts build|refresh|measure --dir DIR [--jobsets N --days D --seed S]

import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ClusterEngine } from '../src/nodes/engine.ts';
import { pino } from 'pino';
import { EngineView, keptIndex } from '../src/runtime/served-view.ts';
import type { FleetIndex } from '../src/series/fleet-index.ts';
import { simulateFleet } from '../src/sources/simulator/index.ts';
import { EmbeddedStore } from '../src/store/embedded.ts';
import { transitionCount } from '../src/timeline/types.ts';
import { benchArgs } from './args.ts';

const { positionals, values: args } = benchArgs(import.meta.filename, {
  allowPositionals: true,
  options: { dir: { type: 'string' }, jobsets: { type: 'string' }, days: { type: 'string' }, seed: { type: 'string' }, rebuild: { type: 'boolean', default: false } },
});
/** Warnings (a kept index refused) go to stderr, as the service logs them. */
const logger = pino({ level: 'warn' }, pino.destination(2));
const dir = args.dir!;
const step = positionals[0];

/** What a fleet summary panel asks first: the pooled sums of every namespace over the whole range. */
function fleetSummary(index: FleetIndex, horizon: number, from: number): number[] {
  return [...index.window(index.partitions(), horizon, from, horizon).totals];
}

export interface FleetFile {
  jobsets: number;
  days: number;
  seed: number;
  observations: number;
  runs: number;
  transitions: number;
  horizon: number;
  start: number;
  /** The fleet summary's totals as the service that wrote the data dir answered them. */
  summary: number[];
}

/** Milliseconds of one part of a start: on the clock, and of the CPU (this process's, all threads: on a loaded machine the steadier of the two). */
export interface Part {
  ms: number;
  cpuMs: number;
}

export interface Measured {
  /** Reading the data dir's files as bytes, nothing else: the peer. */
  readBytes: Part;
  bytes: number;
  /** EmbeddedStore.open: the snapshot and the log after it, read and decoded. */
  open: Part;
  /** The engine restored from them (both layers), its timelines listed. */
  engine: Part;
  /** The served view over it: the fleet index taken from the snapshot, or filled, sorted and summed (EngineView.prepare). */
  index: Part;
  /** Whether the fleet index was taken from the snapshot (false: built from the timelines). */
  kept: boolean;
  /** The first fleet query. */
  query: Part;
  total: Part;
  runs: number;
  transitions: number;
  rssMiB: number;
  /** After a full collection once ready (what the start holds, not what it has not yet collected): RSS, and the heap and array buffers in it. */
  collected: { rssMiB: number; heapMiB: number; arrayBuffersMiB: number };
  /** The first query's answer equals the one the simulated service gave. */
  same: boolean;
}

/** Memory after a full collection (the child runs with --expose-gc). */
function collected(): Measured['collected'] {
  (globalThis as { gc?: () => void }).gc?.();
  const { rss, heapUsed, arrayBuffers } = process.memoryUsage();
  return { rssMiB: rss / 2 ** 20, heapMiB: heapUsed / 2 ** 20, arrayBuffersMiB: arrayBuffers / 2 ** 20 };
}

const cpuNow = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
/** Starts timing a part; the returned function ends it. */
function timing(): () => Part {
  const ms = performance.now();
  const cpu = cpuNow();
  return () => ({ ms: performance.now() - ms, cpuMs: cpuNow() - cpu });
}

if (step === 'build') {
  const jobsets = Number(args.jobsets);
  const days = Number(args.days);
  const seed = Number(args.seed);
  const fleet = simulateFleet({ jobsets, days, seed, profile: 'realistic' });
  const engine = new ClusterEngine();
  let observations = 0;
  for (const o of fleet.observations()) {
    engine.observe(o);
    if (++observations % 1_000_000 === 0) process.stderr.write(`  built ${observations.toLocaleString('en-US')} observations\n`);
  }
  const view = new EngineView('trace', engine, false);
  view.prepare();
  const horizon = engine.horizon!;
  const { store } = await EmbeddedStore.open(dir);
  await store.snapshot(engine.machines(), horizon, engine.nodeTimelines(), engine.poolTimelines());
  await store.close();
  const timelines = engine.timelines();
  const file: FleetFile = {
    jobsets,
    days,
    seed,
    observations,
    runs: timelines.length,
    transitions: timelines.reduce((a, t) => a + transitionCount(t), 0),
    horizon,
    start: fleet.start,
    summary: fleetSummary(view.index(), horizon, fleet.start),
  };
  writeFileSync(join(dir, 'fleet.json'), JSON.stringify(file));
} else if (step === 'refresh') {
  const { store, recovery } = await EmbeddedStore.open(dir);
  const engine = new ClusterEngine();
  engine.restore(recovery.byUid ?? recovery.machines, recovery.observedUntil);
  delete recovery.byUid;
  engine.restoreNodeLayer(recovery.nodeLayers, recovery.observedUntil, recovery.pools ?? [], recovery.derivedNodeLayers);
  // As the service does (runtime/feeds.ts): the node layer has them now.
  delete recovery.derivedNodeLayers;
  // A stop writes the served view's fleet index beside (runtime/session.ts).
  const view = new EngineView('trace', engine, false, keptIndex(recovery, logger));
  view.prepare();
  await store.snapshot(engine.machines(), recovery.observedUntil, engine.nodeTimelines(), engine.poolTimelines(), [], (placeOf) => view.index().image(placeOf));
  await store.close();
} else if (step === 'measure') {
  const fleet = JSON.parse(readFileSync(join(dir, 'fleet.json'), 'utf8')) as FleetFile;
  let part = timing();
  let bytes = 0;
  for (const f of readdirSync(dir)) if (statSync(join(dir, f)).isFile()) bytes += readFileSync(join(dir, f)).length;
  const readBytes = part();

  // What a start does before it answers: cli/serve.ts → runtime/sinks.ts embeddedSink (open) →
  // runtime/feeds.ts (a ClusterEngine restored from the recovery, the served view over it) →
  // runtime/session.ts start (EngineView.prepare), then the first query.
  const whole = timing();
  part = timing();
  const { store, recovery } = await EmbeddedStore.open(dir);
  if (args.rebuild) delete recovery.fleetIndex;
  const open = part();
  part = timing();
  const engine = new ClusterEngine();
  engine.restore(recovery.byUid ?? recovery.machines, recovery.observedUntil);
  delete recovery.byUid;
  engine.restoreNodeLayer(recovery.nodeLayers, recovery.observedUntil, recovery.pools ?? [], recovery.derivedNodeLayers);
  // As the service does (runtime/feeds.ts): the node layer has them now.
  delete recovery.derivedNodeLayers;
  const timelines = engine.timelines();
  const engineMs = part();
  part = timing();
  const kept = keptIndex(recovery, logger);
  const view = new EngineView('trace', engine, false, kept);
  // As the service's feeds do (runtime/feeds.ts restoredView): the engine holds the restored machines now.
  recovery.machines = [];
  view.prepare();
  const index = part();
  part = timing();
  const horizon = view.horizon(Date.now());
  const summary = fleetSummary(view.index(), horizon, fleet.start);
  const query = part();
  const total = whole();
  const measured: Measured = {
    readBytes,
    bytes,
    open,
    engine: engineMs,
    index,
    kept: kept !== null,
    query,
    total,
    runs: timelines.length,
    transitions: timelines.reduce((a, tl) => a + transitionCount(tl), 0),
    rssMiB: process.memoryUsage().rss / 2 ** 20,
    collected: collected(),
    same: horizon === fleet.horizon && JSON.stringify(summary) === JSON.stringify(fleet.summary),
  };
  await store.close();
  process.stdout.write(`${JSON.stringify(measured)}\n`);
} else {
  process.stderr.write('usage: node backend/bench/restart.ts build|refresh|measure --dir DIR [--jobsets N --days D --seed S]\n');
  process.exit(2);
}
