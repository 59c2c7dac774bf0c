// `npm run bench`: Upness against what a user would pick instead — kube-state-metrics scraped
// into Prometheus, and PromQL — on the same simulated fleet, in one run.
//
//   1. A seeded fleet from the simulator. Its trace is piped straight into `upness serve --memory
//      --trace -` (nothing on disk); its truth (each UID's exact timeline) is summed as it streams.
//   2. Prometheus from Debian's package (fetched with apt-get download and unpacked under the
//      git-ignored results folder when it is not on PATH), loaded with the same fleet as a 0/1
//      gauge per JobSet every 15 s, written as OpenMetrics and imported with promtool.
//   3. The same questions to both over HTTP, several runs each: medians, p99, CPU seconds of each
//      server, Prometheus ÷ Upness, and each answer against the truth. The timed requests are sent
//      by a lean client, a process of its own (client.ts), for both peers: this process holds the
//      truth, and its collections took a core from the server being timed; it checks the last
//      run's answers, the bytes the client received, after the timing.
//   4. The standard sizes: 500 JobSets × 7 days side by side; 10,000 × 30 days for Upness alone.
//
// Options: --jobsets N --days D (side by side), --big-jobsets N --big-days D (Upness alone),
// --runs R, --big-runs R, --warmups W, --warm-seconds S, --seed S, --skip-side, --skip-big, --peer required|auto|none,
// --big-questions id,id, --questions id,id (the side-by-side size's; default all), --profile (CPU and heap profiles of each Upness server, split by phase), --keep
// (keep the OpenMetrics file and the TSDB), --out NAME, --smoke (a small size of all of it).
// Results: backend/bench/results/NAME.md and NAME.json (git-ignored).

import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, release, totalmem, type } from 'node:os';
import { join } from 'node:path';
import { planSteps } from '../../src/query/step.ts';
import { figures } from '../../src/series/figures.ts';
import { DEFAULT_START, PROFILES, simulateFleet, type ProfileName } from '../../src/sources/simulator/index.ts';
import { clientPauses, watchClientPauses, fmt, int, memory, MiB, ms, settle, stats } from './proc.ts';
import { createBlocks, ensurePrometheus, PrometheusServer, writeOpenMetrics, type PrometheusBinaries, type SampledModel } from './prometheus.ts';
import { newest, nowUs, summarizeProfiles, type Phase } from './profile.ts';
import { QUESTIONS, type Detail, type Question, type Window } from './questions.ts';
import { checkText, markdown, sampledOk, times, upnessExact, type Machine, type PrometheusLoad, type QuestionResult, type SideResult, type SizeResult, type Target } from './report.ts';
import { LeanClient, type Exchange } from './client.ts';
import { loadFleet } from './upness.ts';
import { benchArgs } from '../args.ts';

const { values: args } = benchArgs(import.meta.filename, {
  options: {
    jobsets: { type: 'string', default: '500' },
    days: { type: 'string', default: '7' },
    'big-jobsets': { type: 'string', default: '10000' },
    'big-days': { type: 'string', default: '30' },
    // The simulator's profile at the big size: `long-running` makes about 4 UIDs per slot a month, not ~90.
    'big-profile': { type: 'string', default: 'realistic' },
    runs: { type: 'string', default: '10' },
    // The 30-day questions take tens of seconds each on today's Upness: 3 runs keep the run near an hour.
    'big-runs': { type: 'string', default: '3' },
    warmups: { type: 'string', default: '1' },
    // Warm-ups go on until this many seconds of the peer's own answers have passed (at least --warmups):
    // the steady state a dashboard's server is in, for a JIT-compiled peer as for Prometheus.
    'warm-seconds': { type: 'string', default: '0' },
    seed: { type: 'string', default: '42' },
    'skip-side': { type: 'boolean', default: false },
    'skip-big': { type: 'boolean', default: false },
    peer: { type: 'string' },
    // The per-JobSet table of ~870,000 UIDs is asked at the side-by-side size only (add it with this option).
    'big-questions': { type: 'string', default: 'fleet-summary,fleet-series-1h,rolling-24h-by-namespace,slo-burn-1h-by-namespace,jobset-detail' },
    // The side-by-side size's questions (default all): at a high load a fleet question takes Prometheus minutes a run.
    questions: { type: 'string' },
    profile: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    out: { type: 'string' },
    smoke: { type: 'boolean', default: false },
  },
});

const smoke = args.smoke;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const RESULTS = join(import.meta.dirname, '../results');
const WORK = join(RESULTS, 'prometheus');
const peer = (args.peer ?? (smoke ? 'auto' : 'required')) as 'required' | 'auto' | 'none';
if (!['required', 'auto', 'none'].includes(peer)) throw new Error(`--peer must be required, auto or none, not ${peer}`);
const seed = Number(args.seed);
const warmups = Number(args.warmups);
const warmSeconds = Number(args['warm-seconds']);
if (!(warmSeconds >= 0)) throw new Error(`--warm-seconds must be a number of seconds from 0, not ${args['warm-seconds']}`);
const outName = args.out ?? (smoke ? 'prometheus-smoke' : 'prometheus');

function log(line = ''): void {
  process.stdout.write(`${line}\n`);
}

interface SizePlan {
  label: string;
  jobsets: number;
  days: number;
  runs: number;
  withPrometheus: boolean;
  questions: Question[];
  profile: boolean;
  /** The simulator's profile (realistic unless asked). */
  fleetProfile: ProfileName;
  targets: 'side' | 'big';
}

const plans: SizePlan[] = [];
if (!args['skip-side']) {
  const jobsets = smoke ? 20 : Number(args.jobsets);
  const days = smoke ? 1 : Number(args.days);
  const wanted = args.questions?.split(',').map((s) => s.trim()) ?? null;
  const unknown = (wanted ?? []).filter((id) => !QUESTIONS.some((q) => q.id === id));
  if (unknown.length > 0) throw new Error(`--questions: unknown ${unknown.join(', ')}; known: ${QUESTIONS.map((q) => q.id).join(', ')}`);
  plans.push({
    label: `${int(jobsets)} JobSets × ${days} days, side by side`,
    jobsets,
    days,
    runs: smoke ? 2 : Number(args.runs),
    withPrometheus: peer !== 'none',
    questions: wanted === null ? QUESTIONS : QUESTIONS.filter((q) => wanted.includes(q.id)),
    profile: args.profile,
    fleetProfile: 'realistic',
    targets: 'side',
  });
}
if (!args['skip-big']) {
  const jobsets = smoke ? 60 : Number(args['big-jobsets']);
  const days = smoke ? 2 : Number(args['big-days']);
  const wanted = args['big-questions'].split(',').map((s) => s.trim());
  const fleetProfile = args['big-profile'] as ProfileName;
  if (!(fleetProfile in PROFILES)) throw new Error(`--big-profile: unknown ${fleetProfile}; known: ${Object.keys(PROFILES).join(', ')}`);
  const unknown = wanted.filter((id) => !QUESTIONS.some((q) => q.id === id));
  if (unknown.length > 0) throw new Error(`--big-questions: unknown ${unknown.join(', ')}; known: ${QUESTIONS.map((q) => q.id).join(', ')}`);
  plans.push({
    label: `${int(jobsets)} JobSets × ${days} days${fleetProfile === 'realistic' ? '' : ` (${fleetProfile} profile)`}, Upness alone`,
    jobsets,
    days,
    runs: smoke ? 2 : Number(args['big-runs']),
    withPrometheus: false,
    questions: QUESTIONS.filter((q) => wanted.includes(q.id)),
    profile: args.profile,
    fleetProfile,
    targets: 'big',
  });
}

// ── One size ─────────────────────────────────────────────────────────────────────────────────

/**
 * `--warmups` untimed runs (more, until `--warm-seconds` of them have passed), then `runs` timed runs,
 * all sent by the lean client (client.ts), a process of its own; the server's CPU seconds are read
 * around the timed runs. This process waits meanwhile, and checks the last run's answers afterwards.
 */
async function timeRuns(client: LeanClient, runs: number, label: string, pid: number, exchanges: Exchange[]): Promise<{ times: number[]; bodies: string[]; cpuSeconds: number }> {
  watchClientPauses();
  const r = await client.ask({ label, exchanges, runs, warmups, warmSeconds, pid });
  // This process holds the truth and waits while the client asks: its own collections during the timed runs, if any, are shown.
  const own = await clientPauses(r.timedFrom - performance.timeOrigin, r.timedTo - performance.timeOrigin);
  log(
    `    ${label}: the lean client's CPU ${ms(r.clientCpuMs)} a run` +
      (r.pauses.count > 0 ? `; it paused ${r.pauses.count}× for garbage collection during the timed runs, ${ms(r.pauses.ms)} in all` : '') +
      (own.count > 0 ? `; the bench's own process paused ${own.count}× (${ms(own.ms)}) during them` : ''),
  );
  return { times: r.times, bodies: r.bodies.map((b) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8')), cpuSeconds: r.serverCpuSeconds };
}

async function runSize(plan: SizePlan): Promise<SizeResult> {
  const { jobsets, days } = plan;
  const tag = `${jobsets}x${days}d-seed${seed}${plan.fleetProfile === 'realistic' ? '' : `-${plan.fleetProfile}`}`;
  log(`── ${plan.label} (seed ${seed}) ──`);
  const from = DEFAULT_START;
  const periodEnd = from + days * DAY;
  // The window ends an hour before the simulated period does, on the hour, so that the last
  // observation (the service's horizon) is after it even for a small fleet.
  const to = from + Math.max(1, Math.floor(days * 24 - 1)) * HOUR;
  const maxDataPoints = Math.min(11_000, Math.ceil((to - from) / HOUR) + 1);
  const steps = planSteps(from, to, HOUR, maxDataPoints);
  if (steps.stepMs !== HOUR) throw new Error(`the hourly series would have a ${steps.stepMs} ms step: the range is too long`);
  const w: Window = { from, to, first: steps.first, last: steps.last, stepMs: steps.stepMs, rollingMs: DAY, maxDataPoints };
  const perJobSet = plan.questions.some((q) => q.id.endsWith('-per-jobset'));
  const truthOptions = { ...w, perJobSet, keepTimelines: plan.withPrometheus, detailSample: plan.withPrometheus || jobsets < 1000 ? 1 : 64 };

  // 1. Upness: the trace streamed in from the simulator's process.
  const profileDir = join(WORK, `profiles-${tag}`);
  if (plan.profile) {
    rmSync(profileDir, { recursive: true, force: true });
    mkdirSync(profileDir, { recursive: true });
  }
  mkdirSync(WORK, { recursive: true });
  const phases: Phase[] = [];
  log(`  upness: starting \`upness serve --memory --trace -\` and the simulator, its standard output piped into the server`);
  const loadStart = nowUs();
  const loadAverageBefore = loadavg()[0]!;
  const { server: upness, load, truth } = await loadFleet(
    { jobsets, days, seed, fleetProfile: plan.fleetProfile, truth: truthOptions, truthFile: join(WORK, `${tag}.truth.v8`) },
    { nodeFlags: plan.profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, '--heap-prof', `--heap-prof-dir=${profileDir}`] : [] },
  );
  phases.push({ name: 'Load (replay of the trace)', startUs: loadStart, endUs: nowUs() });
  const loadAverageLoad: [number, number] = [loadAverageBefore, loadavg()[0]!];
  if (load.horizon < to) throw new Error(`the trace's last observation (${new Date(load.horizon).toISOString()}) is before the window's end (${new Date(to).toISOString()})`);
  const upnessLoad = {
    ...load,
    observationsPerSecond: load.observations / load.wallSeconds,
    observationsPerCoreSecond: load.observations / load.serverCpuSeconds,
    bytesPerTransition: (load.rssBytes - load.baselineRssBytes) / truth.transitions,
  };
  if (truth.duplicates.uids.length > 0) {
    log(`  simulator: ${int(truth.duplicates.uids.length)} UIDs were given to ${int(truth.duplicates.jobsets)} different JobSets (a 32-bit stream hash in rng.ts); Upness merges JobSets that share a UID`);
  }
  log(
    `  upness: loaded ${int(load.observations)} observations (${int(truth.uids)} UIDs, ${int(truth.transitions)} transitions) in ${fmt(load.wallSeconds, 1)} s: ` +
      `${int(upnessLoad.observationsPerSecond)} obs/s, ${int(upnessLoad.observationsPerCoreSecond)} per server CPU-second; RSS ${int(load.rssBytes / MiB)} MiB (${int(load.baselineRssBytes / MiB)} empty), ${int(upnessLoad.bytesPerTransition)} bytes per transition`,
  );

  // 2. Prometheus: the same fleet as a 15 s gauge.
  let prometheus: { server: PrometheusServer; load: PrometheusLoad; model: SampledModel } | null = null;
  let prometheusSkipped: string | undefined;
  if (plan.withPrometheus) {
    let bins: PrometheusBinaries | null = null;
    mkdirSync(WORK, { recursive: true });
    try {
      bins = ensurePrometheus(WORK, log);
      log(`  prometheus: ${bins.version} (${bins.how}${bins.installSeconds > 0 ? `, ${fmt(bins.installSeconds, 1)} s` : ''})`);
    } catch (error) {
      if (peer === 'required') throw error;
      prometheusSkipped = `not available (${(error as Error).message.split('\n')[0]}); Upness ran alone`;
      log(`  prometheus: ${prometheusSkipped}`);
    }
    if (bins !== null) {
      const omPath = join(WORK, `${tag}.om.txt`);
      log(`  prometheus: writing the gauge of ${int(truth.timelines.length)} UIDs as OpenMetrics to ${omPath}`);
      let lastProgress = performance.now();
      const om = writeOpenMetrics(truth.timelines, omPath, { start: from, end: periodEnd, from, to }, (done) => {
        if (performance.now() - lastProgress > 5000) {
          lastProgress = performance.now();
          log(`  prometheus: ${int(done)} of ${int(truth.timelines.length)} UIDs written`);
        }
      });
      log(`  prometheus: ${int(om.samples)} samples, ${fmt(om.bytes / 2 ** 30, 2)} GiB in ${fmt(om.seconds, 1)} s; promtool tsdb create-blocks-from openmetrics…`);
      const dataDir = join(WORK, `${tag}-tsdb`);
      const blocks = createBlocks(bins.promtool, omPath, dataDir, from, periodEnd);
      if (!args.keep) rmSync(omPath, { force: true });
      log(`  prometheus: blocks written in ${fmt(blocks.seconds, 1)} s (${int(blocks.bytes / MiB)} MiB, ${blocks.blockHours} h blocks); starting prometheus`);
      const started = await PrometheusServer.start(bins.prometheus, dataDir, WORK);
      const mem = memory(started.server.pid);
      log(`  prometheus: ready on ${started.server.url} (pid ${started.server.pid}) in ${fmt(started.seconds, 1)} s, RSS ${int(mem.rssBytes / MiB)} MiB`);
      // Neither peer is asked while one of them still works in the background after its start or
      // load (on this 2-core machine it would take the other's core). Both were quiet at once when
      // this was added (2026-11-27): the first question's higher CPU was the warm-up (--warm-seconds).
      for (const [name, pid] of [['prometheus', started.server.pid], ['upness', upness.pid]] as const) {
        const quiet = await settle(pid);
        log(`  ${name}: quiet after ${fmt(quiet.seconds, 1)} s (${fmt(quiet.cpuSeconds, 2)} CPU-s meanwhile)`);
      }
      prometheus = {
        server: started.server,
        model: om.model,
        load: {
          version: bins.version,
          how: bins.how,
          installSeconds: bins.installSeconds,
          samples: om.samples,
          series: om.series,
          openMetricsBytes: om.bytes,
          openMetricsSeconds: om.seconds,
          promtoolSeconds: blocks.seconds,
          blockHours: blocks.blockHours,
          tsdbBytes: blocks.bytes,
          startSeconds: started.seconds,
          rssAfterStartBytes: mem.rssBytes,
          rssAfterQueriesBytes: 0,
          peakRssBytes: 0,
        },
      };
    }
  }

  // 3. The questions.
  const candidate = truth.detailJobSet();
  const detail: Detail | null =
    candidate === null
      ? null
      : {
          namespace: candidate.namespace,
          name: candidate.name,
          uids: candidate.timelines.map((tl) => tl.uid),
          figures: new Map(candidate.timelines.map((tl) => [tl.uid, figures(tl, to, from, to)])),
        };
  const results: QuestionResult[] = [];
  // The timed requests come from a process of their own (client.ts), for both peers.
  const client = LeanClient.start();
  try {
    for (const q of plan.questions) {
      if (q.id === 'jobset-detail' && detail === null) continue;
      const d = detail ?? { namespace: '', name: '', uids: [], figures: new Map() };
      const body = q.upness(w, d);
      const loadBefore = loadavg()[0]!;
      if (plan.jobsets >= 5000) log(`  asking: ${q.title} (${warmups} warm-up, ${plan.runs} timed)…`);
      const qStart = nowUs();
      const u = await timeRuns(client, plan.runs, `upness ${q.id}`, upness.pid, [upness.queryExchange(body)]);
      phases.push({ name: `Question: ${q.title}`, startUs: qStart, endUs: nowUs() });
      const upResult: SideResult = { stats: stats(u.times), cpuSeconds: u.cpuSeconds, check: q.checkUpness(u.bodies[0]!, truth, w, d) };
      let promResult: SideResult | undefined;
      if (prometheus !== null) {
        const server = prometheus.server;
        const requests = q.prometheus(w, d);
        const p = await timeRuns(
          client,
          plan.runs,
          `prometheus ${q.id}`,
          server.pid,
          requests.map((req) => server.queryExchange(req.path, req.params)),
        );
        promResult = {
          stats: stats(p.times),
          cpuSeconds: p.cpuSeconds,
          check: q.checkPrometheus(p.bodies, truth, prometheus.model, w, d),
          requests: requests.map((r) => (r.path === '/api/v1/query_range' ? `${r.params.query} (query_range, step ${r.params.step}s)` : r.params.query!)),
        };
      }
      results.push({ id: q.id, title: q.title, loadAverage: [loadBefore, loadavg()[0]!], upness: upResult, ...(promResult ? { prometheus: promResult } : {}) });
      const line = `  ${q.title}: upness ${ms(upResult.stats.median)} (p99 ${ms(upResult.stats.p99)}), ${checkText(upResult.check)}`;
      log(
        promResult === undefined
          ? line
          : `${line}; prometheus ${ms(promResult.stats.median)} (p99 ${ms(promResult.stats.p99)}) = ${times(promResult.stats.median / upResult.stats.median)}, ${checkText(promResult.check)}`,
      );
    }
  } finally {
    await client.close();
  }

  // 4. Memory after the questions, then stop.
  const upMem = memory(upness.pid);
  if (prometheus !== null) {
    const pm = memory(prometheus.server.pid);
    prometheus.load.rssAfterQueriesBytes = pm.rssBytes;
    prometheus.load.peakRssBytes = pm.peakRssBytes;
    await prometheus.server.stop();
    if (!args.keep) rmSync(join(WORK, `${tag}-tsdb`), { recursive: true, force: true });
  }
  await upness.stop();

  const result: SizeResult = {
    label: plan.label,
    jobsets,
    days,
    seed,
    fleetProfile: plan.fleetProfile,
    window: { from: new Date(from).toISOString(), to: new Date(to).toISOString(), hours: (to - from) / HOUR, stepSeconds: w.stepMs / 1000, points: truth.points.length },
    fleet: { uids: truth.uids, selected: truth.selected, transitions: truth.transitions, kinds: truth.kinds, duplicates: truth.duplicates },
    loadAverage: { load: loadAverageLoad, end: loadavg()[0]! },
    warmups,
    warmSeconds,
    upness: { ...upnessLoad, rssAfterQueriesBytes: upMem.rssBytes, peakRssAfterQueriesBytes: upMem.peakRssBytes },
    prometheus: prometheus?.load ?? null,
    ...(prometheusSkipped !== undefined ? { prometheusSkipped } : {}),
    detail: detail === null ? null : { namespace: detail.namespace, name: detail.name, uids: detail.uids.length },
    questions: results,
    targets: [],
  };
  result.targets = targetsOf(plan, result);
  if (plan.profile) {
    const cpuFile = newest(profileDir, '.cpuprofile');
    if (cpuFile !== null) result.profile = summarizeProfiles(cpuFile, newest(profileDir, '.heapprofile'), phases);
    else log(`  profile: no .cpuprofile in ${profileDir}`);
  }
  log('');
  return result;
}

function targetsOf(plan: SizePlan, r: SizeResult): Target[] {
  const targets: Target[] = [];
  const byId = new Map(r.questions.map((q) => [q.id, q]));
  if (plan.targets === 'side') {
    for (const q of r.questions) {
      targets.push({ what: q.title, goal: 'exact', measured: checkText(q.upness.check), met: upnessExact(q.upness.check) });
      if (q.prometheus !== undefined) {
        const ratio = q.prometheus.stats.median / q.upness.stats.median;
        targets.push({ what: q.title, goal: '≥ 100× faster than PromQL (medians)', measured: times(ratio), met: ratio >= 100 });
      }
    }
    return targets;
  }
  const summary = byId.get('fleet-summary');
  if (summary) targets.push({ what: 'Fleet summary', goal: 'p99 < 50 ms', measured: `p99 ${ms(summary.upness.stats.p99)} (median ${ms(summary.upness.stats.median)})`, met: summary.upness.stats.p99 < 50 });
  const series = byId.get('fleet-series-1h');
  if (series) {
    targets.push({
      what: `${r.days}-day series at 1 h steps`,
      goal: '< 200 ms',
      measured: `p99 ${ms(series.upness.stats.p99)} (median ${ms(series.upness.stats.median)})`,
      met: series.upness.stats.p99 < 200,
    });
  }
  targets.push({ what: 'RSS after load', goal: '< 200 MB', measured: `${fmt(r.upness.rssBytes / 1e6, 0)} MB (after the questions ${fmt(r.upness.rssAfterQueriesBytes / 1e6, 0)} MB)`, met: r.upness.rssBytes < 200e6 });
  targets.push({
    what: 'Ingest',
    goal: '≥ 100,000 observations/s',
    measured: `${int(r.upness.observationsPerSecond)} obs/s (${int(r.upness.observationsPerCoreSecond)} per server CPU-second; JSON.parse alone of such lines: ${int(machine.jsonParseLinesPerSecond)}/s on one core)`,
    met: r.upness.observationsPerSecond >= 100_000,
  });
  const reused = r.fleet.duplicates.uids.length;
  for (const q of r.questions) {
    const ok = upnessExact(q.upness.check);
    const note = !ok && reused > 0 ? ` — includes the ${int(r.fleet.duplicates.jobsets)} JobSets sharing ${int(reused)} UIDs the simulator reused` : '';
    targets.push({ what: q.title, goal: 'exact', measured: checkText(q.upness.check) + note, met: ok });
  }
  return targets;
}

// ── Main ─────────────────────────────────────────────────────────────────────────────────────

/**
 * The peer of the ingest rate, on this machine in this run: how many of the simulator's trace lines
 * one core turns into objects with JSON.parse alone (the least any JSON Lines reader pays).
 */
function jsonParseRate(): number {
  const lines: string[] = [];
  for (const line of simulateFleet({ jobsets: 200, days: 2, seed }).traceLines()) lines.push(line);
  let best = 0;
  for (let run = 0; run < 3; run++) {
    const t = performance.now();
    for (const line of lines) JSON.parse(line);
    best = Math.max(best, lines.length / ((performance.now() - t) / 1000));
  }
  return best;
}

const machine: Machine = {
  cpu: cpus()[0]?.model ?? 'unknown CPU',
  cores: availableParallelism(),
  memoryGiB: totalmem() / 2 ** 30,
  node: process.version,
  os: `${type()} ${release()}`,
  jsonParseLinesPerSecond: jsonParseRate(),
};
log(`Upness vs Prometheus — ${machine.cpu}, ${machine.cores} cores, ${fmt(machine.memoryGiB, 1)} GiB, Node ${machine.node}${smoke ? ' (smoke size)' : ''}`);
log('');
const started = performance.now();
const sizes: SizeResult[] = [];
for (const plan of plans) sizes.push(await runSize(plan));

const generated = `Generated ${new Date().toISOString()} by \`node backend/bench/prometheus/run.ts${process.argv.length > 2 ? ' ' + process.argv.slice(2).join(' ') : ''}\` in ${fmt((performance.now() - started) / 60_000, 1)} min`;
const page = markdown(machine, sizes, generated);
mkdirSync(RESULTS, { recursive: true });
writeFileSync(join(RESULTS, `${outName}.md`), page + '\n');
writeFileSync(join(RESULTS, `${outName}.json`), JSON.stringify({ generated, machine, sizes }, null, 2) + '\n');
log(page);
log(`Results written to ${join(RESULTS, `${outName}.md`)} and ${outName}.json`);

// The smoke run is a test: Upness must be exact, and Prometheus must hold what was loaded.
const failures: string[] = [];
for (const s of sizes) {
  for (const q of s.questions) {
    if (!upnessExact(q.upness.check)) failures.push(`${s.label}: Upness's answer to "${q.title}" is not the truth's`);
    if (q.prometheus !== undefined && !sampledOk(q.prometheus.check)) failures.push(`${s.label}: Prometheus's answer to "${q.title}" is not a 15 s sampling of the truth`);
  }
}
if (failures.length > 0) {
  for (const f of failures) log(`FAILED: ${f}`);
  process.exitCode = 1;
}
