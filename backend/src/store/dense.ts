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
import type { MachineState } from '../timeline/machine.ts';
import { CLOSED_FROM, compactTransition, packColumns, STATE_CODE, stateOfCode } from '../timeline/columns.ts';
import { transitionAt, transitionCount, type Cause, type State, type Suspension, type Transition } from '../timeline/types.ts';

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

/** Decodes the machines of one snapshot, in the order written; a malformed one throws a SyntaxError. */
export class DenseReader {
  readonly #strings: string[] = [];
  readonly #labelSets: Labels[] = [];
  /** Scratch columns a machine's times and state codes are read into, then copied at their length:
   *  one array each, of the elements kind the engine's own columns have (doubles; small integers). */
  readonly #at: number[] = [0.5];
  readonly #code: number[] = [0];

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

  decode(item: unknown): MachineState {
    if (!Array.isArray(item) || item.length < 16 || item.length > 17) throw malformed('is not an array of 16 or 17 elements');
    const d = item as DenseMachine;
    const [uid, , , , accelerator, topology, createdAt, accelerators, checkpointIntervalMs, pods, everUp, restarts, rv, deletedAt, states, times, extras] = d;
    if (typeof uid !== 'string' || typeof createdAt !== 'number' || typeof states !== 'string' || !Array.isArray(times) || times.length !== states.length) {
      throw malformed('has no uid, creation, or as many times as states');
    }
    const namespace = internNamespace(this.#string(d[1]));
    const name = this.#string(d[2]);
    const labels = this.#labels(d[3]);
    const n = states.length;
    // Times and state codes into the scratch columns, checked as they go.
    let at = createdAt;
    for (let i = 0; i < n; i++) {
      const step = times[i];
      at = typeof step === 'number' ? at + step : Array.isArray(step) ? (step[0] as number) : NaN;
      const code = CODES[states.charCodeAt(i)] ?? -1;
      if (code < 0 || typeof at !== 'number' || Number.isNaN(at)) throw malformed(`has an unknown state or time at ${i}`);
      if (i < this.#at.length) {
        this.#at[i] = at;
        this.#code[i] = code;
      } else {
        this.#at.push(at);
        this.#code.push(code);
      }
    }
    // A closed timeline is held packed (timeline/columns.ts): its columns as read, no object per
    // transition; an open one (a few of a snapshot) keeps its array of transitions.
    const closed = n > 0 && this.#code[n - 1]! >= CLOSED_FROM;
    let transitions: Transition[] | null = null;
    if (!closed) {
      transitions = [];
      for (let i = 0; i < n; i++) transitions.push({ at: this.#at[i]!, state: stateOfCode(this.#code[i]!) });
    }
    let held: (number | Transition)[] | null = null;
    let last = -1;
    for (const [i, unobserved, causes, suspension] of extras ?? []) {
      if (!Number.isInteger(i) || i < 0 || i >= n) throw malformed(`has more of transition ${i}, of ${n}`);
      if (unobserved === null && causes === null && suspension === null) continue;
      const t: Transition = transitions?.[i] ?? { at: this.#at[i]!, state: stateOfCode(this.#code[i]!) };
      if (unobserved !== null) t.unobserved = { interruptions: unobserved[0], recoveries: unobserved[1] };
      if (causes !== null) t.causes = internCauses(causes);
      if (suspension !== null) t.suspension = internSuspension({ reason: suspension.reason ?? null, message: suspension.message ?? null });
      if (transitions !== null) continue;
      // The side table is in index order, each transition once (as the writer writes them).
      if (i <= last) throw malformed(`has more of transition ${i} out of order`);
      last = i;
      (held ??= []).push(i, compactTransition(t));
    }
    return {
      timeline: {
        uid,
        namespace,
        name,
        labels,
        accelerator: accelerator === null ? null : this.#string(accelerator),
        topology: topology === null ? null : this.#string(topology),
        createdAt,
        accelerators,
        checkpointIntervalMs,
        pods,
        // Exact-length copies of the scratch columns (their own elements kind: doubles, small integers).
        // (The side table too: push leaves spare slots.)
        transitions: transitions ?? packColumns(this.#at.slice(0, n), this.#code.slice(0, n), held === null ? null : held.slice()),
      },
      everUp,
      restarts,
      resourceVersion: rv,
      deletedAt,
    };
  }
}
