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
const numeric = (x: number | null | undefined): string => (x === null ? 'n' : x === undefined ? 'u' : String(x));

let identities = new WeakMap<Labels, Map<string, Identity>>();
let identitiesKept = 0;
/** The one found last: a snapshot's runs come in name order, one JobSet's runs together. */
let lastIdentity: Identity | null = null;

/** The shared copy of `i`. */
function sharedIdentity(i: Identity): Identity {
  const last = lastIdentity;
  if (last !== null && last.labels === i.labels && last.namespace === i.namespace && last.accelerator === i.accelerator && last.topology === i.topology && last.cluster === i.cluster) return last;
  const key = `${text(i.namespace)}|${text(i.accelerator)}|${text(i.topology)}|${text(i.cluster)}`;
  let byKey = identities.get(i.labels);
  let kept = byKey?.get(key);
  if (kept === undefined) {
    if (identitiesKept >= KEPT) {
      identities = new WeakMap();
      identitiesKept = 0;
      byKey = undefined;
    }
    if (byKey === undefined) identities.set(i.labels, (byKey = new Map()));
    kept = new SharedIdentity(i);
    byKey.set(key, kept);
    identitiesKept++;
  }
  return (lastIdentity = kept);
}

const goodputs = new Map<string, Goodput>();

/** The shared copy of `g`. */
function sharedGoodput(g: Goodput): Goodput {
  const key = `${numeric(g.accelerators)}|${numeric(g.checkpointIntervalMs)}|${numeric(g.pods)}`;
  let kept = goodputs.get(key);
  if (kept === undefined) {
    if (goodputs.size >= KEPT) goodputs.clear();
    kept = new SharedGoodput(g);
    goodputs.set(key, kept);
  }
  return kept;
}

/** `shared` with `field` = `value`: itself when it has it already, else the shared copy of the changed one. */
function identityWith<K extends keyof Identity>(shared: Identity, field: K, value: Identity[K]): Identity {
  return shared[field] === value ? shared : sharedIdentity({ ...shared, [field]: value });
}

function goodputWith<K extends keyof Goodput>(shared: Goodput, field: K, value: Goodput[K]): Goodput {
  return Object.is(shared[field], value) ? shared : sharedGoodput({ ...shared, [field]: value });
}

/** The time of the first of `transitions`; undefined when there is none. An arena record's read first: most runs are one. */
function firstTime(transitions: Transition[] | PackedTransitions): number | undefined {
  if (typeof transitions === 'number') return runArena.count[transitions]! > 0 ? runArena.times[runArena.base[transitions]!] : undefined;
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
    this.#identity = sharedIdentity({ cluster: fields.cluster, namespace: fields.namespace, labels: fields.labels, accelerator: fields.accelerator, topology: fields.topology });
    this.#goodput = sharedGoodput({ accelerators: fields.accelerators, checkpointIntervalMs: fields.checkpointIntervalMs, pods: fields.pods });
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
