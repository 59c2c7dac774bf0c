// A machine as a snapshot of format 5 keeps it (./records.ts): one JSON array a timeline, read
// without a parsed object per transition or per identity. Its strings (namespace, name, accelerator,
// topology) and its label set are interned per snapshot: the first element that needs one writes it
// in full and gives it the next number of its table (strings, label sets), later elements write that
// number. A realistic fleet has a few namespaces and label sets, and ~90 runs per JobSet name.
//
//   [uid, namespace, name, labels, accelerator, topology, createdAt, accelerators, checkpointIntervalMs,
//    pods, everUp, restarts, rv, deletedAt, states, times, extras?]
//
// `states`: a character per transition (STATE_CODES); `times`: each transition's time as the
// difference from the one before (the first from createdAt); a time whose difference would not
// give it back exactly (not a safe integer) is written as [time]. `extras`, only when a transition
// carries anything more: [index, [interruptions, recoveries] | null, causes | null, why suspended | null].
// A closed timeline is read straight into the packed form the engine holds it in (timeline/columns.ts
// packColumns): its times and state codes as columns, objects only for the transitions with extras.

import { internLabels, internNamespace, internSuspension, internValue } from '../timeline/intern.ts';
import { keepClosedMemory, type MachineState } from '../timeline/machine.ts';
import { RunTimeline } from '../timeline/run-timeline.ts';
import { causeNumberFor, CLOSED_FROM, codeWords, compactTransition, packColumns, restartCodeFor, STATE_CODE, stateOfCode, suspensionNumber } from '../timeline/columns.ts';
import { transitionAt, transitionCount, type Cause, type State, type Suspension, type Timeline, type Transition } from '../timeline/types.ts';
import { encodeUidBytes, UID_WORDS } from '../timeline/uids.ts';

type Labels = Readonly<Record<string, string>>;
/** An interned string: its number in the strings table, or (first use) the string itself. */
type Ref = number | string;
type Extra = [index: number, unobserved: [number, number] | null, causes: Cause[] | null, suspension: Suspension | null];

export type DenseMachine = [
  uid: string,
  namespace: Ref,
  name: Ref,
  labels: number | Labels,
  accelerator: Ref | null,
  topology: Ref | null,
  createdAt: number,
  accelerators: number,
  checkpointIntervalMs: number | null,
  pods: number,
  everUp: boolean,
  restarts: number,
  rv: string | null,
  deletedAt: number | null,
  states: string,
  times: (number | [number])[],
  extras?: Extra[],
];

const STATE_CODES: Readonly<Record<State, string>> = { provisioning: 'p', up: 'u', down: 'd', suspended: 's', unknown: 'n', completed: 'c', failed: 'f', deleted: 'x' };
/** The timeline's state code (timeline/columns.ts STATE_CODE) by character code. */
const CODES: (number | undefined)[] = [];
for (const [state, code] of Object.entries(STATE_CODES)) CODES[code.charCodeAt(0)] = STATE_CODE[state as State];

/** Encodes the machines of one snapshot, in order (the tables grow as they go). */
export class DenseWriter {
  readonly #strings = new Map<string, number>();
  /** Label sets by reference (the engine shares them: timeline/intern.ts), then by content. */
  readonly #labelSets = new Map<Labels, number>();
  readonly #labelKeys = new Map<string, number>();

  #ref(s: string): Ref {
    const n = this.#strings.get(s);
    if (n !== undefined) return n;
    this.#strings.set(s, this.#strings.size);
    return s;
  }

  #labels(labels: Labels): number | Labels {
    let n = this.#labelSets.get(labels);
    if (n !== undefined) return n;
    const key = JSON.stringify(labels);
    n = this.#labelKeys.get(key);
    if (n === undefined) {
      this.#labelKeys.set(key, this.#labelKeys.size);
      this.#labelSets.set(labels, this.#labelKeys.size - 1);
      return labels;
    }
    this.#labelSets.set(labels, n);
    return n;
  }

  encode(m: MachineState): DenseMachine {
    const tl = m.timeline;
    let states = '';
    const times: (number | [number])[] = [];
    let extras: Extra[] | undefined;
    let before = tl.createdAt;
    for (let i = 0; i < transitionCount(tl); i++) {
      const t = transitionAt(tl, i);
      states += STATE_CODES[t.state];
      const d = t.at - before;
      times.push(before + d === t.at && Number.isSafeInteger(d) ? d : [t.at]);
      before = t.at;
      const causes = t.causes !== undefined && t.causes.length > 0 ? t.causes : null;
      if (t.unobserved !== undefined || causes !== null || t.suspension !== undefined) {
        (extras ??= []).push([i, t.unobserved === undefined ? null : [t.unobserved.interruptions, t.unobserved.recoveries], causes, t.suspension ?? null]);
      }
    }
    const dense: DenseMachine = [
      tl.uid,
      this.#ref(tl.namespace),
      this.#ref(tl.name),
      this.#labels(tl.labels),
      tl.accelerator === null ? null : this.#ref(tl.accelerator),
      tl.topology === null ? null : this.#ref(tl.topology),
      tl.createdAt,
      tl.accelerators ?? 0,
      tl.checkpointIntervalMs ?? null,
      tl.pods ?? 0,
      m.everUp,
      m.restarts,
      m.resourceVersion,
      m.deletedAt,
      states,
      times,
    ];
    if (extras !== undefined) dense.push(extras);
    return dense;
  }
}

/** Causes as the engine keeps them (timeline/facts.ts): the strings a fleet's causes repeat (kind, node, container, reason, message) shared. */
function internCauses(causes: Cause[]): Cause[] {
  for (const c of causes) {
    c.kind = internValue(c.kind);
    if (c.node !== undefined) c.node = internValue(c.node);
    if (c.container !== undefined) c.container = internValue(c.container);
    if (c.reason !== undefined) c.reason = internValue(c.reason);
    if (c.message !== undefined) c.message = internValue(c.message);
  }
  return causes;
}

const malformed = (what: string): SyntaxError => new SyntaxError(`a machine of the snapshot ${what}`);

/**
 * Decodes the machines of one snapshot, in the order written, each as the engine keeps it (a closed
 * run's as its timeline alone: timeline/machine.ts settledMachine); a malformed one throws a SyntaxError.
 */
export class DenseReader {
  readonly #strings: string[] = [];
  readonly #labelSets: Labels[] = [];
  /** Scratch a machine's times and state codes are read into, laid out as the engine's columns lay
   *  them (timeline/columns.ts Columns.at: the times, then the codes eight to a number), then copied
   *  once at their length: of the elements kind the engine's columns have (doubles). */
  readonly #laid: number[] = [0.5];

  #string(ref: unknown): string {
    if (typeof ref === 'string') {
      this.#strings.push(ref);
      return ref;
    }
    const s = this.#strings[ref as number];
    if (s === undefined) throw malformed(`refers to string ${String(ref)}, of ${this.#strings.length}`);
    return s;
  }

  #labels(ref: unknown): Labels {
    if (typeof ref === 'object' && ref !== null) {
      const labels = internLabels(ref as Labels);
      this.#labelSets.push(labels);
      return labels;
    }
    const labels = this.#labelSets[ref as number];
    if (labels === undefined) throw malformed(`refers to label set ${String(ref)}, of ${this.#labelSets.length}`);
    return labels;
  }

  /** Zeroes the scratch's code words for `n` transitions (their times are written over). */
  #lay(n: number): void {
    const length = n + codeWords(n);
    const laid = this.#laid;
    while (laid.length < length) laid.push(0.5);
    laid.fill(0, n, length);
  }

  /** Transition i's time and state code into the scratch (its words zeroed by #lay). */
  #put(n: number, i: number, at: number, code: number): void {
    const laid = this.#laid;
    laid[i] = at;
    const w = n + (i >> 3);
    laid[w] = (laid[w]! | (code << ((i & 7) << 2))) >>> 0;
  }

  decode(item: unknown): MachineState | Timeline {
    if (!Array.isArray(item) || item.length < 16 || item.length > 17) throw malformed('is not an array of 16 or 17 elements');
    const d = item as DenseMachine;
    const [uid, , , , , , createdAt, , , , , , , , states, times, extras] = d;
    if (typeof uid !== 'string' || typeof createdAt !== 'number' || typeof states !== 'string' || !Array.isArray(times) || times.length !== states.length) {
      throw malformed('has no uid, creation, or as many times as states');
    }
    const n = states.length;
    this.#lay(n);
    // Times and state codes into the scratch, checked as they go.
    let at = createdAt;
    for (let i = 0; i < n; i++) {
      const step = times[i];
      at = typeof step === 'number' ? at + step : Array.isArray(step) ? (step[0] as number) : NaN;
      const code = CODES[states.charCodeAt(i)] ?? -1;
      if (code < 0 || typeof at !== 'number' || Number.isNaN(at)) throw malformed(`has an unknown state or time at ${i}`);
      this.#put(n, i, at, code);
    }
    return this.#machine(d, n, extras);
  }

  /**
   * decode of one element's JSON text (`bytes` from `start` to `end`) read straight from its bytes,
   * without the parsed array, its times' array and its strings that JSON.parse would make and drop
   * (most of a start's garbage): what JSON.parse and decode would give. Null, having read nothing,
   * for an element it does not scan (a label set or a string written in full with escapes, a number
   * that is not a short integer, anything unexpected): the caller parses that one as JSON.
   */
  read(bytes: Buffer, start: number, end: number): MachineState | Timeline | null {
    const s = this.#scan;
    s.from(bytes, start, end);
    s.byte(OPEN);
    const f = this.#fields;
    // The UID: a canonical one read into words (a closed run holds it so: timeline/run-timeline.ts), no string made; another as its string.
    f[0] = s.uid(this.#uidWords) ? null : s.string();
    s.byte(COMMA);
    for (let k = 1; k < FIELDS.length; k++) {
      f[k] = s.value(FIELDS[k]!);
      s.byte(COMMA);
    }
    // The states: one known character each (the scan stops short of the quote at the first other).
    s.byte(QUOTE);
    const states = s.at;
    while (s.at < end && (CODES[bytes[s.at]!] ?? -1) >= 0) s.at++;
    const n = s.at - states;
    s.byte(QUOTE);
    s.byte(COMMA);
    s.byte(OPEN);
    if (s.failed) return null;
    this.#lay(n);
    const createdAt = f[6] as number;
    let at = createdAt;
    for (let i = 0; i < n && !s.failed; i++) {
      if (i > 0) s.byte(COMMA);
      if (bytes[s.at] === OPEN) {
        s.at++;
        at = s.int();
        s.byte(CLOSE);
      } else at += s.int();
      this.#put(n, i, at, CODES[bytes[states + i]!]!);
    }
    s.byte(CLOSE);
    const closed = !s.failed && n > 0 && this.#code(n, n - 1) >= CLOSED_FROM;
    // An open run keeps its resource version; a closed one drops it (#machine), so its string is not made.
    if (f[RV_FIELD] === LATER) f[RV_FIELD] = closed ? null : s.later();
    let extras: Extra[] | undefined;
    // Most of a closed fleet's extras are failure-policy restarts, failures and suspensions' reasons:
    // read straight into what the side table keeps of them (a restart as a number: timeline/columns.ts
    // restartCodeFor), without the JSON text, its arrays and objects.
    const side = bytes[s.at] === COMMA && closed ? this.#sideTable(s, n) : -1;
    if (side >= 0) s.at = end - 1;
    else if (bytes[s.at] === COMMA && bytes[end - 1] === CLOSE) {
      try {
        extras = JSON.parse(bytes.toString('utf8', s.at + 1, end - 1)) as Extra[];
      } catch {
        return null;
      }
      s.at = end - 1;
    }
    s.byte(CLOSE);
    if (s.failed || s.at !== end) return null;
    return this.#machine(f as unknown as DenseMachine, n, extras, side);
  }

  /** The state code of transition i of `n` in the scratch. */
  #code(n: number, i: number): number {
    return (this.#laid[n + (i >> 3)]! >>> ((i & 7) << 2)) & 15;
  }

  /**
   * A closed run's extras (the scan at the comma before them) when each is causes as the engine writes
   * them (#causes: failure-policy restarts, JobSetFailed) or a suspension's reason and message alone,
   * in index order: the side table of them (index, code or transition, …: what decode's side table
   * would be) in #held, its length given, the scan left at their end; else −1, the scan where it was
   * (the extras are then parsed as JSON, and give the same).
   */
  #sideTable(s: Scan, n: number): number {
    const from = s.at;
    // Written over, not emptied: an array's length set to 0 lets its room go, and it grew again a run.
    const held = this.#held;
    let length = 0;
    s.byte(COMMA);
    s.byte(OPEN);
    let last = -1;
    for (;;) {
      s.byte(OPEN);
      const i = s.int();
      s.literal(NO_UNOBSERVED);
      if (s.failed || i <= last || i >= n) break;
      if (s.bytes[s.at] === OPEN) {
        const causes = this.#causes(s, n, i);
        if (causes === null) break;
        held[length++] = i;
        held[length++] = causes;
      } else {
        // A suspension's bytes read before give what they gave then, without their strings made again.
        const kept = this.#suspensions.find(s) ?? this.#suspension(s, n, i);
        if (kept === null) break;
        held[length++] = i;
        held[length++] = kept;
      }
      last = i;
      if (s.at >= s.end || s.bytes[s.at] !== COMMA) {
        s.byte(CLOSE);
        if (!s.failed) return length;
        break;
      }
      s.at++;
    }
    s.at = from;
    s.failed = false;
    return -1;
  }

  /**
   * A suspension's reason and message alone, for transition i of `n` (the scan at its bytes): as the
   * side table keeps it, the shared suspension's number (its bytes then remembered, #suspensions), or
   * where it has none, as decode keeps it (compactTransition's form: the time, the state and the shared
   * suspension); null, the scan failed, when it is not in that form.
   */
  #suspension(s: Scan, n: number, i: number): number | Transition | null {
    const begun = s.at;
    s.literal(SUSPENSION_HEAD);
    const reason = s.stringOrNull();
    s.literal(MESSAGE_KEY);
    const message = s.stringOrNull();
    s.literal(SUSPENSION_TAIL);
    if (s.failed) return null;
    const suspension = internSuspension({ reason, message });
    const number = suspensionNumber(suspension);
    if (number === null) return { at: this.#laid[i]!, state: stateOfCode(this.#code(n, i)), suspension };
    this.#suspensions.keep(s.bytes, begun, s.at, number);
    return number;
  }

  /**
   * A transition's causes, no suspension after them (the scan at their list), for transition i of `n`:
   * each a failure-policy restart as the engine writes it or a cause of a kind, time, reason and
   * message alone (the engine's JobSetFailed). One is kept as the side table keeps it where it can (a
   * number: columns.ts restartCodeFor, causeNumberFor), no object made; several (restarts between two
   * observations), or one no number holds, as decode keeps them (compactTransition's form: the time,
   * the state and the causes, their strings interned as internCauses interns them). Null, the scan
   * failed, for causes in any other form.
   */
  #causes(s: Scan, n: number, i: number): number | Transition | null {
    s.byte(OPEN);
    if (!this.#readCause(s)) return null;
    if (s.at >= s.end || s.bytes[s.at] !== COMMA) {
      s.literal(CAUSES_TAIL);
      if (s.failed) return null;
      const read = this.#read;
      const offset = read.at - this.#laid[i]!;
      const number = read.restarts !== null ? restartCodeFor(read.restarts, offset) : causeNumberFor(read.kind, read.reason, read.message, offset);
      return number ?? this.#withCauses(n, i, [this.#causeRead()]);
    }
    const causes = [this.#causeRead()];
    while (s.at < s.end && s.bytes[s.at] === COMMA) {
      s.at++;
      if (!this.#readCause(s)) return null;
      causes.push(this.#causeRead());
    }
    s.literal(CAUSES_TAIL);
    return s.failed ? null : this.#withCauses(n, i, causes);
  }

  /** Transition i of `n` with `causes` (compactTransition's form). */
  #withCauses(n: number, i: number, causes: Cause[]): Transition {
    return { at: this.#laid[i]!, state: stateOfCode(this.#code(n, i)), causes };
  }

  /** One cause of #causes's forms into #read (no object made); false, the scan failed, when it is in neither. */
  #readCause(s: Scan): boolean {
    const read = this.#read;
    if (s.startsWith(RESTART_HEAD)) {
      s.literal(RESTART_HEAD);
      read.at = s.int();
      s.literal(RESTART_COUNT);
      read.restarts = s.int();
      s.literal(RESTART_END);
      read.kind = RESTART_KIND;
      read.reason = RESTART_REASON;
      read.message = null;
    } else {
      s.literal(CAUSE_KIND);
      read.kind = s.string();
      s.literal(CAUSE_AT);
      read.at = s.int();
      s.literal(CAUSE_REASON);
      read.reason = s.stringOrNull();
      s.literal(MESSAGE_KEY);
      read.message = s.stringOrNull();
      s.literal(CAUSE_END);
      read.restarts = null;
    }
    return !s.failed;
  }

  /** The cause #readCause read last, as JSON.parse and internCauses make it (its keys in the writer's order). */
  #causeRead(): Cause {
    const { kind, at, restarts, reason, message } = this.#read;
    if (restarts !== null) return { kind: internValue(kind), at, restarts, reason: internValue(reason) } as Cause;
    return { kind: internValue(kind), at, reason: internValue(reason), message: internValue(message) } as Cause;
  }

  /** What #readCause read last: a restart's count, or null for a cause with a message. */
  readonly #read: { kind: string; at: number; restarts: number | null; reason: string | null; message: string | null } = { kind: '', at: 0, restarts: null, reason: null, message: null };

  /** Suspensions' bytes already read, and what each gave (a fleet's say a handful of things). */
  readonly #suspensions = new KeptBytes();

  /** Scratch of #sideTable, its first `length` (#sideTable's) in use (packColumns copies what it keeps). */
  readonly #held: (number | Transition)[] = [];

  readonly #scan = new Scan();
  /** The UID read last as words (read: the element's first field null). */
  readonly #uidWords = new Uint32Array(UID_WORDS);
  /** The fields before the states, as the scan reads them (FIELDS). */
  readonly #fields: unknown[] = [];

  /**
   * The machine of a decoded element (its fields before the states, as DenseMachine orders them: the
   * refs not yet checked), its `n` transitions' times and codes in the scratch; the tables grow with
   * the strings it writes in full.
   */
  #machine(
    d: Readonly<DenseMachine>,
    n: number,
    extras: Extra[] | undefined,
    /** The length of #held that #sideTable read this run's side table into (−1: none read so). */
    side = -1,
  ): MachineState | Timeline {
    // Read by index, not destructured: the destructuring made an iterator and its results, ~300
    // bytes of garbage a run (README "Performance", "Restart: the read's garbage").
    const uid = d[0];
    // Null: read as words (read).
    const uidWords = (uid as string | null) === null ? this.#uidWords : undefined;
    const namespace = internNamespace(this.#string(d[1]));
    const name = this.#string(d[2]);
    const labels = this.#labels(d[3]);
    const accelerator = d[4];
    const topology = d[5];
    const laid = this.#laid;
    // A closed timeline is held packed (timeline/columns.ts): its columns as read, no object per
    // transition; an open one (a few of a snapshot) keeps its array of transitions.
    const closed = n > 0 && this.#code(n, n - 1) >= CLOSED_FROM;
    let transitions: Transition[] | null = null;
    if (!closed) {
      transitions = [];
      for (let i = 0; i < n; i++) transitions.push({ at: laid[i]!, state: stateOfCode(this.#code(n, i)) });
    }
    // Its side table: read by #sideTable (its scratch), or made of the extras parsed as JSON (one or neither).
    let held: (number | Transition)[] | null = side >= 0 ? this.#held : null;
    let last = -1;
    if (extras !== undefined) for (const [i, unobserved, causes, suspension] of extras) {
      if (!Number.isInteger(i) || i < 0 || i >= n) throw malformed(`has more of transition ${i}, of ${n}`);
      if (unobserved === null && causes === null && suspension === null) continue;
      const t: Transition = transitions?.[i] ?? { at: laid[i]!, state: stateOfCode(this.#code(n, i)) };
      if (unobserved !== null) t.unobserved = { interruptions: unobserved[0], recoveries: unobserved[1] };
      if (causes !== null) t.causes = internCauses(causes);
      if (suspension !== null) t.suspension = internSuspension({ reason: suspension.reason ?? null, message: suspension.message ?? null });
      if (transitions !== null) continue;
      // The side table is in index order, each transition once (as the writer writes them).
      if (i <= last) throw malformed(`has more of transition ${i} out of order`);
      last = i;
      (held ??= []).push(i, compactTransition(t));
    }
    const timeline: Timeline = new RunTimeline({
      uid,
      namespace,
      name,
      labels,
      accelerator: accelerator === null ? null : this.#string(accelerator),
      topology: topology === null ? null : this.#string(topology),
      createdAt: d[6],
      accelerators: d[7],
      checkpointIntervalMs: d[8],
      pods: d[9],
      // A closed one's placed in the arena from the scratch.
      transitions: transitions ?? packColumns(laid, n, held, side >= 0 ? side : (held?.length ?? 0)),
    }, uidWords);
    const everUp = d[10];
    const restarts = d[11];
    const deletedAt = d[13];
    // A closed run as the engine keeps it (timeline/machine.ts settledMachine: its resource version
    // dropped as a run that closes drops it): no machine object made only to be dropped.
    if (closed && keepClosedMemory(timeline, everUp, restarts, deletedAt)) return timeline;
    return { timeline, everUp, restarts, resourceVersion: closed ? null : d[12], deletedAt };
  }
}

/** A closed run's extras the reader reads from their bytes (#sideTable): after the index, no unobserved events; causes (#causes), each a failure-policy restart as the writer writes it (nodes/objects.ts jobsetCauses) or a JobSetFailed. */
const NO_UNOBSERVED = ',null,';
const RESTART_KIND = 'JobSetRestart';
const RESTART_REASON = 'FailurePolicyRestart';
const RESTART_HEAD = `{"kind":"${RESTART_KIND}","at":`;
const RESTART_COUNT = ',"restarts":';
const RESTART_END = `,"reason":"${RESTART_REASON}"}`;
/** Between a cause's or a suspension's reason and its message. */
const MESSAGE_KEY = ',"message":';
/** A cause of a kind, time, reason and message alone (the engine's JobSetFailed: nodes/objects.ts jobsetCauses). */
const CAUSE_KIND = '{"kind":';
const CAUSE_AT = ',"at":';
const CAUSE_REASON = ',"reason":';
const CAUSE_END = '}';
/** After the causes: the list closed, no suspension, the extra closed. */
const CAUSES_TAIL = '],null]';
/** A suspension's reason and message alone (no unobserved events, no causes), as the writer writes them. */
const SUSPENSION_HEAD = 'null,{"reason":';
const SUSPENSION_TAIL = '}]';

/**
 * Byte strings read before (a few, each copied) and the number each gave: `find` moves the scan past
 * one that its bytes begin with, and gives its number. Only what the scan read whole is kept, so a
 * match gives what reading the same bytes again would.
 */
class KeptBytes {
  readonly #bytes: Buffer[] = [];
  readonly #numbers: number[] = [];

  /** The number kept for the bytes at the scan, the scan moved past them; null (the scan unmoved) when none is kept. */
  find(s: Scan): number | null {
    const kept = this.#bytes;
    const bytes = s.bytes;
    for (let k = 0; k < kept.length; k++) {
      const b = kept[k]!;
      if (s.at + b.length > s.end) continue;
      let i = 0;
      while (i < b.length && bytes[s.at + i] === b[i]) i++;
      if (i === b.length) {
        s.at += i;
        return this.#numbers[k]!;
      }
    }
    return null;
  }

  /** Keeps `bytes` from `start` to `end` (read whole) as giving `number`, while there are few. */
  keep(bytes: Buffer, start: number, end: number, number: number): void {
    if (this.#bytes.length >= KEPT_BYTES) return;
    this.#bytes.push(Buffer.from(bytes.subarray(start, end)));
    this.#numbers.push(number);
  }
}

/** How many byte strings KeptBytes keeps: a fleet's suspensions say a handful of things, a look costs one comparison each. */
const KEPT_BYTES = 16;

const OPEN = 0x5b; // [
/** JSON's bytes the snapshot's readers look for (./records.ts too). */
export const CLOSE = 0x5d; // ]
export const COMMA = 0x2c;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MINUS = 0x2d;
const ZERO = 0x30;
/** JSON's number goes on with a fraction or an exponent: . e E */
const FRACTION = 0x2e;
const EXPONENT = 0x65;
const EXPONENT_UPPER = 0x45;
/** Digits of an integer that a double holds exactly, whatever they are. */
const EXACT_DIGITS = 15;

/**
 * A scan of one element's JSON text as JSON.stringify writes it (no whitespace), value by value.
 * What it does not read exactly as JSON.parse would (an escape, a fraction, an exponent, more than
 * 15 digits, anything unexpected) sets `failed`, and the element is parsed as JSON instead.
 */
class Scan {
  bytes: Buffer = Buffer.alloc(0);
  at = 0;
  end = 0;
  failed = false;

  from(bytes: Buffer, start: number, end: number): void {
    this.bytes = bytes;
    this.at = start;
    this.end = end;
    this.failed = false;
  }

  byte(b: number): void {
    if (this.at < this.end && this.bytes[this.at] === b) this.at++;
    else this.failed = true;
  }

  #word(word: string): boolean {
    if (!this.startsWith(word)) return false;
    this.at += word.length;
    return true;
  }

  /** The bytes of `word`, exactly. */
  literal(word: string): void {
    if (!this.#word(word)) this.failed = true;
  }

  isNull(): boolean {
    return this.#word('null');
  }

  /** Whether the bytes at the scan begin with `word` (the scan unmoved). */
  startsWith(word: string): boolean {
    for (let i = 0; i < word.length; i++) if (this.at + i >= this.end || this.bytes[this.at + i] !== word.charCodeAt(i)) return false;
    return true;
  }

  bool(): boolean {
    if (this.#word('true')) return true;
    if (!this.#word('false')) this.failed = true;
    return false;
  }

  /** An integer of at most EXACT_DIGITS digits (JSON's form: no leading zero). */
  int(): number {
    const bytes = this.bytes;
    let i = this.at;
    const negative = bytes[i] === MINUS;
    if (negative) i++;
    const first = i;
    let value = 0;
    for (; i < this.end; i++) {
      const digit = bytes[i]! - ZERO;
      if (digit < 0 || digit > 9) break;
      value = value * 10 + digit;
    }
    const digits = i - first;
    const next = i < this.end ? bytes[i] : -1;
    if (digits === 0 || digits > EXACT_DIGITS || (digits > 1 && bytes[first] === ZERO) || next === FRACTION || next === EXPONENT || next === EXPONENT_UPPER) {
      this.failed = true;
      return 0;
    }
    this.at = i;
    return negative ? -value : value;
  }

  /** A string without escapes or control characters (JSON.parse reads the others). */
  string(): string {
    const from = this.skipString();
    return from < 0 ? '' : this.text(from);
  }

  /** Whether the last string skipped is ASCII alone. */
  #ascii = true;

  /**
   * Moves past a string as string() reads it, without making it: where its characters begin (they end
   * before the quote the scan is now past; text gives it), or −1 (failed).
   */
  skipString(): number {
    const bytes = this.bytes;
    if (this.at >= this.end || bytes[this.at] !== QUOTE) {
      this.failed = true;
      return -1;
    }
    const from = this.at + 1;
    let ascii = true;
    let i = from;
    for (; i < this.end; i++) {
      const b = bytes[i]!;
      if (b === QUOTE) break;
      if (b === BACKSLASH || b < 0x20) {
        this.failed = true;
        return -1;
      }
      if (b >= 0x80) ascii = false;
    }
    if (i >= this.end) {
      this.failed = true;
      return -1;
    }
    this.at = i + 1;
    this.#ascii = ascii;
    return from;
  }

  /** The string skipped last (skipString gave `from`; the scan has not moved since). */
  text(from: number): string {
    return this.bytes.toString(this.#ascii ? 'latin1' : 'utf8', from, this.at - 1);
  }

  /** Where the string a 'later?' field skipped lies (its characters, and whether they are ASCII alone). */
  #later = { from: 0, to: 0, ascii: true };

  /** The string the last 'later?' field skipped (value gave LATER), made now. */
  later(): string {
    const { from, to, ascii } = this.#later;
    return this.bytes.toString(ascii ? 'latin1' : 'utf8', from, to);
  }

  /** A string as string() reads it, or null. */
  stringOrNull(): string | null {
    return this.isNull() ? null : this.string();
  }

  /** A canonical UID's string (uids.ts) read into `words`: true, the scan past it; else false, the scan where it was. */
  uid(words: Uint32Array): boolean {
    const at = this.at;
    if (at + 38 > this.end || this.bytes[at] !== QUOTE || this.bytes[at + 37] !== QUOTE || !encodeUidBytes(this.bytes, at + 1, words)) return false;
    this.at = at + 38;
    return true;
  }

  /** An interned string's number, or the string written in full. */
  ref(): Ref {
    return this.at < this.end && this.bytes[this.at] === QUOTE ? this.string() : this.int();
  }

  /** A value of this kind (FIELDS), or null where the kind allows it. */
  value(kind: Field): unknown {
    switch (kind) {
      case 'int':
        return this.int();
      case 'ref':
        return this.ref();
      case 'string':
        return this.string();
      case 'bool':
        return this.bool();
      case 'int?':
        return this.isNull() ? null : this.int();
      case 'ref?':
        return this.isNull() ? null : this.ref();
      case 'later?': {
        if (this.isNull()) return null;
        const from = this.skipString();
        if (from < 0) return null;
        const later = this.#later;
        later.from = from;
        later.to = this.at - 1;
        later.ascii = this.#ascii;
        return LATER;
      }
    }
  }
}

/**
 * What the scan reads of an element's fields before its states (DenseMachine's order), '?' where
 * null may stand: a label set written in full (its first use) is not an int, and JSON.parse reads
 * that element. The first, the UID, is read apart (a canonical one as words: Scan.uid).
 */
const FIELDS = ['string', 'ref', 'ref', 'int', 'ref?', 'ref?', 'int', 'int', 'int?', 'int', 'bool', 'int', 'later?', 'int?'] as const;
/** The resource version's place among them: 'later?', made a string only for an open run (a closed one drops it). */
const RV_FIELD = 12;
/** What value gives for a 'later?' string, made when asked (Scan.later). */
const LATER = Symbol('later');
type Field = (typeof FIELDS)[number];
