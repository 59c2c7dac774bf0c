// The node layer (MegaMon's jobset_nodes family): for every JobSet, a second timeline that says
// whether the nodes it runs on are there and Ready, and the causes observed when a JobSet goes down.
//
// A JobSet's pods are mapped to their nodes by spec.nodeName, one place (replicated job, job index,
// completion index) at a time. A place keeps its node when its pod goes away (a failure-policy
// restart deletes every pod) until a new pod for it is bound elsewhere, so a restart on healthy
// nodes does not take the node layer down. The node layer is up when the JobSet needs nodes
// (Σ replicas × parallelism), has at least that many distinct nodes, and every one of them is
// Ready; a node going NotReady or Unknown, or vanishing, takes it down.
//
// Its lifecycle follows the JobSet layer: created, suspended, unknown, completed, deleted as the
// JobSet is. When a JobSet fails while its nodes are up, the node layer ends as completed, not
// failed: the nodes did not fail it, and an up → failed would count as a node interruption.
//
// What it finds out is written as facts (timeline/facts.ts), through `onFact`: each node-layer
// transition, and each cause attached to a transition of either layer, after the transition it
// refers to. Nothing it attaches edits what a store wrote: a cause is a fact of its own, joined to the
// transition in memory by joinCause, as a store's recovery and a follower join it.
//
// A closed node layer that never saw a pod and holds nothing the JobSet layer does not say (the
// usual case of a trace or cluster without Pod and Node watches) keeps no timeline of its own: it is
// derived from the JobSet layer when asked (derivedTimeline), and only what its causes need later
// (the restart count, the cause keys) stays, packed in one number (CLOSED_*).
//
// Pure: observations and the JobSet layer's transitions in, transitions and facts out; no clock.

import type { Observation, ObservationType } from '../observation/types.ts';
import { sameLabels } from '../timeline/intern.ts';
import { lastState, timelineFields, openTransitions, packClosed, setLastUnobserved, TERMINAL_STATES, transitionAt, transitionCount, transitionState, transitionTime, unobservedAt, type Cause, type State, type Timeline, type Transition } from '../timeline/types.ts';
import { areDerivedTransitions, derivedTransitions } from '../timeline/never-up.ts';
import type { JobSetUpdate } from '../timeline/engine.ts';
import { joinCause, nodeTransitionFact, type Layer, type LayerFact } from '../timeline/facts.ts';
import { byNamespaceNameUid, isMarkedSorted, markSorted, named, namespacesOf } from '../timeline/order.ts';
import { isNode, isPod, jobsetCauses, nodeNotReady, podFailures, viewNode, viewPod, type CauseFact, type NodeView, type PodView } from './objects.ts';
import type { ClusterViewedObservation } from './viewed.ts';

export interface NodeLayerOptions {
  /** Causes observed up to this long before a JobSet goes down are attached to the transition. */
  causeLookbackMs?: number;
  /** ... and those observed up to this long after it (a pod's failure can be seen after the JobSet's status). */
  causeLookaheadMs?: number;
  /** Called with every fact the layer finds, in order (a store appends them to its log). */
  onFact?: (fact: LayerFact) => void;
}

export type { Layer } from '../timeline/facts.ts';

/** The cause windows' defaults, ms (plain, not a zod schema: the service's start loads no zod, issue 21 §3). */
const CAUSE_LOOKBACK_MS = 120_000;
const CAUSE_LOOKAHEAD_MS = 30_000;

const LAYER_BIT: Readonly<Record<Layer, number>> = { jobset: 1, nodes: 2 };

/** Causes that a node layer transition carries: only what nodes did. */
const NODE_CAUSES: ReadonlySet<Cause['kind']> = new Set(['NodeNotReady', 'NodeDeleted']);

interface Entry {
  uid: string;
  /** namespace/name */
  key: string;
  expected: number;
  timeline: Timeline;
  /** Up at least once since creation or since the last resume: decides provisioning versus down. */
  everUp: boolean;
  /** The JobSet layer's current state, and since when. */
  jobsetState: State;
  jobsetStateAt: number;
  restarts: number | null;
  /** Facts already recorded for it (made on the first: most JobSets have none); its own without their `jobset/<uid>/` (ownKey). */
  causeKeys: readonly string[] | null;
}

interface StoredCause {
  cause: Cause;
  /** The layers it was given to, as bits (LAYER_BIT): a Set per cause cost more than the cause. */
  attached: number;
}

interface Snapshot {
  state: State;
  nodes: string;
  jobsetState: State;
}

const key = (namespace: string, name: string): string => `${namespace}/${name}`;

/**
 * `keys` with `key` added, as a new array of exact length; null when it is there already. A JobSet,
 * pod or node has a few keys, if any: a Set, or an array grown by push, would cost more than they hold.
 */
function withKey(keys: readonly string[] | null, key: string): readonly string[] | null {
  if (keys === null) return [key];
  return keys.includes(key) ? null : [...keys, key];
}

/**
 * A JobSet's own cause key without its `jobset/<uid>/` (restart/3, failed), which its entry knows:
 * short enough for V8 to copy rather than point into the whole key (~70 bytes less a key).
 */
function ownKey(uid: string, key: string): string {
  const prefix = `jobset/${uid}/`;
  return key.startsWith(prefix) ? key.slice(prefix.length) : key;
}

// ---- Closed node layers derived from the JobSet layer -------------------------------------------

/** A closed node layer kept as its packed rest: made afresh from its JobSet layer on each read. */
function derivedTimeline(jobset: Timeline): Timeline {
  const timeline = { ...timelineFields(jobset), transitions: derivedTransitions(jobset) };
  // Closed, it is held packed, as a closed timeline is: a reader then takes its columns from it, not
  // from the cache of an open timeline's (columns.ts), whose table a whole fleet's node layers made
  // afresh left at 32 MiB after the query (10,000 JobSets × 30 days).
  packClosed(timeline);
  return timeline;
}

/**
 * Whether `node` is exactly what derivedTimeline(jobset) makes: the same labels and fields, and the
 * same transitions without anything attached (causes, unobserved events). Checked, not assumed: a
 * gap, a late first sight or a pod's node make a node layer of its own, which is then kept.
 */
function isDerived(node: Timeline, jobset: Timeline): boolean {
  // Its fields as a plain object's (the engine's timeline shares some: timeline/run-timeline.ts).
  const fields = timelineFields(jobset);
  const keys = Object.keys(node) as (keyof Timeline)[];
  if (keys.length !== Object.keys(fields).length) return false;
  for (const k of keys) {
    if (k === 'transitions') continue;
    if (!(k in fields)) return false;
    if (k === 'labels' ? !sameLabels(node.labels, fields.labels) : node[k] !== fields[k]) return false;
  }
  return areDerivedTransitions(node, jobset);
}

// What a derived node layer keeps, in one number: its restart count (+1, 0 for none known) times
// CLOSED_SCALE, plus its cause keys as bits (`failed` bit 0, `restart/k` bit k for k ≤ CLOSED_RESTART_KEYS).
const CLOSED_RESTART_KEYS = 24;
const CLOSED_SCALE = 2 ** (CLOSED_RESTART_KEYS + 1);
const RESTART_KEY = /^restart\/([1-9][0-9]?)$/;

/** The packed rest of a closed entry; null when its cause keys do not fit (a node's, or a restart past 24): then the entry is kept. */
function packClosedRest(restarts: number | null, causeKeys: readonly string[] | null): number | null {
  if (restarts !== null && !(Number.isInteger(restarts) && restarts >= 0 && restarts < 2 ** 26)) return null;
  let bits = 0;
  for (const k of causeKeys ?? []) {
    const restart = RESTART_KEY.exec(k);
    if (k === 'failed') bits |= 1;
    else if (restart !== null && Number(restart[1]) <= CLOSED_RESTART_KEYS) bits |= 2 ** Number(restart[1]);
    else return null;
  }
  return (restarts === null ? 0 : restarts + 1) * CLOSED_SCALE + bits;
}

function unpackClosedRest(rest: number): { restarts: number | null; causeKeys: readonly string[] | null } {
  const bits = rest % CLOSED_SCALE;
  const count = Math.floor(rest / CLOSED_SCALE);
  const causeKeys: string[] = [];
  if (bits % 2 === 1) causeKeys.push('failed');
  for (let k = 1; k <= CLOSED_RESTART_KEYS; k++) if ((bits & (2 ** k)) !== 0) causeKeys.push(`restart/${k}`);
  return { restarts: count === 0 ? null : count - 1, causeKeys: causeKeys.length === 0 ? null : causeKeys };
}

function currentState(timeline: Timeline): State | null {
  return lastState(timeline);
}

/** The index of its last transition that is an interruption (isInterruption); -1 when none is. */
function lastInterruption(timeline: Timeline): number {
  for (let i = transitionCount(timeline) - 1; i >= 0; i--) {
    const state = transitionState(timeline, i);
    if (state === 'down' || state === 'failed' || (unobservedAt(timeline, i)?.interruptions ?? 0) > 0) return i;
  }
  return -1;
}

/** A transition into down or failed, or one that carries interruptions that happened unobserved. */
function isInterruption(t: Transition): boolean {
  return t.state === 'down' || t.state === 'failed' || (t.unobserved?.interruptions ?? 0) > 0;
}

export class NodeLayer {
  readonly #lookback: number;
  readonly #lookahead: number;
  /** The JobSet layer, to attach late causes to its transitions. */
  readonly #jobsetTimeline: (uid: string) => Timeline | undefined;
  /** The entries with a timeline of their own, by JobSet UID. */
  readonly #entries = new Map<string, Entry>();
  /**
   * The closed ones derived from the JobSet layer (see the top of this file): their packed rest
   * (packClosedRest), by their JobSet's timeline. Not by UID: a month of a large fleet has ~860,000
   * of them, and their UIDs as strings cost ~56 bytes each (46 MiB at 10,000 JobSets × 30 days),
   * where the JobSet layer keeps a closed run's UID in 16 (timeline/runs-by-uid.ts).
   */
  readonly #derived = new Map<Timeline, number>();
  /** namespace/name → uid of the JobSet that bears the name now. */
  readonly #current = new Map<string, string>();
  /** Owner (a JobSet uid, or `name:ns/name` until the JobSet is seen) → place → node name. */
  readonly #slots = new Map<string, Map<string, string>>();
  /** node name → owners with a place on it. */
  readonly #users = new Map<string, Set<string>>();
  /**
   * What is kept of Pods and Nodes: the views (objects.ts) of Nodes, places (above) of Pods, and the
   * keys of the causes already recorded, made on the first (most pods and nodes have none). The
   * objects themselves are dropped once read.
   */
  readonly #podCauseKeys = new Map<string, readonly string[]>();
  readonly #nodes = new Map<string, { view: NodeView; causeKeys: readonly string[] | null }>();
  /** namespace/name → recent causes, oldest first. */
  readonly #causes = new Map<string, StoredCause[]>();
  #gap: { start: number; before: Map<string, Snapshot> } | null = null;
  #last = -Infinity;
  /** timelines(), while anything holds it: derived node layers are made afresh once it is collected. */
  #list: WeakRef<readonly Timeline[]> | null = null;
  /** When recorded causes are next swept for ones too old to attach to anything. */
  #nextSweep = -Infinity;
  readonly #onFact: (fact: LayerFact) => void;

  constructor(jobsetTimeline: (uid: string) => Timeline | undefined, options: NodeLayerOptions = {}) {
    this.#jobsetTimeline = jobsetTimeline;
    this.#onFact = options.onFact ?? (() => {});
    this.#lookback = options.causeLookbackMs ?? CAUSE_LOOKBACK_MS;
    this.#lookahead = options.causeLookaheadMs ?? CAUSE_LOOKAHEAD_MS;
  }

  /** When the current gap in the Pod, Node or JobSet watch began; null while all are watched. */
  get gapStart(): number | null {
    return this.#gap?.start ?? null;
  }

  /**
   * Every node-layer timeline, the derived ones made from the JobSet layer, sorted by namespace,
   * name and UID and marked so (a selection bisects it, as the JobSet layer's); the array is shared,
   * while anything holds it, until one is added or dropped (they grow in place). `jobsets`: the
   * JobSet layer's list, sorted: a node layer bears its JobSet's identity, so listed in its order it
   * needs no sort of its own.
   */
  timelines(jobsets: readonly Timeline[] = []): readonly Timeline[] {
    const kept = this.#list?.deref();
    if (kept !== undefined) return kept;
    const list: Timeline[] = [];
    let listed = 0;
    // Few kept (a fleet of JobSets alone): those listed and sorted below, without every JobSet's UID read
    // (a closed run's is made as a string when read: timeline/run-timeline.ts).
    const few = this.size * 16 < jobsets.length;
    if (isMarkedSorted(jobsets) && !few) {
      for (const jobset of jobsets) {
        // A derived one is found by its JobSet's timeline, without its UID read.
        if (this.#derived.has(jobset)) {
          listed++;
          list.push(derivedTimeline(jobset));
          continue;
        }
        const entry = this.#entries.get(jobset.uid);
        if (entry === undefined) continue;
        listed++;
        list.push(entry.timeline);
      }
    }
    // Few kept, or an entry whose JobSet the list lacks (none is expected: both layers forget a JobSet together): listed and sorted as they come.
    if (listed !== this.size) {
      list.length = 0;
      for (const entry of this.#entries.values()) list.push(entry.timeline);
      for (const jobset of this.#derived.keys()) list.push(derivedTimeline(jobset));
      list.sort(byNamespaceNameUid);
    }
    markSorted(list);
    this.#list = new WeakRef(list);
    return list;
  }

  /**
   * The node layers of the JobSets named `name` in any namespace, in timelines()' order, from the
   * JobSet layer's sorted list: one JobSet's page needs its own, not the whole layer made again.
   */
  named(jobsets: readonly Timeline[], name: string): readonly Timeline[] {
    // More entries than JobSets (not expected, as above): the whole layer, which lists them all.
    const kept = this.#list?.deref() ?? (this.size > jobsets.length || !isMarkedSorted(jobsets) ? this.timelines(jobsets) : undefined);
    const from = kept ?? jobsets;
    const bearers = namespacesOf(from).flatMap((namespace) => named(from, namespace, name));
    if (kept !== undefined) return markSorted(bearers);
    const list: Timeline[] = [];
    for (const jobset of bearers) {
      const timeline = this.timeline(jobset.uid);
      if (timeline !== undefined) list.push(timeline);
    }
    return markSorted(list);
  }

  /** How many node layers it holds: with a timeline of their own, and derived. */
  get size(): number {
    return this.#entries.size + this.#derived.size;
  }

  timeline(uid: string): Timeline | undefined {
    const entry = this.#entries.get(uid);
    if (entry !== undefined) return entry.timeline;
    const jobset = this.#derivedJobSet(uid);
    return jobset === undefined ? undefined : derivedTimeline(jobset);
  }

  /** The JobSet layer's timeline of `uid` when its node layer is derived from it; undefined when it is not. */
  #derivedJobSet(uid: string): Timeline | undefined {
    if (this.#derived.size === 0) return undefined;
    const jobset = this.#jobsetTimeline(uid);
    return jobset !== undefined && this.#derived.has(jobset) ? jobset : undefined;
  }

  /** The entry of `uid`, made again from the JobSet layer if it was derived, to change it. */
  #entry(uid: string): Entry | undefined {
    const entry = this.#entries.get(uid);
    if (entry !== undefined) return entry;
    const jobset = this.#derivedJobSet(uid);
    if (jobset === undefined) return undefined;
    const rest = this.#derived.get(jobset)!;
    const last = transitionCount(jobset) - 1;
    const made: Entry = {
      uid,
      key: key(jobset.namespace, jobset.name),
      expected: jobset.pods ?? 0,
      timeline: derivedTimeline(jobset),
      everUp: false,
      jobsetState: transitionState(jobset, last),
      jobsetStateAt: transitionTime(jobset, last),
      ...unpackClosedRest(rest),
    };
    this.#derived.delete(jobset);
    this.#entries.set(uid, made);
    this.#list = null;
    return made;
  }

  /** A closed entry that its JobSet layer answers for keeps only its packed rest (see the top of this file). */
  #settle(entry: Entry): void {
    if (!TERMINAL_STATES.has(currentState(entry.timeline) ?? 'unknown') || this.#slots.has(entry.uid)) return;
    const jobset = this.#jobsetTimeline(entry.uid);
    if (jobset === undefined || !isDerived(entry.timeline, jobset)) return;
    const rest = packClosedRest(entry.restarts, entry.causeKeys);
    if (rest === null) return;
    this.#entries.delete(entry.uid);
    this.#derived.set(jobset, rest);
    this.#list = null;
  }

  /**
   * Restores the node layers a store kept (their transitions and causes), before any observation.
   * Where the pods ran and whether their nodes are Ready was not kept: the layer is in a gap from
   * `observedUntil`, which endGap closes once the watches have listed everything again. `derived`:
   * JobSets whose closed node layer a store kept as derived from their JobSet layer (no timeline of
   * its own: what #settle would make of it), restored as such without making its transitions.
   */
  restore(timelines: Iterable<Timeline>, observedUntil: number | null, derived: Iterable<string> = []): void {
    const open: Timeline[] = [];
    for (const uid of derived) {
      const jobset = this.#jobsetTimeline(uid);
      if (jobset === undefined) continue;
      // What #settle makes of a restored one (no restarts or cause keys known); one whose JobSet is open is not derived: kept.
      if (TERMINAL_STATES.has(currentState(jobset) ?? 'unknown')) this.#derived.set(jobset, packClosedRest(null, null)!);
      else open.push(derivedTimeline(jobset));
    }
    for (const timeline of open.length === 0 ? timelines : [...timelines, ...open]) {
      const jobset = this.#jobsetTimeline(timeline.uid);
      if (jobset === undefined || transitionCount(timeline) === 0) continue;
      packClosed(timeline);
      const last = { state: lastState(jobset)!, at: transitionTime(jobset, transitionCount(jobset) - 1) };
      let everUp = false;
      for (let i = 0; i < transitionCount(timeline); i++) {
        const state = transitionState(timeline, i);
        everUp = state === 'up' ? true : state === 'suspended' ? false : everUp;
      }
      const entry: Entry = {
        uid: timeline.uid,
        key: key(timeline.namespace, timeline.name),
        expected: 0,
        timeline,
        everUp,
        jobsetState: last.state,
        jobsetStateAt: last.at,
        restarts: null,
        causeKeys: null,
      };
      this.#entries.set(entry.uid, entry);
      if (!TERMINAL_STATES.has(last.state)) this.#current.set(entry.key, entry.uid);
      this.#settle(entry);
    }
    this.#list = null;
    if (observedUntil !== null && this.size > 0) this.beginGap(observedUntil);
  }

  /** Writes the node-layer transition at index `seq` as a fact. */
  #written(entry: Entry, seq: number): void {
    this.#onFact(nodeTransitionFact(entry.uid, seq, transitionAt(entry.timeline, seq)));
  }

  /** Feeds one Pod or Node observation (other kinds are ignored; JobSets come through observeJobSet). */
  observe(observation: Observation): void {
    const { receivedAt, type, object } = observation;
    this.#see(receivedAt);
    if (isPod(object)) this.#observePod(receivedAt, type, viewPod(object), () => podFailures(object, receivedAt));
    else if (isNode(object)) this.#observeNode(receivedAt, type, viewNode(object));
  }

  /** Feeds one Pod or Node observation already viewed (viewed.ts): the same as observe() of the observation it came from. */
  observeViewed(observation: Exclude<ClusterViewedObservation, { route: 'JobSet' }>): void {
    const { receivedAt, type } = observation;
    this.#see(receivedAt);
    if (observation.route === 'Pod') this.#observePod(receivedAt, type, observation.pod, () => observation.failures);
    else if (observation.route === 'Node') this.#observeNode(receivedAt, type, observation.node);
  }

  /** Feeds what the JobSet layer made of one JobSet observation (or of a relist that no longer lists it). */
  observeJobSet(update: JobSetUpdate): void {
    this.#see(update.at);
    this.#observeJobSet(update);
  }

  #see(at: number): void {
    this.#last = Math.max(this.#last, at);
    this.#sweepCauses(this.#last);
  }

  // ---- JobSets -------------------------------------------------------------------------------

  #observeJobSet(update: JobSetUpdate): void {
    const { view, at: receivedAt, deleted } = update;
    const uid = view.uid;
    const k = key(view.namespace, view.name);
    let entry = this.#entry(uid);
    if (entry === undefined) {
      const tl = update.timeline;
      // A JobSet layer timeline older than this observation (restored from a store): the node
      // layer's history before now is not known.
      const fresh = update.added.length === transitionCount(tl);
      const b = fresh ? 0 : transitionCount(tl) - 1 - update.added.length;
      const before = { state: transitionState(tl, b), at: transitionTime(tl, b) };
      entry = {
        uid,
        key: k,
        expected: 0,
        timeline: { ...timelineFields(tl), transitions: fresh ? [] : [{ at: tl.createdAt, state: 'unknown' }] },
        everUp: false,
        jobsetState: before.state,
        jobsetStateAt: before.at,
        restarts: null,
        causeKeys: null,
      };
      this.#entries.set(uid, entry);
      this.#list = null;
      if (!fresh) this.#written(entry, 0);
      this.#adopt(entry);
    }
    const tl = update.timeline;
    Object.assign(entry.timeline, { namespace: tl.namespace, name: tl.name, labels: tl.labels, accelerator: tl.accelerator, topology: tl.topology });
    entry.expected = view.expectedNodes;
    if (deleted) {
      if (this.#current.get(k) === uid) this.#current.delete(k);
    } else if (lastState(update.timeline) !== 'deleted') {
      this.#current.set(k, uid);
    }

    const facts = jobsetCauses(view, entry.restarts, receivedAt);
    entry.restarts = view.restarts;
    for (const fact of facts) {
      const keys = withKey(entry.causeKeys, ownKey(uid, fact.key));
      if (keys === null) continue;
      entry.causeKeys = keys;
      this.#addCause(k, fact, receivedAt);
    }

    const jobset = update.timeline;
    for (const [i, t] of update.added.entries()) {
      if (isInterruption(t)) this.#attach(k, jobset, transitionCount(jobset) - update.added.length + i, 'jobset');
      entry.jobsetState = t.state;
      entry.jobsetStateAt = t.at;
      this.#update(entry, t.at, receivedAt);
    }
    // The spec (the nodes it needs) may have changed without a JobSet layer transition.
    if (update.added.length === 0) this.#update(entry, receivedAt, receivedAt);
    this.#settle(entry);
  }

  /** Places recorded by pods seen before their JobSet (without a jobset-uid label) move to it. */
  #adopt(entry: Entry): void {
    const byName = this.#slots.get(`name:${entry.key}`);
    if (byName === undefined) return;
    this.#slots.delete(`name:${entry.key}`);
    for (const [slot, node] of byName) this.#place(entry.uid, slot, node);
  }

  // ---- Pods ----------------------------------------------------------------------------------

  #observePod(receivedAt: number, type: ObservationType, pod: PodView, failuresOf: () => CauseFact[]): void {
    if (pod.jobsetName === null) return;
    const k = key(pod.namespace, pod.jobsetName);
    const owner = pod.jobsetUid ?? this.#current.get(k) ?? `name:${k}`;

    for (const fact of failuresOf()) {
      const keys = withKey(this.#podCauseKeys.get(pod.uid) ?? null, fact.key);
      if (keys === null) continue;
      this.#podCauseKeys.set(pod.uid, keys);
      this.#addCause(k, fact, receivedAt);
    }
    if (type === 'DELETED') this.#podCauseKeys.delete(pod.uid);

    // A deleted pod's place keeps its node (see the top of this file).
    if (type !== 'DELETED' && pod.nodeName !== null && this.#slots.get(owner)?.get(pod.slot) !== pod.nodeName) {
      this.#place(owner, pod.slot, pod.nodeName);
      // A derived entry is closed: #update would leave it as it is.
      const entry = this.#entries.get(owner);
      if (entry !== undefined) this.#update(entry, pod.scheduledAt ?? receivedAt, receivedAt);
    }
  }

  #place(owner: string, slot: string, node: string): void {
    let slots = this.#slots.get(owner);
    if (slots === undefined) this.#slots.set(owner, (slots = new Map()));
    const previous = slots.get(slot);
    slots.set(slot, node);
    if (previous !== undefined && ![...slots.values()].includes(previous)) this.#users.get(previous)?.delete(owner);
    let users = this.#users.get(node);
    if (users === undefined) this.#users.set(node, (users = new Set()));
    users.add(owner);
  }

  // ---- Nodes ---------------------------------------------------------------------------------

  #observeNode(receivedAt: number, type: ObservationType, view: NodeView): void {
    const before = this.#nodes.get(view.name);
    const users = [...(this.#users.get(view.name) ?? [])].map((owner) => this.#entry(owner)).filter((e) => e !== undefined);
    if (type === 'DELETED') {
      this.#nodes.delete(view.name);
      for (const entry of users) {
        const keys = withKey(entry.causeKeys, `node/${view.uid}/deleted`);
        if (keys !== null) {
          entry.causeKeys = keys;
          this.#addCause(entry.key, { key: `node/${view.uid}/deleted`, cause: { kind: 'NodeDeleted', at: receivedAt, node: view.name } }, receivedAt);
        }
        this.#update(entry, receivedAt, receivedAt);
      }
      return;
    }
    const kept = { view, causeKeys: before?.causeKeys ?? null };
    this.#nodes.set(view.name, kept);
    const fact = nodeNotReady(view, receivedAt);
    const keys = fact === null ? null : withKey(kept.causeKeys, fact.key);
    if (fact !== null && keys !== null) {
      kept.causeKeys = keys;
      for (const entry of users) this.#addCause(entry.key, fact, receivedAt);
    }
    if (before?.view.ready === view.ready) return;
    for (const entry of users) this.#update(entry, view.readySince ?? receivedAt, receivedAt);
  }

  // ---- State ---------------------------------------------------------------------------------

  #nodeNames(entry: Entry): string[] {
    return [...new Set(this.#slots.get(entry.uid)?.values() ?? [])].sort();
  }

  #nodesUp(entry: Entry): boolean {
    const nodes = this.#nodeNames(entry);
    return entry.expected > 0 && nodes.length >= entry.expected && nodes.every((n) => this.#nodes.get(n)?.view.ready === 'True');
  }

  #derive(entry: Entry): State {
    switch (entry.jobsetState) {
      case 'suspended':
      case 'unknown':
      case 'completed':
      case 'deleted':
        return entry.jobsetState;
      case 'failed':
        return currentState(entry.timeline) === 'up' ? 'completed' : 'failed';
      default:
        return this.#nodesUp(entry) ? 'up' : entry.everUp ? 'down' : 'provisioning';
    }
  }

  /** Appends a transition, times non-decreasing and never later than the observation; null when nothing changed. */
  #enter(entry: Entry, state: State, at: number, receivedAt: number): Transition | null {
    const n = transitionCount(entry.timeline);
    if (n === 0) {
      const first = { at: entry.timeline.createdAt, state };
      openTransitions(entry.timeline).push(first);
      return first;
    }
    const last = { at: transitionTime(entry.timeline, n - 1), state: transitionState(entry.timeline, n - 1) };
    if (TERMINAL_STATES.has(last.state) || last.state === state) return null;
    const transition: Transition = { at: Math.min(Math.max(at, last.at), Math.max(receivedAt, last.at)), state };
    openTransitions(entry.timeline).push(transition);
    if (TERMINAL_STATES.has(state)) packClosed(entry.timeline);
    return transition;
  }

  #update(entry: Entry, at: number, receivedAt: number): void {
    if (this.#gap !== null) {
      // Decided when the gap ends; a JobSet first seen during it is unknown until then.
      if (transitionCount(entry.timeline) === 0 && this.#enter(entry, 'unknown', at, receivedAt) !== null) this.#written(entry, 0);
      return;
    }
    const state = this.#derive(entry);
    const added = this.#enter(entry, state, at, receivedAt);
    if (state === 'suspended') entry.everUp = false;
    if (state === 'up') entry.everUp = true;
    if (added === null) return;
    const seq = transitionCount(entry.timeline) - 1;
    this.#written(entry, seq);
    if (isInterruption(added)) this.#attach(entry.key, entry.timeline, seq, 'nodes');
    if (TERMINAL_STATES.has(added.state)) this.#release(entry.uid);
  }

  /** A closed node layer needs its places no more. */
  #release(uid: string): void {
    for (const node of this.#slots.get(uid)?.values() ?? []) this.#users.get(node)?.delete(uid);
    this.#slots.delete(uid);
  }

  // ---- Gaps ----------------------------------------------------------------------------------

  /** A watch the node layer depends on (JobSets, Pods or Nodes) broke at `at`. */
  beginGap(at: number): void {
    if (this.#gap !== null) return;
    const before = new Map<string, Snapshot>();
    // A derived one is closed (not among the entries), and endGap leaves closed ones as they are.
    for (const entry of this.#entries.values()) {
      const state = currentState(entry.timeline);
      if (state !== null) before.set(entry.uid, { state, nodes: this.#nodeNames(entry).join(','), jobsetState: entry.jobsetState });
    }
    this.#gap = { start: at, before };
  }

  /**
   * Every watch has resynced at `at`. A node layer whose state is the same as before the gap held it;
   * one whose state changed is unknown from the start of the gap until what the objects prove (a
   * node's Ready condition time, the JobSet's own condition times) or until now, and the
   * interruption or recovery that the change proves is counted as unobserved.
   */
  endGap(at: number): void {
    const gap = this.#gap;
    if (gap === null) return;
    this.#gap = null;
    for (const entry of this.#entries.values()) {
      const prior = currentState(entry.timeline) ?? 'unknown';
      if (TERMINAL_STATES.has(prior)) continue;
      const snap = gap.before.get(entry.uid);
      const after = this.#derive(entry);
      if (after === prior) {
        if (after === 'up') entry.everUp = true;
        continue;
      }
      const added: Transition[] = [];
      const unknown = this.#enter(entry, 'unknown', gap.start, at);
      if (unknown !== null) added.push(unknown);
      const next = this.#enter(entry, after, this.#proof(entry, snap, after, gap.start, at) ?? at, at);
      if (next !== null) added.push(next);
      if (after === 'suspended') entry.everUp = false;
      if (after === 'up') entry.everUp = true;
      const interruptions = prior === 'up' && (after === 'down' || after === 'failed') ? 1 : 0;
      const recoveries = prior === 'down' && after === 'up' ? 1 : 0;
      const lastAdded = added[added.length - 1];
      if (lastAdded !== undefined && interruptions + recoveries > 0) setLastUnobserved(entry.timeline, lastAdded, { interruptions, recoveries });
      const count = transitionCount(entry.timeline);
      for (let i = count - added.length; i < count; i++) this.#written(entry, i);
      if (lastAdded !== undefined && isInterruption(lastAdded)) this.#attach(entry.key, entry.timeline, count - 1, 'nodes');
      if (lastAdded !== undefined && TERMINAL_STATES.has(lastAdded.state)) this.#release(entry.uid);
      this.#settle(entry);
    }
  }

  /** The time the objects prove the state after a gap began, if they do. */
  #proof(entry: Entry, snap: Snapshot | undefined, after: State, start: number, at: number): number | null {
    const within = (t: number | null): t is number => t !== null && t >= start && t <= at;
    if (after !== 'up' && after !== 'down' && after !== 'provisioning') return within(entry.jobsetStateAt) ? entry.jobsetStateAt : null;
    // Only a change of the nodes' readiness alone is timed by their conditions.
    if (snap === undefined || snap.jobsetState !== entry.jobsetState || snap.nodes !== this.#nodeNames(entry).join(',')) return null;
    const views = this.#nodeNames(entry).map((n) => this.#nodes.get(n)?.view);
    if (views.some((v) => v === undefined)) return null;
    const times = (views as NodeView[]).filter((v) => (after === 'up' ? v.ready === 'True' : v.ready !== 'True')).map((v) => v.readySince);
    if (!times.every(within) || times.length === 0) return null;
    // Up since the last node became Ready; down since the first one still not Ready went.
    return after === 'up' ? Math.max(...times) : Math.min(...times);
  }

  // ---- Causes --------------------------------------------------------------------------------

  /** Records a cause for the JobSet named `k` (the caller has checked it is new: withKey), and attaches it to a recent interruption. */
  #addCause(k: string, fact: CauseFact, receivedAt: number): void {
    let stored = this.#causes.get(k);
    if (stored === undefined) this.#causes.set(k, (stored = []));
    const retention = this.#causeRetention();
    while (stored.length > 0 && stored[0]!.cause.at < receivedAt - retention) stored.shift();
    const item: StoredCause = { cause: fact.cause, attached: 0 };
    stored.push(item);
    stored.sort((a, b) => a.cause.at - b.cause.at);

    // Seen after the JobSet went down: attach it to that interruption if it falls in the window.
    const uid = this.#current.get(k);
    if (uid === undefined) return;
    const layers: [Layer, Timeline | undefined][] = [
      ['jobset', this.#jobsetTimeline(uid)],
      // A node's cause may attach to a derived node layer's last interruption: its entry is made again first.
      ['nodes', NODE_CAUSES.has(fact.cause.kind) ? this.#entry(uid)?.timeline : undefined],
    ];
    for (const [layer, tl] of layers) {
      if (tl === undefined || (layer === 'nodes' && !NODE_CAUSES.has(fact.cause.kind))) continue;
      const seq = lastInterruption(tl);
      if (seq >= 0 && this.#inWindow(fact.cause, transitionTime(tl, seq))) this.#give(item, tl, seq, layer);
    }
  }

  #causeRetention(): number {
    return Math.max(600_000, 2 * (this.#lookback + this.#lookahead));
  }

  /**
   * Drops causes too old to attach to any interruption, now and then: each JobSet name keeps its
   * own list, and a name is rarely seen again once its JobSet has ended, so without a sweep every
   * name ever seen would keep its last causes for good.
   */
  #sweepCauses(now: number): void {
    if (now < this.#nextSweep) return;
    const retention = this.#causeRetention();
    this.#nextSweep = now + retention;
    for (const [k, stored] of this.#causes) {
      if (stored.length === 0 || stored[stored.length - 1]!.cause.at < now - retention) this.#causes.delete(k);
    }
  }

  /** How many closed node layers are derived from their JobSet layer, keeping no timeline of their own (for tests and benchmarks). */
  get derivedCount(): number {
    return this.#derived.size;
  }

  /** How many JobSet names hold recorded causes (for tests). */
  get causeNames(): number {
    return this.#causes.size;
  }

  #inWindow(cause: Cause, at: number): boolean {
    return cause.at >= at - this.#lookback && cause.at <= at + this.#lookahead;
  }

  /** Gives a cause to the transition at `seq` of `tl` (the `layer` timeline of a JobSet): a fact, joined in memory. */
  #give(item: StoredCause, tl: Timeline, seq: number, layer: Layer): void {
    if ((item.attached & LAYER_BIT[layer]) !== 0) return;
    item.attached |= LAYER_BIT[layer];
    if (joinCause(tl, seq, item.cause)) this.#onFact({ kind: 'cause', uid: tl.uid, layer, seq, cause: item.cause });
  }

  /** Attaches the causes recorded for the JobSet named `k` around the transition at `seq` of `tl` to it. */
  #attach(k: string, tl: Timeline, seq: number, layer: Layer): void {
    const at = transitionTime(tl, seq);
    for (const item of this.#causes.get(k) ?? []) {
      if (layer === 'nodes' && !NODE_CAUSES.has(item.cause.kind)) continue;
      if (this.#inWindow(item.cause, at)) this.#give(item, tl, seq, layer);
    }
  }

  /** Drops the node layer of these JobSets (retention), with the places their pods held. */
  forget(uids: Iterable<string>): void {
    for (const uid of uids) {
      const entry = this.#entries.get(uid);
      // A derived one's name is its JobSet layer's (ClusterEngine forgets the node layer first).
      const jobset = entry === undefined ? this.#derivedJobSet(uid) : undefined;
      if (entry === undefined && jobset === undefined) continue;
      const k = entry !== undefined ? entry.key : key(jobset!.namespace, jobset!.name);
      this.#entries.delete(uid);
      if (jobset !== undefined) this.#derived.delete(jobset);
      this.#list = null;
      this.#release(uid);
      if (this.#current.get(k) === uid) this.#current.delete(k);
    }
  }

  /** For tests and debugging: the nodes a JobSet is mapped to, and how many it needs. */
  nodesOf(uid: string): { nodes: string[]; expected: number } | null {
    const entry = this.#entries.get(uid);
    if (entry === undefined) {
      // Derived: it needed what its JobSet layer last said (a closed JobSet's spec no longer matters).
      const jobset = this.#derivedJobSet(uid);
      return jobset === undefined ? null : { nodes: [...new Set(this.#slots.get(uid)?.values() ?? [])].sort(), expected: jobset.pods ?? 0 };
    }
    return { nodes: this.#nodeNames(entry), expected: entry.expected };
  }
}
