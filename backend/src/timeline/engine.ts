// Routes observations to per-UID state machines. A live watch, a trace replay and the simulator all
// feed this one entry point, so they cannot disagree about what an object means.

import { vanishedView, viewJobSet, type JobSetView } from './jobset.ts';
import { advance, isClosed, isMachine, keptTimeline, learnSuspension, machineOf, resumeAfterGap, settledMachine, startMachine, type MachineState } from './machine.ts';
import { joinSuspension, suspensionFact, type SuspensionFact } from './facts.ts';
import { viewWorkload, type Eviction, type WorkloadView } from './workload.ts';
import { routeOf, type ViewedObservation } from './viewed.ts';
import { byNamespaceNameUid, markSorted, mergeSorted } from './order.ts';
import { RunsByUid } from './runs-by-uid.ts';
import type { Observation, ObservationType } from '../observation/types.ts';
import { sealClosed, transitionAt, unsealClosed, transitionCount, transitionsOf, transitionState, transitionTime, type Suspension, type Timeline, type Transition } from './types.ts';

/** Pods and Nodes are counted by UID (the node layer keeps what it needs of them in its own form). */
export type KeptKind = 'Pod' | 'Node';

export interface TimelineUpdate {
  timeline: Timeline;
  /** New transitions, in order; empty when the observation changed nothing. */
  added: Transition[];
  /** Why the suspension at index `seq` happened, learned after that transition was written (a fact of its own). */
  suspension?: { seq: number; suspension: Suspension };
}

/** A TimelineUpdate and what caused it: the JobSet's view (all later stages may know of the object). */
export interface JobSetUpdate extends TimelineUpdate {
  view: JobSetView;
  /** When it was observed (or found gone by a relist). */
  at: number;
  /** A DELETED observation, or a relist that no longer lists the JobSet. */
  deleted: boolean;
}

/** A relist of the JobSets: what it found, and which namespaces it covered (empty: all). */
export interface Listing {
  uids: ReadonlySet<string>;
  namespaces: readonly string[];
}

/** Told of every change to the timelines (e.g. an index kept beside them). */
export interface TimelineListener {
  /** The timeline gained transitions from index `from` on (0: it is new). */
  grew(timeline: Timeline, from: number): void;
  /** The timelines were dropped (retention). */
  forgot(timelines: readonly Timeline[]): void;
  /** The timeline's labels changed. */
  relabeled?(timeline: Timeline): void;
  /**
   * What a grouping reads of it besides its labels changed: its accelerator type, topology or pod
   * count (a suspended JobSet's node selectors set by Kueue on admission, a spec edited): groups of
   * it kept by the accelerator, topology or size are stale. (Namespace and name never change.)
   */
  regrouped?(timeline: Timeline): void;
  /**
   * Its goodput inputs changed (accelerators, the checkpoint interval annotation): every figure they
   * weigh is of the new ones over the whole life, so sums taken with the old ones are wrong now.
   */
  reweighed?(timeline: Timeline): void;
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
  /** By UID: an open run's machine; a closed run's timeline alone, its machine's memory in its columns (machine.ts settledMachine). */
  #machines = new RunsByUid();
  /** The UIDs of the Pods and Nodes that exist: only counted, so nothing else of them is kept. */
  readonly #kept: Record<KeptKind, Set<string>> = { Pod: new Set(), Node: new Set() };
  #watchedFrom: number | null;
  #last: number | null = null;
  /** While the JobSet watch is broken (and until it has resynced): when it broke. */
  #gapStart: number | null = null;
  /** UIDs observed since the gap began: their first observation after it decides the gap. */
  readonly #seenSinceGap = new Set<string>();
  #observations = 0;
  #skipped = 0;
  readonly #listeners: TimelineListener[] = [];
  /** timelines(), sorted; new timelines wait in #fresh to be merged in on the next call. */
  #list: Timeline[] | null = null;
  #fresh: Timeline[] = [];

  readonly #onUpdate: ((update: JobSetUpdate, machine: MachineState) => void) | null;
  readonly #onFact: ((fact: SuspensionFact) => void) | null;
  /** The eviction in effect of each JobSet's Kueue Workload, by JobSet UID: the reason of its current or next suspension. */
  readonly #evictions = new Map<string, { workload: string; eviction: Eviction }>();

  /**
   * `watchedFrom`: when observing began; defaults to the first observation's time.
   * `onUpdate`: called after every JobSet observation with what it changed (a store persists it).
   * `onFact`: called with a suspension's reason that a Kueue Workload told, after what it refers to.
   */
  readonly #cluster: string | undefined;

  constructor(options: { watchedFrom?: number; onUpdate?: (update: JobSetUpdate, machine: MachineState) => void; onFact?: (fact: SuspensionFact) => void; cluster?: string } = {}) {
    this.#watchedFrom = options.watchedFrom ?? null;
    this.#onUpdate = options.onUpdate ?? null;
    this.#onFact = options.onFact ?? null;
    this.#cluster = options.cluster;
  }

  /**
   * The time up to which the observer vouches for every timeline: the latest observation, or, while
   * the watch is broken, the moment it broke.
   */
  get horizon(): number | null {
    return this.#gapStart ?? this.#last;
  }

  /** When the current gap in the JobSet watch began; null while watching. */
  get gapStart(): number | null {
    return this.#gapStart;
  }

  /** The JobSet watch broke at `at`: until endGap, nothing is vouched for after it. */
  beginGap(at: number): void {
    if (this.#gapStart !== null) return;
    this.#gapStart = Math.max(at, this.#last ?? at);
    this.#seenSinceGap.clear();
  }

  /**
   * The watch has relisted everything at `at` and delivered what changed (ADDED, MODIFIED, DELETED
   * for what vanished). JobSets not delivered did not change: their state held through the gap.
   */
  endGap(at: number): void {
    if (this.#gapStart === null) return;
    this.#gapStart = null;
    this.#seenSinceGap.clear();
    this.#last = Math.max(at, this.#last ?? at);
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
  observe(observation: Observation): JobSetUpdate | null {
    const { receivedAt, type, object } = observation;
    this.#see(receivedAt);
    const route = routeOf(object);
    switch (route) {
      case 'JobSet':
        return this.#observeJobSet(viewJobSet(object), receivedAt, type === 'DELETED');
      case 'Workload':
        this.#observeWorkload(type, viewWorkload(object));
        return null;
      case 'Pod':
      case 'Node':
        this.#keep(route, type, object.metadata.uid);
        return null;
      default:
        this.#skipped++;
        return null;
    }
  }

  /** Feeds one observation already reduced to its view (viewed.ts): the same as observe() of the observation it came from. */
  observeViewed(observation: ViewedObservation): JobSetUpdate | null {
    const { receivedAt, type } = observation;
    this.#see(receivedAt);
    switch (observation.route) {
      case 'JobSet':
        return this.#observeJobSet(observation.view, receivedAt, type === 'DELETED');
      case 'Workload':
        this.#observeWorkload(type, observation.view);
        return null;
      case 'Pod':
      case 'Node':
        this.#keep(observation.route, type, observation.uid);
        return null;
      default:
        this.#skipped++;
        return null;
    }
  }

  #see(receivedAt: number): void {
    if (this.#last !== null && receivedAt < this.#last) {
      throw new RangeError(`observation at ${new Date(receivedAt).toISOString()} is older than the last one`);
    }
    this.#last = receivedAt;
    this.#watchedFrom ??= receivedAt;
    this.#observations++;
  }

  #keep(kind: KeptKind, type: ObservationType, uid: string): void {
    const kept = this.#kept[kind];
    if (type === 'DELETED') kept.delete(uid);
    else kept.add(uid);
  }

  /**
   * A relist of the JobSets at `at`, after a time without watching (a restore from a store): every
   * timeline still open that the listing covers and does not name was deleted meanwhile, and is
   * closed as a deletion seen now. Returns what changed, like observe() does for each.
   */
  reconcile(listing: Listing, at: number): JobSetUpdate[] {
    if (this.#last !== null && at < this.#last) {
      throw new RangeError(`reconcile at ${new Date(at).toISOString()} is older than the last observation`);
    }
    const covered = (namespace: string): boolean => listing.namespaces.length === 0 || listing.namespaces.includes(namespace);
    const vanished: Timeline[] = [];
    for (const kept of this.#machines.values()) {
      // A closed run is kept as its timeline alone.
      if (isMachine(kept) && !isClosed(kept) && !listing.uids.has(kept.timeline.uid) && covered(kept.timeline.namespace)) vanished.push(kept.timeline);
    }
    vanished.sort(byNamespaceNameUid);
    this.#last = at;
    this.#watchedFrom ??= at;
    return vanished.map((tl) => this.#observeJobSet(vanishedView(tl), at, true));
  }

  #observeJobSet(view: JobSetView, receivedAt: number, deleted: boolean): JobSetUpdate {
    const kept = this.#machines.get(view.uid);
    let machine = kept === undefined ? undefined : machineOf(kept);
    const labelsBefore = machine?.timeline.labels;
    const acceleratorsBefore = machine?.timeline.accelerators ?? 0;
    const checkpointBefore = machine?.timeline.checkpointIntervalMs ?? null;
    const groupedBefore = machine === undefined ? null : ([machine.timeline.accelerator, machine.timeline.topology, machine.timeline.pods] as const);
    const added: Transition[] = [];
    const inGap = this.#gapStart !== null;
    if (machine === undefined) {
      machine = startMachine(view, receivedAt, this.#watchedFrom!, inGap);
      if (this.#cluster !== undefined) machine.timeline.cluster = this.#cluster;
      this.#machines.set(view.uid, machine);
      if (this.#list !== null) this.#fresh.push(machine.timeline);
      added.push(...transitionsOf(machine.timeline));
      added.push(...advance(machine, view, receivedAt, deleted));
    } else if (inGap && !this.#seenSinceGap.has(view.uid)) {
      added.push(...resumeAfterGap(machine, view, receivedAt, deleted, this.#gapStart!));
    } else {
      added.push(...advance(machine, view, receivedAt, deleted));
    }
    if (inGap) this.#seenSinceGap.add(view.uid);
    const update: JobSetUpdate = { timeline: machine.timeline, added, view, at: receivedAt, deleted };
    const learned = learnSuspension(machine, view);
    if (learned !== null) update.suspension = { seq: learned, suspension: transitionAt(machine.timeline, learned).suspension! };
    if (added.length > 0) for (const l of this.#listeners) l.grew(machine.timeline, transitionCount(machine.timeline) - added.length);
    // Labels are interned (intern.ts): a new object is a real change.
    if (labelsBefore !== undefined && machine.timeline.labels !== labelsBefore) for (const l of this.#listeners) l.relabeled?.(machine.timeline);
    if (labelsBefore !== undefined && ((machine.timeline.accelerators ?? 0) !== acceleratorsBefore || (machine.timeline.checkpointIntervalMs ?? null) !== checkpointBefore)) {
      for (const l of this.#listeners) l.reweighed?.(machine.timeline);
    }
    const tl = machine.timeline;
    if (groupedBefore !== null && (tl.accelerator !== groupedBefore[0] || tl.topology !== groupedBefore[1] || tl.pods !== groupedBefore[2])) {
      for (const l of this.#listeners) l.regrouped?.(tl);
    }
    this.#onUpdate?.(update, machine);
    this.#joinEviction(machine.timeline);
    // Closed now (or again observed closed): its machine's memory goes to its columns.
    const settled = settledMachine(machine);
    if (settled !== kept) this.#machines.set(view.uid, settled);
    return update;
  }

  /**
   * A Kueue Workload: its eviction in effect is kept for the JobSet that owns it, and given to that
   * JobSet's suspension now or when it begins; a Workload no longer evicted (Kueue clears Evicted
   * when it gets quota again) or deleted takes it back.
   */
  #observeWorkload(type: ObservationType, view: WorkloadView): void {
    if (view.jobsetUid === null) return;
    const kept = this.#evictions.get(view.jobsetUid);
    if (type === 'DELETED' || view.eviction === null) {
      if (kept?.workload === view.uid) this.#evictions.delete(view.jobsetUid);
      return;
    }
    this.#evictions.set(view.jobsetUid, { workload: view.uid, eviction: view.eviction });
    const machine = this.#machines.get(view.jobsetUid);
    if (machine !== undefined) this.#joinEviction(keptTimeline(machine));
  }

  /**
   * Gives the JobSet's current suspension the reason of its Workload's eviction (a fact after the
   * transition it refers to). Only a suspension that began after the JobSet last ran or provisioned
   * no later than the eviction: one resumed since (admitted again) is not the one evicted. Whole-second
   * timestamps on both sides: 1 s of slack.
   */
  #joinEviction(timeline: Timeline): void {
    // Most fleets have no Kueue evictions: no UID read (a sealed run's is made as a string when read).
    if (this.#evictions.size === 0) return;
    const kept = this.#evictions.get(timeline.uid);
    if (kept === undefined) return;
    const seq = transitionCount(timeline) - 1;
    if (transitionState(timeline, seq) !== 'suspended') return;
    if (seq > 0 && kept.eviction.at !== null && transitionTime(timeline, seq - 1) > kept.eviction.at + 1000) return;
    if (joinSuspension(timeline, seq, kept.eviction.suspension)) this.#onFact?.(suspensionFact(timeline.uid, { seq, suspension: kept.eviction.suspension }));
  }

  /**
   * Everything the engine remembers, for a store to persist, in the order of timelines() (namespace,
   * name, UID), so that a restore of what a store kept in that order needs no sort. An open run's
   * machine is the live object (copy to keep); a closed run's is made afresh from its memory.
   */
  machines(): Iterable<MachineState> {
    const machines = this.#machines;
    return this.timelines().map((tl) => machineOf(machines.getOf(tl)!));
  }

  /**
   * Restores what a store kept: the machines and the time up to which they were observed. Given as a
   * table by UID (a store's table of them, made to read its log: the embedded store's Recovery.byUid), of
   * the machines as the engine keeps them (settledMachine: a closed run's as its timeline alone), the
   * engine takes it as its own and the caller lets go of it. The
   * service was not watching after `observedUntil`, so that is where the gap begins: once the
   * source has relisted, call reconcile with what it listed (if it lists), then endGap. An engine is restored once, before any observation.
   */
  restore(machines: Iterable<MachineState> | RunsByUid, observedUntil: number | null): void {
    if (this.#observations > 0 || this.#machines.size > 0) throw new Error('restore() needs an empty engine');
    // Machines given in the order of timelines() (as machines() gives them) are listed as they come.
    const list: Timeline[] = [];
    let inOrder = true;
    /** Takes a run (listed, told): what the engine keeps of it (settledMachine; a timeline read settled as it is). */
    const take = (m: MachineState | Timeline): MachineState | Timeline => {
      let kept: MachineState | Timeline = m;
      const timeline = keptTimeline(m);
      if (this.#cluster !== undefined) timeline.cluster ??= this.#cluster;
      if (isMachine(m)) {
        sealClosed(timeline);
        // As a run that closes drops it (machine.ts): a store written before that kept it.
        if (isClosed(m)) m.resourceVersion = null;
        kept = settledMachine(m);
      }
      if (inOrder && list.length > 0 && byNamespaceNameUid(list[list.length - 1]!, timeline) >= 0) inOrder = false;
      list.push(timeline);
      for (const l of this.#listeners) l.grew(timeline, 0);
      return kept;
    };
    if (!(machines instanceof RunsByUid)) {
      for (const m of machines) this.#machines.add(take(m));
    } else {
      // The store's own table of them, taken as the engine's (a machine that settles replaced in place): one
      // table of a month's runs made on a start, not two. A closed run the store read settled is as kept.
      machines.replaceEach(take);
      this.#machines = machines;
    }
    // An exact-length copy (push left a third more room, ~3 MiB at 871,066 runs), as mergeSorted makes the lists after it.
    this.#list = inOrder && list.length === this.#machines.size ? markSorted(list.slice(), this) : null;
    this.#fresh = [];
    if (observedUntil !== null) {
      this.#last = observedUntil;
      this.#watchedFrom = Math.min(this.#watchedFrom ?? observedUntil, observedUntil);
      if (this.#machines.size > 0) this.beginGap(observedUntil);
    }
  }

  /** Drops timelines (retention): they are gone from queries and from what a store keeps. */
  forget(uids: Iterable<string>): void {
    const gone: Timeline[] = [];
    for (const uid of uids) {
      const kept = this.#machines.get(uid);
      if (kept === undefined) continue;
      this.#machines.delete(uid);
      this.#evictions.delete(uid);
      // Its record in the arena is released (a reader may still hold the timeline: it keeps its columns).
      const timeline = keptTimeline(kept);
      unsealClosed(timeline);
      gone.push(timeline);
    }
    if (gone.length === 0) return;
    this.#list = null;
    for (const l of this.#listeners) l.forgot(gone);
  }

  /**
   * Tells `listener` of every change from now on, after telling it of every timeline kept so far;
   * `holdsAll`: not those, which it holds already (a fleet index that took in the image kept with the
   * snapshot this engine was just restored from: series/fleet-index.ts adopt).
   */
  subscribe(listener: TimelineListener, holdsAll = false): void {
    if (!holdsAll) for (const kept of this.#machines.values()) listener.grew(keptTimeline(kept), 0);
    this.#listeners.push(listener);
  }

  timeline(uid: string): Timeline | undefined {
    const kept = this.#machines.get(uid);
    return kept === undefined ? undefined : keptTimeline(kept);
  }

  /**
   * Every timeline, sorted by namespace, name and UID (the order of tables, so they need no sort of
   * their own). The array is shared until a timeline is added or dropped: do not change it.
   */
  timelines(): readonly Timeline[] {
    if (this.#list === null) {
      this.#list = markSorted(Array.from(this.#machines.values(), keptTimeline).sort(byNamespaceNameUid), this);
      this.#fresh = [];
    } else if (this.#fresh.length > 0) {
      this.#list = markSorted(mergeSorted(this.#list, this.#fresh.sort(byNamespaceNameUid)), this);
      this.#fresh = [];
    }
    return this.#list;
  }

  /** How many runs keep a machine object (the open ones, and a closed one whose memory does not fit its columns): for tests and benchmarks. */
  get machinesKept(): number {
    let n = 0;
    for (const kept of this.#machines.values()) if (isMachine(kept)) n++;
    return n;
  }

  /** The UIDs of the Pods or Nodes that exist, as last observed. */
  kept(kind: KeptKind): ReadonlySet<string> {
    return this.#kept[kind];
  }
}
