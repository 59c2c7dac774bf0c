// Routes observations to per-UID state machines. A live watch, a trace replay and the simulator all
// feed this one entry point, so they cannot disagree about what an object means.

import { isJobSet, viewJobSet } from './jobset.ts';
import { advance, startMachine, type MachineState } from './machine.ts';
import type { KubeObject, Observation, Timeline, Transition } from './types.ts';

/** Pods and Nodes are kept (latest object per UID) for the node-level figures. */
export type KeptKind = 'Pod' | 'Node';

export interface TimelineUpdate {
  timeline: Timeline;
  /** New transitions, in order; empty when the observation changed nothing. */
  added: Transition[];
}

export interface EngineCounts {
  observations: number;
  jobsets: number;
  pods: number;
  nodes: number;
  /** Objects of kinds Upness does not use: counted and skipped. */
  skipped: number;
}

export class TimelineEngine {
  readonly #machines = new Map<string, MachineState>();
  readonly #kept: Record<KeptKind, Map<string, KubeObject>> = { Pod: new Map(), Node: new Map() };
  #watchedFrom: number | null;
  #horizon: number | null = null;
  #observations = 0;
  #skipped = 0;

  /** `watchedFrom`: when observing began; defaults to the first observation's time. */
  constructor(options: { watchedFrom?: number } = {}) {
    this.#watchedFrom = options.watchedFrom ?? null;
  }

  /** The time up to which the observer vouches for every timeline: the latest observation. */
  get horizon(): number | null {
    return this.#horizon;
  }

  get counts(): EngineCounts {
    return {
      observations: this.#observations,
      jobsets: this.#machines.size,
      pods: this.#kept.Pod.size,
      nodes: this.#kept.Node.size,
      skipped: this.#skipped,
    };
  }

  /** Feeds one observation. Observations must arrive in non-decreasing time order. */
  observe(observation: Observation): TimelineUpdate | null {
    const { receivedAt, type, object } = observation;
    if (this.#horizon !== null && receivedAt < this.#horizon) {
      throw new RangeError(`observation at ${new Date(receivedAt).toISOString()} is older than the last one`);
    }
    this.#horizon = receivedAt;
    this.#watchedFrom ??= receivedAt;
    this.#observations++;

    if (isJobSet(object)) return this.#observeJobSet(observation);
    if ((object.kind === 'Pod' || object.kind === 'Node') && object.apiVersion === 'v1') {
      const kept = this.#kept[object.kind];
      if (type === 'DELETED') kept.delete(object.metadata.uid);
      else kept.set(object.metadata.uid, object);
      return null;
    }
    this.#skipped++;
    return null;
  }

  #observeJobSet({ receivedAt, type, object }: Observation): TimelineUpdate {
    const view = viewJobSet(object);
    let machine = this.#machines.get(view.uid);
    const added: Transition[] = [];
    if (machine === undefined) {
      machine = startMachine(view, receivedAt, this.#watchedFrom!);
      this.#machines.set(view.uid, machine);
      added.push(...machine.timeline.transitions);
    }
    added.push(...advance(machine, view, receivedAt, type === 'DELETED'));
    return { timeline: machine.timeline, added };
  }

  timeline(uid: string): Timeline | undefined {
    return this.#machines.get(uid)?.timeline;
  }

  timelines(): Timeline[] {
    return Array.from(this.#machines.values(), (m) => m.timeline);
  }

  kept(kind: KeptKind): ReadonlyMap<string, KubeObject> {
    return this.#kept[kind];
  }
}
