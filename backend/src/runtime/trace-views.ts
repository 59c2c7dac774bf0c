// The views of a chunk of trace lines (trace-chunk.ts) as numbers in one ArrayBuffer, which a worker
// thread transfers to the replay rather than cloning objects (the structured clone of the views cost
// the two threads 3.4–4.8 µs an observation). Strings (identities, labels, reasons) are numbered in a
// table that each worker keeps across its chunks: a chunk's message carries only the strings new to
// it, so the replay gets the same string object each time a JobSet's UID, name or labels come back.
//
// Every view is rebuilt field by field as viewClusterObservation makes it (same keys, same order). A
// view this encoding does not cover (a pod's failures, labels that are not strings) travels as itself
// in `cloned`; that is rare.

import type { ObservationType } from '../observation/types.ts';
import type { ClusterViewedObservation, NodeObservation, PodObservation } from '../nodes/viewed.ts';
import type { ReadyStatus } from '../nodes/objects.ts';
import type { JobSetView } from '../timeline/jobset.ts';
import type { WorkloadView } from '../timeline/workload.ts';
import { internLabels } from '../timeline/intern.ts';

/** A chunk's views as a worker sends them. */
export interface EncodedViews {
  /** Observations in it. */
  count: number;
  /** Their records, one after the other (the layout is the code below). Transferred. */
  numbers: Float64Array;
  /** Strings the worker's table gained with this chunk, in the order of their numbers. */
  strings: string[];
  /** The worker's table was emptied before `strings` (it had grown past its bound). */
  reset: boolean;
  /** Observations sent as themselves, by the index their record names. */
  cloned: ClusterViewedObservation[];
}

const TYPES: readonly ObservationType[] = ['ADDED', 'MODIFIED', 'DELETED'];
const TYPE_CODE: Readonly<Record<ObservationType, number>> = { ADDED: 0, MODIFIED: 1, DELETED: 2 };
const READY: readonly ReadyStatus[] = ['True', 'False', 'Unknown'];
const READY_CODE: Readonly<Record<ReadyStatus, number>> = { True: 0, False: 1, Unknown: 2 };

/** What a record holds (its view's route), the number after its line, time and type. */
const Route = { JobSet: 0, Workload: 1, Pod: 2, Node: 3, Other: 4, /** The observation is in `cloned`. */ Cloned: 5 } as const;

/** The numbers of a record after its line, time, type and route, by route. */
const LENGTH: readonly number[] = [28, 6, 9, 18, 0, 1];
/** The most numbers one record takes (a JobSet's: 4 + 28). */
const MOST_PER_RECORD = 40;
/** No string: a string's number is its place in the table, from 0. */
const NONE = -1;
/** A table that grows past this many strings is emptied at the next chunk (UIDs of pods, free texts). */
const DEFAULT_TABLE_BOUND = 200_000;

/** A number or null (null as NaN: the numbers of a view are finite). */
const num = (n: number | null): number => (n === null ? NaN : n);
const numOrNull = (x: number): number | null => (x === x ? x : null);

/** A worker's side: its string table, kept across chunks. */
export class ViewEncoder {
  #ids = new Map<string, number>();
  /** The labels of each JobSet's last record and the number of their JSON text: a JobSet's labels rarely change, and writing them as JSON was most of a record's cost. */
  #labelsByUid = new Map<string, { labels: Record<string, string>; id: number }>();
  #added: string[] = [];
  #reset = false;
  readonly #bound: number;

  constructor(tableBound = DEFAULT_TABLE_BOUND) {
    this.#bound = tableBound;
  }

  /**
   * The views of one chunk (`lineNumbers[i]` is the line of `observations[i]`); the line numbers travel in
   * the record. `memory(bytes)`: where the numbers are written, at least `bytes` long (its old contents
   * do not matter: every number up to the chunk's last is written).
   */
  encode(observations: readonly ClusterViewedObservation[], lineNumbers: Int32Array, memory: (bytes: number) => ArrayBuffer = (bytes) => new ArrayBuffer(bytes)): EncodedViews {
    if (this.#ids.size > this.#bound) {
      this.#ids = new Map();
      this.#labelsByUid = new Map();
      this.#reset = true;
    }
    const most = observations.length * MOST_PER_RECORD;
    const out = new Float64Array(memory(most * Float64Array.BYTES_PER_ELEMENT), 0, most);
    const cloned: ClusterViewedObservation[] = [];
    let at = 0;
    for (let i = 0; i < observations.length; i++) {
      const o = observations[i]!;
      out[at] = lineNumbers[i]!;
      out[at + 1] = o.receivedAt;
      out[at + 2] = TYPE_CODE[o.type];
      at = this.#record(o, out, at + 3, cloned);
    }
    const encoded: EncodedViews = { count: observations.length, numbers: out.subarray(0, at), strings: this.#added, reset: this.#reset, cloned };
    this.#added = [];
    this.#reset = false;
    return encoded;
  }

  #string(s: string | null): number {
    if (s === null) return NONE;
    let id = this.#ids.get(s);
    if (id === undefined) {
      id = this.#ids.size;
      this.#ids.set(s, id);
      this.#added.push(s);
    }
    return id;
  }

  /** Writes the route and the record from `at`; returns where the next begins. */
  #record(o: ClusterViewedObservation, out: Float64Array, at: number, cloned: ClusterViewedObservation[]): number {
    switch (o.route) {
      case 'JobSet': {
        const labels = this.#labelsId(o.view.uid, o.view.labels);
        if (labels === null) break;
        out[at++] = Route.JobSet;
        return this.#jobset(o.view, labels, out, at);
      }
      case 'Workload':
        out[at++] = Route.Workload;
        return this.#workload(o.view, out, at);
      case 'Pod':
        if (o.failures.length > 0) break;
        out[at++] = Route.Pod;
        return this.#pod(o, out, at);
      case 'Node':
        out[at++] = Route.Node;
        return this.#node(o, out, at);
      case 'other':
        out[at++] = Route.Other;
        return at;
    }
    out[at++] = Route.Cloned;
    out[at++] = cloned.length;
    cloned.push(o);
    return at;
  }

  /** The number of the labels' JSON text, null when the table cannot carry them (labelsText); the same labels as the JobSet's last record's need no text. */
  #labelsId(uid: string, labels: Record<string, string>): number | null {
    const last = this.#labelsByUid.get(uid);
    if (last !== undefined && sameStringLabels(labels, last.labels)) return last.id;
    const text = labelsText(labels);
    if (text === null) return null;
    const id = this.#string(text);
    this.#labelsByUid.set(uid, { labels, id });
    return id;
  }

  #jobset(v: JobSetView, labels: number, out: Float64Array, at: number): number {
    out[at++] = this.#string(v.uid);
    out[at++] = this.#string(v.namespace);
    out[at++] = this.#string(v.name);
    out[at++] = labels;
    // A resourceVersion is a decimal number in every API server backed by etcd: sent as that number when it reads back the same.
    const rv = v.resourceVersion;
    const rvNumber = rv === null ? NaN : Number(rv);
    if (rv !== null && Number.isSafeInteger(rvNumber) && String(rvNumber) === rv) {
      out[at++] = 1;
      out[at++] = rvNumber;
    } else {
      out[at++] = 0;
      out[at++] = this.#string(rv);
    }
    out[at++] = num(v.createdAt);
    out[at++] = num(v.deletingAt);
    out[at++] = v.suspended ? 1 : 0;
    out[at++] = num(v.suspendedSince);
    out[at++] = v.suspension === null ? 0 : 1;
    out[at++] = this.#string(v.suspension?.reason ?? null);
    out[at++] = this.#string(v.suspension?.message ?? null);
    out[at++] = num(v.resumedAt);
    out[at++] = v.terminal === null ? 0 : v.terminal.outcome === 'completed' ? 1 : 2;
    out[at++] = num(v.terminal?.at ?? null);
    out[at++] = v.replicas;
    out[at++] = v.readyOrSucceeded;
    out[at++] = v.restarts;
    out[at++] = this.#string(v.accelerator);
    out[at++] = this.#string(v.topology);
    out[at++] = v.accelerators;
    out[at++] = num(v.checkpointIntervalMs);
    out[at++] = v.expectedNodes;
    out[at++] = v.failure === null ? 0 : 1;
    out[at++] = num(v.failure?.at ?? null);
    out[at++] = this.#string(v.failure?.reason ?? null);
    out[at++] = this.#string(v.failure?.message ?? null);
    return at;
  }

  #workload(v: WorkloadView, out: Float64Array, at: number): number {
    out[at++] = this.#string(v.uid);
    out[at++] = this.#string(v.jobsetUid);
    out[at++] = v.eviction === null ? 0 : 1;
    out[at++] = num(v.eviction?.at ?? null);
    out[at++] = this.#string(v.eviction?.suspension.reason ?? null);
    out[at++] = this.#string(v.eviction?.suspension.message ?? null);
    return at;
  }

  #pod(o: PodObservation, out: Float64Array, at: number): number {
    const p = o.pod;
    out[at++] = this.#string(o.uid);
    out[at++] = this.#string(p.uid);
    out[at++] = this.#string(p.namespace);
    out[at++] = this.#string(p.name);
    out[at++] = this.#string(p.jobsetName);
    out[at++] = this.#string(p.jobsetUid);
    out[at++] = this.#string(p.slot);
    out[at++] = this.#string(p.nodeName);
    out[at++] = num(p.scheduledAt);
    return at;
  }

  #node(o: NodeObservation, out: Float64Array, at: number): number {
    const n = o.node;
    const p = o.poolNode;
    out[at++] = this.#string(o.uid);
    out[at++] = this.#string(n.name);
    out[at++] = this.#string(n.uid);
    out[at++] = READY_CODE[n.ready];
    out[at++] = num(n.readySince);
    out[at++] = this.#string(n.reason);
    out[at++] = this.#string(n.message);
    out[at++] = this.#string(p.name);
    out[at++] = this.#string(p.uid);
    out[at++] = this.#string(p.pool);
    out[at++] = num(p.createdAt);
    out[at++] = READY_CODE[p.ready];
    out[at++] = num(p.readySince);
    out[at++] = p.leaving ? 1 : 0;
    out[at++] = this.#string(p.accelerator);
    out[at++] = this.#string(p.topology);
    out[at++] = num(p.tpuChips);
    out[at++] = num(p.expectedNodes);
    return at;
  }
}

/** Labels as JSON, when they are a plain object of strings (what the table can rebuild exactly); else null. */
function labelsText(labels: Record<string, string>): string | null {
  if (labels === null || typeof labels !== 'object' || Array.isArray(labels) || Object.getPrototypeOf(labels) !== Object.prototype) return null;
  for (const key in labels) if (typeof labels[key] !== 'string') return null;
  return JSON.stringify(labels);
}

/**
 * `labels` is a plain object with the same keys in the same order and the same values as `known`, a
 * plain object of strings (labelsText accepted it): then their JSON texts are the same.
 */
function sameStringLabels(labels: Record<string, string>, known: Record<string, string>): boolean {
  if (labels === null || typeof labels !== 'object' || Array.isArray(labels) || Object.getPrototypeOf(labels) !== Object.prototype) return false;
  const keys = Object.keys(labels);
  const knownKeys = Object.keys(known);
  if (keys.length !== knownKeys.length) return false;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (key !== knownKeys[i] || labels[key] !== known[key]) return false;
  }
  return true;
}

/**
 * The replay's side of one worker's table. A table that the worker empties is replaced by a new
 * decoder (`learn` returns it), so chunks still waiting to be applied keep the table they were encoded with.
 */
export class ViewDecoder {
  readonly #strings: string[] = [];
  /** The label sets by the number of their JSON text, made once (and shared with the engine's, internLabels). */
  readonly #labels: (Readonly<Record<string, string>> | undefined)[] = [];

  /** Takes in a chunk's new strings; returns the decoder for that chunk (a new one when the worker emptied its table). */
  learn(encoded: Pick<EncodedViews, 'strings' | 'reset'>): ViewDecoder {
    const decoder = encoded.reset ? new ViewDecoder() : this;
    for (const s of encoded.strings) decoder.#strings.push(s);
    return decoder;
  }

  /**
   * Calls `each` with every observation of `encoded` and its line, in order. `skip(receivedAt, line)`
   * is asked first: true leaves the observation out without building its view.
   */
  forEach(encoded: EncodedViews, each: (observation: ClusterViewedObservation, line: number) => void, skip: (receivedAt: number, line: number) => boolean): void {
    const n = encoded.numbers;
    let at = 0;
    for (let i = 0; i < encoded.count; i++) {
      const line = n[at]!;
      const receivedAt = n[at + 1]!;
      const route = n[at + 3]!;
      const from = at + 4;
      at = from + (LENGTH[route] ?? NaN);
      if (!(at <= n.length)) throw new Error(`a trace worker sent an unknown record (${route})`);
      if (skip(receivedAt, line)) continue;
      const type = TYPES[n[from - 2]!]!;
      switch (route) {
        case Route.JobSet:
          each({ receivedAt, type, route: 'JobSet', view: this.#jobset(n, from) }, line);
          break;
        case Route.Workload:
          each({ receivedAt, type, route: 'Workload', view: this.#workload(n, from) }, line);
          break;
        case Route.Pod:
          each(this.#pod(receivedAt, type, n, from), line);
          break;
        case Route.Node:
          each(this.#node(receivedAt, type, n, from), line);
          break;
        case Route.Other:
          each({ receivedAt, type, route: 'other' }, line);
          break;
        default:
          each(encoded.cloned[n[from]!]!, line);
      }
    }
  }

  #string(id: number): string | null {
    return id === NONE ? null : this.#strings[id]!;
  }

  #text(id: number): string {
    return this.#strings[id]!;
  }

  #labelsOf(id: number): Readonly<Record<string, string>> {
    let labels = this.#labels[id];
    if (labels === undefined) this.#labels[id] = labels = internLabels(JSON.parse(this.#text(id)) as Record<string, string>);
    return labels;
  }

  #jobset(n: Float64Array, at: number): JobSetView {
    const terminal = n[at + 14]!;
    return {
      uid: this.#text(n[at]!),
      namespace: this.#text(n[at + 1]!),
      name: this.#text(n[at + 2]!),
      // The engine keeps label sets interned: the shared copy is what it would keep of a fresh one.
      labels: this.#labelsOf(n[at + 3]!) as Record<string, string>,
      resourceVersion: n[at + 4] === 1 ? String(n[at + 5]) : this.#string(n[at + 5]!),
      createdAt: numOrNull(n[at + 6]!),
      deletingAt: numOrNull(n[at + 7]!),
      suspended: n[at + 8] === 1,
      suspendedSince: numOrNull(n[at + 9]!),
      suspension: n[at + 10] === 0 ? null : { reason: this.#string(n[at + 11]!), message: this.#string(n[at + 12]!) },
      resumedAt: numOrNull(n[at + 13]!),
      terminal: terminal === 0 ? null : { outcome: terminal === 1 ? 'completed' : 'failed', at: numOrNull(n[at + 15]!) },
      replicas: n[at + 16]!,
      readyOrSucceeded: n[at + 17]!,
      restarts: n[at + 18]!,
      accelerator: this.#string(n[at + 19]!),
      topology: this.#string(n[at + 20]!),
      accelerators: n[at + 21]!,
      checkpointIntervalMs: numOrNull(n[at + 22]!),
      expectedNodes: n[at + 23]!,
      failure: n[at + 24] === 0 ? null : { at: numOrNull(n[at + 25]!), reason: this.#string(n[at + 26]!), message: this.#string(n[at + 27]!) },
    };
  }

  #workload(n: Float64Array, at: number): WorkloadView {
    return {
      uid: this.#text(n[at]!),
      jobsetUid: this.#string(n[at + 1]!),
      eviction: n[at + 2] === 0 ? null : { at: numOrNull(n[at + 3]!), suspension: { reason: this.#string(n[at + 4]!), message: this.#string(n[at + 5]!) } },
    };
  }

  #pod(receivedAt: number, type: ObservationType, n: Float64Array, at: number): PodObservation {
    return {
      receivedAt,
      type,
      route: 'Pod',
      uid: this.#text(n[at]!),
      pod: {
        uid: this.#text(n[at + 1]!),
        namespace: this.#text(n[at + 2]!),
        name: this.#text(n[at + 3]!),
        jobsetName: this.#string(n[at + 4]!),
        jobsetUid: this.#string(n[at + 5]!),
        slot: this.#text(n[at + 6]!),
        nodeName: this.#string(n[at + 7]!),
        scheduledAt: numOrNull(n[at + 8]!),
      },
      failures: [],
    };
  }

  #node(receivedAt: number, type: ObservationType, n: Float64Array, at: number): NodeObservation {
    return {
      receivedAt,
      type,
      route: 'Node',
      uid: this.#text(n[at]!),
      node: {
        name: this.#text(n[at + 1]!),
        uid: this.#text(n[at + 2]!),
        ready: READY[n[at + 3]!]!,
        readySince: numOrNull(n[at + 4]!),
        reason: this.#string(n[at + 5]!),
        message: this.#string(n[at + 6]!),
      },
      poolNode: {
        name: this.#text(n[at + 7]!),
        uid: this.#text(n[at + 8]!),
        pool: this.#string(n[at + 9]!),
        createdAt: numOrNull(n[at + 10]!),
        ready: READY[n[at + 11]!]!,
        readySince: numOrNull(n[at + 12]!),
        leaving: n[at + 13] === 1,
        accelerator: this.#string(n[at + 14]!),
        topology: this.#string(n[at + 15]!),
        tpuChips: numOrNull(n[at + 16]!),
        expectedNodes: numOrNull(n[at + 17]!),
      },
    };
  }
}
