// The embedded store: an append-only log of what the timelines became, in numbered segments under
// the data dir, with a checksum per line, made durable by group commit (records pile up while one
// fsync runs, the next fsync takes them all) before anything built on them is served; snapshots
// let start-up skip the log that came before them, and let old segments be deleted.
//
//   <data dir>/snapshot.json        every timeline as of the start of segment `nextSegment`
//   <data dir>/snapshot.fleet-index the fleet index of those timelines, sorted and summed (./index-part.ts)
//   <data dir>/log-000007.jsonl     records after that, in order
//
// The facts (causes, node-layer transitions, suspension reasons learned later:
// backend/src/timeline/facts.ts) are records of the same log, written with the same group commit,
// and joined to their timelines by FactJoin when read back. A data dir of an older format is migrated in
// place when opened (./formats.ts); one of a newer format is refused.

import { z } from 'zod';
import { closeSync, openSync, readSync } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, writeFile, type FileHandle } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { FactJoin, poolTimeline, suspensionFact, type Fact } from '../timeline/facts.ts';
import { isClosed, isMachine, keptTimeline, machineOf, type MachineState } from '../timeline/machine.ts';
import { RunTimeline } from '../timeline/run-timeline.ts';
import { RunsByUid } from '../timeline/runs-by-uid.ts';
import type { TimelineUpdate } from '../timeline/engine.ts';
import { isPackedTimeline, timelineFields, openTransitions, transitionCount, transitionsOf, unsealClosed, type Timeline } from '../timeline/types.ts';
import type { Recovery, RecoveredIndex, StoreStatus, TimelineStore } from './store.ts';
import { decodeIndexPart, encodeIndexPart, INDEX_PART, type IndexPart, type IndexPartRef, type IndexSource } from './index-part.ts';
import { formatOf, segmentName, SEGMENT, settle, SNAPSHOT, syncDir, upgrade, writeSnapshot, type Migration } from './formats.ts';
import { UPNESS_VERSION } from './version.ts';
import { identityChanged, identityOf, setIdentity } from '../timeline/identity.ts';
import { derivedTransitions } from '../timeline/never-up.ts';
import { DenseReader } from './dense.ts';
import { memoryChanged, writtenOf, type Written } from './written.ts';

export type { Recovery, StoreStatus } from './store.ts';
import {
  decodeLine,
  decodeTransition,
  encodeLine,
  encodeTransition,
  factOf,
  factRecord,
  FORMAT,
  metaRecord,
  parseSnapshotBlocks,
  snapshotText,
  type LogRecord,
  type MetaRecord,
  type UsageRecord,
  type UsageSnapshotEntry,
} from './records.ts';

/** The data dir cannot be used as it is: the message says why and what to do. */
export class StoreError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreError';
  }
}


/** Writes all of `data`: a write may stop short (a full disk) without failing; the next one then fails. */
async function writeAll(handle: FileHandle, data: string): Promise<number> {
  const buffer = Buffer.from(data);
  for (let offset = 0; offset < buffer.length; ) {
    const { bytesWritten } = await handle.write(buffer, offset);
    offset += bytesWritten;
  }
  return buffer.length;
}

const writer = (upness: string | null | undefined): string => (upness ? `Upness ${upness}` : 'an Upness before 0.1.0');

/** The message for a data dir this Upness cannot read (a newer format): which version wrote it, and what to do. */
function newerFormat(file: string, format: number, upness: string | null | undefined): string {
  return `${file} is in format ${format}, written by ${writer(upness)}; this Upness (${UPNESS_VERSION}) reads formats 1 to ${FORMAT}. Run that version or a newer one, or start with an empty --data-dir.`;
}

/**
 * Reads the data dir: snapshot, then the log segments after it. Cuts a torn tail; refuses anything
 * worse. Every file must be in `format` (an older one is migrated first, by EmbeddedStore.open).
 */
async function recover(dir: string, format: number = FORMAT): Promise<Recovery & { lastSegment: number }> {
  // The snapshot is read a block of lines at a time and taken element by element (records.ts
  // parseSnapshotBlocks): a month of a large fleet is more than one string can hold.
  let fd: number | null = null;
  try {
    fd = openSync(join(dir, SNAPSHOT), 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  try {
    return await recoverFrom(dir, format, fd);
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

/** Bytes read at a time from a snapshot (grown for a longer line). */
const BLOCK = 1 << 20;

/**
 * The file's bytes as blocks of whole lines (the last may end without its newline), read into one
 * buffer again and again: fresh memory costs a page fault per page where it is first touched (both
 * when read into and when first read: ~0.6 CPU-s for a 63 MB snapshot on a VM, against ~15 ms for
 * the same bytes through one MiB used again). Each block is valid until the next is asked for.
 */
export function* lineBlocks(fd: number, size = BLOCK): Generator<Buffer> {
  let buffer = Buffer.allocUnsafeSlow(size);
  /** Bytes of a line begun in the last block, moved to the front. */
  let begun = 0;
  for (;;) {
    const read = readSync(fd, buffer, begun, buffer.length - begun, null);
    const filled = begun + read;
    if (read === 0) {
      if (filled > 0) yield buffer.subarray(0, filled);
      return;
    }
    const last = buffer.lastIndexOf(10, filled - 1);
    if (last === -1) {
      // No whole line yet: a larger buffer when this one is full.
      if (filled === buffer.length) {
        const larger = Buffer.allocUnsafeSlow(2 * buffer.length);
        buffer.copy(larger, 0, 0, filled);
        buffer = larger;
      }
      begun = filled;
      continue;
    }
    yield buffer.subarray(0, last + 1);
    begun = filled - (last + 1);
    buffer.copy(buffer, 0, last + 1, filled);
  }
}

/** recover, from the snapshot open as `fd` (null: none). */
async function recoverFrom(dir: string, format: number, fd: number | null): Promise<Recovery & { lastSegment: number }> {
  const corrupt = (error: unknown): StoreError =>
    new StoreError(`${join(dir, SNAPSHOT)} is not valid JSON (${(error as Error).message}); it is written atomically, so the disk or something else changed it. Move it away to start from the log alone, if the log is complete.`);
  let snapshot: ReturnType<typeof parseSnapshotBlocks> | null = null;
  /** The machines as the engine keeps them (a closed run's as its timeline alone: DenseReader), by UID (a sealed run's held as 16 bytes). */
  const machines = new RunsByUid();
  /** The machines in the snapshot's order: derived node layers are given by position (format 5 on). */
  const order: (MachineState | Timeline)[] = [];
  const took = (m: MachineState | Timeline): void => {
    machines.add(m);
    order.push(m);
  };
  /** The snapshot's interned strings and label sets (format 5 on). */
  const dense = new DenseReader();
  if (fd !== null) {
    try {
      // Format 5's machines read from their bytes (dense.ts DenseReader.read), the others as JSON.
      snapshot = parseSnapshotBlocks(lineBlocks(fd), (bytes, start, end) => {
        const m = dense.read(bytes, start, end);
        if (m !== null) took(m);
        return m !== null;
      });
    } catch (error) {
      if (error instanceof SyntaxError) throw corrupt(error);
      throw error;
    }
    if (snapshot.header.format !== format) throw new StoreError(newerFormat(join(dir, SNAPSHOT), snapshot.header.format, snapshot.header.upness));
  }
  const indexPart = snapshot?.header.fleetIndex === undefined ? null : await readIndexPart(dir, snapshot.header.fleetIndex);

  const segments = (await readdir(dir))
    .map((f) => SEGMENT.exec(f))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
  const first = snapshot?.header.nextSegment ?? 1;
  const wanted = segments.filter((n) => n >= first);
  if (snapshot === null && segments.length > 0 && segments[0] !== 1) {
    throw new StoreError(`${join(dir, SNAPSHOT)} is missing, and the log starts at ${segmentName(segments[0]!)}: what came before it was compacted into the missing snapshot. Restore the snapshot, or start with an empty --data-dir.`);
  }

  /** JobSets whose node layer the snapshot keeps as derived from their JobSet layer. */
  const derived = new Set<string>();
  /** The place of the last derived node layer read. */
  let derivedAt = -1;
  const layers = new Map<string, Timeline>();
  const pools = new Map<string, Timeline>();
  const usage: NonNullable<Recovery['usage']> = { snapshot: [], log: [] };
  try {
    for (const part of snapshot?.parts ?? []) {
      if (part.list === 'machines') {
        const s = part.item;
        took(Array.isArray(s) ? dense.decode(s) : machineFrom(s.meta, s.update.add.map(decodeTransition), s.update));
      } else if (part.list === 'nodeLayers') {
        const item = part.item;
        if ('derived' in item) {
          // The differences run on across elements (the writer's records.ts nodeLayerItems): only the first element's first is from -1.
          for (const step of item.derived) {
            const m = order[(derivedAt += step)];
            if (m === undefined) throw new SyntaxError(`a derived node layer of machine ${derivedAt}, of ${order.length}`);
            derived.add(keptTimeline(m).uid);
          }
          continue;
        }
        const m = machines.get(item.uid);
        if (m !== undefined) layers.set(item.uid, { ...timelineFields(keptTimeline(m)), transitions: item.add.map(decodeTransition) });
      } else if (part.list === 'pools') {
        const p = part.item;
        pools.set(p.uid, { ...poolTimeline(p.uid, p.pool), jobsets: [...p.jobsets], transitions: p.add.map(decodeTransition) });
      } else usage.snapshot.push(part.item);
    }
  } catch (error) {
    if (error instanceof SyntaxError) throw corrupt(error);
    throw error;
  }
  const header = snapshot?.header ?? null;
  // What the snapshot held of each timeline, for its fleet index's part; then what the log changes of it.
  let fleetIndex: RecoveredIndex | undefined;
  if (indexPart !== null && typeof indexPart !== 'string' && machines.size === order.length) {
    const held = new Uint32Array(order.length);
    for (let i = 0; i < order.length; i++) held[i] = transitionCount(keptTimeline(order[i]!));
    fleetIndex = { part: indexPart, held, resum: new Set() };
  } else if (indexPart !== null) fleetIndex = { refused: typeof indexPart === 'string' ? indexPart : 'the snapshot holds a timeline twice' };
  const reidentified = new Set<string>();
  snapshot = null;
  const facts = new FactJoin((uid) => {
    const m = machines.get(uid);
    return m === undefined ? undefined : keptTimeline(m);
  }, layers, pools);
  let observedUntil = header?.observedUntil ?? null;
  let cut: Recovery['cut'] = null;
  let records = 0;

  for (const [i, n] of wanted.entries()) {
    const path = join(dir, segmentName(n));
    const text = await readFile(path, 'utf8');
    let offset = 0;
    let line = 0;
    while (offset < text.length) {
      const nl = text.indexOf('\n', offset);
      line++;
      const record = nl === -1 ? null : decodeLine(text.slice(offset, nl));
      if (record === null) {
        // Only the very end of the newest segment may be torn: a crash in the middle of a write.
        const rest = nl === -1 ? '' : text.slice(nl + 1);
        if (i !== wanted.length - 1 || rest.length > 0) {
          throw new StoreError(`${path}, line ${line}: a corrupt record with more after it (not a torn tail). Upness will not half-read its log; move the data dir away to start afresh, or cut the file before that line to keep what precedes it.`);
        }
        const handle = await open(path, 'r+');
        await handle.truncate(Buffer.byteLength(text.slice(0, offset)));
        await handle.sync();
        await handle.close();
        cut = { file: path, line, bytes: Buffer.byteLength(text.slice(offset)) };
        break;
      }
      offset = nl + 1;
      if (line === 1) {
        if (record.k !== 'header') throw new StoreError(`${path} does not start with a header: not an Upness log`);
        if (record.format !== format) throw new StoreError(newerFormat(path, record.format, record.upness));
        continue;
      }
      records++;
      if (record.k === 'usage') usage.log.push(record);
      else {
        // A fact of a node layer kept as derived (a late cause): the layer is made, as the snapshot would have held it.
        if ((record.k === 'nodes' || (record.k === 'cause' && record.layer === 'nodes')) && derived.delete(record.uid)) {
          const jobset = keptTimeline(machines.get(record.uid)!);
          layers.set(record.uid, { ...timelineFields(jobset), transitions: derivedTransitions(jobset) });
        }
        apply(machines, facts, record, reidentified);
      }
      if (record.k === 'observed') observedUntil = Math.max(observedUntil ?? record.at, record.at);
    }
  }
  const nodeLayers = [...facts.layers.values()].filter((l) => machines.has(l.uid));
  if (fleetIndex !== undefined && 'resum' in fleetIndex && reidentified.size > 0) {
    for (const [i, m] of order.entries()) if (reidentified.has(keptTimeline(m).uid)) fleetIndex.resum.add(i);
  }
  return listedWhenRead([...machines.values()], {
    byUid: machines,
    nodeLayers,
    derivedNodeLayers: [...derived],
    pools: [...facts.pools.values()],
    usage,
    observedUntil,
    ...(fleetIndex === undefined ? {} : { fleetIndex }),
    cut,
    records,
    lastSegment: Math.max(first - 1, ...segments),
  });
}

/**
 * A recovery of `kept` (Recovery.kept) whose `machines` are made from them when first read (a start
 * reads `kept`). Made outside recoverFrom so that it holds nothing of that reading (a closure there
 * would keep its scope's arrays and reader as long as the recovery lives).
 */
function listedWhenRead<R extends Omit<Recovery, 'machines' | 'kept'>>(kept: (MachineState | Timeline)[], rest: R): R & Pick<Recovery, 'machines' | 'kept'> {
  let listed: MachineState[] | null = null;
  return {
    ...rest,
    kept,
    get machines(): MachineState[] {
      return (listed ??= (this.kept ?? []).map(machineOf));
    },
    set machines(machines: MachineState[]) {
      // Set (to let go of them once the engine holds them): `kept` goes too.
      listed = machines;
      delete this.kept;
    },
  };
}

/** The fleet index's part the snapshot names, when whole and its own; else why not (the index is then built as before). */
async function readIndexPart(dir: string, ref: IndexPartRef): Promise<IndexPart | string> {
  if (ref.file !== INDEX_PART) return `the snapshot names ${String(ref.file)}, not ${INDEX_PART}`;
  let bytes: Buffer;
  try {
    bytes = await readFile(join(dir, INDEX_PART));
  } catch (error) {
    return `${join(dir, INDEX_PART)} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`;
  }
  return decodeIndexPart(bytes, ref.id, UPNESS_VERSION);
}

function machineFrom(meta: MetaRecord, transitions: MachineState['timeline']['transitions'], memo: { everUp: boolean; restarts: number; rv: string | null; deletedAt: number | null }): MachineState {
  return {
    // The goodput inputs are absent from meta records written before format 3: none known.
    timeline: new RunTimeline({ uid: meta.uid, ...identityOf(meta), transitions }),
    everUp: memo.everUp,
    restarts: memo.restarts,
    resourceVersion: memo.rv,
    deletedAt: memo.deletedAt,
  };
}

/** `reidentified`: gets the UIDs whose goodput inputs (what the fleet index sums beside the transitions) a meta record changed. */
function apply(machines: RunsByUid, facts: FactJoin, record: LogRecord, reidentified?: Set<string>): void {
  if (record.k === 'meta') {
    const existing = machines.get(record.uid);
    if (existing === undefined) machines.set(record.uid, machineFrom(record, [], { everUp: false, restarts: 0, rv: null, deletedAt: null }));
    else {
      const timeline = keptTimeline(existing);
      const identity = identityOf(record);
      if ((timeline.accelerators ?? 0) !== identity.accelerators || (timeline.checkpointIntervalMs ?? null) !== identity.checkpointIntervalMs) reidentified?.add(record.uid);
      setIdentity(timeline, identity);
    }
  } else if (record.k === 'update') {
    const kept = machines.get(record.uid);
    if (kept === undefined) throw new StoreError(`an update of ${record.uid} comes before its identity: the log is out of order`);
    // A closed run read as its timeline alone: its machine again, to change.
    const m = machineOf(kept);
    if (m !== kept) machines.set(record.uid, m);
    // A timeline the snapshot held closed is read packed; one that grows after all (not from this Upness's log) is opened again, as it was read before.
    if (record.add.length > 0 && isPackedTimeline(m.timeline)) {
      // Out of the arena first (its record let go, its UID a string again: timeline/run-timeline.ts).
      unsealClosed(m.timeline);
      m.timeline.transitions = [...transitionsOf(m.timeline)];
    }
    for (const t of record.add) openTransitions(m.timeline).push(decodeTransition(t));
    Object.assign(m, { everUp: record.everUp, restarts: record.restarts, resourceVersion: record.rv, deletedAt: record.deletedAt });
  } else {
    // A fact, joined to what it refers to; one already there (written twice around a crash) is not doubled.
    const fact = factOf(record);
    if (fact !== null && !facts.join(fact)) throw new StoreError(`${describeFact(fact)} comes before what it refers to: the log is out of order`);
  }
}

function describeFact(fact: Fact): string {
  if (fact.kind === 'pool-transition' || fact.kind === 'pool-cause' || fact.kind === 'pool-jobset') return `a fact (${fact.kind}) of node pool ${fact.uid}`;
  if (fact.kind === 'node-transition') return `node-layer transition ${fact.seq} of ${fact.uid}`;
  if (fact.kind === 'cause') return `a cause of transition ${fact.seq} of ${fact.uid} (${fact.layer})`;
  return `why suspension ${fact.seq} of ${fact.uid} happened`;
}

export interface EmbeddedStoreOptions {
  /** Called when a write fails or recovers, for logs and metrics. */
  onError?: (error: Error | null) => void;
  /** How long to wait before retrying a failed write. */
  retryMs?: number;
}

/** The retry delay with its default, checked once at construction. */
const retryTiming = z.object({ retryMs: z.number().positive().default(1000) });

export class EmbeddedStore implements TimelineStore {
  readonly dir: string;
  readonly #options: EmbeddedStoreOptions;
  readonly #retryMs: number;
  #segment: number;
  #handle: FileHandle | null = null;
  #handleSegment = 0;
  #size = 0;
  /** Lines waiting to be written, each with the segment it belongs to. */
  #pending: { segment: number; line: string; seq: number }[] = [];
  #seq = 0;
  #synced = 0;
  #waiters: { seq: number; resolve: () => void }[] = [];
  #flushing = false;
  #retry: NodeJS.Timeout | null = null;
  #error: Error | null = null;
  #errors = 0;
  #bytes = 0;
  /**
   * What was last written of each timeline: its identity and the memory that decides its future
   * transitions, each written again only when it changes. Compared field by field (label sets are
   * shared objects, so usually by reference): serialising them per observation was a hot path.
   * Not kept for a run that was closed when read or snapshotted (most of a month's runs: an object
   * and a map entry each, made on every start): one observed again (a relist, a relabel, its
   * deletion) has its identity and memory written again once, and is kept from then on.
   */
  readonly #written = new Map<string, Written>();
  #observed: number | null = null;
  #observedWritten: number | null = null;
  #closed = false;

  private constructor(dir: string, segment: number, options: EmbeddedStoreOptions) {
    this.dir = dir;
    this.#segment = segment;
    this.#options = options;
    this.#retryMs = retryTiming.parse(options).retryMs;
  }

  /**
   * Opens (creating) a data dir and recovers what it holds. One of an older format is migrated first
   * (`migration` says from which, and where its copy was kept until the migrated dir was read).
   */
  static async open(dir: string, options: EmbeddedStoreOptions = {}): Promise<{ store: EmbeddedStore; recovery: Recovery; migration: Migration | null }> {
    const leftovers = await settle(dir);
    await mkdir(dir, { recursive: true });
    const found = await formatOf(dir);
    if (found !== null && found.format > FORMAT) throw new StoreError(newerFormat(found.file, found.format, found.upness));
    let migration: Migration | null = null;
    if (found !== null && found.format < FORMAT) {
      if (found.format < 1) throw new StoreError(`${found.file} is in format ${found.format}, which no Upness wrote: not an Upness data dir`);
      migration = await upgrade(dir, found.format, recover);
    }
    const recovery = await recover(dir);
    // Read: the copies kept through the migration are no longer needed.
    for (const backup of [...leftovers, ...(migration === null ? [] : [migration.backup])]) await rm(backup, { recursive: true, force: true });
    // Appends go to a fresh segment: the last one may just have been cut.
    const store = new EmbeddedStore(dir, recovery.lastSegment + 1, options);
    for (const m of recovery.kept ?? recovery.machines) if (isMachine(m) && !isClosed(m)) store.#written.set(m.timeline.uid, writtenOf(m.timeline, m));
    store.#observed = store.#observedWritten = recovery.observedUntil;
    await store.#openSegment(store.#segment);
    return { store, recovery, migration };
  }

  async #openSegment(n: number): Promise<void> {
    const handle = await open(join(this.dir, segmentName(n)), 'a');
    const header = encodeLine({ k: 'header', format: FORMAT, upness: UPNESS_VERSION });
    await writeAll(handle, header);
    await handle.sync();
    syncDir(this.dir);
    if (this.#handle !== null) await this.#handle.close();
    this.#handle = handle;
    this.#handleSegment = n;
    this.#size = Buffer.byteLength(header);
  }

  #push(record: LogRecord): void {
    this.#pending.push({ segment: this.#segment, line: encodeLine(record), seq: ++this.#seq });
    this.#sinceSnapshot++;
    this.#schedule();
  }
  #sinceSnapshot = 0;

  /** Records what an observation changed (nothing, when it changed nothing durable). */
  record(update: TimelineUpdate, machine: MachineState): void {
    if (this.#closed) return;
    const uid = update.timeline.uid;
    const written = this.#written.get(uid);
    const identity = identityChanged(written, machine.timeline);
    const memory = memoryChanged(written, machine);
    if (identity || memory) this.#written.set(uid, writtenOf(machine.timeline, machine));
    if (identity) this.#push(metaRecord(machine));
    // Only what changes the figures, or the memory that decides future transitions, is written. Not the
    // resourceVersion alone (it changes with every observation): a stale one after a restart only
    // makes the gap unknown where it might have been proven unchanged.
    if (update.added.length > 0 || memory) {
      this.#push({ k: 'update', uid, add: update.added.map(encodeTransition), everUp: machine.everUp, restarts: machine.restarts, rv: machine.resourceVersion, deletedAt: machine.deletedAt });
    }
    if (update.suspension !== undefined) this.fact(suspensionFact(uid, update.suspension));
  }

  /** Appends a fact (a cause, a node-layer transition, a suspension's reason) with the next group commit. */
  fact(fact: Fact): void {
    if (this.#closed) return;
    this.#push(factRecord(fact));
  }

  /** Appends samplings of the JobSets' usage with the next group commit. */
  usage(records: readonly UsageRecord[]): void {
    if (this.#closed) return;
    for (const record of records) this.#push(record);
  }

  /** Everything up to `at` has been observed; written with the next group commit. */
  observed(at: number | null): void {
    if (at === null || (this.#observed !== null && at <= this.#observed)) return;
    this.#observed = at;
    this.#schedule();
  }

  /** Resolves when everything recorded so far is on disk (at once while writes are failing: serving goes on). */
  flushed(): Promise<void> {
    // An observed mark not written yet takes the next number, when the next commit writes it.
    const seq = this.#seq + (this.#observed !== this.#observedWritten ? 1 : 0);
    if (this.#synced >= seq || this.#error !== null || this.#closed) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ seq, resolve }));
  }

  #schedule(): void {
    if (this.#flushing || this.#retry !== null || this.#closed) return;
    this.#flushing = true;
    setImmediate(() => void this.#flush());
  }

  async #flush(): Promise<void> {
    if (this.#observed !== this.#observedWritten && this.#observed !== null) {
      this.#pending.push({ segment: this.#segment, line: encodeLine({ k: 'observed', at: this.#observed }), seq: ++this.#seq });
      this.#observedWritten = this.#observed;
    }
    const batch = this.#pending;
    this.#pending = [];
    try {
      // In order, segment by segment: a later segment is never written before an earlier one is synced.
      let i = 0;
      while (i < batch.length) {
        const segment = batch[i]!.segment;
        let j = i;
        while (j < batch.length && batch[j]!.segment === segment) j++;
        if (segment !== this.#handleSegment) await this.#openSegment(segment);
        const bytes = await writeAll(this.#handle!, batch.slice(i, j).map((p) => p.line).join(''));
        await this.#handle!.datasync();
        this.#size += bytes;
        this.#bytes += bytes;
        this.#synced = batch[j - 1]!.seq;
        i = j;
      }
      if (this.#error !== null) this.#options.onError?.(null);
      this.#error = null;
    } catch (error) {
      // Disk full or unwritable: cut what may be half-written, keep the records, retry later.
      this.#pending = batch.filter((p) => p.seq > this.#synced).concat(this.#pending);
      this.#error = error as Error;
      this.#errors++;
      this.#options.onError?.(this.#error);
      await this.#handle?.truncate(this.#size).catch(() => undefined);
      this.#retry = setTimeout(() => {
        this.#retry = null;
        this.#schedule();
      }, this.#retryMs);
      this.#retry.unref();
    } finally {
      this.#waiters = this.#waiters.filter((w) => {
        if (w.seq > this.#synced && this.#error === null) return true;
        w.resolve();
        return false;
      });
      this.#flushing = false;
      // An observed mark made during this commit is written by the next one, as records are.
      if ((this.#pending.length > 0 || this.#observed !== this.#observedWritten) && this.#error === null) this.#schedule();
    }
  }

  /**
   * Writes a snapshot of `machines` and deletes the log it makes unnecessary. Records made after this
   * call go to a new segment; the snapshot holds everything before it.
   */
  async snapshot(
    machines: Iterable<MachineState>,
    observedUntil: number | null,
    nodeLayers: Iterable<Timeline> = [],
    pools: Iterable<Timeline> = [],
    usage: Iterable<UsageSnapshotEntry> = [],
    index?: IndexSource,
  ): Promise<void> {
    // The snapshot replaces the log, and with it the observed marks already written: it must not
    // say less than they did (the engine's horizon is its last transition, older than the last mark
    // while nothing changes).
    if (this.#observed !== null) observedUntil = Math.max(observedUntil ?? this.#observed, this.#observed);
    const next = ++this.#segment;
    this.#sinceSnapshot = 0;
    // Known identities: retention may have dropped some, and they must not be resurrected.
    this.#written.clear();
    const written = this.#written;
    // Each timeline's place in the snapshot, for the fleet index's part.
    const places = new Map<Timeline, number>();
    const kept = (function* () {
      for (const m of machines) {
        if (!isClosed(m)) written.set(m.timeline.uid, writtenOf(m.timeline, m));
        if (index !== undefined) places.set(m.timeline, places.size);
        yield m;
      }
    })();
    const ref = index === undefined ? undefined : { file: INDEX_PART, id: randomUUID() };
    let part: Buffer | null = null;
    const pieces = (function* () {
      yield* snapshotText(kept, next, observedUntil, UPNESS_VERSION, nodeLayers, FORMAT, pools, usage, ref);
      // Taken with the timelines, before writeSnapshot's first await, and copied: the index goes on
      // changing with them.
      const image = ref === undefined ? null : index!((tl) => places.get(tl));
      const encoded = image === null ? null : encodeIndexPart(image, ref!.id, UPNESS_VERSION);
      part = encoded === null ? null : Buffer.concat(encoded);
    })();
    const tmp = join(this.dir, `${SNAPSHOT}.tmp`);
    await writeSnapshot(tmp, pieces);
    // The part first: a crash between the two renames leaves the old snapshot, which names another id.
    const partPath = join(this.dir, INDEX_PART);
    if (part !== null) {
      await writeFile(`${partPath}.tmp`, part, { flush: true });
      await rename(`${partPath}.tmp`, partPath);
    } else await rm(partPath, { force: true });
    await rename(tmp, join(this.dir, SNAPSHOT));
    syncDir(this.dir);
    for (const f of await readdir(this.dir)) {
      const m = SEGMENT.exec(f);
      if (m !== null && Number(m[1]) < next && Number(m[1]) !== this.#handleSegment) await rm(join(this.dir, f));
    }
  }

  status(): StoreStatus {
    return {
      error: this.#error?.message ?? null,
      pendingRecords: this.#pending.length,
      recordsSinceSnapshot: this.#sinceSnapshot,
      bytesWritten: this.#bytes,
      errors: this.#errors,
    };
  }

  async close(): Promise<void> {
    await this.flushed();
    this.#closed = true;
    if (this.#retry !== null) clearTimeout(this.#retry);
    await this.#handle?.close();
    this.#handle = null;
  }
}
