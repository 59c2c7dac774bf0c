// A JobSet run's timeline as the engine keeps it (issue 21 §3): an object holding only what differs
// from run to run (its name and transitions), and the rest of its identity (namespace, labels,
// hardware, cluster) and its goodput inputs, which every run of a JobSet name and most runs of a
// namespace share, as one shared object read through accessors. A plain object keeps a slot for each
// of its eleven fields (112 bytes a run, and a boxed double for its creation time); this one keeps
// three (48 bytes), and reads its creation time from its first transition. Sealed into the arena (a
// closed run the engine keeps), its UID is held there, as 16 bytes (uids.ts), and a string made only
// when read; an open run's UID, one that is not a canonical UUID, and a creation time apart from the
// first transition are held beside its name (Apart), by the few runs that have them.
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

/** What a run's identity and goodput inputs are together: one object for all the runs that have both alike (a few thousand in a fleet of 871,066 runs). */
type Shared = Identity & Goodput;

// Read straight from the object a run holds (one slot a run, not one for each part): the shared
// identity and goodput inputs are only the keys under which it is kept.
class SharedParts implements Shared {
  readonly cluster: string | undefined;
  readonly namespace: string;
  readonly labels: Labels;
  readonly accelerator: string | null;
  readonly topology: string | null;
  readonly accelerators: number | undefined;
  readonly checkpointIntervalMs: number | null | undefined;
  readonly pods: number | undefined;
  constructor(i: Identity, g: Goodput) {
    this.cluster = i.cluster;
    this.namespace = i.namespace;
    this.labels = i.labels;
    this.accelerator = i.accelerator;
    this.topology = i.topology;
    this.accelerators = g.accelerators;
    this.checkpointIntervalMs = g.checkpointIntervalMs;
    this.pods = g.pods;
  }
}

// By the shared identity, then the shared goodput inputs; bounded and dropped whole when full, as above.
let parts = new WeakMap<Identity, Map<Goodput, Shared>>();
let partsKept = 0;
const recentParts: Shared[] = [];
let nextRecentParts = 0;

/** The shared copy of these fields (no object made to look one up). */
function sharedParts(
  cluster: string | undefined,
  namespace: string,
  labels: Labels,
  accelerator: string | null,
  topology: string | null,
  accelerators: number | undefined,
  checkpointIntervalMs: number | null | undefined,
  pods: number | undefined,
): Shared {
  for (let k = 0; k < recentParts.length; k++) {
    const p = recentParts[k]!;
    if (p.labels === labels && p.namespace === namespace && p.accelerator === accelerator && p.topology === topology && p.cluster === cluster && Object.is(p.accelerators, accelerators) && Object.is(p.checkpointIntervalMs, checkpointIntervalMs) && Object.is(p.pods, pods)) return p;
  }
  const identity = sharedIdentity(cluster, namespace, labels, accelerator, topology);
  const goodput = sharedGoodput(accelerators, checkpointIntervalMs, pods);
  let byGoodput = parts.get(identity);
  let kept = byGoodput?.get(goodput);
  if (kept === undefined) {
    if (partsKept >= KEPT) {
      parts = new WeakMap();
      partsKept = 0;
      byGoodput = undefined;
    }
    if (byGoodput === undefined) parts.set(identity, (byGoodput = new Map()));
    kept = new SharedParts(identity, goodput);
    byGoodput.set(goodput, kept);
    partsKept++;
  }
  recentParts[nextRecentParts] = kept;
  nextRecentParts = (nextRecentParts + 1) % RECENT;
  return kept;
}

/** `shared` with `field` = `value`: itself when it has it already, else the shared copy of the changed one. */
function sharedWith<K extends keyof Shared>(shared: Shared, field: K, value: Shared[K]): Shared {
  if (Object.is(shared[field], value)) return shared;
  const p = { ...shared, [field]: value };
  return sharedParts(p.cluster, p.namespace, p.labels, p.accelerator, p.topology, p.accelerators, p.checkpointIntervalMs, p.pods);
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

/**
 * What a run holds apart, beside its name, while it has any: its UID as a string (while its arena
 * record does not hold it: an open run, a UID that is not canonical) and a creation time that is not
 * its first transition's. A sealed closed run (nearly all) has none: it holds its name alone.
 */
class Apart {
  readonly name: string;
  readonly uid: string | null;
  readonly createdAt: number | undefined;
  constructor(name: string, uid: string | null, createdAt: number | undefined) {
    this.name = name;
    this.uid = uid;
    this.createdAt = createdAt;
  }
}

/** Its name, or its name with what it holds apart (Apart). */
const namedAs = (name: string, uid: string | null, createdAt: number | undefined): string | Apart => (uid === null && createdAt === undefined ? name : new Apart(name, uid, createdAt));

export class RunTimeline implements Timeline {
  transitions: Transition[] | PackedTransitions;
  // Three slots (48 bytes a run): `transitions`, the name (or, for a run that holds anything apart,
  // an Apart with it) and the shared rest. Private: a copy by spread leaves them out (and
  // timelineFields gives every field).
  #named: string | Apart;
  #shared: Shared;

  /**
   * `uidWords`: its UID as words (uids.ts), read so from a snapshot's bytes (store/dense.ts), in place
   * of `fields.uid`: held as they are when the run is in the arena already, without a string made.
   */
  constructor(fields: RunFields, uidWords?: Uint32Array) {
    this.transitions = fields.transitions;
    // After its transitions: its creation time is apart only when its first transition is not at it.
    const createdApart = Object.is(firstTime(this.transitions), fields.createdAt) ? undefined : fields.createdAt;
    // A run read into the arena (a snapshot's closed run) holds its UID there at once.
    const r = this.transitions;
    if (uidWords === undefined) {
      this.#named = namedAs(fields.name, fields.uid, createdApart);
      this.sealedUid();
    } else if (typeof r === 'number') {
      runArena.uids.set(uidWords.subarray(0, UID_WORDS), r * UID_WORDS);
      runArena.flags[r]! |= HAS_UID;
      this.#named = namedAs(fields.name, null, createdApart);
    } else this.#named = namedAs(fields.name, decodeUid(uidWords), createdApart);
    this.#shared = sharedParts(fields.cluster, fields.namespace, fields.labels, fields.accelerator, fields.topology, fields.accelerators, fields.checkpointIntervalMs, fields.pods);
  }

  get name(): string {
    const named = this.#named;
    return typeof named === 'string' ? named : named.name;
  }
  set name(value: string) {
    const named = this.#named;
    this.#named = typeof named === 'string' ? value : namedAs(value, named.uid, named.createdAt);
  }

  get uid(): string {
    const named = this.#named;
    const uid = typeof named === 'string' ? null : named.uid;
    return uid !== null ? uid : decodeUid(runArena.uids, heldAt(this.transitions));
  }
  set uid(value: string) {
    const named = this.#named;
    const r = this.transitions;
    // Held as a string until sealedUid holds it in the record; the record's old one no longer its.
    if (typeof r === 'number') runArena.flags[r]! &= ~HAS_UID;
    this.#named = namedAs(this.name, value, typeof named === 'string' ? undefined : named.createdAt);
    this.sealedUid();
  }

  /**
   * Its UID into its arena record, when it is sealed there (types.ts sealClosed) and the UID is
   * canonical; else the string stays. (Public: a class with a private method marks each instance
   * with a brand, 8 bytes a run.)
   */
  sealedUid(): void {
    const named = this.#named;
    const r = this.transitions;
    if (typeof r !== 'number' || typeof named === 'string' || named.uid === null || !encodeUid(named.uid, runArena.uids, r * UID_WORDS)) return;
    runArena.flags[r]! |= HAS_UID;
    this.#named = namedAs(named.name, null, named.createdAt);
  }

  /** Its arena record about to be let go (types.ts unsealClosed, a store unpacking it): its UID as a string again. */
  keepUidText(): void {
    const named = this.#named;
    if (typeof named === 'string' || named.uid === null) this.#named = namedAs(this.name, decodeUid(runArena.uids, heldAt(this.transitions)), typeof named === 'string' ? undefined : named.createdAt);
  }

  /** The arena record holding its UID (its words at runArena.uids[r * 4…]); -1 when it holds the UID as a string. */
  get uidRecord(): number {
    const named = this.#named;
    return typeof named === 'string' || named.uid === null ? (this.transitions as unknown as number) : -1;
  }

  /** Its first transition's time, unless it was given another (Apart). */
  get createdAt(): number {
    const named = this.#named;
    const apart = typeof named === 'string' ? undefined : named.createdAt;
    return apart !== undefined ? apart : firstTime(this.transitions)!;
  }
  set createdAt(value: number) {
    const named = this.#named;
    const apart = Object.is(firstTime(this.transitions), value) ? undefined : value;
    this.#named = typeof named === 'string' ? namedAs(named, null, apart) : namedAs(named.name, named.uid, apart);
  }

  get cluster(): string | undefined {
    return this.#shared.cluster;
  }
  set cluster(value: string | undefined) {
    this.#shared = sharedWith(this.#shared, 'cluster', value);
  }
  get namespace(): string {
    return this.#shared.namespace;
  }
  set namespace(value: string) {
    this.#shared = sharedWith(this.#shared, 'namespace', value);
  }
  get labels(): Record<string, string> {
    return this.#shared.labels as Record<string, string>;
  }
  set labels(value: Record<string, string>) {
    this.#shared = sharedWith(this.#shared, 'labels', value);
  }
  get accelerator(): string | null {
    return this.#shared.accelerator;
  }
  set accelerator(value: string | null) {
    this.#shared = sharedWith(this.#shared, 'accelerator', value);
  }
  get topology(): string | null {
    return this.#shared.topology;
  }
  set topology(value: string | null) {
    this.#shared = sharedWith(this.#shared, 'topology', value);
  }
  get accelerators(): number | undefined {
    return this.#shared.accelerators;
  }
  set accelerators(value: number | undefined) {
    this.#shared = sharedWith(this.#shared, 'accelerators', value);
  }
  get checkpointIntervalMs(): number | null | undefined {
    return this.#shared.checkpointIntervalMs;
  }
  set checkpointIntervalMs(value: number | null | undefined) {
    this.#shared = sharedWith(this.#shared, 'checkpointIntervalMs', value);
  }
  get pods(): number | undefined {
    return this.#shared.pods;
  }
  set pods(value: number | undefined) {
    this.#shared = sharedWith(this.#shared, 'pods', value);
  }

  /** Every field as a plain object's own (what a spread of a plain timeline gives); `cluster` only when set. */
  fields(): RunFields {
    const p = this.#shared;
    const fields: RunFields = {
      uid: this.uid,
      namespace: p.namespace,
      name: this.name,
      labels: p.labels as Record<string, string>,
      accelerator: p.accelerator,
      topology: p.topology,
      accelerators: p.accelerators,
      checkpointIntervalMs: p.checkpointIntervalMs,
      pods: p.pods,
      createdAt: this.createdAt,
      transitions: this.transitions,
    };
    if (p.cluster !== undefined) fields.cluster = p.cluster;
    return fields;
  }
}
