// A JobSet run's timeline as the engine keeps it (issue 21 §3): an object holding only what differs
// from run to run (its UID, name, creation and transitions), and the rest of its identity (namespace,
// labels, hardware, cluster; its goodput inputs apart), which every run of a JobSet name and most runs
// of a namespace share, as two shared objects read through accessors. A plain object keeps a slot for
// each of its eleven fields (112 bytes a run, and a boxed double for its creation time); this one
// keeps six (72 bytes), the shared parts once, and reads its creation time from its first transition.
// Sealed into the arena (a closed run the engine keeps), its UID is held there too, as 16 bytes
// (uids.ts), and a string made only when read; a UID that is not a canonical UUID stays a string.
//
// It reads as any Timeline does, field by field; an object spread copies only its own fields, so
// code that copies a timeline copies timelineFields (types.ts) of it.

import { HAS_UID, LIVE, runArena } from './arena.ts';
import { isPacked, packedLength, packedTime, type PackedTransitions } from './columns.ts';
import type { Timeline, Transition } from './types.ts';
import { decodeUid, encodeUid, UID_WORDS } from './uids.ts';

type Labels = Readonly<Record<string, string>>;

/** What the runs of a JobSet name (and most of a namespace) share of their identity; one object for all that have it alike. */
interface Identity {
  readonly cluster: string | undefined;
  readonly namespace: string;
  readonly labels: Labels;
  readonly accelerator: string | null;
  readonly topology: string | null;
}

/** Their goodput inputs: kept apart, as a fleet has a few dozen of them, which the identities above would multiply. */
interface Goodput {
  readonly accelerators: number | undefined;
  readonly checkpointIntervalMs: number | null | undefined;
  readonly pods: number | undefined;
}

// Instances of one class each, not frozen literals: their fields hold numbers, null or undefined, and
// frozen objects of each mix got maps of their own, which made every read of them through the
// accessors below a lookup among many (the per-JobSet tables 1.4× slower). Never written once made.
class SharedIdentity implements Identity {
  readonly cluster: string | undefined;
  readonly namespace: string;
  readonly labels: Labels;
  readonly accelerator: string | null;
  readonly topology: string | null;
  constructor(i: Identity) {
    this.cluster = i.cluster;
    this.namespace = i.namespace;
    this.labels = i.labels;
    this.accelerator = i.accelerator;
    this.topology = i.topology;
  }
}

class SharedGoodput implements Goodput {
  readonly accelerators: number | undefined;
  readonly checkpointIntervalMs: number | null | undefined;
  readonly pods: number | undefined;
  constructor(g: Goodput) {
    this.accelerators = g.accelerators;
    this.checkpointIntervalMs = g.checkpointIntervalMs;
    this.pods = g.pods;
  }
}

// Each kept by text (identities first by label set, a WeakMap: a set no run holds any longer drops
// them). Bounded and dropped whole when full, as intern.ts's values: sharing only saves memory.
const KEPT = 1 << 16;

const text = (s: string | null | undefined): string => (s === null ? 'n' : s === undefined ? 'u' : `s${s.length}:${s}`);

let identities = new WeakMap<Labels, Map<string, Identity>>();
let identitiesKept = 0;
/**
 * The few found last, looked at first (no key made): a snapshot's runs come in name order, one
 * JobSet's runs together, and a JobSet's runs may alternate between a few accelerators.
 */
const RECENT = 8;
const recentIdentities: Identity[] = [];
let nextRecentIdentity = 0;

/** The shared copy of an identity of these fields (no object made to look one up: a start reads 871,066 runs). */
function sharedIdentity(cluster: string | undefined, namespace: string, labels: Labels, accelerator: string | null, topology: string | null): Identity {
  for (let k = 0; k < recentIdentities.length; k++) {
    const i = recentIdentities[k]!;
    if (i.labels === labels && i.namespace === namespace && i.accelerator === accelerator && i.topology === topology && i.cluster === cluster) return i;
  }
  const key = `${text(namespace)}|${text(accelerator)}|${text(topology)}|${text(cluster)}`;
  let byKey = identities.get(labels);
  let kept = byKey?.get(key);
  if (kept === undefined) {
    if (identitiesKept >= KEPT) {
      identities = new WeakMap();
      identitiesKept = 0;
      byKey = undefined;
    }
    if (byKey === undefined) identities.set(labels, (byKey = new Map()));
    kept = new SharedIdentity({ cluster, namespace, labels, accelerator, topology });
    byKey.set(key, kept);
    identitiesKept++;
  }
  recentIdentities[nextRecentIdentity] = kept;
  nextRecentIdentity = (nextRecentIdentity + 1) % RECENT;
  return kept;
}

// By each value in turn (a Map's keys compare as the text did: 0 and −0 alike, NaN as NaN), no key made.
let goodputs = new Map<number | undefined, Map<number | null | undefined, Map<number | undefined, Goodput>>>();
let goodputsKept = 0;
/** The few found last, looked at first (no key made): a fleet's runs share a few dozen. */
const recentGoodputs: Goodput[] = [];
let nextRecentGoodput = 0;

/** The shared copy of goodput inputs of these values. */
function sharedGoodput(accelerators: number | undefined, checkpointIntervalMs: number | null | undefined, pods: number | undefined): Goodput {
  for (let k = 0; k < recentGoodputs.length; k++) {
    const g = recentGoodputs[k]!;
    if (Object.is(g.accelerators, accelerators) && Object.is(g.checkpointIntervalMs, checkpointIntervalMs) && Object.is(g.pods, pods)) return g;
  }
  let kept = goodputs.get(accelerators)?.get(checkpointIntervalMs)?.get(pods);
  if (kept === undefined) {
    if (goodputsKept >= KEPT) {
      goodputs = new Map();
      goodputsKept = 0;
    }
    let byInterval = goodputs.get(accelerators);
    if (byInterval === undefined) goodputs.set(accelerators, (byInterval = new Map()));
    let byPods = byInterval.get(checkpointIntervalMs);
    if (byPods === undefined) byInterval.set(checkpointIntervalMs, (byPods = new Map()));
    kept = new SharedGoodput({ accelerators, checkpointIntervalMs, pods });
    byPods.set(pods, kept);
    goodputsKept++;
  }
  recentGoodputs[nextRecentGoodput] = kept;
  nextRecentGoodput = (nextRecentGoodput + 1) % RECENT;
  return kept;
}

/** `shared` with `field` = `value`: itself when it has it already, else the shared copy of the changed one. */
function identityWith<K extends keyof Identity>(shared: Identity, field: K, value: Identity[K]): Identity {
  if (shared[field] === value) return shared;
  const i = { ...shared, [field]: value };
  return sharedIdentity(i.cluster, i.namespace, i.labels, i.accelerator, i.topology);
}

function goodputWith<K extends keyof Goodput>(shared: Goodput, field: K, value: Goodput[K]): Goodput {
  if (Object.is(shared[field], value)) return shared;
  const g = { ...shared, [field]: value };
  return sharedGoodput(g.accelerators, g.checkpointIntervalMs, g.pods);
}

/** The time of the first of `transitions`; undefined when there is none. An arena record's read first: most runs are one. */
function firstTime(transitions: Transition[] | PackedTransitions): number | undefined {
  if (typeof transitions === 'number') return runArena.count[transitions]! > 0 ? runArena.times[runArena.base[transitions]!]! + runArena.originOf(transitions) : undefined;
  if (!isPacked(transitions)) return transitions[0]?.at;
  return packedLength(transitions) > 0 ? packedTime(transitions, 0) : undefined;
}

/** The arena record `transitions` are, which holds the run's UID (checked: a record let go must not be read as this run's). */
function heldAt(transitions: Transition[] | PackedTransitions): number {
  if (typeof transitions !== 'number' || (runArena.flags[transitions]! & (LIVE | HAS_UID)) !== (LIVE | HAS_UID)) {
    throw new Error('a run\'s UID was held in an arena record it no longer has (unseal it with types.ts unsealClosed)');
  }
  return transitions * UID_WORDS;
}

/** The fields a RunTimeline is made of (a Timeline's, but a node pool's `jobsets`). */
export type RunFields = Omit<Timeline, 'jobsets'>;

export class RunTimeline implements Timeline {
  /** Its UID; null while its arena record holds it (heldUid). */
  #uid: string | null;
  name: string;
  transitions: Transition[] | PackedTransitions;
  // Private: a copy by spread leaves them out (and timelineFields gives every field).
  #identity: Identity;
  #goodput: Goodput;
  /**
   * Its creation time when its first transition is not at it (none the engine makes: a store's run
   * given its identity before its transitions, a test's); else undefined, and it is read from there:
   * no boxed double a run (16 bytes).
   */
  #createdApart: number | undefined;

  /**
   * `uidWords`: its UID as words (uids.ts), read so from a snapshot's bytes (store/dense.ts), in place
   * of `fields.uid`: held as they are when the run is in the arena already, without a string made.
   */
  constructor(fields: RunFields, uidWords?: Uint32Array) {
    this.name = fields.name;
    this.transitions = fields.transitions;
    // After its transitions: a run read into the arena (a snapshot's closed run) holds its UID there at once.
    const r = this.transitions;
    if (uidWords === undefined) {
      this.#uid = fields.uid;
      this.sealedUid();
    } else if (typeof r === 'number') {
      runArena.uids.set(uidWords.subarray(0, UID_WORDS), r * UID_WORDS);
      runArena.flags[r]! |= HAS_UID;
      this.#uid = null;
    } else this.#uid = decodeUid(uidWords);
    this.createdAt = fields.createdAt;
    this.#identity = sharedIdentity(fields.cluster, fields.namespace, fields.labels, fields.accelerator, fields.topology);
    this.#goodput = sharedGoodput(fields.accelerators, fields.checkpointIntervalMs, fields.pods);
  }

  get uid(): string {
    const uid = this.#uid;
    return uid !== null ? uid : decodeUid(runArena.uids, heldAt(this.transitions));
  }
  set uid(value: string) {
    this.#uid = value;
    this.sealedUid();
  }

  /**
   * Its UID into its arena record, when it is sealed there (types.ts sealClosed) and the UID is
   * canonical; else the string stays. (Public: a class with a private method marks each instance
   * with a brand, 8 bytes a run.)
   */
  sealedUid(): void {
    const r = this.transitions;
    if (typeof r !== 'number' || this.#uid === null || !encodeUid(this.#uid, runArena.uids, r * UID_WORDS)) return;
    runArena.flags[r]! |= HAS_UID;
    this.#uid = null;
  }

  /** Its arena record about to be let go (types.ts unsealClosed, a store unpacking it): its UID as a string again. */
  keepUidText(): void {
    if (this.#uid === null) this.#uid = decodeUid(runArena.uids, heldAt(this.transitions));
  }

  /** The arena record holding its UID (its words at runArena.uids[r * 4…]); -1 when it holds the UID as a string. */
  get uidRecord(): number {
    return this.#uid === null ? (this.transitions as unknown as number) : -1;
  }

  /** Its first transition's time, unless it was given another (#createdApart). */
  get createdAt(): number {
    const apart = this.#createdApart;
    return apart !== undefined ? apart : firstTime(this.transitions)!;
  }
  set createdAt(value: number) {
    this.#createdApart = Object.is(firstTime(this.transitions), value) ? undefined : value;
  }

  get cluster(): string | undefined {
    return this.#identity.cluster;
  }
  set cluster(value: string | undefined) {
    this.#identity = identityWith(this.#identity, 'cluster', value);
  }
  get namespace(): string {
    return this.#identity.namespace;
  }
  set namespace(value: string) {
    this.#identity = identityWith(this.#identity, 'namespace', value);
  }
  get labels(): Record<string, string> {
    return this.#identity.labels as Record<string, string>;
  }
  set labels(value: Record<string, string>) {
    this.#identity = identityWith(this.#identity, 'labels', value);
  }
  get accelerator(): string | null {
    return this.#identity.accelerator;
  }
  set accelerator(value: string | null) {
    this.#identity = identityWith(this.#identity, 'accelerator', value);
  }
  get topology(): string | null {
    return this.#identity.topology;
  }
  set topology(value: string | null) {
    this.#identity = identityWith(this.#identity, 'topology', value);
  }
  get accelerators(): number | undefined {
    return this.#goodput.accelerators;
  }
  set accelerators(value: number | undefined) {
    this.#goodput = goodputWith(this.#goodput, 'accelerators', value);
  }
  get checkpointIntervalMs(): number | null | undefined {
    return this.#goodput.checkpointIntervalMs;
  }
  set checkpointIntervalMs(value: number | null | undefined) {
    this.#goodput = goodputWith(this.#goodput, 'checkpointIntervalMs', value);
  }
  get pods(): number | undefined {
    return this.#goodput.pods;
  }
  set pods(value: number | undefined) {
    this.#goodput = goodputWith(this.#goodput, 'pods', value);
  }

  /** Every field as a plain object's own (what a spread of a plain timeline gives); `cluster` only when set. */
  fields(): RunFields {
    const i = this.#identity;
    const g = this.#goodput;
    const fields: RunFields = {
      uid: this.uid,
      namespace: i.namespace,
      name: this.name,
      labels: i.labels as Record<string, string>,
      accelerator: i.accelerator,
      topology: i.topology,
      accelerators: g.accelerators,
      checkpointIntervalMs: g.checkpointIntervalMs,
      pods: g.pods,
      createdAt: this.createdAt,
      transitions: this.transitions,
    };
    if (i.cluster !== undefined) fields.cluster = i.cluster;
    return fields;
  }
}
