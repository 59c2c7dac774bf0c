// The exact answers, from the simulator's truth. Timelines arrive one by one (the simulator's
// onTimeline callback, as each UID's last observation is streamed), so nothing needs the whole
// fleet in memory: every figure is computed with backend/src/series as it arrives and summed.
//
// Upness's series are additive totals C(b) − C(a) of the same integer milliseconds, so hour
// buckets (E_k, E_k+1] summed per namespace give the step series and, 24 at a time, the rolling
// series, bit for bit what Upness must answer.

import { figuresFromTotals, firstUp, timeToFirstUpAt, type Figures } from '../../src/series/figures.ts';
import { cumulativeAt, endOf, FIELDS, INTERRUPTIONS, RECOVERIES, windowTotals } from '../../src/series/totals.ts';
import { transitionCount, transitionsOf, type Timeline } from '../../src/timeline/types.ts';

export interface TruthOptions {
  /** The window of every question: [from, to]. */
  from: number;
  to: number;
  /** Upness's points of the hourly series (first, last, step), as it plans them. */
  first: number;
  last: number;
  stepMs: number;
  /** Keep every figure of every JobSet (for the per-JobSet questions). */
  perJobSet: boolean;
  /** Keep every timeline (to write the Prometheus data from them afterwards). */
  keepTimelines: boolean;
  /** Keep the timelines of one name in `detailSample` (by a hash of the name) as candidates for the detail question. */
  detailSample: number;
}

export interface JobSetTruth {
  namespace: string;
  name: string;
  figures: Figures;
}

/** What happened in the window, by kind: why a 0/1 gauge sampled every 15 s reads differently. */
export interface EventKinds {
  /** up → down with a down period longer than zero (what resets() can see). */
  upToDown: number;
  /** up → down → up at the same instant: a restart faster than the watch (no scrape can see it). */
  zeroLengthRestarts: number;
  /** up → failed: an interruption; the series ends (no 0 follows). */
  upToFailed: number;
  /** up → suspended (preemption): not an interruption, but 1 → (no series) → 0 once resumed. */
  upToSuspended: number;
  /** down → up. */
  recoveries: number;
  /** provisioning → up: the first up after creation or a resume, not a recovery (but 0 → 1 all the same). */
  firstUps: number;
}

function nameHash(name: string): number {
  let h = 2166136261;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** The truth as plain data, to pass between processes (v8.serialize keeps Maps and typed arrays). */
export interface TruthData {
  options: TruthOptions;
  buckets: Map<string, Float64Array>;
  fleet: Float64Array;
  perJobSet: Map<string, JobSetTruth>;
  timelines: Timeline[];
  candidates: Map<string, Timeline[]>;
  kinds: EventKinds;
  uids: number;
  transitions: number;
  selected: number;
  duplicates: DuplicateUids;
}

/**
 * UIDs the simulator gave to more than one JobSet. Kubernetes never does; Upness keys timelines by
 * UID (DESIGN.md), so it merges such JobSets into one timeline, and no answer that includes them
 * can equal the truth's separate ones. Per-JobSet comparisons leave them out; fleet-wide ones cannot.
 */
export interface DuplicateUids {
  uids: string[];
  /** The truth's JobSets bearing those UIDs, and their events in the window. */
  jobsets: number;
  interruptions: number;
  recoveries: number;
  /** Examples: uid → the namespace/name of each JobSet that bore it. */
  examples: Record<string, string[]>;
}

export class Truth {
  readonly options: TruthOptions;
  /** The hourly series' points t_k. */
  readonly points: number[];
  /** Bucket edges E_0 = t_0 − step, E_k+1 = t_k: bucket k is (E_k, E_k+1]. */
  readonly #edges: Float64Array;
  readonly #scratch: Float64Array;
  /** Per namespace: FIELDS totals per bucket. */
  buckets = new Map<string, Float64Array>();
  /** The whole window's totals, summed over the fleet. */
  fleet: Float64Array = new Float64Array(FIELDS);
  perJobSet = new Map<string, JobSetTruth>();
  timelines: Timeline[] = [];
  candidates = new Map<string, Timeline[]>();
  kinds: EventKinds = { upToDown: 0, zeroLengthRestarts: 0, upToFailed: 0, upToSuspended: 0, recoveries: 0, firstUps: 0 };
  uids = 0;
  transitions = 0;
  /** UIDs created by `to` (what the questions select). */
  selected = 0;
  duplicates: DuplicateUids = { uids: [], jobsets: 0, interruptions: 0, recoveries: 0, examples: {} };
  /** Every UID seen, with the JobSet's name and its events in the window (to account for duplicates). */
  #seen = new Map<string, { key: string; interruptions: number; recoveries: number; counted: boolean }>();

  constructor(options: TruthOptions) {
    this.options = options;
    this.points = [];
    for (let t = options.first; t <= options.last; t += options.stepMs) this.points.push(t);
    this.#edges = new Float64Array(this.points.length + 1);
    this.#edges[0] = options.first - options.stepMs;
    this.points.forEach((t, k) => (this.#edges[k + 1] = t));
    this.#scratch = new Float64Array((this.points.length + 1) * FIELDS);
  }

  toData(): TruthData {
    const { options, buckets, fleet, perJobSet, timelines, candidates, kinds, uids, transitions, selected, duplicates } = this;
    return { options, buckets, fleet, perJobSet, timelines, candidates, kinds, uids, transitions, selected, duplicates };
  }

  static fromData(data: TruthData): Truth {
    const truth = new Truth(data.options);
    truth.buckets = data.buckets;
    truth.fleet = data.fleet;
    truth.perJobSet = data.perJobSet;
    truth.timelines = data.timelines;
    truth.candidates = data.candidates;
    truth.kinds = data.kinds;
    truth.uids = data.uids;
    truth.transitions = data.transitions;
    truth.selected = data.selected;
    truth.duplicates = data.duplicates;
    return truth;
  }

  add(tl: Timeline): void {
    const { from, to, stepMs } = this.options;
    this.uids++;
    this.transitions += transitionCount(tl);
    if (this.options.keepTimelines) this.timelines.push(tl);
    if (tl.createdAt > to) return;
    this.selected++;
    // Any horizon at or after `to` gives the same figures over [from, to].
    const horizon = to;
    const totals = windowTotals(tl, horizon, from, to);
    for (let f = 0; f < FIELDS; f++) this.fleet[f]! += totals[f]!;
    this.#noteUid(tl, totals[INTERRUPTIONS]!, totals[RECOVERIES]!);
    if (this.options.perJobSet) {
      this.perJobSet.set(tl.uid, { namespace: tl.namespace, name: tl.name, figures: figuresFromTotals(totals, timeToFirstUpAt(firstUp(tl), to)) });
    }
    if (nameHash(tl.name) % this.options.detailSample === 0) {
      const key = `${tl.namespace}/${tl.name}`;
      const list = this.candidates.get(key);
      if (list === undefined) this.candidates.set(key, [tl]);
      else list.push(tl);
    }
    this.#classify(tl);

    // Hour buckets, only where the timeline lived: C is 0 before its creation and constant after its end.
    const n = this.points.length;
    const e0 = this.#edges[0]!;
    const j0 = Math.min(n, Math.max(0, Math.ceil((tl.createdAt - e0) / stepMs) - 1));
    const j1 = Math.min(n, Math.max(0, Math.ceil((endOf(tl, horizon) - e0) / stepMs)));
    if (j1 <= j0) return;
    cumulativeAt(tl, horizon, this.#edges.subarray(j0, j1 + 1), this.#scratch);
    let b = this.buckets.get(tl.namespace);
    if (b === undefined) this.buckets.set(tl.namespace, (b = new Float64Array(n * FIELDS)));
    const c = this.#scratch;
    for (let k = j0; k < j1; k++) {
      const hi = (k - j0 + 1) * FIELDS;
      const lo = (k - j0) * FIELDS;
      const o = k * FIELDS;
      for (let f = 0; f < FIELDS; f++) b[o + f]! += c[hi + f]! - c[lo + f]!;
    }
  }

  #noteUid(tl: Timeline, interruptions: number, recoveries: number): void {
    const key = `${tl.namespace}/${tl.name}`;
    const first = this.#seen.get(tl.uid);
    if (first === undefined) {
      this.#seen.set(tl.uid, { key, interruptions, recoveries, counted: false });
      return;
    }
    const d = this.duplicates;
    if (!first.counted) {
      first.counted = true;
      d.uids.push(tl.uid);
      d.jobsets++;
      d.interruptions += first.interruptions;
      d.recoveries += first.recoveries;
      if (d.uids.length <= 5) d.examples[tl.uid] = [first.key];
    }
    d.jobsets++;
    d.interruptions += interruptions;
    d.recoveries += recoveries;
    d.examples[tl.uid]?.push(key);
  }

  #classify(tl: Timeline): void {
    const { from, to } = this.options;
    const tr = transitionsOf(tl);
    for (let i = 1; i < tr.length; i++) {
      const prev = tr[i - 1]!;
      const cur = tr[i]!;
      if (cur.at <= from || cur.at > to) continue;
      if (prev.state === 'up') {
        if (cur.state === 'down') {
          const next = tr[i + 1];
          if (next !== undefined && next.state === 'up' && next.at === cur.at) this.kinds.zeroLengthRestarts++;
          else this.kinds.upToDown++;
        } else if (cur.state === 'failed') this.kinds.upToFailed++;
        else if (cur.state === 'suspended') this.kinds.upToSuspended++;
      } else if (cur.state === 'up') {
        if (prev.state === 'down') this.kinds.recoveries++;
        else if (prev.state === 'provisioning') this.kinds.firstUps++;
      }
    }
  }

  namespaces(): string[] {
    return [...this.buckets.keys()].sort();
  }

  /** Totals of the bucket window (t_k − length, t_k] for one namespace (or all, with null), summed. */
  windowTotals(k: number, buckets: number, namespace: string | null): Float64Array {
    const out = new Float64Array(FIELDS);
    const lists = namespace === null ? [...this.buckets.values()] : [this.buckets.get(namespace) ?? new Float64Array(0)];
    for (const b of lists) {
      for (let j = Math.max(0, k - buckets + 1); j <= k; j++) {
        const o = j * FIELDS;
        if (o >= b.length) continue;
        for (let f = 0; f < FIELDS; f++) out[f]! += b[o + f]!;
      }
    }
    return out;
  }

  /** The detail question's JobSet: among the sampled names, the one with the most transitions in the window. */
  detailJobSet(): { namespace: string; name: string; timelines: Timeline[] } | null {
    let best: { key: string; score: number } | null = null;
    for (const [key, list] of this.candidates) {
      if (list.every((tl) => tl.createdAt > this.options.to)) continue;
      const score = list.reduce((a, tl) => a + transitionsOf(tl).filter((t) => t.at <= this.options.to).length, 0);
      if (best === null || score > best.score || (score === best.score && key < best.key)) best = { key, score };
    }
    if (best === null) return null;
    const timelines = this.candidates.get(best.key)!.filter((tl) => tl.createdAt <= this.options.to);
    return { namespace: timelines[0]!.namespace, name: timelines[0]!.name, timelines };
  }
}
