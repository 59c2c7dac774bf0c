// `node --expose-gc backend/bench/fleet-index.ts --dir DATADIR [--src DIR]`: what the fleet index of a
// kept data dir (`bench:store`'s, e.g. $TMPDIR/upness-bench-restart-10000x30d-seed42; give a copy: a
// start adds a log segment) holds an event, and what a pooled window costs on it.
//   bytes    restored as a start restores it (the kept part taken in), each index's arrays counted
//            per event: times, transition indices, sums; then the index of a selection of the whole
//            fleet grouped by the Kueue queue label and of the JobSets with one (the two selections
//            the dashboards could make), and the per-JobSet tables' run columns, as array buffers
//   window   4,000 windows at seeded random bounds over the fleet's range, every partition, nothing
//            kept between them: the least and median of 9 rounds, and a digest of the answers
// --src: the `backend/src` of another checkout (its modules measured, for a peer in the same run).

import { join, resolve } from 'node:path';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { pino } from 'pino';
import type * as Embedded from '../src/store/embedded.ts';
import type * as Engine from '../src/nodes/engine.ts';
import type * as ServedView from '../src/runtime/served-view.ts';
import type * as RunColumns from '../src/series/run-columns.ts';
import type { FleetIndex } from '../src/series/fleet-index.ts';
import { benchArgs } from './args.ts';

const { values: args } = benchArgs(import.meta.filename, { options: { dir: { type: 'string' }, src: { type: 'string', default: join(import.meta.dirname, '..', 'src') } } });
if (args.dir === undefined) {
  process.stderr.write('usage: fleet-index.ts --dir DATADIR [--src DIR]\n');
  process.exit(2);
}
const src = resolve(args.src);
const { EmbeddedStore } = (await import(join(src, 'store/embedded.ts'))) as typeof Embedded;
const { ClusterEngine } = (await import(join(src, 'nodes/engine.ts'))) as typeof Engine;
const { EngineView, keptIndex } = (await import(join(src, 'runtime/served-view.ts'))) as typeof ServedView;
const { runColumns } = (await import(join(src, 'series/run-columns.ts'))) as typeof RunColumns;

/** A partition's arrays, as this checkout keeps them (`bytes`) or as earlier ones did (typed arrays). */
interface Held {
  length: number;
  bytes?: { times: number; indices: number; owners?: number; timelines?: number; checkpoints: number };
  times: { byteLength?: number };
  indices: { byteLength?: number };
  checkpoints: { byteLength: number };
}

const MiB = 2 ** 20;
const b2 = (bytes: number): string => (bytes / MiB).toFixed(1);
const gc = (): void => (globalThis as { gc?: () => void }).gc?.();

function bytesOf(index: FleetIndex): string {
  let events = 0;
  let times = 0;
  let indices = 0;
  let checkpoints = 0;
  let owners = 0;
  let timelines = 0;
  const partitions = index.partitions() as unknown as Held[];
  for (const p of partitions) {
    events += p.length;
    const b = p.bytes ?? { times: p.times.byteLength ?? 0, indices: p.indices.byteLength ?? 0, checkpoints: p.checkpoints.byteLength };
    times += b.times;
    indices += b.indices;
    checkpoints += b.checkpoints;
    // A checkout without the table of timelines keeps a pointer an event (8 bytes, its array's spare room aside).
    owners += b.owners ?? 8 * p.length;
    timelines += b.timelines ?? 0;
  }
  const per = (x: number): string => (x / events).toFixed(2);
  return `${events} events in ${partitions.length} partitions: bytes an event: times ${per(times)}, indices ${per(indices)}, sums ${per(checkpoints)}, timelines ${per(owners)} (${b2(owners)} MiB) and their table ${per(timelines)} (${b2(timelines)} MiB, pointers on the heap); arrays ${((times + indices + checkpoints) / MiB).toFixed(1)} MiB`;
}

const logger = pino({ level: 'warn' }, pino.destination(2));
const fleet = JSON.parse(readFileSync(join(args.dir, 'fleet.json'), 'utf8')) as { start: number; horizon: number };
const { store, recovery } = await EmbeddedStore.open(args.dir);
const engine = new ClusterEngine();
engine.restore(recovery.byUid ?? recovery.machines, recovery.observedUntil);
delete recovery.byUid;
engine.restoreNodeLayer(recovery.nodeLayers, recovery.observedUntil, recovery.pools ?? [], recovery.derivedNodeLayers);
// As the service does (runtime/feeds.ts): the node layer has them now.
delete recovery.derivedNodeLayers;
const view = new EngineView('trace', engine, false, keptIndex(recovery, logger));
recovery.machines = [];
view.prepare();
const index = view.index();
console.log(`# fleet-index: ${src}, load average ${loadavg()[0]!.toFixed(2)}`);
console.log(`fleet index: ${bytesOf(index)}`);
gc();
const ready = process.memoryUsage();
console.log(`once restored, after a full collection: heap used ${b2(ready.heapUsed)} MiB, array buffers ${b2(ready.arrayBuffers)} MiB, RSS ${b2(ready.rss)} MiB`);

// The window first, before the selections' indexes and the run columns crowd the heap.
const parts = index.partitions();
let seed = 42;
const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
let digest = 0;
const rounds: number[] = [];
for (let r = 0; r < 9; r++) {
  seed = 42;
  const began = process.hrtime.bigint();
  for (let k = 0; k < 4000; k++) {
    const from = Math.round(fleet.start + random() * (fleet.horizon - fleet.start));
    const to = Math.round(from + random() * (fleet.horizon - from));
    const w = index.window(parts, fleet.horizon, from, to);
    digest += w.totals[0]! + w.count;
  }
  rounds.push(Number(process.hrtime.bigint() - began) / 1e3 / 4000);
}
rounds.sort((x, y) => x - y);
console.log(`one window over ${parts.length} partitions: least ${rounds[0]!.toFixed(1)} µs, median ${rounds[4]!.toFixed(1)} µs; digest ${digest}`);

const selections = view.selections();
const queue = 'kueue.x-k8s.io/queue-name';
const byQueue = selections.get('bench: by queue', () => ({ groupOf: (tl) => tl.labels[queue] ?? '' }), Date.now());
console.log(`selection of the whole fleet, grouped by queue: ${bytesOf(byQueue)}`);
const queued = selections.get('bench: with a queue', () => ({ accepts: (tl) => tl.labels[queue] !== undefined }), Date.now());
console.log(`selection of the JobSets with a queue: ${bytesOf(queued)}`);
gc();
const before = process.memoryUsage().arrayBuffers;
const columns = runColumns(engine.timelines());
gc();
console.log(`run columns of ${columns.list.length} runs: array buffers +${((process.memoryUsage().arrayBuffers - before) / MiB).toFixed(1)} MiB; load average ${loadavg()[0]!.toFixed(2)}`);
await store.close();
