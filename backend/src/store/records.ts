// What the embedded store writes: log lines and snapshots. A log line is
//   <crc32 of the JSON, 8 hex digits> <JSON>\n
// so a torn or corrupt line is detected, and the log stays readable with ordinary tools.
//
// Formats (FORMAT; the header of every log segment and every snapshot carry it, and from format 2
// on the version of the Upness that wrote it):
//   1  meta, update (a transition's causes inline, as known when it was written), observed.
//   2  + cause (a cause attached to a transition of the JobSet or the node layer: a fact of its own),
//      + nodes (a transition of the node layer); update carries no causes; the snapshot keeps the
//      node layers. Written by Upness 0.1.0 (7ccfa8c; later builds of 0.1.0 added the optional
//      meta fields of format 3 without a bump).
//   3  meta always carries accelerators and checkpointIntervalMs (the goodput inputs); a transition
//      into `suspended` carries why (its sixth element: the Suspended condition's reason and message,
//      with an empty fifth), or + suspension (why, learned after the transition was written: the
//      watch saw spec.suspend before the Suspended condition). Written by the Upness after 0.1.0
//      up to 7d7acaf.
//   4  meta always carries pods (Σ replicas × parallelism: the job size without accelerators, issue
//      20 §3); absent before: read as 0, not known. Later + pool (a node pool's fact: a transition,
//      the first with the pool's identity, a cause, a JobSet that ran on it) and the snapshot's
//      pools: added without a bump, since no older record changed and a reader that does not know
//      them skips them (it loses only the pools). Later still + usage (one JobSet's resource usage
//      at one sampling) and the snapshot's usage (each JobSet's usage history, as kept then): also
//      without a bump, for the same reason (an older reader loses only the usage).
//   5  the snapshot keeps no node layer that is derived from its JobSet layer (closed, never up on
//      its nodes, nothing attached: timeline/never-up.ts): the nodeLayers list says which, as
//      `{"derived":[…]}` elements (positions in the machines list, each as the difference from the one
//      before, in this element or the one before it; the very first from -1), and the restore derives them. Each machine is one JSON array
//      (./dense.ts: its strings and label set interned per snapshot, its transitions as a string of
//      state codes and the times' differences). The log is format 4's. Later + the header's fleetIndex
//      (the served fleet index in a file beside: ./index-part.ts), without a bump: a reader that does
//      not know it ignores the field and the file (it builds the index as before). Later still the
//      machines in the engine's order (namespace, name, UID), without a bump: no reader depends on it,
//      a restore that finds it lists the timelines without a sort.
// Every change of the format bumps FORMAT, adds a step to ./formats.ts that migrates a data dir of
// the previous format, and a data dir written by the last release of the previous format (with the
// answers it gave) under ./fixtures/, which formats.service.test.ts reads with the new code. A new field or
// record kind is added here, in apply() of ./embedded.ts, and in the snapshot below.

import { crc32 } from 'node:zlib';
import { identityOf, type TimelineIdentity } from '../timeline/identity.ts';
import type { MachineState } from '../timeline/machine.ts';
import type { Fact, Layer, PoolFact, PoolIdentity } from '../timeline/facts.ts';
import { lastState, TERMINAL_STATES, transitionCount, transitionsOf, type Cause, type State, type Suspension, type Timeline, type Transition } from '../timeline/types.ts';
import { areDerivedTransitions } from '../timeline/never-up.ts';
import { CLOSE, COMMA, DenseWriter, type DenseMachine } from './dense.ts';
import type { IndexPartRef } from './index-part.ts';

/** Bumped when the on-disk format changes: an older data dir is migrated (./formats.ts), a newer one refused. */
export const FORMAT = 5;

/** A timeline's identity (timeline/identity.ts), written when first seen and whenever it changes. The
 *  goodput inputs are always written from format 3 on; absent in format 1 and most format-2 logs: read as none.
 *  The pod count is written from format 4 on; absent before: read as 0, not known (series/sizes.ts). */
export type MetaRecord = { k: 'meta'; uid: string } & Omit<TimelineIdentity, LaterFields> & Partial<Pick<TimelineIdentity, LaterFields>>;

/** Identity fields that older formats' meta records lack. */
type LaterFields = 'accelerators' | 'checkpointIntervalMs' | 'pods';

export type EncodedTransition =
  | [number, State]
  | [number, State, number, number]
  | [number, State, number, number, Cause[]]
  | [number, State, number, number, Cause[], Suspension];

/** New transitions of a timeline, and the machine's memory after them. */
export interface UpdateRecord {
  k: 'update';
  uid: string;
  /** [at, state]; [at, state, interruptions, recoveries] for events proven after a gap; (format 1
   *  only, and snapshots) the causes of an interruption as a fifth element; (format 3 on) why it was
   *  suspended as a sixth, its fifth then the causes (snapshots) or empty. */
  add: EncodedTransition[];
  everUp: boolean;
  restarts: number;
  rv: string | null;
  deletedAt: number | null;
}

/** Everything up to `at` has been observed (the horizon); where a gap begins after a crash. */
export interface ObservedRecord {
  k: 'observed';
  at: number;
}

/** A cause attached to the transition at index `seq` of a timeline (`layer`: the JobSet's, or its node layer). */
export interface CauseRecord {
  k: 'cause';
  uid: string;
  layer: Layer;
  seq: number;
  cause: Cause;
}

/** The transition at index `seq` of the node layer of JobSet `uid` ([at, state] or with unobserved events). */
export interface NodesRecord {
  k: 'nodes';
  uid: string;
  seq: number;
  t: [number, State] | [number, State, number, number];
}

/** A node pool's fact (../timeline/facts.ts PoolFact), as it is. */
export interface PoolRecord {
  k: 'pool';
  fact: PoolFact;
}

/** Why the suspension at index `seq` of a timeline happened, learned after it was written (format 3 on). */
export interface SuspensionRecord {
  k: 'suspension';
  uid: string;
  seq: number;
  suspension: Suspension;
}

/**
 * One JobSet's resource usage at one sampling (usage/jobset-usage.ts): `owner` its UID (or
 * `name:namespace/name`), `v` the values in usage/metrics.ts' order, null where not reported.
 */
export interface UsageRecord {
  k: 'usage';
  owner: string;
  ns: string;
  name: string;
  at: number;
  v: (number | null)[];
}

/** A usage history as plain data: times, and per metric a value per time (null: not reported). */
export interface UsagePoints {
  t: number[];
  v: (number | null)[][];
}

/** One JobSet's usage history as a snapshot keeps it (usage/history.ts dump): sampled points and folded means. */
export interface UsageSnapshotEntry {
  owner: string;
  namespace: string;
  name: string;
  history: { raw: UsagePoints; folded: UsagePoints };
}

/** The first line of every log file. */
export interface HeaderRecord {
  k: 'header';
  format: number;
  /** The Upness version that wrote it (from format 2 on). */
  upness?: string;
}

export type LogRecord = HeaderRecord | MetaRecord | UpdateRecord | ObservedRecord | CauseRecord | NodesRecord | SuspensionRecord | PoolRecord | UsageRecord;

export function encodeLine(record: LogRecord): string {
  const json = JSON.stringify(record);
  return `${crc32(json).toString(16).padStart(8, '0')} ${json}\n`;
}

/** Decodes one line (without its newline); null when its checksum or its JSON is wrong. */
export function decodeLine(line: string): LogRecord | null {
  if (line.length < 10 || line[8] !== ' ') return null;
  const json = line.slice(9);
  if (crc32(json).toString(16).padStart(8, '0') !== line.slice(0, 8)) return null;
  try {
    const record = JSON.parse(json) as LogRecord;
    return typeof record === 'object' && record !== null && typeof record.k === 'string' ? record : null;
  } catch {
    return null;
  }
}

/** A transition without its causes or why: how the log writes the node layer's (never suspended for a reason). */
export function encodePlain(t: Transition): [number, State] | [number, State, number, number] {
  return t.unobserved ? [t.at, t.state, t.unobserved.interruptions, t.unobserved.recoveries] : [t.at, t.state];
}

/** A transition as the log writes it: its causes are facts of their own (CauseRecord); why it was suspended is its own. */
export function encodeTransition(t: Transition): EncodedTransition {
  if (t.suspension !== undefined) return [t.at, t.state, t.unobserved?.interruptions ?? 0, t.unobserved?.recoveries ?? 0, [], t.suspension];
  return encodePlain(t);
}

/** A transition joined with its causes, as a snapshot keeps it. */
export function encodeJoined(t: Transition): EncodedTransition {
  const i = t.unobserved?.interruptions ?? 0;
  const r = t.unobserved?.recoveries ?? 0;
  const causes = t.causes !== undefined && t.causes.length > 0 ? t.causes : null;
  if (t.suspension !== undefined) return [t.at, t.state, i, r, causes ?? [], t.suspension];
  if (causes !== null) return [t.at, t.state, i, r, causes];
  return encodePlain(t);
}

/** A fact as the log writes it: the one encoder of facts (Fact, ../timeline/facts.ts) for the embedded store. */
export function factRecord(fact: Fact): CauseRecord | NodesRecord | SuspensionRecord | PoolRecord {
  if (fact.kind === 'pool-transition') return { k: 'pool', fact: { ...fact, transition: decodeTransition(encodePlain(fact.transition)) } };
  if (fact.kind === 'pool-cause' || fact.kind === 'pool-jobset') return { k: 'pool', fact };
  if (fact.kind === 'cause') return { k: 'cause', uid: fact.uid, layer: fact.layer, seq: fact.seq, cause: fact.cause };
  if (fact.kind === 'suspension') return { k: 'suspension', uid: fact.uid, seq: fact.seq, suspension: fact.suspension };
  return { k: 'nodes', uid: fact.uid, seq: fact.seq, t: encodePlain(fact.transition) };
}

/** The fact a record holds; null for a record that is not a fact. */
export function factOf(record: LogRecord): Fact | null {
  if (record.k === 'cause') return { kind: 'cause', uid: record.uid, layer: record.layer, seq: record.seq, cause: record.cause };
  if (record.k === 'suspension') return { kind: 'suspension', uid: record.uid, seq: record.seq, suspension: record.suspension };
  if (record.k === 'nodes') return { kind: 'node-transition', uid: record.uid, seq: record.seq, transition: decodeTransition(record.t) };
  if (record.k === 'pool') return record.fact;
  return null;
}

export function decodeTransition(t: EncodedTransition): Transition {
  const transition: Transition = { at: t[0], state: t[1] };
  if (t.length === 4) transition.unobserved = { interruptions: t[2], recoveries: t[3] };
  if (t.length === 5 || t.length === 6) {
    if (t[2] > 0 || t[3] > 0) transition.unobserved = { interruptions: t[2], recoveries: t[3] };
    // Format 1 and 2 wrote a fifth element only with causes; from format 3 on it may be empty.
    if (t.length === 5 || t[4].length > 0) transition.causes = [...t[4]];
  }
  if (t.length === 6) transition.suspension = { reason: t[5].reason ?? null, message: t[5].message ?? null };
  return transition;
}

export function metaRecord(machine: MachineState): MetaRecord {
  return { k: 'meta', uid: machine.timeline.uid, ...identityOf(machine.timeline) };
}

/** A snapshot: every machine (and node layer) at the moment the log rolled over to `nextSegment`. */
export interface Snapshot {
  format: number;
  /** The Upness version that wrote it (from format 2 on). */
  upness?: string;
  /** Log segments from this one on hold what came after the snapshot. */
  nextSegment: number;
  /** The fleet index's part (./index-part.ts), when one was written beside: its file and the id it carries (added within format 5; older readers skip it). */
  fleetIndex?: IndexPartRef;
  observedUntil: number | null;
  /** Format 5 on: DenseMachine (./dense.ts). */
  machines: (
    | {
        meta: MetaRecord;
        update: Omit<UpdateRecord, 'k' | 'uid'>;
      }
    | DenseMachine
  )[];
  /** The node layers of those machines, their transitions joined with their causes (format 2 on); from format 5 on, those derived from their JobSet layer only by their place. */
  nodeLayers?: ({ uid: string; add: EncodedTransition[] } | DerivedNodeLayers)[];
  /** The node pools' timelines, their transitions joined with their causes (added within format 4). */
  pools?: { uid: string; pool: PoolIdentity; jobsets: string[]; add: EncodedTransition[] }[];
  /** Every JobSet's usage history (added within format 4). */
  usage?: UsageSnapshotEntry[];
}

/** A snapshot's element of each list, as snapshotOf and snapshotText both write it (`dense`: format 5 on). */
function machineItem(m: MachineState, dense: DenseWriter | null): Snapshot['machines'][number] {
  if (dense !== null) return dense.encode(m);
  return {
    meta: metaRecord(m),
    update: { add: transitionsOf(m.timeline).map(encodeJoined), everUp: m.everUp, restarts: m.restarts, rv: m.resourceVersion, deletedAt: m.deletedAt },
  };
}

/** Node layers derived from their JobSet layer (format 5 on): their JobSets' positions in the machines list, each the difference from the one before, across elements (the very first from -1). */
export interface DerivedNodeLayers {
  derived: number[];
}

/** Positions of derived node layers in one element: a line of at most ~40 KB. */
const DERIVED_PER_ELEMENT = 4096;

/** Whether the node layer `tl` is what its JobSet layer derives (closed, nothing attached): a snapshot of format 5 keeps only its place. */
function isDerivedNodeLayer(tl: Timeline, jobset: Timeline): boolean {
  return TERMINAL_STATES.has(lastState(tl)!) && areDerivedTransitions(tl, jobset);
}

/**
 * The nodeLayers list's elements for the node layers of the machines written (by uid: their position
 * and timeline), in the order given: each kept one, and from format 5 on the derived ones' places.
 */
function* nodeLayerItems(nodeLayers: Iterable<Timeline>, written: ReadonlyMap<string, { at: number; timeline: Timeline }>, format: number): Generator<NonNullable<Snapshot['nodeLayers']>[number]> {
  let derived: number[] = [];
  let last = -1;
  for (const tl of nodeLayers) {
    const jobset = written.get(tl.uid);
    if (jobset === undefined || transitionCount(tl) === 0) continue;
    if (format >= 5 && isDerivedNodeLayer(tl, jobset.timeline)) {
      derived.push(jobset.at - last);
      last = jobset.at;
      if (derived.length === DERIVED_PER_ELEMENT) {
        yield { derived };
        derived = [];
      }
    } else yield { uid: tl.uid, add: transitionsOf(tl).map(encodeJoined) };
  }
  if (derived.length > 0) yield { derived };
}

function poolItem(tl: Timeline): NonNullable<Snapshot['pools']>[number] {
  return { uid: tl.uid, pool: { name: tl.name, createdAt: tl.createdAt, accelerator: tl.accelerator, topology: tl.topology }, jobsets: tl.jobsets ?? [], add: transitionsOf(tl).map(encodeJoined) };
}

/** `format`: FORMAT, except for a migration step that writes the next format of a chain. The whole
 *  snapshot as one value: what snapshotText writes, for tests and small data dirs. */
export function snapshotOf(
  machines: Iterable<MachineState>,
  nextSegment: number,
  observedUntil: number | null,
  upness: string,
  nodeLayers: Iterable<Timeline> = [],
  format = FORMAT,
  pools: Iterable<Timeline> = [],
  usage: Iterable<UsageSnapshotEntry> = [],
): Snapshot {
  const out: Snapshot['machines'] = [];
  const written = new Map<string, { at: number; timeline: Timeline }>();
  const dense = format >= 5 ? new DenseWriter() : null;
  for (const m of machines) {
    written.set(m.timeline.uid, { at: out.length, timeline: m.timeline });
    out.push(machineItem(m, dense));
  }
  const layers = [...nodeLayerItems(nodeLayers, written, format)];
  const poolsOut: NonNullable<Snapshot['pools']> = [];
  for (const tl of pools) {
    if (transitionCount(tl) === 0) continue;
    poolsOut.push(poolItem(tl));
  }
  const usageOut = [...usage];
  return { format, upness, nextSegment, observedUntil, machines: out, nodeLayers: layers, ...(poolsOut.length > 0 ? { pools: poolsOut } : {}), ...(usageOut.length > 0 ? { usage: usageOut } : {}) };
}

/** A snapshot's fields before its lists. */
export type SnapshotHeader = Pick<Snapshot, 'format' | 'upness' | 'nextSegment' | 'observedUntil' | 'fleetIndex'>;

/** The lists of a snapshot, in the order they are written. */
const LISTS = ['machines', 'nodeLayers', 'pools', 'usage'] as const;
type ListName = (typeof LISTS)[number];

/** How the header line ends: the first list opens. */
const LISTS_START = ',"machines":[';
const isHeaderLine = (line: string): boolean => line.startsWith('{') && line.endsWith(LISTS_START);
/** The header line's fields, without the list that it opens. */
const headerOf = (line: string): SnapshotHeader => JSON.parse(`${line.slice(0, -LISTS_START.length)}}`) as SnapshotHeader;

/** One element of one of a snapshot's lists. */
export type SnapshotPart = { [L in ListName]: { list: L; item: NonNullable<Snapshot[L]>[number] } }[ListName];

/**
 * The snapshot of snapshotOf as JSON text, in pieces: the same document, with each element of its
 * lists on a line of its own. Neither writing it nor reading it back needs the whole as one string
 * (V8's strings stop at 512 MiB, and a month of 10,000 JobSets is more) nor as one value, and a
 * reader before this layout reads it as it read the one-line form (the newlines are whitespace).
 * Each timeline is encoded as it is reached, so `machines` may be the engine's own (live) iterable.
 */
export function* snapshotText(
  machines: Iterable<MachineState>,
  nextSegment: number,
  observedUntil: number | null,
  upness: string,
  nodeLayers: Iterable<Timeline> = [],
  format = FORMAT,
  pools: Iterable<Timeline> = [],
  usage: Iterable<UsageSnapshotEntry> = [],
  fleetIndex?: IndexPartRef,
): Generator<string, void, undefined> {
  const header: SnapshotHeader = { format, upness, nextSegment, observedUntil, ...(fleetIndex === undefined ? {} : { fleetIndex }) };
  yield `${JSON.stringify(header).slice(0, -1)}${LISTS_START}`;
  const written = new Map<string, { at: number; timeline: Timeline }>();
  let first = true;
  let at = 0;
  const dense = format >= 5 ? new DenseWriter() : null;
  for (const m of machines) {
    written.set(m.timeline.uid, { at: at++, timeline: m.timeline });
    yield `${first ? '' : ','}\n${JSON.stringify(machineItem(m, dense))}`;
    first = false;
  }
  yield '\n],"nodeLayers":[';
  first = true;
  for (const item of nodeLayerItems(nodeLayers, written, format)) {
    yield `${first ? '' : ','}\n${JSON.stringify(item)}`;
    first = false;
  }
  // Pools and usage are written only when there are any, as snapshotOf leaves them out.
  const optional: [string, Iterable<unknown>][] = [
    [
      'pools',
      (function* () {
        for (const tl of pools) {
          if (transitionCount(tl) === 0) continue;
          yield poolItem(tl);
        }
      })(),
    ],
    ['usage', usage],
  ];
  for (const [name, items] of optional) {
    first = true;
    for (const item of items) {
      yield `${first ? `\n],"${name}":[` : ','}\n${JSON.stringify(item)}`;
      first = false;
    }
  }
  yield '\n]}';
}


/** The header of a snapshot of snapshotText's layout from its first bytes (its first line); null for another layout, or too few bytes. */
export function snapshotHeaderOf(start: Buffer): SnapshotHeader | null {
  const nl = start.indexOf(10);
  const head = nl === -1 ? '' : start.toString('utf8', 0, nl);
  return isHeaderLine(head) ? (headerOf(head)) : null;
}

/** A newline and the line after it closing a list. */
const LIST_END = Buffer.from('\n]');
/** Bytes of element lines parsed as one (a few hundred timelines). */
const PARSED_TOGETHER = 1 << 16;

/**
 * Reads a snapshot's bytes: its header, then its lists' elements one by one (lazily: a malformed
 * element throws a SyntaxError when it is reached). The line-per-element layout of snapshotText is
 * read a line at a time; a snapshot of the one-line layout (written before it) is parsed whole.
 */
export function parseSnapshot(bytes: Buffer): { header: SnapshotHeader; parts: Iterable<SnapshotPart> } {
  return parseSnapshotBlocks([bytes][Symbol.iterator]());
}

/**
 * Takes one element of the machines list as its JSON text (`bytes` from `start` to `end`, valid only
 * during the call), read as the part it is; false when it does not: the element is then parsed as
 * JSON and given as a part, in its place.
 */
export type MachineBytes = (bytes: Buffer, start: number, end: number) => boolean;

/**
 * parseSnapshot of bytes given as blocks of whole lines (the last may end without its newline), each
 * read before the next is asked for: a reader may give them in one buffer it reads into again.
 * `machine`: offered each element of the machines list before it is parsed as JSON.
 */
export function parseSnapshotBlocks(blocks: Iterator<Buffer>, machine?: MachineBytes): { header: SnapshotHeader; parts: Iterable<SnapshotPart> } {
  const first = blocks.next();
  let bytes = first.done === true ? Buffer.alloc(0) : first.value;
  const nl = bytes.indexOf(10);
  const head = nl === -1 ? '' : bytes.toString('utf8', 0, nl);
  if (!isHeaderLine(head)) {
    const all = [Buffer.from(bytes)];
    for (let b = blocks.next(); b.done !== true; b = blocks.next()) all.push(Buffer.from(b.value));
    const whole = JSON.parse(Buffer.concat(all).toString('utf8')) as Snapshot;
    if (typeof whole !== 'object' || whole === null || Array.isArray(whole)) throw new SyntaxError('a snapshot is a JSON object');
    return {
      header: whole,
      parts: (function* () {
        for (const list of LISTS) for (const item of whole[list] ?? []) yield { list, item } as SnapshotPart;
      })(),
    };
  }
  const header = headerOf(head);
  /** The next block with bytes; null at the end. */
  const next = (): Buffer | null => {
    for (let b = blocks.next(); b.done !== true; b = blocks.next()) if (b.value.length > 0) return b.value;
    return null;
  };
  return {
    header,
    parts: (function* () {
      let list: ListName = 'machines';
      let at = nl + 1;
      for (;;) {
        if (at >= bytes.length) {
          const more = next();
          if (more === null) throw new SyntaxError('the snapshot ends before its last line');
          bytes = more;
          at = 0;
        }
        if (bytes[at] !== CLOSE && machine !== undefined && list === 'machines') {
          // One element a line, offered as bytes before it is parsed.
          const stop = bytes.indexOf(10, at);
          if (stop === -1) throw new SyntaxError('the snapshot ends before its last line');
          const end = bytes[stop - 1] === COMMA ? stop - 1 : stop;
          if (!machine(bytes, at, end)) yield { list, item: JSON.parse(bytes.toString('utf8', at, end)) } as SnapshotPart;
          at = stop + 1;
          continue;
        }
        if (bytes[at] !== CLOSE) {
          // Elements, a batch of lines at a time (those that end within PARSED_TOGETHER bytes, at least
          // one, up to the end of their list): one decode and one JSON.parse of many short lines cost
          // less than one of each a line. The batch's end is found with a search or two, not one a line.
          let stop = bytes.lastIndexOf(10, at + PARSED_TOGETHER);
          if (stop < at) stop = bytes.indexOf(10, at);
          if (stop === -1) throw new SyntaxError('the snapshot ends before its last line');
          // A line that closes the list ("\n]": an element's JSON holds no raw newline) ends it.
          const close = bytes.subarray(at, stop + 2).indexOf(LIST_END);
          if (close !== -1) stop = at + close;
          const text = bytes.toString('utf8', at, bytes[stop - 1] === COMMA ? stop - 1 : stop);
          for (const item of JSON.parse(`[${text}]`) as unknown[]) yield { list, item } as SnapshotPart;
          at = stop + 1;
          continue;
        }
        const end = bytes.indexOf(10, at);
        const line = bytes.toString('utf8', at, end === -1 ? bytes.length : end);
        if (line === ']}') {
          if ((end !== -1 && end + 1 < bytes.length) || next() !== null) throw new SyntaxError('the snapshot goes on after its end');
          return;
        }
        // `],"<list>":[`: the next list.
        const name = /^\],"(\w+)":\[$/.exec(line)?.[1];
        const known = LISTS.find((l) => l === name);
        if (known === undefined || LISTS.indexOf(known) <= LISTS.indexOf(list)) throw new SyntaxError(`unexpected line in the snapshot: ${line.slice(0, 80)}`);
        list = known;
        if (end === -1) throw new SyntaxError('the snapshot ends before its last line');
        at = end + 1;
      }
    })(),
  };
}
