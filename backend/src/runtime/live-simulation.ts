// The simulated cluster of the main job: a seeded fleet whose history (the last few days) is
// replayed at once, then advances with the clock (or faster, with `speed`), so dashboards have data
// at start and move. Anchored (its start and the wall time it began) so that after a restart it
// resumes the same fleet: what happened while the service was down arrives as a relist would.

import { z } from 'zod';
import { simulateFleet, type ProfileName } from '../sources/simulator/index.ts';
import type { TimelineEngine } from '../timeline/engine.ts';
import { ClusterEngine } from '../nodes/engine.ts';
import type { Observation } from '../observation/types.ts';
import type { UsageBook } from '../usage/book.ts';
import { SimulatedUsageFeed } from './simulated-usage.ts';

export interface SimulationAnchor {
  /** Simulated time at which the fleet starts (history begins). */
  start: number;
  /** Wall-clock time at which the simulated time was start + history. */
  wallOrigin: number;
}

export interface LiveSimulationOptions {
  jobsets: number;
  historyDays: number;
  seed: number;
  profile: ProfileName;
  /** The wall clock. */
  now: () => number;
  /** Simulated seconds per wall second (1: real time). */
  speed?: number;
  anchor?: SimulationAnchor;
  /** The cluster under the JobSets too (Pods and Nodes: the node layer); needs a ClusterEngine. */
  nodes?: boolean;
  /** Kueue's Workloads of the Kueue JobSets too (their eviction reasons). */
  workloads?: boolean;
  /** The JobSets' resource usage too (sources/simulator/usage.ts), into this book, kept for `retentionMs`. */
  usage?: { book: UsageBook; retentionMs?: number };
}

const DAY = 86_400_000;

const simulationSpeed = z.object({ speed: z.number().positive().default(1) });

export class LiveSimulation {
  readonly anchor: SimulationAnchor;
  readonly #engine: TimelineEngine;
  readonly #wall: () => number;
  readonly #speed: number;
  readonly #historyMs: number;
  readonly #stream: Iterator<Observation>;
  #pending: IteratorResult<Observation>;
  #timer: NodeJS.Timeout | null = null;
  readonly #usage: SimulatedUsageFeed | null;
  /** Every observation up to this simulated time has been fed to the engine. */
  advancedTo: number | null = null;

  constructor(engine: TimelineEngine, options: LiveSimulationOptions) {
    this.#engine = engine;
    this.#wall = options.now;
    this.#speed = simulationSpeed.parse(options).speed;
    this.#historyMs = options.historyDays * DAY;
    const wall = options.now();
    this.anchor = options.anchor ?? { start: wall - this.#historyMs, wallOrigin: wall };
    // Ten years ahead: the stream is lazy, so only what the clock reaches is ever generated.
    const fleet = simulateFleet({ jobsets: options.jobsets, days: options.historyDays + 3650, seed: options.seed, start: this.anchor.start, profile: options.profile, nodes: options.nodes ?? false, workloads: options.workloads ?? false });
    this.#stream = fleet.observations();
    this.#pending = this.#stream.next();
    const usage = options.usage;
    this.#usage =
      usage === undefined
        ? null
        : new SimulatedUsageFeed(() => engine.timelines(), usage.book, { seed: options.seed, from: this.anchor.start, ...(usage.retentionMs !== undefined ? { retentionMs: usage.retentionMs } : {}) });
  }

  /** The simulated clock: what "now" means for this cluster. */
  now(): number {
    return this.anchor.start + this.#historyMs + (this.#wall() - this.anchor.wallOrigin) * this.#speed;
  }

  /** Feeds every observation due by now; returns how many. */
  advance(): number {
    const now = this.now();
    let n = 0;
    while (!this.#pending.done && this.#pending.value.receivedAt <= now) {
      this.#engine.observe(this.#pending.value);
      this.#pending = this.#stream.next();
      n++;
    }
    this.advancedTo = now;
    this.#usage?.sampleUntil(now);
    return n;
  }

  /**
   * After a restart: skips what the store already holds (up to `observedUntil`), and delivers what
   * exists as a relist would — the latest version of each object, at the moment of the relist —
   * then ends the gap.
   */
  resume(observedUntil: number): number {
    const now = this.now();
    const latest = new Map<string, Observation>();
    // A relist lists every object that exists: the node layer kept none of the Pods and Nodes, nor
    // what a JobSet needs, across the restart. A Node that existed at the gap and is gone is a
    // deletion it must see.
    const existing = new Map<string, Observation>();
    const cluster = new Map<string, Observation>();
    const nodesAtGap = new Set<string>();
    const goneNodes: Observation[] = [];
    let crossed = false;
    const cross = (): void => {
      crossed = true;
      for (const [uid, o] of cluster) if (o.object.kind === 'Node') nodesAtGap.add(uid);
    };
    while (!this.#pending.done && this.#pending.value.receivedAt <= now) {
      const o = this.#pending.value;
      if (!crossed && o.receivedAt > observedUntil) cross();
      const uid = o.object.metadata.uid;
      if (o.object.kind !== 'JobSet') {
        if (o.type !== 'DELETED') cluster.set(uid, o);
        else if (cluster.delete(uid) && nodesAtGap.has(uid)) goneNodes.push(o);
      } else {
        if (o.type === 'DELETED') existing.delete(uid);
        else existing.set(uid, o);
        if (o.receivedAt > observedUntil) latest.set(uid, o);
      }
      this.#pending = this.#stream.next();
    }
    let n = 0;
    for (const [uid, o] of latest) {
      const known = this.#engine.timeline(uid) !== undefined;
      // Created and gone while nobody watched: a relist would not show it at all.
      if (!known && o.type === 'DELETED') continue;
      this.#engine.observe({ receivedAt: now, type: o.type === 'DELETED' ? 'DELETED' : known ? 'MODIFIED' : 'ADDED', object: o.object });
      n++;
    }
    for (const [uid, o] of existing) {
      // Unchanged since the gap: listed again all the same, as a relist would.
      if (latest.has(uid) || this.#engine.timeline(uid) === undefined) continue;
      this.#engine.observe({ receivedAt: now, type: 'MODIFIED', object: o.object });
      n++;
    }
    for (const o of [...goneNodes, ...cluster.values()]) {
      this.#engine.observe({ receivedAt: now, type: o.type === 'DELETED' ? 'DELETED' : 'MODIFIED', object: o.object });
      n++;
    }
    this.#engine.endGap(now);
    if (this.#engine instanceof ClusterEngine) this.#engine.endNodeGap(now);
    this.advancedTo = now;
    this.#usage?.sampleUntil(now);
    return n;
  }

  start(intervalMs = 1000): void {
    this.advance();
    this.#timer = setInterval(() => this.advance(), intervalMs);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
  }
}
