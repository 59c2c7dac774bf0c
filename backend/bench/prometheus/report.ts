// The results as a Markdown page (and the same numbers as JSON, written by run.ts).

import type { Check, Diff, Unit } from './questions.ts';
import type { Stats } from './proc.ts';
import { fmt, int, MiB, ms } from './proc.ts';
import type { DuplicateUids, EventKinds } from './truth.ts';
import type { UpnessLoad } from './upness.ts';
import type { ProfileSummary } from './profile.ts';

export interface Machine {
  cpu: string;
  cores: number;
  memoryGiB: number;
  node: string;
  os: string;
  /** JSON.parse alone of simulated trace lines on one core: the floor of any replay. */
  jsonParseLinesPerSecond: number;
}

export interface SideResult {
  stats: Stats;
  /** CPU seconds the server used over the timed runs. */
  cpuSeconds: number;
  check: Check;
  /** Prometheus: the PromQL sent (one run sends them all, one after another). */
  requests?: string[];
}

export interface QuestionResult {
  id: string;
  title: string;
  /** The machine's 1-minute load average before and after the question (other work on a shared machine). */
  loadAverage: [number, number];
  upness: SideResult;
  prometheus?: SideResult;
}

export interface PrometheusLoad {
  version: string;
  how: string;
  installSeconds: number;
  samples: number;
  series: number;
  openMetricsBytes: number;
  openMetricsSeconds: number;
  promtoolSeconds: number;
  blockHours: number;
  tsdbBytes: number;
  startSeconds: number;
  rssAfterStartBytes: number;
  rssAfterQueriesBytes: number;
  peakRssBytes: number;
}

export interface SizeResult {
  label: string;
  jobsets: number;
  days: number;
  seed: number;
  fleetProfile: string;
  window: { from: string; to: string; hours: number; stepSeconds: number; points: number };
  fleet: { uids: number; selected: number; transitions: number; kinds: EventKinds; duplicates: DuplicateUids };
  upness: UpnessLoad & {
    observationsPerSecond: number;
    observationsPerCoreSecond: number;
    bytesPerTransition: number;
    rssAfterQueriesBytes: number;
    peakRssAfterQueriesBytes: number;
  };
  prometheus: PrometheusLoad | null;
  prometheusSkipped?: string;
  /** The machine's 1-minute load average before and after the load, and at the end. */
  loadAverage: { load: [number, number]; end: number };
  warmups: number;
  /** Warm-ups went on until this many seconds of a peer's answers had passed (0: --warmups alone). */
  warmSeconds?: number;
  detail: { namespace: string; name: string; uids: number } | null;
  questions: QuestionResult[];
  targets: Target[];
  profile?: ProfileSummary;
}

export interface Target {
  what: string;
  goal: string;
  measured: string;
  met: boolean;
}

/** A speed ratio: whole numbers from 10 up, one decimal below. */
export const times = (ratio: number): string => (ratio >= 10 ? `${int(ratio)}×` : `${fmt(ratio, 1)}×`);

const mb = (bytes: number): string => `${fmt(bytes / MiB, 0)} MiB`;

function pp(ratio: number): string {
  const points = ratio * 100;
  if (points === 0) return '0';
  return points >= 0.1 ? fmt(points, 2) : points >= 0.001 ? fmt(points, 4) : points.toExponential(1);
}

function diffText(d: Diff, unit: Unit): string {
  return diffBody(d, unit) + (d.skipped > 0 ? ` (${int(d.skipped)} JobSets with a reused UID left out)` : '');
}

function diffBody(d: Diff, unit: Unit): string {
  const sides: string[] = [];
  if (d.missing > 0) sides.push(`${int(d.missing)} missing`);
  if (d.extra > 0) sides.push(`${int(d.extra)} extra`);
  const tail = sides.length > 0 ? `; ${sides.join(', ')}` : '';
  if (d.max === 0 && d.missing === 0 && d.extra === 0) return `exact (${int(d.compared)} values)`;
  switch (unit) {
    case 'ratio':
      return `max ${pp(d.max)} pp, mean ${pp(d.mean)} pp of uptime${tail}`;
    case 'count':
      return `max ${int(d.max)}, mean ${fmt(d.mean, 2)} per JobSet; Σ ${int(d.answerTotal)} vs ${int(d.referenceTotal)} true${tail}`;
    case 'seconds':
      return `up ${int(d.answerTotal)} s vs ${int(d.referenceTotal)} s true (Δ ${int(d.max)} s)${tail}`;
    case 'fraction':
      return `max Δ ${fmt(d.max, 4)}, mean Δ ${fmt(d.mean, 4)}${tail}`;
  }
}

export function checkText(c: Check): string {
  if (c.parts !== undefined) {
    const names: Record<string, string> = { uptimeRatio: 'uptime', interruptions: 'interruptions', recoveries: 'recoveries' };
    const exactAll = c.everyFigure !== undefined ? c.everyFigure.max === 0 && c.everyFigure.missing === 0 && c.everyFigure.extra === 0 : false;
    if (exactAll) return `exact (every pooled figure)`;
    return Object.entries(c.parts)
      .map(([name, { diff, unit }]) => {
        if (diff.max === 0 && diff.missing === 0 && diff.extra === 0) return `${names[name] ?? name} exact`;
        if (unit === 'ratio') return `${names[name] ?? name} Δ ${pp(diff.max)} pp`;
        return `${names[name] ?? name} ${int(diff.answerTotal)} vs ${int(diff.referenceTotal)}`;
      })
      .join('; ');
  }
  if (c.everyFigure !== undefined && exact(c.truth) && exact(c.everyFigure)) {
    const skipped = c.truth.skipped > 0 ? `; ${int(c.truth.skipped)} JobSets with a reused UID left out` : '';
    return c.unit === 'seconds' ? `exact (${int(c.truth.referenceTotal)} s up; every figure in the answer)` : `exact (${int(c.truth.compared)} values; every figure in the answer${skipped})`;
  }
  return diffText(c.truth, c.unit);
}

export const exact = (d: Diff): boolean => d.max === 0 && d.missing === 0 && d.extra === 0;

/** A Prometheus answer equals a 15 s sampling of the truth (float rounding aside): the data was loaded right. */
export const sampledOk = (c: Check): boolean => c.sampled === undefined || (c.sampled.max <= 1e-9 && c.sampled.missing === 0 && c.sampled.extra === 0);

/** Upness's answer equals the truth: the figure asked about and, where the answer holds them, every other. */
export const upnessExact = (c: Check): boolean => exact(c.truth) && (c.everyFigure === undefined || exact(c.everyFigure));

function loadTable(r: SizeResult, machine: Machine): string[] {
  const u = r.upness;
  const p = r.prometheus;
  const rows: [string, string, string][] = [
    [
      'How the fleet was loaded',
      `\`upness serve --memory --trace -\`, trace piped in (${fmt(u.traceBytes / 2 ** 30, 2)} GiB, ${int(u.observations)} observations)`,
      p ? `OpenMetrics written (${fmt(p.openMetricsBytes / 2 ** 30, 2)} GiB, ${int(p.samples)} samples, ${int(p.series)} series), \`promtool tsdb create-blocks-from openmetrics\`, then \`prometheus\` started` : '—',
    ],
    ['Install', 'none (the project itself)', p ? (p.installSeconds > 0 ? `${fmt(p.installSeconds, 1)} s (${p.how})` : p.how) : '—'],
    [
      'Load time',
      `${fmt(u.wallSeconds, 1)} s (trace made and replayed together)`,
      p ? `${fmt(p.openMetricsSeconds + p.promtoolSeconds + p.startSeconds, 1)} s = write ${fmt(p.openMetricsSeconds, 1)} s + promtool ${fmt(p.promtoolSeconds, 1)} s + start ${fmt(p.startSeconds, 1)} s` : '—',
    ],
    [
      'Ingest rate',
      `${int(u.observationsPerSecond)} obs/s; ${int(u.observationsPerCoreSecond)} obs per server CPU-second (server ${fmt(u.serverCpuSeconds, 1)} CPU-s, simulator ${fmt(u.generatorCpuSeconds, 1)} CPU-s); JSON.parse alone of such lines: ${int(machine.jsonParseLinesPerSecond)}/s on one core`,
      p ? `${int(p.samples / (p.openMetricsSeconds + p.promtoolSeconds))} samples/s (write + promtool)` : '—',
    ],
    ['RSS after load', `${mb(u.rssBytes)} (${mb(u.baselineRssBytes)} empty; peak ${mb(u.peakRssBytes)})`, p ? mb(p.rssAfterStartBytes) : '—'],
    ['RSS after the questions', `${mb(u.rssAfterQueriesBytes)} (peak ${mb(u.peakRssAfterQueriesBytes)})`, p ? `${mb(p.rssAfterQueriesBytes)} (peak ${mb(p.peakRssBytes)})` : '—'],
    [
      'Size per unit of data',
      `${int(u.bytesPerTransition)} bytes of RSS per transition (${int(r.fleet.transitions)} transitions, ${int(r.fleet.uids)} UIDs)`,
      p ? `${fmt(p.tsdbBytes / p.samples, 2)} bytes on disk per sample (TSDB ${mb(p.tsdbBytes)}, one ${p.blockHours} h block)` : '—',
    ],
  ];
  return ['| | Upness | Prometheus |', '|---|---|---|', ...rows.map((row) => `| ${row.join(' | ')} |`)];
}

function questionTable(r: SizeResult): string[] {
  const side = r.prometheus !== null;
  const head = side
    ? [
        '| Question | Upness median | Upness p99 | Prometheus median | Prometheus p99 | Prometheus ÷ Upness | CPU per answer, Upness / Prometheus | Prometheus ÷ Upness (CPU) | Upness vs truth | Prometheus vs truth |',
        '|---|---:|---:|---:|---:|---:|---:|---:|---|---|',
      ]
    : ['| Question | Upness median | Upness p99 | Upness CPU per answer | Upness vs truth |', '|---|---:|---:|---:|---|'];
  const rows = r.questions.map((q) => {
    const u = q.upness;
    const uCpu = (1000 * u.cpuSeconds) / u.stats.runs;
    if (!side || q.prometheus === undefined) return `| ${q.title} | ${ms(u.stats.median)} | ${ms(u.stats.p99)} | ${ms(uCpu)} | ${checkText(u.check)} |`;
    const p = q.prometheus;
    const pCpu = (1000 * p.cpuSeconds) / p.stats.runs;
    return `| ${q.title} | ${ms(u.stats.median)} | ${ms(u.stats.p99)} | ${ms(p.stats.median)} | ${ms(p.stats.p99)} | **${times(p.stats.median / u.stats.median)}** | ${ms(uCpu)} / ${ms(pCpu)} | ${uCpu > 0 ? times(pCpu / uCpu) : '—'} | ${checkText(u.check)} | ${checkText(p.check)} |`;
  });
  return [...head, ...rows];
}

const plural = (n: number, what: string): string => `${int(n)} ${what}${n === 1 ? '' : 's'}`;

function loadRange(r: SizeResult): string {
  const all = r.questions.flatMap((q) => q.loadAverage);
  return all.length === 0 ? '—' : `${fmt(Math.min(...all), 1)}–${fmt(Math.max(...all), 1)}`;
}

export function markdown(machine: Machine, sizes: SizeResult[], generated: string): string {
  const out: string[] = [];
  out.push(`# Upness vs Prometheus (kube-state-metrics style), measured in one run`, '');
  out.push(`${generated}. Machine: ${machine.cpu}, ${machine.cores} cores, ${fmt(machine.memoryGiB, 1)} GiB, ${machine.os}, Node ${machine.node}.`, '');
  for (const r of sizes) {
    out.push(`## ${r.label}`, '');
    out.push(
      `${int(r.jobsets)} JobSet name slots × ${r.days} days (seed ${r.seed}, simulator profile ${r.fleetProfile}): ${int(r.fleet.uids)} JobSet UIDs, ${int(r.upness.observations)} observations, ${int(r.fleet.transitions)} transitions. ` +
        `Every question covers ${r.window.from} → ${r.window.to} (${r.window.hours} h; ${int(r.fleet.selected)} UIDs); series have ${r.window.points} points ${r.window.stepSeconds / 3600} h apart. ` +
        `Times are per answer over HTTP, to the last byte; ${plural(r.questions[0]?.upness.stats.runs ?? 0, 'timed run')} each after ${plural(r.warmups, 'warm-up')}${(r.warmSeconds ?? 0) > 0 ? ` and as many more as fit in ${r.warmSeconds} s of each peer's answers` : ''} (p99 is the nearest rank: the slowest run when there are fewer than 100). ` +
        `CPU per answer is the server's user + system time (/proc/<pid>/stat) over the timed runs, divided by their number. ` +
        `The machine is shared: its 1-minute load average was ${fmt(r.loadAverage.load[0], 1)}–${fmt(r.loadAverage.load[1], 1)} during the load and ${loadRange(r)} during the questions (2 cores), so wall times carry other work's noise; CPU seconds much less.`,
      '',
    );
    if (r.prometheusSkipped !== undefined) out.push(`Prometheus: ${r.prometheusSkipped}`, '');
    const dup = r.fleet.duplicates;
    if (dup.uids.length > 0) {
      out.push(
        `**The simulator reused ${plural(dup.uids.length, 'UID')}**: ${int(dup.jobsets)} different JobSets bear them (e.g. ${Object.entries(dup.examples)
          .slice(0, 2)
          .map(([uid, keys]) => `${uid}: ${keys.join(' and ')}`)
          .join('; ')}). ` +
          `Its random streams are keyed by a 32-bit hash of (seed, slot, run) (backend/src/sources/simulator/rng.ts), so at this many JobSets two of them draw the same stream, hence the same UID. ` +
          `Kubernetes never reuses a UID; Upness keys timelines by UID (DESIGN.md), so it merges each pair into one timeline, and answers that include them cannot equal the truth's separate JobSets, ` +
          `which hold ${int(dup.interruptions)} interruptions and ${int(dup.recoveries)} recoveries in the window. Per-JobSet comparisons leave those UIDs out; fleet-wide ones cannot.`,
        '',
      );
    }
    out.push(...loadTable(r, machine), '');
    out.push(...questionTable(r), '');
    if (r.prometheus !== null) {
      const allSampled = r.questions.every((q) => q.prometheus === undefined || sampledOk(q.prometheus.check));
      out.push(
        allSampled
          ? 'Every Prometheus answer equals a 15 s sampling of the truth computed by the benchmark (float rounding aside): the data was imported right, and its differences from the truth are those of sampling and of what a 0/1 gauge can say.'
          : '**Some Prometheus answers differ from a 15 s sampling of the truth** (see the JSON: `sampled`): the import or the model is off.',
        '',
      );
      out.push('PromQL sent (gauge `jobset_up`: 1 up, 0 provisioning or down, no sample while suspended or after the end):', '');
      for (const q of r.questions) if (q.prometheus?.requests) out.push(`- ${q.title}: ${q.prometheus.requests.map((x) => `\`${x}\``).join(', ')}`);
      const k = r.fleet.kinds;
      out.push(
        '',
        `Why the counts differ, in this window: ${int(k.upToDown)} up → down with a down period (resets() sees those lasting past a scrape), ` +
          `${int(k.zeroLengthRestarts)} zero-length restarts (interruption and recovery at one instant: no scrape sees them), ` +
          `${int(k.upToFailed)} up → failed (an interruption; the series just ends), ${int(k.upToSuspended)} preemptions up → suspended (not interruptions; resets() counts those resumed), ` +
          `${int(k.recoveries)} recoveries down → up, and ${int(k.firstUps)} first ups provisioning → up (not recoveries; changes() − resets() counts them).`,
        '',
      );
    }
    if (r.detail !== null) out.push(`Detail question: JobSet ${r.detail.namespace}/${r.detail.name} (${r.detail.uids} UID${r.detail.uids === 1 ? '' : 's'}).`, '');
    if (r.targets.length > 0) {
      out.push('Targets:', '', '| Target | Goal | Measured | Met |', '|---|---|---|---|');
      for (const t of r.targets) out.push(`| ${t.what} | ${t.goal} | ${t.measured} | ${t.met ? 'yes' : '**no**'} |`);
      out.push('');
    }
    if (r.profile !== undefined) out.push(...profileMarkdown(r.profile), '');
  }
  return out.join('\n');
}

function profileMarkdown(p: ProfileSummary): string[] {
  const out: string[] = [`### Profile of the Upness server (${p.file})`, ''];
  for (const phase of p.phases) {
    out.push(`${phase.name}: ${fmt(phase.sampledMs / 1000, 1)} s of samples.`, '', '| Self time | Function | Where |', '|---:|---|---|');
    for (const f of phase.top) out.push(`| ${fmt(f.percent, 1)}% | ${f.functionName || '(anonymous)'} | ${f.where} |`);
    out.push('', `By file: ${phase.byFile.map((f) => `${f.where} ${fmt(f.percent, 1)}%`).join(', ')}`, '');
  }
  if (p.heap !== undefined) {
    out.push(`Live heap at exit, by allocation site (sampled, ${mb(p.heap.totalBytes)}):`, '', '| Bytes | Function | Where |', '|---:|---|---|');
    for (const f of p.heap.top) out.push(`| ${mb(f.bytes)} | ${f.functionName || '(anonymous)'} | ${f.where} |`);
  }
  return out;
}
