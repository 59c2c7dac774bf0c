// `npm run bench:memory`: what a cluster source's engine (the JobSet layer and the node layer) holds in
// memory once a fleet with its pods and nodes has been observed.
//   The fleet: N JobSets (default 10,000, the big size of `npm run bench`), each with R replicated-job
//   replicas × P parallelism pods (default 2 × 2), one pod per node, on nodes of their own. Every
//   object is kube-shaped and of a realistic size (managedFields, containers with env, a node's
//   images, conditions, ...) and is parsed from JSON for each watch event, as the watcher does.
//   Each JobSet: its nodes join Ready, it is created, its pods are created, scheduled and become
//   Ready, it is up; every node reports status again; one JobSet in ten loses a pod to OOMKilled,
//   restarts (the pod is replaced on the same node) and is up again. At the end every JobSet, pod
//   and node is alive: the whole fleet is what a live watch would hold.
//   Measured: process.memoryUsage() after a full garbage collection, before the fleet and after it,
//   with the engine still reachable. Run with --expose-gc (the npm script does).
// Options: --jobsets N --replicas R --parallelism P, --smoke.

import { ClusterEngine } from '../src/nodes/engine.ts';
import type { KubeObject, Observation, ObservationType } from '../src/observation/types.ts';
import { fleetShapes, T0 } from './fleet-shapes.ts';
import { lastState } from '../src/timeline/types.ts';
import { benchArgs } from './args.ts';

const { values: args } = benchArgs(import.meta.filename, {
  options: {
    jobsets: { type: 'string', default: '10000' },
    replicas: { type: 'string', default: '2' },
    parallelism: { type: 'string', default: '2' },
    smoke: { type: 'boolean', default: false },
  },
});
const jobsets = args.smoke ? 50 : Number(args.jobsets);
const replicas = Number(args.replicas);
const parallelism = Number(args.parallelism);
const podsPer = replicas * parallelism;

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) {
  process.stderr.write('run with node --expose-gc (npm run bench:memory does)\n');
  process.exit(2);
}

const { nodeObject, podObject, jobsetObject } = fleetShapes({ replicas, parallelism });

interface Event {
  at: number;
  type: ObservationType;
  make: () => KubeObject;
}

/** The fleet's watch events, in time order; objects are made (as JSON, then parsed) only when fed. */
function fleet(): Event[] {
  const events: Event[] = [];
  for (let js = 0; js < jobsets; js++) {
    const t = T0 + js * 50;
    const nodes = Array.from({ length: podsPer }, (_, k) => `node-${js}-${String(k).padStart(2, '0')}`);
    for (const n of nodes) events.push({ at: t, type: 'ADDED', make: () => nodeObject(n, t, true) });
    events.push({ at: t + 1_000, type: 'ADDED', make: () => jobsetObject(js, t + 1_000, 0, 0) });
    for (let k = 0; k < podsPer; k++) {
      const job = Math.floor(k / parallelism);
      const completion = k % parallelism;
      const node = nodes[k]!;
      events.push({ at: t + 2_000, type: 'ADDED', make: () => podObject(js, 0, job, completion, 0, node, 'pending', t + 2_000) });
      events.push({ at: t + 3_000, type: 'MODIFIED', make: () => podObject(js, 0, job, completion, 0, node, 'scheduled', t + 3_000) });
      events.push({ at: t + 60_000, type: 'MODIFIED', make: () => podObject(js, 0, job, completion, 0, node, 'running', t + 60_000) });
    }
    events.push({ at: t + 61_000, type: 'MODIFIED', make: () => jobsetObject(js, t + 61_000, replicas, 0) });
    for (const n of nodes) events.push({ at: t + 300_000, type: 'MODIFIED', make: () => nodeObject(n, t + 300_000, true) });
    if (js % 10 === 0) {
      const node = nodes[0]!;
      const at = t + 600_000;
      events.push({ at, type: 'MODIFIED', make: () => podObject(js, 0, 0, 0, 0, node, 'oom', at) });
      events.push({ at: at + 1_000, type: 'MODIFIED', make: () => jobsetObject(js, at + 1_000, 0, 1) });
      events.push({ at: at + 2_000, type: 'DELETED', make: () => podObject(js, 0, 0, 0, 0, node, 'oom', at) });
      events.push({ at: at + 3_000, type: 'ADDED', make: () => podObject(js, 0, 0, 0, 1, node, 'scheduled', at + 3_000) });
      events.push({ at: at + 60_000, type: 'MODIFIED', make: () => podObject(js, 0, 0, 0, 1, node, 'running', at + 60_000) });
      events.push({ at: at + 61_000, type: 'MODIFIED', make: () => jobsetObject(js, at + 61_000, replicas, 1) });
    }
  }
  // Stable: a JobSet's events at one time keep their order.
  return events.sort((a, b) => a.at - b.at);
}

const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
function settled(): NodeJS.MemoryUsage {
  for (let i = 0; i < 3; i++) gc!();
  return process.memoryUsage();
}

const events = fleet();
const engine = new ClusterEngine();
const before = settled();
let bytes = 0;
const started = performance.now();
for (const e of events) {
  // Each watch event is its own JSON document: parsed objects share nothing, as from the watcher.
  const json = JSON.stringify(e.make());
  bytes += json.length;
  const observation: Observation = { receivedAt: e.at, type: e.type, object: JSON.parse(json) as KubeObject };
  engine.observe(observation);
}
const seconds = (performance.now() - started) / 1000;
const after = settled();

const counts = engine.counts;
const up = engine.nodeLayer.timelines().filter((tl) => lastState(tl) === 'up').length;
const log = (line: string): void => void process.stdout.write(`${line}\n`);
log(`Upness memory benchmark — Node ${process.version}`);
log(`fleet: ${jobsets.toLocaleString('en-US')} JobSets × ${replicas} replicas × ${parallelism} parallelism: ${counts.pods.toLocaleString('en-US')} pods and ${counts.nodes.toLocaleString('en-US')} nodes alive at the end`);
log(`observed: ${counts.observations.toLocaleString('en-US')} watch events, ${mib(bytes)} of JSON (${Math.round(bytes / events.length).toLocaleString('en-US')} bytes each on average) in ${seconds.toFixed(1)} s`);
log(`node layer: ${up.toLocaleString('en-US')} of ${engine.nodeLayer.timelines().length.toLocaleString('en-US')} up at the end`);
log(`after a full GC, before the fleet: rss ${mib(before.rss)}, heapUsed ${mib(before.heapUsed)}`);
log(`after a full GC, after the fleet:  rss ${mib(after.rss)}, heapUsed ${mib(after.heapUsed)}`);
log(`held by the engine: rss +${mib(after.rss - before.rss)}, heapUsed +${mib(after.heapUsed - before.heapUsed)}`);
// Keeps the engine reachable until measured (and checks it saw the whole fleet).
if (counts.jobsets !== jobsets || up !== jobsets) {
  process.stderr.write(`expected ${jobsets} JobSets with their node layer up, got ${counts.jobsets} and ${up}\n`);
  process.exit(1);
}
