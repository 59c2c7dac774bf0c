// The simulated fleet: N name slots, each creating JobSets one after another, merged into one
// stream of watch observations in time order. Memory is per live JobSet (its generator and the
// truth timeline built so far), never the whole trace.

import type { Observation } from '../../observation/types.ts';
import type { OpenTimeline } from '../../timeline/types.ts';
import type { JobSetRun } from './jobset-run.ts';
import { Slot } from './jobset-run.ts';
import type { Profile, ProfileName } from './profile.ts';
import { TIME, resolveProfile } from './profile.ts';
import { Rng } from './rng.ts';

export const DEFAULT_START = Date.UTC(2026, 0, 1);

export interface FleetOptions {
  /** Number of JobSet name slots running side by side (each creates JobSets one after another). */
  jobsets: number;
  /** Length of the simulated period; observations are received in [start, start + days). */
  days: number;
  seed: number;
  /** Epoch ms; default 2026-01-01T00:00:00Z. */
  start?: number;
  /** A named profile ("realistic", the default, or "demo"), or overrides of the realistic one. */
  profile?: ProfileName | Partial<Profile>;
  /**
   * The cluster under the JobSets too: Nodes in pools and the JobSets' Pods, nodes that break as
   * the cause of some interruptions, and the node layer's truth. Default false: the JobSets alone
   * (the benchmarks' stream, unchanged by this option).
   */
  nodes?: boolean;
  /**
   * Kueue's Workloads of the Kueue JobSets too (admitted, preempted with Kueue's reasons); the truth's
   * preemptions then carry the Workload's reason. Default false (the benchmarks' stream, unchanged).
   */
  workloads?: boolean;
}

/** Receives a JobSet UID's truth: its timeline, its node layer's when the fleet has nodes, and its node pools' timelines. */
export type TruthCallback = (timeline: OpenTimeline, nodeLayer: OpenTimeline | null, pools: readonly OpenTimeline[]) => void;

export interface Fleet {
  readonly jobsets: number;
  readonly seed: number;
  readonly start: number;
  /** Exclusive: no observation is received at or after it. */
  readonly end: number;
  readonly profile: Readonly<Profile>;
  readonly nodes: boolean;
  /**
   * The fleet's observations in non-decreasing `receivedAt` order (ties: by slot, then by creation).
   * Each call starts over and yields the same stream. `onTimeline`, if given, receives the truth of
   * each JobSet UID once its last observation has been yielded (after its DELETED observation or at
   * the end of the period): every transition its observations imply, in order.
   */
  observations(onTimeline?: TruthCallback): Generator<Observation, void, undefined>;
  /**
   * The same stream as trace lines (DESIGN.md's format, no newline), built without making objects:
   * each line equals traceLine() of the corresponding observation. The fast way to write a trace.
   */
  traceLines(onTimeline?: TruthCallback): Generator<string, void, undefined>;
  /** The truth for every UID, sorted by createdAt then uid. Runs the whole simulation (holds all timelines). */
  truth(): OpenTimeline[];
  /** The node layer's truth for every UID (empty without `nodes`), in the order of truth(). */
  nodeTruth(): OpenTimeline[];
  /** The node pools' truth (empty without `nodes`), sorted by createdAt then uid. */
  poolTruth(): OpenTimeline[];
}

/**
 * A binary min-heap of the live JobSets, keyed by the time of their pending observation, ties broken
 * by slot then creation. Keys live in typed arrays: with thousands of JobSets, comparing through the
 * run objects themselves would be one cache miss per comparison.
 */
class RunHeap {
  private times = new Float64Array(1024);
  private orders = new Float64Array(1024);
  private runs: JobSetRun[] = [];
  private n = 0;

  peek(): JobSetRun | undefined {
    return this.n === 0 ? undefined : this.runs[0];
  }

  push(run: JobSetRun): void {
    if (this.n === this.times.length) {
      const times = new Float64Array(this.n * 2);
      const orders = new Float64Array(this.n * 2);
      times.set(this.times);
      orders.set(this.orders);
      this.times = times;
      this.orders = orders;
    }
    const { times, orders, runs } = this;
    const t = run.nextAt;
    const order = run.order;
    let i = this.n++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const pt = times[parent]!;
      if (pt < t || (pt === t && orders[parent]! < order)) break;
      times[i] = pt;
      orders[i] = orders[parent]!;
      runs[i] = runs[parent]!;
      i = parent;
    }
    times[i] = t;
    orders[i] = order;
    runs[i] = run;
  }

  /** Restores the order after the top run's pending observation moved later. */
  siftTop(): void {
    if (this.n === 0) return;
    this.siftDown(this.runs[0]!);
  }

  popTop(): void {
    const last = this.runs[--this.n]!;
    this.runs.length = this.n;
    if (this.n > 0) this.siftDown(last);
  }

  /** Places `run` starting from the root, moving smaller children up. */
  private siftDown(run: JobSetRun): void {
    const { times, orders, runs, n } = this;
    const t = run.nextAt;
    const order = run.order;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      let c = l;
      if (r < n) {
        const rt = times[r]!;
        const lt = times[l]!;
        if (rt < lt || (rt === lt && orders[r]! < orders[l]!)) c = r;
      }
      const ct = times[c]!;
      if (t < ct || (t === ct && order < orders[c]!)) break;
      times[i] = ct;
      orders[i] = orders[c]!;
      runs[i] = runs[c]!;
      i = c;
    }
    times[i] = t;
    orders[i] = order;
    runs[i] = run;
  }
}

function validate(options: FleetOptions): void {
  const { jobsets, days, seed } = options;
  if (!Number.isInteger(jobsets) || jobsets < 0 || jobsets > 1_000_000) {
    throw new RangeError(`jobsets must be an integer in [0, 1000000], got ${jobsets}`);
  }
  if (!Number.isFinite(days) || days <= 0) throw new RangeError(`days must be a positive number, got ${days}`);
  if (!Number.isSafeInteger(seed)) throw new RangeError(`seed must be a safe integer, got ${seed}`);
  if (options.start !== undefined && !Number.isSafeInteger(options.start)) {
    throw new RangeError(`start must be an integer epoch in ms, got ${options.start}`);
  }
}

export function simulateFleet(options: FleetOptions): Fleet {
  validate(options);
  const { jobsets, seed } = options;
  const start = options.start ?? DEFAULT_START;
  const end = start + Math.round(options.days * TIME.DAY);
  const profile = Object.freeze(resolveProfile(options.profile));
  const nodes = options.nodes ?? false;
  const workloads = options.workloads ?? false;

  /** Merges the lives of all JobSets; `take` turns the earliest pending observation into an output. */
  function* merge<T>(
    take: (run: JobSetRun, resourceVersion: string) => T,
    onTimeline: TruthCallback | undefined,
  ): Generator<T, void, undefined> {
    const heap = new RunHeap();
    const spawned: JobSetRun[] = [];
    const onSpawn = (run: JobSetRun): void => {
      spawned.push(run);
    };
    const finish = (run: JobSetRun): void => {
      if (onTimeline !== undefined && run.timeline.transitions.length > 0) onTimeline(run.timeline, run.nodeTimeline, run.poolTimelines);
    };
    // Start spawned JobSets: run each to its first observation, whose time is its key in the heap.
    const admit = (): void => {
      for (const run of spawned) {
        if (run.advance()) heap.push(run);
        else finish(run);
      }
      spawned.length = 0;
    };

    const spread = Math.min(profile.initialSpread, end - start);
    for (let i = 0; i < jobsets; i++) {
      const slot = new Slot(i, seed, profile, end, onSpawn, nodes, workloads);
      slot.spawn(start + new Rng(seed, 3, i).float() * spread, null);
    }
    admit();

    // etcd's revision: one global counter, advancing by a little more than one per JobSet write
    // because other objects are written too.
    let revision = 4_200_000 + (Math.abs(seed) % 100_000);
    let last = -Infinity;
    for (;;) {
      const run = heap.peek();
      if (run === undefined) return;
      if (run.nextAt < last) throw new Error('simulator bug: observations out of order');
      last = run.nextAt;
      revision += 1 + ((revision >>> 2) & 3);
      const out = take(run, String(revision));
      // Advance this JobSet before yielding: it may spawn the slot's next JobSet, never earlier than `out`.
      const more = run.advance();
      if (more) heap.siftTop();
      else heap.popTop();
      admit();
      yield out;
      if (!more) finish(run);
    }
  }

  const toObservation = (run: JobSetRun, resourceVersion: string): Observation => {
    const o = run.observation();
    o.object.metadata.resourceVersion = resourceVersion;
    return o;
  };
  const toLine = (run: JobSetRun, resourceVersion: string): string => run.traceLine(resourceVersion);

  const sortTruth = (out: OpenTimeline[]): OpenTimeline[] => out.sort((a, b) => a.createdAt - b.createdAt || (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0));
  return {
    jobsets,
    seed,
    start,
    end,
    profile,
    nodes,
    observations: (onTimeline) => merge(toObservation, onTimeline),
    traceLines: (onTimeline) => merge(toLine, onTimeline),
    truth(): OpenTimeline[] {
      const out: OpenTimeline[] = [];
      for (const _ of merge(() => null, (t) => out.push(t))) {
        // Drain: the truth is complete only once every JobSet has ended or reached the end.
      }
      return sortTruth(out);
    },
    nodeTruth(): OpenTimeline[] {
      const out: OpenTimeline[] = [];
      for (const _ of merge(() => null, (_t, n) => n !== null && out.push(n))) {
        // Drain, as truth() does.
      }
      return sortTruth(out);
    },
    poolTruth(): OpenTimeline[] {
      const out: OpenTimeline[] = [];
      for (const _ of merge(() => null, (_t, _n, pools) => out.push(...pools))) {
        // Drain, as truth() does.
      }
      return sortTruth(out);
    },
  };
}
