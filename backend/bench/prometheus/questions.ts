// The questions, as each side is asked them over HTTP, and how each answer is checked: Upness's
// against the truth (it must be equal), Prometheus's against the truth (how far off a 15 s
// scrape is) and against a 15 s sampling of the truth (it must be equal: the import is right).
//
// Which PromQL matches which Upness figure, on a gauge that is 1 up, 0 provisioning or down, and
// absent while suspended or after the end:
//   uptimeRatio = up / (up + provisioning + down), suspended excluded
//       ≈ avg_over_time(jobset_up[W]): the share of present samples that are 1.
//   interruptions = up → down or up → failed
//       ≈ resets(jobset_up[W]): 1 → 0 between consecutive present samples. It misses restarts
//         faster than a scrape (zero-length ones always), misses up → failed (the series ends
//         without a 0), and counts a preemption (1, suspended: absent, resumed: 0) as one.
//   recoveries = down → up
//       ≈ changes(jobset_up[W]) - resets(jobset_up[W]): 0 → 1 between present samples. It also
//         counts every first up (provisioning → up after creation or a resume), which is not a
//         recovery, and misses recoveries from zero-length restarts.

import { FIGURE_NAMES, figureValue, type FigureName, type Figures } from '../../src/series/figures.ts';
import { INTERRUPTION_DOWN, PROVISIONING, UP } from '../../src/series/totals.ts';
import { NAMESPACES } from '../../src/sources/simulator/manifest.ts';
import { METRIC, SCRAPE_MS, type SampledModel } from './prometheus.ts';
import type { Truth } from './truth.ts';

export interface Window {
  from: number;
  to: number;
  /** The hourly series: Upness's points (first … last, every stepMs). */
  first: number;
  last: number;
  stepMs: number;
  rollingMs: number;
  maxDataPoints: number;
}

export interface Detail {
  namespace: string;
  name: string;
  uids: string[];
  /** The truth's figures of each UID over the window. */
  figures: Map<string, Figures>;
}

export interface PromRequest {
  path: '/api/v1/query' | '/api/v1/query_range';
  params: Record<string, string>;
}

/** How an answer compares with a reference, value by value. */
export class Diff {
  compared = 0;
  /** The reference has a value, the answer has none. */
  missing = 0;
  /** The answer has a value, the reference has none. */
  extra = 0;
  max = 0;
  sum = 0;
  answerTotal = 0;
  referenceTotal = 0;
  /** Values left out of the comparison (JobSets whose UID the simulator reused). */
  skipped = 0;
  /** The first few values that differ, to say where to look. */
  examples: { key: string; answer: number | null; reference: number | null }[] = [];

  add(answer: number | null | undefined, reference: number | null | undefined, key = ''): void {
    const a = answer ?? null;
    const r = reference ?? null;
    if (a === null && r === null) {
      this.compared++;
      return;
    }
    if (a === null || r === null) {
      if (a === null) this.missing++;
      else this.extra++;
      this.#example(key, a, r);
      return;
    }
    const d = Math.abs(a - r);
    this.compared++;
    this.sum += d;
    if (d > this.max) this.max = d;
    if (d > 0) this.#example(key, a, r);
    this.answerTotal += a;
    this.referenceTotal += r;
  }

  #example(key: string, answer: number | null, reference: number | null): void {
    if (this.examples.length < 5) this.examples.push({ key, answer, reference });
  }

  get mean(): number {
    return this.compared > 0 ? this.sum / this.compared : 0;
  }

  exact(tolerance = 0): boolean {
    return this.missing === 0 && this.extra === 0 && this.max <= tolerance;
  }

  toJSON(): Record<string, unknown> {
    return {
      compared: this.compared,
      missing: this.missing,
      extra: this.extra,
      skipped: this.skipped,
      maxAbs: this.max,
      meanAbs: this.mean,
      answerTotal: this.answerTotal,
      referenceTotal: this.referenceTotal,
      examples: this.examples,
    };
  }
}

/** `fraction`: a unitless SLO figure (a budget's remaining share, a burn rate). */
export type Unit = 'ratio' | 'count' | 'seconds' | 'fraction';

export interface Check {
  /** Against the truth, per value of the answer. */
  truth: Diff;
  unit: Unit;
  /** More comparisons to show (e.g. each fleet figure), by name. */
  parts?: Record<string, { diff: Diff; unit: Unit }>;
  /** Prometheus: against a 15 s sampling of the truth (must be equal up to float rounding). */
  sampled?: Diff;
  /** Upness: every figure of every JobSet in the answer compared with the truth. */
  everyFigure?: Diff;
}

export interface Question {
  id: string;
  title: string;
  upness(w: Window, detail: Detail): unknown;
  prometheus(w: Window, detail: Detail): PromRequest[];
  checkUpness(body: string, truth: Truth, w: Window, detail: Detail): Check;
  checkPrometheus(bodies: string[], truth: Truth, model: SampledModel, w: Window, detail: Detail): Check;
}

// ── Reading the answers ──────────────────────────────────────────────────────────────────────

interface Frame {
  schema: { name?: string; meta?: { custom?: unknown }; fields: { name: string; labels?: Record<string, string> }[] };
  data: { values: unknown[][] };
}

function upnessFrames(body: string, refId: string): Frame[] {
  const parsed = JSON.parse(body) as { results?: Record<string, { status: number; frames?: Frame[]; error?: string }>; error?: string };
  const result = parsed.results?.[refId];
  if (result === undefined || result.status !== 200) throw new Error(`Upness did not answer ${refId}: ${result?.error ?? parsed.error ?? body.slice(0, 200)}`);
  return result.frames ?? [];
}

function column<T>(frame: Frame, name: string): T[] {
  const i = frame.schema.fields.findIndex((f) => f.name === name);
  if (i < 0) throw new Error(`Upness frame ${frame.schema.name} has no field ${name}`);
  return frame.data.values[i] as T[];
}

/** The summary table as rows keyed by UID. */
function summaryRows(body: string, refId = 'A'): Map<string, Record<string, unknown>> {
  const frame = upnessFrames(body, refId)[0]!;
  const names = frame.schema.fields.map((f) => f.name);
  const rows = new Map<string, Record<string, unknown>>();
  const uids = column<string>(frame, 'uid');
  uids.forEach((uid, r) => rows.set(uid, Object.fromEntries(names.map((n, i) => [n, frame.data.values[i]![r]]))));
  return rows;
}

/** The first series frame's (time → value) map, and its value field's labels. */
function seriesPoints(frame: Frame): { labels: Record<string, string>; points: Map<number, number | null> } {
  const times = frame.data.values[0] as number[];
  const values = frame.data.values[1] as (number | null)[];
  return { labels: frame.schema.fields[1]!.labels ?? {}, points: new Map(times.map((t, i) => [t, values[i]!])) };
}

interface PromSeries {
  metric: Record<string, string>;
  value?: [number, string];
  values?: [number, string][];
}

function promResult(body: string): PromSeries[] {
  const parsed = JSON.parse(body) as { status: string; data?: { result: PromSeries[] }; error?: string };
  if (parsed.status !== 'success') throw new Error(`Prometheus answered ${parsed.status}: ${parsed.error ?? body.slice(0, 200)}`);
  return parsed.data!.result;
}

function promNumber(text: string): number | null {
  const v = Number(text);
  return Number.isFinite(v) ? v : null;
}

/** One value per UID from an instant vector. */
function promByUid(body: string): Map<string, number | null> {
  return new Map(promResult(body).map((s) => [s.metric.uid!, promNumber(s.value![1])]));
}

/** Points (ms → value) of each series of a range answer, keyed by a label (or '' for one series). */
function promSeries(body: string, label: string | null): Map<string, Map<number, number | null>> {
  return new Map(promResult(body).map((s) => [label === null ? '' : (s.metric[label] ?? ''), new Map(s.values!.map(([t, v]) => [Math.round(t * 1000), promNumber(v)]))]));
}

// ── Helpers shared by the questions ──────────────────────────────────────────────────────────

const range = (w: Window): string => `${(w.to - w.from) / 1000}s`;
const instant = (w: Window, query: string): PromRequest => ({ path: '/api/v1/query', params: { query, time: String(w.to / 1000) } });
const rangeQuery = (w: Window, query: string): PromRequest => ({
  path: '/api/v1/query_range',
  params: { query, start: String(w.first / 1000), end: String(w.last / 1000), step: String(w.stepMs / 1000) },
});

/** What Grafana sends to /api/ds/query, for the data source's queries. */
function grafanaBody(w: Window, queries: Record<string, unknown>[]): unknown {
  return {
    from: String(w.from),
    to: String(w.to),
    queries: queries.map((q) => ({ datasource: { type: 'upness-jobset-datasource', uid: 'upness' }, intervalMs: w.stepMs, maxDataPoints: w.maxDataPoints, ...q })),
  };
}

/** Upness's per-JobSet table, checked figure by figure; `figure` is the one the question is about. */
function checkSummaryTable(body: string, truth: Truth, figure: FigureName): Check {
  const rows = summaryRows(body);
  const diff = new Diff();
  const every = new Diff();
  const reused = new Set(truth.duplicates.uids);
  for (const [uid, t] of truth.perJobSet) {
    if (reused.has(uid)) {
      diff.skipped++;
      every.skipped++;
      continue;
    }
    const row = rows.get(uid);
    diff.add(row === undefined ? null : (row[figure] as number | null), t.figures[figure], uid);
    // Every figure the table holds (a question asks for its own column only, as PromQL answers one value).
    for (const f of FIGURE_NAMES) if (row === undefined || f in row) every.add(row === undefined ? null : (row[f] as number | null), t.figures[f], `${uid} ${f}`);
  }
  for (const uid of rows.keys()) {
    if (!truth.perJobSet.has(uid)) {
      diff.extra++;
      every.extra++;
    }
  }
  return { truth: diff, unit: figure === 'uptimeRatio' ? 'ratio' : 'count', everyFigure: every };
}

/** Prometheus's per-UID vector against the truth's figure and the sampled model's value. */
function checkPerUid(body: string, truth: Truth, model: SampledModel, figure: FigureName, sampled: (u: { count: number; up: number; resets: number; changes: number }) => number | null): Check {
  const answer = promByUid(body);
  const diff = new Diff();
  const vsModel = new Diff();
  const reused = new Set(truth.duplicates.uids);
  for (const [uid, t] of truth.perJobSet) {
    if (reused.has(uid)) {
      diff.skipped++;
      vsModel.skipped++;
      continue;
    }
    let reference = t.figures[figure];
    // A JobSet never up nor down in the window has no uptime ratio: both sides agree when absent.
    if (figure !== 'uptimeRatio' && reference === 0 && !answer.has(uid)) reference = null;
    diff.add(answer.get(uid), reference, uid);
    const m = model.perUid.get(uid);
    vsModel.add(answer.get(uid), m === undefined || m.count === 0 ? null : sampled(m), uid);
  }
  for (const uid of answer.keys()) {
    if (!truth.perJobSet.has(uid)) {
      diff.extra++;
      vsModel.extra++;
    }
  }
  return { truth: diff, unit: figure === 'uptimeRatio' ? 'ratio' : 'count', sampled: vsModel };
}

/**
 * A dashboard's per-JobSet table: the `limit` JobSets first by `figure` in `direction`, as the
 * service sorts them (nulls last, ties by namespace, name and UID). The truth's rows in that order,
 * JobSets whose UID the simulator reused left out.
 */
function truthOrder(truth: Truth, figure: FigureName, direction: 'asc' | 'desc'): { uid: string; value: number | null }[] {
  const reused = new Set(truth.duplicates.uids);
  const rows = [...truth.perJobSet].filter(([uid]) => !reused.has(uid)).map(([uid, t]) => ({ uid, namespace: t.namespace, name: t.name, value: t.figures[figure] }));
  const sign = direction === 'asc' ? 1 : -1;
  const byKey = (a: { namespace: string; name: string; uid: string }, b: { namespace: string; name: string; uid: string }): number =>
    a.namespace !== b.namespace ? (a.namespace < b.namespace ? -1 : 1) : a.name !== b.name ? (a.name < b.name ? -1 : 1) : a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0;
  rows.sort((a, b) => {
    if (a.value === null || b.value === null) return a.value === b.value ? byKey(a, b) : a.value === null ? 1 : -1;
    return a.value === b.value ? byKey(a, b) : sign * (a.value < b.value ? -1 : 1);
  });
  return rows;
}

/**
 * Upness's sorted, limited table against the truth's order: the rows shown, reused UIDs left out,
 * must be the truth's first rows in order with their values; meta.custom.rows the whole table's.
 */
function checkShapedTable(body: string, truth: Truth, figure: FigureName, direction: 'asc' | 'desc', limit: number): Check {
  const frame = upnessFrames(body, 'A')[0]!;
  const uids = column<string>(frame, 'uid');
  const values = column<number | null>(frame, figure);
  const reused = new Set(truth.duplicates.uids);
  const expected = truthOrder(truth, figure, direction);
  const diff = new Diff();
  let k = 0;
  uids.forEach((uid, r) => {
    if (reused.has(uid)) {
      diff.skipped++;
      return;
    }
    const want = expected[k++];
    if (want === undefined || want.uid !== uid) {
      diff.extra++;
      return;
    }
    diff.add(values[r] ?? null, want.value, uid);
  });
  diff.missing += Math.min(limit, expected.length + diff.skipped) - uids.length;
  const rows = (frame.schema.meta?.custom as { rows?: number } | undefined)?.rows;
  // Every UID that lived in the window is a row of the whole table (JobSets sharing a UID as one).
  if (rows !== truth.perJobSet.size) {
    diff.missing += 1;
    diff.examples.push({ key: 'meta.custom.rows', answer: rows ?? null, reference: truth.perJobSet.size });
  }
  return { truth: diff, unit: figure === 'uptimeRatio' ? 'ratio' : 'count' };
}

/** Prometheus's topk/bottomk against the truth's first rows: each one's value where it answered, and its values against the 15 s sampling. */
function checkShapedPerUid(body: string, truth: Truth, model: SampledModel, figure: FigureName, direction: 'asc' | 'desc', limit: number, sampled: (u: { count: number; up: number; resets: number; changes: number }) => number | null): Check {
  const answer = promByUid(body);
  const diff = new Diff();
  for (const { uid, value } of truthOrder(truth, figure, direction).slice(0, limit)) diff.add(answer.get(uid), value, uid);
  const vsModel = new Diff();
  for (const [uid, v] of answer) {
    const m = model.perUid.get(uid);
    vsModel.add(v, m === undefined || m.count === 0 ? null : sampled(m), uid);
  }
  return { truth: diff, unit: figure === 'uptimeRatio' ? 'ratio' : 'count', sampled: vsModel };
}

/** The rows a dashboard's per-JobSet table shows (a bar gauge, a "worst 50" table). */
const SHOWN = 50;

const ratio = (totals: ArrayLike<number>): number | null => figureValue(totals, 0, 'uptimeRatio', null);

/** Up seconds from a states frame: the rows' times and states, each lasting until the next row. */
function upSecondsFromStates(frame: Frame): number {
  const times = frame.data.values[0] as number[];
  const states = frame.data.values[1] as (string | null)[];
  let ms = 0;
  for (let i = 0; i + 1 < times.length; i++) if (states[i] === 'up') ms += times[i + 1]! - times[i]!;
  return ms / 1000;
}

/** The detail JobSet's up time over the window, summed over its UIDs in whole milliseconds (no rounding). */
function truthUpSeconds(d: Detail): number {
  return d.uids.reduce((a, uid) => a + Math.round(d.figures.get(uid)!.upSeconds * 1000), 0) / 1000;
}

// ── The questions ────────────────────────────────────────────────────────────────────────────

export const QUESTIONS: Question[] = [
  {
    id: 'uptime-per-jobset',
    title: 'Uptime ratio per JobSet, whole range',
    upness: (w) => grafanaBody(w, [{ refId: 'A', queryType: 'summary', groupBy: 'none', figures: ['uptimeRatio'] }]),
    prometheus: (w) => [instant(w, `avg_over_time(${METRIC}[${range(w)}])`)],
    checkUpness: (body, truth) => checkSummaryTable(body, truth, 'uptimeRatio'),
    checkPrometheus: ([body], truth, model) => checkPerUid(body!, truth, model, 'uptimeRatio', (m) => m.up / m.count),
  },
  {
    id: 'interruptions-per-jobset',
    title: 'Interruptions per JobSet, whole range',
    upness: (w) => grafanaBody(w, [{ refId: 'A', queryType: 'summary', groupBy: 'none', figures: ['interruptions'] }]),
    prometheus: (w) => [instant(w, `resets(${METRIC}[${range(w)}])`)],
    checkUpness: (body, truth) => checkSummaryTable(body, truth, 'interruptions'),
    checkPrometheus: ([body], truth, model) => checkPerUid(body!, truth, model, 'interruptions', (m) => m.resets),
  },
  {
    id: 'recoveries-per-jobset',
    title: 'Recoveries per JobSet, whole range',
    upness: (w) => grafanaBody(w, [{ refId: 'A', queryType: 'summary', groupBy: 'none', figures: ['recoveries'] }]),
    prometheus: (w) => [instant(w, `changes(${METRIC}[${range(w)}]) - resets(${METRIC}[${range(w)}])`)],
    checkUpness: (body, truth) => checkSummaryTable(body, truth, 'recoveries'),
    checkPrometheus: ([body], truth, model) => checkPerUid(body!, truth, model, 'recoveries', (m) => m.changes - m.resets),
  },
  // What a dashboard's per-JobSet table asks (issue 21 §4): the 50 it shows, sorted and limited in
  // the service, the whole table's row count and totals in the meta; Prometheus asked the same with
  // bottomk/topk, which still evaluates every series.
  {
    id: 'uptime-worst-50-per-jobset',
    title: 'Uptime ratio per JobSet, the 50 lowest (sort + limit)',
    upness: (w) => grafanaBody(w, [{ refId: 'A', queryType: 'summary', groupBy: 'none', figures: ['uptimeRatio'], sort: { by: 'uptimeRatio', direction: 'asc' }, limit: SHOWN }]),
    prometheus: (w) => [instant(w, `bottomk(${SHOWN}, avg_over_time(${METRIC}[${range(w)}]))`)],
    checkUpness: (body, truth) => checkShapedTable(body, truth, 'uptimeRatio', 'asc', SHOWN),
    checkPrometheus: ([body], truth, model) => checkShapedPerUid(body!, truth, model, 'uptimeRatio', 'asc', SHOWN, (m) => m.up / m.count),
  },
  {
    id: 'interruptions-top-50-per-jobset',
    title: 'Interruptions per JobSet, the 50 most (sort + limit)',
    upness: (w) => grafanaBody(w, [{ refId: 'A', queryType: 'summary', groupBy: 'none', figures: ['interruptions'], sort: { by: 'interruptions', direction: 'desc' }, limit: SHOWN }]),
    prometheus: (w) => [instant(w, `topk(${SHOWN}, resets(${METRIC}[${range(w)}]))`)],
    checkUpness: (body, truth) => checkShapedTable(body, truth, 'interruptions', 'desc', SHOWN),
    checkPrometheus: ([body], truth, model) => checkShapedPerUid(body!, truth, model, 'interruptions', 'desc', SHOWN, (m) => m.resets),
  },
  {
    id: 'recoveries-top-50-per-jobset',
    title: 'Recoveries per JobSet, the 50 most (sort + limit)',
    upness: (w) => grafanaBody(w, [{ refId: 'A', queryType: 'summary', groupBy: 'none', figures: ['recoveries'], sort: { by: 'recoveries', direction: 'desc' }, limit: SHOWN }]),
    prometheus: (w) => [instant(w, `topk(${SHOWN}, changes(${METRIC}[${range(w)}]) - resets(${METRIC}[${range(w)}]))`)],
    checkUpness: (body, truth) => checkShapedTable(body, truth, 'recoveries', 'desc', SHOWN),
    checkPrometheus: ([body], truth, model) => checkShapedPerUid(body!, truth, model, 'recoveries', 'desc', SHOWN, (m) => m.changes - m.resets),
  },
  {
    id: 'fleet-summary',
    title: 'Fleet summary: pooled uptime ratio, Σ interruptions, Σ recoveries',
    upness: (w) => grafanaBody(w, [{ refId: 'A', queryType: 'summary', groupBy: 'all', aggregate: 'pooled' }]),
    prometheus: (w) => [
      instant(w, `sum(sum_over_time(${METRIC}[${range(w)}])) / sum(count_over_time(${METRIC}[${range(w)}]))`),
      instant(w, `sum(resets(${METRIC}[${range(w)}]))`),
      instant(w, `sum(changes(${METRIC}[${range(w)}])) - sum(resets(${METRIC}[${range(w)}]))`),
    ],
    checkUpness: (body, truth) => {
      const frame = upnessFrames(body, 'A')[0]!;
      const parts: Record<string, { diff: Diff; unit: Unit }> = {};
      const all = new Diff();
      for (const f of ['uptimeRatio', 'interruptions', 'recoveries'] as const) {
        const diff = new Diff();
        diff.add(column<number | null>(frame, f)[0], figureValue(truth.fleet, 0, f, null));
        parts[f] = { diff, unit: f === 'uptimeRatio' ? 'ratio' : 'count' };
      }
      // Every pooled figure but the time to first up (pooled as a mean of the JobSets' own).
      for (const f of FIGURE_NAMES) if (f !== 'timeToFirstUpSeconds') all.add(column<number | null>(frame, f)[0], figureValue(truth.fleet, 0, f, null));
      return { truth: all, unit: 'ratio', parts, everyFigure: all };
    },
    checkPrometheus: (bodies, truth, model, w) => {
      const [uptime, resets, recoveries] = bodies.map((b) => {
        const r = promResult(b);
        return r.length > 0 ? promNumber(r[0]!.value![1]) : null;
      });
      const s = model.window(w.from, w.to, null);
      let sumResets = 0;
      let sumChanges = 0;
      for (const m of model.perUid.values()) {
        sumResets += m.resets;
        sumChanges += m.changes;
      }
      const parts: Record<string, { diff: Diff; unit: Unit }> = {};
      const sampled = new Diff();
      const answers = { uptimeRatio: uptime, interruptions: resets, recoveries };
      const modelled = { uptimeRatio: s.count > 0 ? s.up / s.count : null, interruptions: sumResets, recoveries: sumChanges - sumResets };
      for (const f of ['uptimeRatio', 'interruptions', 'recoveries'] as const) {
        const diff = new Diff();
        diff.add(answers[f], figureValue(truth.fleet, 0, f, null));
        parts[f] = { diff, unit: f === 'uptimeRatio' ? 'ratio' : 'count' };
        sampled.add(answers[f], modelled[f]);
      }
      return { truth: parts.uptimeRatio!.diff, unit: 'ratio', parts, sampled };
    },
  },
  {
    id: 'fleet-series-1h',
    title: 'Fleet uptime ratio series, 1 h steps over the range',
    upness: (w) => grafanaBody(w, [{ refId: 'A', queryType: 'series', metric: 'uptimeRatio', groupBy: 'all', aggregate: 'pooled', window: 'step' }]),
    prometheus: (w) => [rangeQuery(w, `sum(sum_over_time(${METRIC}[1h])) / sum(count_over_time(${METRIC}[1h]))`)],
    checkUpness: (body, truth) => {
      const { points } = seriesPoints(upnessFrames(body, 'A')[0]!);
      const diff = new Diff();
      truth.points.forEach((t, k) => diff.add(points.get(t), ratio(truth.windowTotals(k, 1, null)), new Date(t).toISOString()));
      diff.extra += [...points.keys()].filter((t) => !truth.points.includes(t)).length;
      return { truth: diff, unit: 'ratio' };
    },
    checkPrometheus: ([body], truth, model, w) => {
      const points = promSeries(body!, null).get('') ?? new Map<number, number | null>();
      const diff = new Diff();
      const sampled = new Diff();
      truth.points.forEach((t, k) => {
        diff.add(points.get(t), ratio(truth.windowTotals(k, 1, null)));
        const s = model.window(t - w.stepMs, t, null);
        sampled.add(points.get(t), s.count > 0 ? s.up / s.count : null);
      });
      return { truth: diff, unit: 'ratio', sampled };
    },
  },
  {
    id: 'rolling-24h-by-namespace',
    title: 'Rolling 24 h uptime ratio by namespace, 1 h steps',
    upness: (w) => grafanaBody(w, [{ refId: 'A', queryType: 'series', metric: 'uptimeRatio', groupBy: 'namespace', aggregate: 'pooled', window: 'rolling', rolling: '24h' }]),
    prometheus: (w) => [
      rangeQuery(w, `sum by (namespace) (sum_over_time(${METRIC}[24h])) / sum by (namespace) (count_over_time(${METRIC}[24h]))`),
    ],
    checkUpness: (body, truth, w) => {
      const frames = upnessFrames(body, 'A').map(seriesPoints);
      const diff = new Diff();
      const buckets = w.rollingMs / w.stepMs;
      for (const ns of truth.namespaces()) {
        const points = frames.find((f) => f.labels.namespace === ns)?.points ?? new Map<number, number | null>();
        truth.points.forEach((t, k) => diff.add(points.get(t), ratio(truth.windowTotals(k, buckets, ns)), `${ns} ${new Date(t).toISOString()}`));
      }
      diff.extra += frames.filter((f) => !truth.namespaces().includes(f.labels.namespace ?? '')).length;
      return { truth: diff, unit: 'ratio' };
    },
    checkPrometheus: ([body], truth, model, w) => {
      const series = promSeries(body!, 'namespace');
      const diff = new Diff();
      const sampled = new Diff();
      const buckets = w.rollingMs / w.stepMs;
      for (const ns of truth.namespaces()) {
        const points = series.get(ns) ?? new Map<number, number | null>();
        truth.points.forEach((t, k) => {
          diff.add(points.get(t), ratio(truth.windowTotals(k, buckets, ns)));
          const s = model.window(t - w.rollingMs, t, ns);
          sampled.add(points.get(t), s.count > 0 ? s.up / s.count : null);
        });
      }
      return { truth: diff, unit: 'ratio', sampled };
    },
  },
  {
    id: 'jobset-detail',
    title: "One JobSet's detail: states over the range, and its figures",
    upness: (w, d) =>
      grafanaBody(w, [
        { refId: 'S', queryType: 'states', namespaces: [d.namespace], name: d.name },
        { refId: 'F', queryType: 'summary', namespaces: [d.namespace], name: d.name },
      ]),
    prometheus: (w, d) => [instant(w, `${METRIC}{namespace="${d.namespace}",jobset="${d.name}"}[${range(w)}]`)],
    checkUpness: (body, _truth, _w, d) => {
      const states = upnessFrames(body, 'S');
      const rows = summaryRows(body, 'F');
      const diff = new Diff();
      diff.add(states.length === 1 ? upSecondsFromStates(states[0]!) : null, truthUpSeconds(d));
      const every = new Diff();
      for (const uid of d.uids) for (const f of FIGURE_NAMES) every.add(rows.get(uid)?.[f] as number | null | undefined, d.figures.get(uid)![f]);
      every.extra += [...rows.keys()].filter((uid) => !d.uids.includes(uid)).length;
      return { truth: diff, unit: 'seconds', everyFigure: every };
    },
    checkPrometheus: ([body], _truth, model, _w, d) => {
      const series = promResult(body!);
      let upSamples = 0;
      for (const s of series) for (const [, v] of s.values ?? []) if (v === '1') upSamples++;
      const diff = new Diff();
      diff.add((upSamples * SCRAPE_MS) / 1000, truthUpSeconds(d));
      const sampled = new Diff();
      const modelled = d.uids.reduce((a, uid) => a + (model.perUid.get(uid)?.up ?? 0), 0);
      sampled.add(upSamples, modelled);
      return { truth: diff, unit: 'seconds', sampled };
    },
  },
  ...sloQuestions(),
];

// ── SLO questions (issue 13) ─────────────────────────────────────────────────────────────────
//
// At objective o, over a window: counted = up + down (suspended, queued, unknown, post-terminal
// time excluded), error ratio = down ÷ counted, burn rate = error ratio ÷ (1 − o), budget
// remaining = 1 − error ratio ÷ (1 − o). Sloth's recording rules compute the same from an error
// ratio: `slo:sli_error:ratio_rate<W>` and `slo:period_error_budget_remaining:ratio`; on the 0/1
// gauge the error ratio over W is 1 − Σ sum_over_time ÷ Σ count_over_time (absent samples, i.e.
// suspended or ended, count for neither, as Upness excludes them).

const OBJECTIVE = 0.95;
/** The simulator's namespaces. */
const SIM_NAMESPACES = NAMESPACES.map((n) => n.name);
/** `(1 - 0.95)` as PromQL and JavaScript both compute it: the same float on both sides. */
const BUDGET = 1 - OBJECTIVE;

/** The truth's pooled (up, down) milliseconds of one JobSet name over the window, from its UIDs' figures. */
function namesTruth(truth: Truth): { byName: Map<string, { up: number; down: number; uids: string[] }>; reused: Set<string> } {
  const byName = new Map<string, { up: number; down: number; uids: string[] }>();
  for (const [uid, t] of truth.perJobSet) {
    const key = `${t.namespace}/${t.name}`;
    let n = byName.get(key);
    if (n === undefined) byName.set(key, (n = { up: 0, down: 0, uids: [] }));
    // Whole milliseconds, as the timelines hold them: sums stay exact.
    n.up += Math.round(t.figures.upSeconds * 1000);
    n.down += Math.round(t.figures.downSeconds * 1000);
    n.uids.push(uid);
  }
  const reusedUids = new Set(truth.duplicates.uids);
  return { byName, reused: new Set([...byName].filter(([, n]) => n.uids.some((u) => reusedUids.has(u))).map(([k]) => k)) };
}

/** Upness's remaining budget share, in its own order of operations: allowed = (1 − o) × counted, (allowed − down) ÷ allowed. */
function remainingFraction(up: number, down: number): number | null {
  const counted = up + down;
  if (counted === 0) return null;
  const allowed = BUDGET * counted;
  return (allowed - down) / allowed;
}

/** The names (reused ones left out) by remaining budget share, least first, as the service sorts them: nulls last, ties by namespace and name. */
function namesOrder(truth: Truth): { name: string; value: number | null }[] {
  const { byName, reused } = namesTruth(truth);
  const rows = [...byName].filter(([name]) => !reused.has(name)).map(([name, n]) => ({ name, key: name.replace('/', '\u0000'), value: remainingFraction(n.up, n.down) }));
  rows.sort((a, b) => {
    if (a.value === null || b.value === null) return a.value === b.value ? (a.key < b.key ? -1 : 1) : a.value === null ? 1 : -1;
    return a.value === b.value ? (a.key < b.key ? -1 : 1) : a.value < b.value ? -1 : 1;
  });
  return rows;
}

function burnRate(up: number, down: number): number | null {
  const counted = up + down;
  return counted === 0 ? null : down / counted / BUDGET;
}

function sloQuestions(): Question[] {
  return [
    {
      // Ends in -per-jobset so the truth keeps each UID's figures (summed here per name).
      id: 'slo-budget-per-jobset',
      title: 'SLO: error budget remaining per JobSet name (95 %, period = the range)',
      // One table frame, a row per name (`format: table`), as Prometheus answers one vector: until
      // 2026-11-26 it asked a frame per name, one query per namespace (~7,000 names are more than
      // the 5,000 series one query may make), 9.5 MiB of JSON of mostly repeated field schemas.
      // Since issue 21 §4's next step, only the figure Prometheus answers (`columns`), not the
      // answer's six: the fair question, and what a budget table shows.
      upness: (w) =>
        grafanaBody(w, [
          { refId: 'A', queryType: 'slo', sloAnswer: 'errorBudget', objective: OBJECTIVE, period: `${w.to - w.from}ms`, groupBy: 'none', window: 'range', format: 'table', columns: ['remainingFraction'] },
        ]),
      prometheus: (w) => [
        instant(
          w,
          `1 - (1 - sum by (namespace, jobset) (sum_over_time(${METRIC}[${range(w)}])) / sum by (namespace, jobset) (count_over_time(${METRIC}[${range(w)}]))) / (1 - ${OBJECTIVE})`,
        ),
      ],
      checkUpness: (body, truth) => {
        const { byName, reused } = namesTruth(truth);
        const table = upnessFrames(body, 'A')[0]!;
        const namespaces = column<string>(table, 'namespace');
        const jobsets = column<string>(table, 'jobset');
        const remaining = column<number | null>(table, 'remainingFraction');
        const answers = new Map(namespaces.map((ns, r) => [`${ns}/${jobsets[r]}`, remaining[r] ?? null]));
        if (answers.size !== namespaces.length) throw new Error('Upness answered a JobSet name twice');
        const diff = new Diff();
        for (const [name, n] of byName) {
          if (reused.has(name)) {
            diff.skipped++;
            continue;
          }
          diff.add(answers.get(name), remainingFraction(n.up, n.down), name);
        }
        diff.extra += [...answers.keys()].filter((k) => !byName.has(k)).length;
        return { truth: diff, unit: 'fraction' };
      },
      checkPrometheus: ([body], truth, model) => {
        const { byName, reused } = namesTruth(truth);
        const answers = new Map(promResult(body!).map((r) => [`${r.metric.namespace}/${r.metric.jobset}`, promNumber(r.value![1])]));
        const sampledByName = new Map<string, { up: number; count: number }>();
        for (const m of model.perUid.values()) {
          const key = `${m.namespace}/${m.name}`;
          const s = sampledByName.get(key) ?? { up: 0, count: 0 };
          s.up += m.up;
          s.count += m.count;
          sampledByName.set(key, s);
        }
        const diff = new Diff();
        const sampled = new Diff();
        for (const [name, n] of byName) {
          if (reused.has(name)) {
            diff.skipped++;
            sampled.skipped++;
            continue;
          }
          // A name never up nor down in the window has no samples and no answer: both sides agree.
          diff.add(answers.get(name), n.up + n.down === 0 && !answers.has(name) ? null : remainingFraction(n.up, n.down), name);
          const m = sampledByName.get(name);
          sampled.add(answers.get(name), m === undefined || m.count === 0 ? null : 1 - (1 - m.up / m.count) / BUDGET, name);
        }
        return { truth: diff, unit: 'fraction', sampled };
      },
    },
    {
      // The same as a frame per name, one query per namespace, as it was asked until 2026-11-26
      // (~7,000 names are more than the 5,000 series one query may make): the figure beside the table's.
      id: 'slo-budget-frames-per-jobset',
      title: 'SLO: error budget remaining per JobSet name, a frame per name (as asked before `format: table`)',
      upness: (w) =>
        grafanaBody(
          w,
          SIM_NAMESPACES.map((ns, i) => ({ refId: `A${i}`, queryType: 'slo', sloAnswer: 'errorBudget', objective: OBJECTIVE, period: `${w.to - w.from}ms`, groupBy: 'none', window: 'range', namespaces: [ns] })),
        ),
      prometheus: (w) => [
        instant(
          w,
          `1 - (1 - sum by (namespace, jobset) (sum_over_time(${METRIC}[${range(w)}])) / sum by (namespace, jobset) (count_over_time(${METRIC}[${range(w)}]))) / (1 - ${OBJECTIVE})`,
        ),
      ],
      checkUpness: (body, truth) => {
        const { byName, reused } = namesTruth(truth);
        const answers = new Map(
          SIM_NAMESPACES.flatMap((_, i) => upnessFrames(body, `A${i}`)).map((f) => [`${f.schema.fields[1]!.labels?.namespace}/${f.schema.fields[1]!.labels?.jobset}`, column<number | null>(f, 'remainingFraction')[0] ?? null]),
        );
        const diff = new Diff();
        for (const [name, n] of byName) {
          if (reused.has(name)) {
            diff.skipped++;
            continue;
          }
          diff.add(answers.get(name), remainingFraction(n.up, n.down), name);
        }
        diff.extra += [...answers.keys()].filter((k) => !byName.has(k)).length;
        return { truth: diff, unit: 'fraction' };
      },
      checkPrometheus: (bodies, truth, model, w, d) => QUESTIONS_BY_ID.get('slo-budget-per-jobset')!.checkPrometheus(bodies, truth, model, w, d),
    },
    {
      // What the SLO dashboard's bar gauge asks: the names with least budget left, sorted and limited in the service.
      id: 'slo-budget-least-50-per-jobset',
      title: 'SLO: error budget remaining, the 50 JobSet names with least left (sort + limit)',
      upness: (w) =>
        grafanaBody(w, [
          {
            refId: 'A',
            queryType: 'slo',
            sloAnswer: 'errorBudget',
            objective: OBJECTIVE,
            period: `${w.to - w.from}ms`,
            groupBy: 'none',
            window: 'range',
            format: 'table',
            columns: ['remainingFraction'],
            sort: { by: 'remainingFraction', direction: 'asc' },
            limit: SHOWN,
          },
        ]),
      prometheus: (w) => [
        instant(
          w,
          `bottomk(${SHOWN}, 1 - (1 - sum by (namespace, jobset) (sum_over_time(${METRIC}[${range(w)}])) / sum by (namespace, jobset) (count_over_time(${METRIC}[${range(w)}]))) / (1 - ${OBJECTIVE}))`,
        ),
      ],
      checkUpness: (body, truth) => {
        const table = upnessFrames(body, 'A')[0]!;
        const namespaces = column<string>(table, 'namespace');
        const jobsets = column<string>(table, 'jobset');
        const remaining = column<number | null>(table, 'remainingFraction');
        const { reused } = namesTruth(truth);
        const expected = namesOrder(truth);
        const diff = new Diff();
        let k = 0;
        namespaces.forEach((ns, r) => {
          const name = `${ns}/${jobsets[r]}`;
          if (reused.has(name)) {
            diff.skipped++;
            return;
          }
          const want = expected[k++];
          if (want === undefined || want.name !== name) {
            diff.extra++;
            return;
          }
          diff.add(remaining[r] ?? null, want.value, name);
        });
        diff.missing += Math.min(SHOWN, expected.length + diff.skipped) - namespaces.length;
        return { truth: diff, unit: 'fraction' };
      },
      checkPrometheus: ([body], truth) => {
        const answers = new Map(promResult(body!).map((r) => [`${r.metric.namespace}/${r.metric.jobset}`, promNumber(r.value![1])]));
        const diff = new Diff();
        for (const { name, value } of namesOrder(truth).slice(0, SHOWN)) diff.add(answers.get(name), value, name);
        return { truth: diff, unit: 'fraction' };
      },
    },
    {
      id: 'slo-burn-1h-by-namespace',
      title: 'SLO: 1 h burn rate by namespace (95 %), 1 h steps over the range',
      upness: (w) =>
        grafanaBody(w, [{ refId: 'A', queryType: 'slo', sloAnswer: 'burnRate', objective: OBJECTIVE, period: '30d', burnWindow: '1h', shortWindow: '5m', groupBy: 'namespace', window: 'step' }]),
      prometheus: (w) => [
        rangeQuery(w, `(1 - sum by (namespace) (sum_over_time(${METRIC}[1h])) / sum by (namespace) (count_over_time(${METRIC}[1h]))) / (1 - ${OBJECTIVE})`),
      ],
      checkUpness: (body, truth) => {
        const frames = upnessFrames(body, 'A').map(seriesPoints);
        const diff = new Diff();
        for (const ns of truth.namespaces()) {
          const points = frames.find((f) => f.labels.namespace === ns)?.points ?? new Map<number, number | null>();
          truth.points.forEach((t, k) => {
            const totals = truth.windowTotals(k, 1, ns);
            diff.add(points.get(t), burnRate(totals[UP]!, totals[PROVISIONING]! + totals[INTERRUPTION_DOWN]!), `${ns} ${new Date(t).toISOString()}`);
          });
        }
        diff.extra += frames.filter((f) => !truth.namespaces().includes(f.labels.namespace ?? '')).length;
        return { truth: diff, unit: 'fraction' };
      },
      checkPrometheus: ([body], truth, model, w) => {
        const series = promSeries(body!, 'namespace');
        const diff = new Diff();
        const sampled = new Diff();
        for (const ns of truth.namespaces()) {
          const points = series.get(ns) ?? new Map<number, number | null>();
          truth.points.forEach((t, k) => {
            const totals = truth.windowTotals(k, 1, ns);
            diff.add(points.get(t), burnRate(totals[UP]!, totals[PROVISIONING]! + totals[INTERRUPTION_DOWN]!));
            const s = model.window(t - w.stepMs, t, ns);
            sampled.add(points.get(t), s.count > 0 ? (1 - s.up / s.count) / BUDGET : null);
          });
        }
        return { truth: diff, unit: 'fraction', sampled };
      },
    },
  ];
}

const QUESTIONS_BY_ID = new Map(QUESTIONS.map((q) => [q.id, q]));
