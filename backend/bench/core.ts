// `npm run bench:core`: how fast the core is, against peers measured in the same run.
//   1. Replay throughput of a simulated trace (JobSet objects of realistic size), against the floor
//      that any JSON Lines reader pays: JSON.parse of the same lines; in one thread and on worker
//      threads (obs/s, and obs per CPU-second of all the process's threads).
//   2. Every figure for a fleet of long-lived JobSets (default 10,000 × 90 days), against the way a
//      Prometheus-style tool derives uptime: evaluating a 0/1 sample every 15 s.
// Options: --jobsets N --days D (the replayed trace), --parse-threads N (the worker replay's worker threads
// beside the main thread, which parses a share too; default: one fewer than the cores, as `upness replay`),
// --fleet N --fleet-days D, --runs R, --smoke, --replay-only (part 1 alone).
// Results go to stdout and, as JSON and Markdown, to backend/bench/results/ (git-ignored).

import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { fleetFigure, fleetSeries } from '../src/series/fleet.ts';
import { FleetIndex } from '../src/series/fleet-index.ts';
import { planSeries } from '../src/series/range.ts';
import { figureValue, stateAt } from '../src/series/figures.ts';
import { summarize } from '../src/series/summary.ts';
import { simulateFleet } from '../src/sources/simulator/index.ts';
import { Rng } from '../src/sources/simulator/rng.ts';
import { TimelineEngine } from '../src/timeline/engine.ts';
import { timelineAsRead, transitionsOf, type State, type Timeline, type Transition } from '../src/timeline/types.ts';
import { replayTrace } from '../src/sources/trace/replay.ts';
import { defaultParseWorkers, replayTraceInWorkers } from '../src/runtime/trace-workers.ts';
import { viewTraceChunk } from '../src/runtime/trace-chunk.ts';
import { SpecReuse } from '../src/sources/trace/reuse.ts';
import { ViewDecoder, ViewEncoder, type EncodedViews } from '../src/runtime/trace-views.ts';
import { benchArgs } from './args.ts';

const { values: args } = benchArgs(import.meta.filename, {
  options: {
    jobsets: { type: 'string', default: '300' },
    days: { type: 'string', default: '7' },
    fleet: { type: 'string', default: '10000' },
    'fleet-days': { type: 'string', default: '90' },
    runs: { type: 'string', default: '5' },
    'parse-threads': { type: 'string' },
    smoke: { type: 'boolean', default: false },
    'replay-only': { type: 'boolean', default: false },
  },
});
const smoke = args.smoke;
const runs = smoke ? 1 : Number(args.runs);
const traceJobsets = smoke ? 10 : Number(args.jobsets);
const traceDays = smoke ? 1 : Number(args.days);
const fleetSize = smoke ? 200 : Number(args.fleet);
const fleetDays = smoke ? 3 : Number(args['fleet-days']);
const parseThreads = args['parse-threads'] === undefined ? defaultParseWorkers() : Number(args['parse-threads']);
// The peer of the shared parse: as many workers as cores, the main thread only applying their views (as before).
const peerThreads = availableParallelism();

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const START = Date.UTC(2026, 0, 1);

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** Runs `fn` `runs` times (after one warm-up) and returns the sorted times in ms. */
function measure(fn: () => void, times = runs): number[] {
  fn();
  const ms: number[] = [];
  for (let i = 0; i < times; i++) {
    const t = performance.now();
    fn();
    ms.push(performance.now() - t);
  }
  return ms.sort((a, b) => a - b);
}
async function measureAsync(fn: () => Promise<void>, times = runs): Promise<number[]> {
  await fn();
  const ms: number[] = [];
  for (let i = 0; i < times; i++) {
    const t = performance.now();
    await fn();
    ms.push(performance.now() - t);
  }
  return ms.sort((a, b) => a - b);
}
const median = (xs: number[]): number => xs[Math.floor((xs.length - 1) / 2)]!;
const worst = (xs: number[]): number => xs[xs.length - 1]!;
const fmt = (n: number, digits = 1): string => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const int = (n: number): string => Math.round(n).toLocaleString('en-US');

// ── 1. Replay ────────────────────────────────────────────────────────────────────────────────
log(`Upness core benchmark — ${cpus()[0]?.model ?? 'unknown CPU'}, ${availableParallelism()} cores, ${int(totalmem() / 2 ** 30)} GiB, Node ${process.version}, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
log('');
const lines: string[] = [];
for (const line of simulateFleet({ jobsets: traceJobsets, days: traceDays, seed: 7 }).traceLines()) lines.push(line);
// The trace as a file stream delivers it: Buffers of 1 MiB (`upness replay` reads with that highWaterMark).
const chunks: Buffer[] = [];
let bytes = 0;
{
  const whole = Buffer.from(lines.map((line) => `${line}\n`).join(''), 'utf8');
  for (let at = 0; at < whole.length; at += 1 << 20) chunks.push(whole.subarray(at, at + (1 << 20)));
  bytes = whole.length;
}
const avgLine = bytes / lines.length;
log(`Replay: ${int(lines.length)} observations (${traceJobsets} JobSets × ${traceDays} days, simulated), ${int(avgLine)} bytes per line on average`);

const parseOnly = measure(() => {
  for (const line of lines) JSON.parse(line);
});
// What a worker does with its chunks (trace-chunk.ts: split and decode, JSON.parse with the specs
// parsed once per JobSet, the checks, the views), here in one thread, against the same peer; and
// with every line parsed whole (no reuse).
// Chunks of whole lines, as a worker gets them (256 KiB and up to the next newline).
const lineChunks: Buffer[] = [];
{
  const whole = Buffer.concat(chunks);
  for (let at = 0; at < whole.length; ) {
    const nl = whole.indexOf(10, Math.min(whole.length - 1, at + (256 << 10)));
    const end = nl === -1 ? whole.length : nl + 1;
    lineChunks.push(whole.subarray(at, end));
    at = end;
  }
}
const viewEveryChunk = (specs: SpecReuse | null): void => {
  let viewed = 0;
  for (const chunk of lineChunks) {
    const { observations, error } = viewTraceChunk(chunk, null, specs);
    if (error !== null) throw new Error(`the workers' parse refused line ${error.line} of a chunk`);
    viewed += observations.length;
  }
  if (viewed !== lines.length) throw new Error(`the workers' parse viewed ${viewed} of ${lines.length} lines`);
};
/** This thread's CPU time (ms) of each run of `fn` after a warm-up, sorted: what a loaded machine leaves meaningful. */
function measureCpu(fn: () => void, times = runs): number[] {
  fn();
  const ms: number[] = [];
  for (let i = 0; i < times; i++) {
    const before = process.threadCpuUsage();
    fn();
    const used = process.threadCpuUsage(before);
    ms.push((used.user + used.system) / 1000);
  }
  return ms.sort((a, b) => a - b);
}
const parseOnlyCpu = measureCpu(() => {
  for (const line of lines) JSON.parse(line);
});
const chunkParse = measureCpu(() => viewEveryChunk(new SpecReuse()));
const chunkParseWhole = measureCpu(() => viewEveryChunk(null));
// The main thread's part of a worker's chunk: its records decoded into views and applied to the engine
// (the workers' output made once, as one worker would send it).
const encodedChunks: EncodedViews[] = [];
{
  const specs = new SpecReuse();
  const encoder = new ViewEncoder();
  for (const chunk of lineChunks) {
    const { observations, lineNumbers } = viewTraceChunk(chunk, null, specs);
    encodedChunks.push(structuredClone(encoder.encode(observations, lineNumbers)));
  }
}
// A worker's whole part: the above and its records encoded for the main thread.
const chunkParseEncoded = measureCpu(() => {
  const specs = new SpecReuse();
  const encoder = new ViewEncoder();
  for (const chunk of lineChunks) {
    const { observations, lineNumbers } = viewTraceChunk(chunk, null, specs);
    encoder.encode(observations, lineNumbers);
  }
});
const decodeAndApply = measureCpu(() => {
  const engine = new TimelineEngine();
  let decoder = new ViewDecoder();
  for (const encoded of encodedChunks) {
    decoder = decoder.learn(encoded);
    decoder.forEach(encoded, (o) => engine.observeViewed(o), () => false);
  }
});
let timelinesReplayed = 0;
/** CPU time (all threads of the process, ms) of each run of `fn`, beside measureAsync's wall times. */
const cpuOf = (fn: () => Promise<void>, cpu: number[], mainThreadCpu: number[] = []) => async (): Promise<void> => {
  const before = process.cpuUsage();
  const mainBefore = process.threadCpuUsage();
  await fn();
  const used = process.cpuUsage(before);
  const main = process.threadCpuUsage(mainBefore);
  cpu.push((used.user + used.system) / 1000);
  mainThreadCpu.push((main.user + main.system) / 1000);
};
const replayCpu: number[] = [];
/** An engine's timelines with their transitions as read (a closed run's are an arena record, numbered per engine). */
const asRead = (engine: TimelineEngine): string => JSON.stringify(engine.timelines().map(timelineAsRead));
let inThreadTimelines = '';
const replay = await measureAsync(cpuOf(async () => {
  const engine = new TimelineEngine();
  await replayTrace(chunks, engine);
  timelinesReplayed = engine.counts.jobsets;
  inThreadTimelines ||= asRead(engine);
}, replayCpu));
// The same trace parsed by worker threads and the main thread (as `upness replay` does it), the pool
// started and stopped in every run; against its peer, a worker per core and a main thread that only
// applies their views (parsing only while they start). The same timelines, checked once each.
interface WorkerRun {
  wall: number[];
  /** CPU time of all threads of the process (ms), each run. */
  cpu: number[];
  /** The main thread's own CPU (ms): applying the workers' views and parsing its share. */
  mainCpu: number[];
  chunks: { here: number; workers: number };
}
async function workerRun(workers: number, mainThreadParses: boolean): Promise<WorkerRun> {
  const run: WorkerRun = { wall: [], cpu: [], mainCpu: [], chunks: { here: 0, workers: 0 } };
  let compared = false;
  run.wall = await measureAsync(cpuOf(async () => {
    const engine = new TimelineEngine();
    await replayTraceInWorkers(chunks, engine, { workers, mainThreadParses, onDone: (c) => (run.chunks = c) });
    if (!compared && asRead(engine) !== inThreadTimelines) throw new Error('the worker replay and the in-thread replay differ');
    compared = true;
  }, run.cpu, run.mainCpu));
  return run;
}
const shared = await workerRun(parseThreads, true);
const peerRun = await workerRun(peerThreads, false);
const rate = (ms: number): number => lines.length / (ms / 1000);
const perCpuSecond = (cpu: number[]): number => lines.length / (median([...cpu].sort((a, b) => a - b)) / 1000);
const load = (): string => loadavg().map((l) => fmt(l, 2)).join(' ');
log(`  peer  JSON.parse of each line alone      ${int(rate(median(parseOnly))).padStart(10)} obs/s  ${fmt(bytes / 2 ** 20 / (median(parseOnly) / 1000))} MiB/s`);
const microsPerLine = (cpu: number[]): string => fmt((1000 * median(cpu)) / lines.length, 2);
log(`  CPU per line, one thread: JSON.parse alone ${microsPerLine(parseOnlyCpu)} µs; the workers' parse (split, decode, parse with`);
log(`         the specs reused, check, view) ${microsPerLine(chunkParse)} µs = ${fmt(median(chunkParse) / median(parseOnlyCpu), 2)}× JSON.parse's; each line parsed whole ${microsPerLine(chunkParseWhole)} µs`);
log(`         with the records encoded (a worker's whole part) ${microsPerLine(chunkParseEncoded)} µs; the main thread's part (decode the records, apply them) ${microsPerLine(decodeAndApply)} µs`);
log(`  upness replay (split, parse, validate,  ${int(rate(median(replay))).padStart(10)} obs/s  ${fmt(bytes / 2 ** 20 / (median(replay) / 1000))} MiB/s  = ${int((100 * median(parseOnly)) / median(replay))}% of the parse-only rate`);
log(`         state machine) into ${int(timelinesReplayed)} timelines, one core  ${int(perCpuSecond(replayCpu)).padStart(10)} obs per CPU-second`);
const workerRows = (label: string, run: WorkerRun): void => {
  log(`  ${label.padEnd(39)} ${int(rate(median(run.wall))).padStart(10)} obs/s  ${fmt(bytes / 2 ** 20 / (median(run.wall) / 1000))} MiB/s  = ${fmt(median(replay) / median(run.wall), 2)}× the one-core replay`);
  log(`         (pool started in each run; ${run.chunks.here} of ${run.chunks.here + run.chunks.workers} chunks parsed in the main thread)  ${int(perCpuSecond(run.cpu)).padStart(10)} obs per CPU-second (all threads)`);
  log(`                                                  ${int(perCpuSecond(run.mainCpu)).padStart(10)} obs per main-thread CPU-second`);
};
workerRows(`upness replay, ${parseThreads} worker thread${parseThreads === 1 ? '' : 's'} + main`, shared);
workerRows(`peer  ${peerThreads} worker threads, main applies`, peerRun);
log(`  the shared parse: ${fmt(median(peerRun.wall) / median(shared.wall), 2)}× the peer's rate, ${fmt(perCpuSecond(shared.cpu) / perCpuSecond(peerRun.cpu), 2)}× its obs per CPU-second (load average ${load()})`);
log('');
const replayResults = {
  observations: lines.length,
  averageLineBytes: avgLine,
  loadAverage: loadavg(),
  parseOnlyObsPerSec: rate(median(parseOnly)),
  parseOnlyCpuMicrosPerLine: (1000 * median(parseOnlyCpu)) / lines.length,
  chunkParseCpuMicrosPerLine: (1000 * median(chunkParse)) / lines.length,
  chunkParseWholeCpuMicrosPerLine: (1000 * median(chunkParseWhole)) / lines.length,
  chunkParseEncodedCpuMicrosPerLine: (1000 * median(chunkParseEncoded)) / lines.length,
  decodeAndApplyCpuMicrosPerLine: (1000 * median(decodeAndApply)) / lines.length,
  replayObsPerSec: rate(median(replay)),
  replayObsPerCpuSecond: perCpuSecond(replayCpu),
  workerThreads: parseThreads,
  workerReplayObsPerSec: rate(median(shared.wall)),
  workerReplayObsPerCpuSecond: perCpuSecond(shared.cpu),
  workerReplayObsPerMainThreadCpuSecond: perCpuSecond(shared.mainCpu),
  workerReplayChunksInMainThread: shared.chunks,
  peerWorkerThreads: peerThreads,
  peerWorkerReplayObsPerSec: rate(median(peerRun.wall)),
  peerWorkerReplayObsPerCpuSecond: perCpuSecond(peerRun.cpu),
  peerWorkerReplayObsPerMainThreadCpuSecond: perCpuSecond(peerRun.mainCpu),
  peerWorkerReplayChunksInMainThread: peerRun.chunks,
};
if (args['replay-only']) {
  if (!smoke) writeResults('core-replay.json', { replay: replayResults });
  process.exit(0);
}

// ── 2. Figures for a fleet ───────────────────────────────────────────────────────────────────
/**
 * Long-lived JobSets (the heavy case for figures: many transitions each), seeded:
 * provisioning ~3 min, up periods exponential with mean 8 h, interruptions with ~5 min of down
 * time (20% as 0 s restarts), a Kueue preemption every ~36 h of up time for ~25 min, and 10% that
 * complete in the last week; the rest are still running at the horizon.
 */
function longLivedFleet(n: number, days: number, seed: number): Timeline[] {
  const rng = new Rng(seed);
  const uniform = (): number => rng.float();
  const exp = (mean: number): number => Math.round(rng.exp(mean));
  const horizon = START + days * DAY;
  const namespaces = ['team-a', 'team-b', 'research', 'ml-platform'];
  const timelines: Timeline[] = [];
  for (let i = 0; i < n; i++) {
    const createdAt = START + Math.floor(uniform() * HOUR);
    const ends = uniform() < 0.1 ? horizon - Math.floor(uniform() * 7 * DAY) : Infinity;
    const transitions: Transition[] = [{ at: createdAt, state: 'provisioning' }];
    const push = (at: number, state: State): void => {
      transitions.push({ at, state });
    };
    let t = createdAt + exp(3 * 60_000);
    let untilPreemption = exp(36 * HOUR);
    while (t < Math.min(horizon, ends)) {
      push(t, 'up');
      const upFor = exp(8 * HOUR);
      if (upFor > untilPreemption) {
        t += untilPreemption;
        untilPreemption = exp(36 * HOUR);
        push(t, 'suspended');
        t += exp(25 * 60_000);
        push(t, 'provisioning');
        t += exp(3 * 60_000);
        continue;
      }
      untilPreemption -= upFor;
      t += upFor;
      push(t, 'down');
      t += uniform() < 0.2 ? 0 : exp(5 * 60_000);
    }
    if (ends !== Infinity) push(Math.max(ends, transitions[transitions.length - 1]!.at), 'completed');
    timelines.push({
      uid: `uid-${i}`,
      namespace: namespaces[i % namespaces.length]!,
      name: `jobset-${i}`,
      labels: {},
      accelerator: i % 2 ? 'tpu-v5p-slice' : 'nvidia-h100-80gb',
      topology: null,
      createdAt,
      transitions,
    });
  }
  return timelines;
}

const horizon = START + fleetDays * DAY;
const fleet = longLivedFleet(fleetSize, fleetDays, 11);
const transitionCount = fleet.reduce((a, t) => a + transitionsOf(t).length, 0);
log(`Figures: ${int(fleetSize)} JobSets × ${fleetDays} days, ${int(transitionCount)} transitions (${int(transitionCount / fleetSize)} per JobSet)`);

const everyFigure = measure(() => {
  summarize(fleet, horizon, START, horizon);
});
const pooledByNamespace = measure(() => {
  fleetFigure(fleet, horizon, START, horizon, 'uptimeRatio', 'namespace', 'pooled');
});
const p99Mttr = measure(() => {
  fleetFigure(fleet, horizon, START, horizon, 'mttrSeconds', 'all', 'p99');
});
const seriesHourly = measure(() => {
  fleetSeries(fleet, horizon, { start: START + HOUR, end: horizon, stepMs: HOUR, mode: 'step' }, 'upSeconds', 'all', 'sum');
}, Math.min(runs, 3));
const rollingDay = measure(() => {
  fleetSeries(fleet, horizon, { start: START + HOUR, end: horizon, stepMs: HOUR, mode: 'rolling', rollingMs: DAY }, 'uptimeRatio', 'namespace', 'pooled');
}, Math.min(runs, 3));

// The same pooled questions from the fleet index (what the service answers them with), against the
// per-JobSet path above as the peer.
const index = new FleetIndex();
const indexBuild = measure(() => {
  const fresh = new FleetIndex();
  for (const tl of fleet) fresh.grew(tl);
  fresh.window(fresh.partitions(), horizon, START, horizon); // sorts and sums: the first query's cost
}, Math.min(runs, 3));
for (const tl of fleet) index.grew(tl);
const byNamespace = (): Map<string, ReturnType<FleetIndex['partitions']>> => {
  const groups = new Map<string, ReturnType<FleetIndex['partitions']>>();
  for (const p of index.partitions()) groups.set(p.namespace, [...(groups.get(p.namespace) ?? []), p]);
  return groups;
};
const indexPooled = measure(() => {
  for (const parts of byNamespace().values()) figureValue(index.window(parts, horizon, START, horizon).totals, 0, 'uptimeRatio', null);
});
const rollingPlan = planSeries({ start: START + HOUR, end: horizon, stepMs: HOUR, mode: 'rolling', rollingMs: DAY });
const indexRolling = measure(() => {
  for (const parts of byNamespace().values()) index.windows(parts, horizon, rollingPlan.times, rollingPlan.starts, rollingPlan.ends);
}, Math.min(runs, 3));
// Same answers: the index against the per-JobSet path, namespace by namespace.
const slowRolling = fleetSeries(fleet, horizon, { start: START + HOUR, end: horizon, stepMs: HOUR, mode: 'rolling', rollingMs: DAY }, 'uptimeRatio', 'namespace', 'pooled');
for (const g of slowRolling) {
  const fast = index.windows(byNamespace().get(g.labels.namespace!)!, horizon, rollingPlan.times, rollingPlan.starts, rollingPlan.ends);
  fast.forEach((w, k) => {
    if (figureValue(w.totals, 0, 'uptimeRatio', null) !== g.values[k]) throw new Error(`fleet index and per-JobSet path differ: ${g.labels.namespace} point ${k}`);
  });
}

// The peer: a 0/1 sample every 15 s per JobSet, averaged (what avg_over_time(up[90d]) does), for a
// sample of JobSets; its cost grows with range ÷ scrape interval, Upness's with transitions.
const SCRAPE = 15_000;
const peerSample = fleet.slice(0, Math.min(fleet.length, smoke ? 20 : 100));
let sampledError = 0;
const peer = measure(() => {
  sampledError = 0;
  for (const tl of peerSample) {
    let up = 0;
    let counted = 0;
    for (let t = START; t <= horizon; t += SCRAPE) {
      const s = stateAt(tl, t);
      if (s === 'up') up++;
      if (s === 'up' || s === 'provisioning' || s === 'down') counted++;
    }
    const exact = summarize([tl], horizon, START, horizon)[0]!.uptimeRatio ?? 0;
    sampledError = Math.max(sampledError, Math.abs((counted ? up / counted : 0) - exact));
  }
}, Math.min(runs, 3));
const upnessSample = measure(() => {
  summarize(peerSample, horizon, START, horizon);
});
const perJobSet = (ms: number[], n: number): number => (median(ms) / n) * 1000;

const row = (label: string, ms: number[]): void => log(`  ${label.padEnd(58)} median ${fmt(median(ms)).padStart(8)} ms   worst ${fmt(worst(ms)).padStart(8)} ms`);
row('every figure of every JobSet over the whole range', everyFigure);
row('pooled uptime ratio by namespace', pooledByNamespace);
row('p99 of MTTR across the fleet', p99Mttr);
row(`fleet up time, 1 h steps over ${fleetDays} days (sum)`, seriesHourly);
row('rolling 24 h uptime ratio by namespace, 1 h steps (pooled)', rollingDay);
row('fleet index: built from every transition (and first sums)', indexBuild);
row(`  pooled uptime ratio by namespace, from it`, indexPooled);
log(`    = ${int(median(pooledByNamespace) / median(indexPooled))}× the per-JobSet path`);
row(`  rolling 24 h uptime ratio by namespace, from it`, indexRolling);
log(`    = ${int(median(rollingDay) / median(indexRolling))}× the per-JobSet path, same answers at every point`);
log(`  peer  15 s samples per JobSet (avg_over_time style)        ${fmt(perJobSet(peer, peerSample.length), 0).padStart(8)} µs per JobSet`);
log(`  upness every figure from intervals                          ${fmt(perJobSet(upnessSample, peerSample.length), 1).padStart(8)} µs per JobSet  = ${int(median(peer) / median(upnessSample))}× faster, and exact (sampling was off by up to ${fmt(sampledError * 100, 3)} points of uptime)`);

const results = {
  replay: replayResults,
  figures: {
    jobsets: fleetSize,
    days: fleetDays,
    transitions: transitionCount,
    everyFigureMs: { median: median(everyFigure), worst: worst(everyFigure) },
    pooledByNamespaceMs: median(pooledByNamespace),
    p99MttrMs: median(p99Mttr),
    hourlySeriesMs: median(seriesHourly),
    rollingDayByNamespaceMs: median(rollingDay),
    indexBuildMs: median(indexBuild),
    indexPooledByNamespaceMs: median(indexPooled),
    indexRollingDayByNamespaceMs: median(indexRolling),
    peerSampledMicrosPerJobSet: perJobSet(peer, peerSample.length),
    upnessMicrosPerJobSet: perJobSet(upnessSample, peerSample.length),
    sampledMaxErrorPoints: sampledError * 100,
  },
};
if (!smoke) writeResults('core.json', results);

function writeResults(file: string, results: object): void {
  const dir = join(import.meta.dirname, 'results');
  mkdirSync(dir, { recursive: true });
  const machine = { cpu: cpus()[0]?.model, cores: availableParallelism(), memoryGiB: totalmem() / 2 ** 30, node: process.version };
  writeFileSync(join(dir, file), JSON.stringify({ machine, ...results }, null, 2) + '\n');
  log('');
  log(`Results written to ${join(dir, file)}`);
}
