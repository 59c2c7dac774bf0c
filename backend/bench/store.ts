// `npm run bench:store`: the embedded store, against peers measured in the same run.
//   write   records/s with durability on (group commit), against one fsync per record (what a
//           naive durable log does) and against no fsync at all (the ceiling)
//   size    bytes on disk per transition, in the log and in a snapshot
//   start   recovery of N stored transitions (default 1,000,000) from a snapshot, and from the log
//           alone, against reading the same bytes without parsing them (the floor)
//   restart a whole start of the service from the data dir of a simulated fleet (the realistic
//           profile, JobSets alone, as `npm run bench` simulates it; --fleet N --fleet-days D, default
//           1,000 × 7; issue 21's size: --fleet 10000 --fleet-days 30) to its first fleet query
//           answered, in parts: reading the data dir, restoring the engine, the fleet index; against
//           reading the data dir's bytes alone. The data dir is built once (./restart.ts build) and
//           kept under the temporary directory, keyed by size and seed, for the next runs; each start
//           is a process of its own, as a restart is. Then the service itself: `upness serve
//           --data-dir` on a copy, spawned to ready (Node's start, its modules and the heap's
//           collection after the load come on top of the parts: what a user waits for).
// Options: --transitions N, --runs R, --fleet N, --fleet-days D, --seed S, --restart-only, --smoke.

import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { availableParallelism, cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { Rng } from '../src/sources/simulator/rng.ts';
import { EmbeddedStore } from '../src/store/embedded.ts';
import { encodeLine } from '../src/store/records.ts';
import type { MachineState } from '../src/timeline/machine.ts';
import { openTransitions, timelineFields, transitionCount, transitionsOf, type State, type Transition } from '../src/timeline/types.ts';
import { cpuSeconds, memory, sleep, timedFetch } from './prometheus/proc.ts';
import { UpnessServer } from './prometheus/upness.ts';
import type { FleetFile, Measured } from './restart.ts';
import { benchArgs } from './args.ts';

const { values: args } = benchArgs(import.meta.filename, {
  options: {
    transitions: { type: 'string', default: '1000000' },
    runs: { type: 'string', default: '3' },
    fleet: { type: 'string', default: '1000' },
    'fleet-days': { type: 'string', default: '7' },
    seed: { type: 'string', default: '42' },
    'restart-only': { type: 'boolean', default: false },
    smoke: { type: 'boolean', default: false },
  },
});
const total = args.smoke ? 20_000 : Number(args.transitions);
const runs = args.smoke ? 1 : Number(args.runs);
const log = (line: string): void => void process.stdout.write(`${line}\n`);
const fmt = (n: number, d = 0): string => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;

/** Timelines of long-lived JobSets (up/down cycles) adding up to `count` transitions. */
function machines(count: number): MachineState[] {
  const rng = new Rng(5);
  const out: MachineState[] = [];
  let made = 0;
  for (let i = 0; made < count; i++) {
    const createdAt = Date.UTC(2026, 0, 1) + Math.floor(rng.float() * 3_600_000);
    const transitions: Transition[] = [{ at: createdAt, state: 'provisioning' }];
    const cycle: State[] = ['up', 'down'];
    let at = createdAt;
    for (let k = 0; k < 200 && made + transitions.length < count; k++) {
      at += Math.round(rng.exp(k % 2 ? 300_000 : 8 * 3_600_000));
      transitions.push({ at, state: cycle[k % 2]! });
    }
    made += transitions.length;
    out.push({
      timeline: { uid: `uid-${i}`, namespace: `team-${i % 4}`, name: `jobset-${i}`, labels: { 'kueue.x-k8s.io/queue-name': 'q' }, accelerator: 'tpu-v5p-slice', topology: '2x2x2', createdAt, transitions },
      everUp: true,
      restarts: Math.floor(transitions.length / 2),
      resourceVersion: String(i),
      deletedAt: null,
    });
  }
  return out;
}

function dirBytes(dir: string, prefix: string): number {
  return readdirSync(dir)
    .filter((f) => f.startsWith(prefix))
    .reduce((a, f) => a + statSync(join(dir, f)).size, 0);
}

const load = (): string => `load average ${loadavg().map((l) => fmt(l, 1)).join(', ')}`;
log(`Upness store benchmark — ${cpus()[0]?.model ?? 'unknown CPU'}, ${availableParallelism()} cores, ${fmt(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${tmpdir()}, ${load()}`);
// The restart first: it is measured in processes of its own, before this one holds the fleet below.
await restart();
if (args['restart-only']) process.exit(0);

const source = machines(total);
log(`${fmt(total)} transitions in ${fmt(source.length)} timelines\n`);

// ── write ─────────────────────────────────────────────────────────────────────────────────────
// One record per transition, as a live watch writes them (each observation that changes a state).
const dir = mkdtempSync(join(tmpdir(), 'upness-bench-store-'));
const { store } = await EmbeddedStore.open(dir);
let records = 0;
const started = performance.now();
for (const m of source) {
  const copy: MachineState = { ...m, timeline: { ...timelineFields(m.timeline), transitions: [] } };
  for (const t of transitionsOf(m.timeline)) {
    openTransitions(copy.timeline).push(t);
    store.record({ timeline: copy.timeline, added: [t] }, copy);
    records++;
    // Let the group commit run now and then, as it would between watch events.
    if (records % 5000 === 0) await new Promise((r) => setImmediate(r));
  }
}
await store.flushed();
const writeMs = performance.now() - started;
const logBytes = dirBytes(dir, 'log-');
await store.snapshot(source, null);
await store.close();
const snapshotBytes = statSync(join(dir, 'snapshot.json')).size;

// Peers on a sample: an fsync per record, and no fsync.
const sample = Math.min(2000, records);
const lines = source.flatMap((m) => transitionsOf(m.timeline).map((t) => encodeLine({ k: 'update', uid: m.timeline.uid, add: [[t.at, t.state]], everUp: true, restarts: 0, rv: null, deletedAt: null })));
/** Appends `count` lines: one write and fsync each, or (no fsync) in 1 MB writes — the ceiling. */
async function appendAll(fsyncEach: boolean, count: number): Promise<number> {
  const peerDir = mkdtempSync(join(tmpdir(), 'upness-bench-peer-'));
  const handle = await open(join(peerDir, 'log'), 'a');
  const t = performance.now();
  let chunk = '';
  for (let i = 0; i < count; i++) {
    if (fsyncEach) {
      await handle.write(lines[i]!);
      await handle.datasync();
    } else if ((chunk += lines[i]!).length >= 1 << 20) {
      await handle.write(chunk);
      chunk = '';
    }
  }
  await handle.write(chunk);
  await handle.datasync();
  const ms = performance.now() - t;
  await handle.close();
  rmSync(peerDir, { recursive: true });
  return count / (ms / 1000);
}
const perRecordFsync = await appendAll(true, sample);
const noFsync = await appendAll(false, records);
const groupCommit = records / (writeMs / 1000);
log('Write, durability on (records made durable before anything built on them is served):');
log(`  upness group commit          ${fmt(groupCommit).padStart(10)} records/s`);
log(`  peer  fsync per record       ${fmt(perRecordFsync).padStart(10)} records/s   → group commit is ${fmt(groupCommit / perRecordFsync, 1)}× faster`);
log(`  peer  no fsync, 1 MB writes  ${fmt(noFsync).padStart(10)} records/s   → group commit reaches ${fmt((100 * groupCommit) / noFsync)}% of this ceiling (not durable)`);
log(`  on disk: ${fmt(logBytes / total, 1)} bytes per transition in the log, ${fmt(snapshotBytes / total, 1)} in a snapshot\n`);

// ── start-up ──────────────────────────────────────────────────────────────────────────────────
const recoverMs: number[] = [];
let recovered = 0;
for (let i = 0; i < runs; i++) {
  const t = performance.now();
  const { store: s, recovery } = await EmbeddedStore.open(dir);
  recoverMs.push(performance.now() - t);
  recovered = recovery.machines.reduce((a, m) => a + transitionCount(m.timeline), 0);
  await s.close();
}
if (recovered !== total) throw new Error(`recovered ${recovered} transitions, wrote ${total}`);
const readMs: number[] = [];
for (let i = 0; i < runs; i++) {
  const t = performance.now();
  for (const f of readdirSync(dir)) readFileSync(join(dir, f));
  readMs.push(performance.now() - t);
}
// From the log alone (no snapshot): the same records, one per transition, never compacted.
const logOnly = mkdtempSync(join(tmpdir(), 'upness-bench-log-'));
{
  const { store: s } = await EmbeddedStore.open(logOnly);
  for (const m of source) {
    const copy: MachineState = { ...m, timeline: { ...timelineFields(m.timeline), transitions: [] } };
    for (const t of transitionsOf(m.timeline)) {
      openTransitions(copy.timeline).push(t);
      s.record({ timeline: copy.timeline, added: [t] }, copy);
    }
  }
  await s.close();
}
const logOnlyMs: number[] = [];
for (let i = 0; i < runs; i++) {
  const t = performance.now();
  const { store: s } = await EmbeddedStore.open(logOnly);
  logOnlyMs.push(performance.now() - t);
  await s.close();
}
log(`Start-up: recover ${fmt(total)} transitions`);
log(`  upness from a snapshot       median ${fmt(median(recoverMs)).padStart(7)} ms   (target: under 2,000 ms)`);
log(`  upness from the log alone    median ${fmt(median(logOnlyMs)).padStart(7)} ms   (no snapshot: every record replayed)`);
log(`  peer  read the bytes only    median ${fmt(median(readMs)).padStart(7)} ms   → recovery is ${fmt(median(recoverMs) / median(readMs), 1)}× the cost of reading`);
rmSync(dir, { recursive: true });
rmSync(logOnly, { recursive: true });

// ── restart ───────────────────────────────────────────────────────────────────────────────────
async function restart(): Promise<void> {
  const jobsets = args.smoke ? 20 : Number(args.fleet);
  const days = args.smoke ? 2 : Number(args['fleet-days']);
  const seed = Number(args.seed);
  const cache = join(tmpdir(), `upness-bench-restart-${jobsets}x${days}d-seed${seed}`);
  const script = join(import.meta.dirname, 'restart.ts');
  // Children get room for the fleet (10,000 × 30 days holds ~3 GiB while it is simulated).
  const child = (step: string, extra: string[] = []): string => {
    const r = spawnSync(process.execPath, [...process.execArgv, '--max-old-space-size=8192', '--expose-gc', script, step, '--dir', cache, ...extra], { stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 20 });
    if (r.status !== 0) throw new Error(`restart.ts ${step} failed (${r.status ?? r.signal})`);
    return r.stdout.toString();
  };
  log('');
  if (!existsSync(join(cache, 'fleet.json'))) {
    log(`Restart: simulating ${fmt(jobsets)} JobSets × ${days} days (seed ${seed}) into ${cache}, once (kept for the next runs) …`);
    rmSync(cache, { recursive: true, force: true });
    mkdirSync(cache, { recursive: true });
    const t = performance.now();
    child('build', ['--jobsets', String(jobsets), '--days', String(days), '--seed', String(seed)]);
    log(`  built in ${fmt((performance.now() - t) / 1000)} s`);
  }
  // The data dir as this code writes it: a start, then a stop (which writes a snapshot).
  child('refresh');
  const fleet = JSON.parse(readFileSync(join(cache, 'fleet.json'), 'utf8')) as FleetFile;
  // Each start in turn with the fleet index kept in the snapshot, and (the peer) the same start building it again.
  const measured: Measured[] = [];
  const rebuilt: Measured[] = [];
  for (let i = 0; i < runs; i++) {
    measured.push(JSON.parse(child('measure')) as Measured);
    rebuilt.push(JSON.parse(child('measure', ['--rebuild'])) as Measured);
  }
  type PartName = 'total' | 'open' | 'engine' | 'index' | 'query' | 'readBytes';
  const m = (key: PartName, of: 'ms' | 'cpuMs' = 'ms', starts: Measured[] = measured): number => median(starts.map((r) => r[key][of]));
  const bad = [...measured, ...rebuilt].find((r) => !r.same || r.transitions !== fleet.transitions || r.runs !== fleet.runs);
  if (bad !== undefined) throw new Error(`a restart answered otherwise than the simulated service: ${JSON.stringify(bad)}`);
  if (measured.some((r) => !r.kept)) throw new Error('a start did not take the fleet index kept in the snapshot (see its warning above)');
  const ms = (key: PartName, starts: Measured[] = measured): string => `${fmt(m(key, 'ms', starts)).padStart(7)} ms ${fmt(m(key, 'cpuMs', starts)).padStart(7)} ms`;
  log(`Restart: ${fmt(fleet.jobsets)} JobSets × ${fleet.days} days (realistic, seed ${fleet.seed}): ${fmt(fleet.runs)} runs, ${fmt(fleet.transitions)} transitions, data dir ${fmt(measured[0]!.bytes / 2 ** 20, 1)} MiB; ${runs} starts, medians, ${load()}`);
  log('                                                    on the clock     of CPU');
  log(`  upness start to the first fleet query answered   ${ms('total')}   (issue 21: 5,000 ms at 10,000 × 30 days)`);
  log(`    reading the data dir (snapshot and log)         ${ms('open')}`);
  log(`    restoring the engine (both layers)              ${ms('engine')}`);
  log(`    the fleet index (taken from the snapshot)       ${ms('index')}`);
  log(`    the first fleet query                           ${ms('query')}`);
  log(`  peer  reading the data dir's bytes alone         ${ms('readBytes')}   → a start is ${fmt(m('total', 'cpuMs') / m('readBytes', 'cpuMs'), 1)}× its CPU`);
  log(`  peer  the same start, the kept index ignored     ${ms('total', rebuilt)}   → ${fmt(m('total', 'cpuMs', rebuilt) / m('total', 'cpuMs'), 2)}× the CPU of a start that takes it`);
  log(`    reading the data dir (snapshot and log)         ${ms('open', rebuilt)}`);
  log(`    the fleet index (filled, sorted, summed)        ${ms('index', rebuilt)}`);
  const collected = (key: keyof Measured['collected']): string => fmt(median(measured.map((r) => r.collected[key])));
  log(`  RSS once ready ${fmt(median(measured.map((r) => r.rssMiB)))} MiB, after a full collection ${collected('rssMiB')} MiB (heap ${collected('heapMiB')}, array buffers ${collected('arrayBuffersMiB')}); every start's first answer equals the simulated service's`);
  // The parts above are timed inside one process; a user waits for the service itself.
  const served: ServiceStart[] = [];
  for (let i = 0; i < runs; i++) served.push(await serviceStart(cache, fleet));
  const sm = (key: 'ms' | 'cpuMs' | 'rssMiB'): string => fmt(median(served.map((r) => r[key])));
  log(`  upness serve --data-dir, spawned to ready        ${sm('ms').padStart(7)} ms ${sm('cpuMs').padStart(7)} ms   (Node's start, the modules, the collection after the load; RSS once ready ${sm('rssMiB')} MiB)`);
}

interface ServiceStart {
  ms: number;
  cpuMs: number;
  rssMiB: number;
}

/**
 * `upness serve --data-dir COPY --trace /dev/null` (a copy: a start appends to its log, a stop
 * writes a snapshot), timed from its spawn until /readyz answers 200 and says it holds the fleet's
 * runs, and its CPU up to then, as a user's restart is.
 */
async function serviceStart(cache: string, fleet: FleetFile): Promise<ServiceStart> {
  const parent = mkdtempSync(join(tmpdir(), 'upness-bench-serve-'));
  try {
    const copy = join(parent, 'data');
    execFileSync('cp', ['-a', cache, copy]);
    const t = performance.now();
    const server = await UpnessServer.start(null, { serveArgs: ['--data-dir', copy, '--trace', '/dev/null'] });
    try {
      for (;;) {
        const res = await timedFetch(`${server.url}/readyz`);
        if (res.status === 200) {
          const ms = performance.now() - t;
          const { jobsets } = JSON.parse(res.body) as { jobsets: number };
          if (jobsets !== fleet.runs) throw new Error(`upness serve restarted with ${jobsets} runs, the fleet has ${fleet.runs}`);
          return { ms, cpuMs: cpuSeconds(server.pid) * 1000, rssMiB: memory(server.pid).rssBytes / 2 ** 20 };
        }
        if (performance.now() - t > 600_000) throw new Error('upness serve was not ready 600 s after its spawn');
        await sleep(10);
      }
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
}