// What the service needs of a store, whichever it is: the embedded log (default) or PostgreSQL.

import type { TimelineUpdate } from '../timeline/engine.ts';
import type { Fact } from '../timeline/facts.ts';
import { keptTimeline, type MachineState } from '../timeline/machine.ts';
import type { RunsByUid } from '../timeline/runs-by-uid.ts';
import { timelineFields, type Timeline } from '../timeline/types.ts';
import { derivedTransitions } from '../timeline/never-up.ts';
import type { UsageRecord, UsageSnapshotEntry } from './records.ts';
import type { IndexPart, IndexSource } from './index-part.ts';

export type { IndexPart, IndexSource, UsageRecord, UsageSnapshotEntry };

/**
 * The fleet index's part of the snapshot read (the embedded store: ./index-part.ts): `part`'s owners
 * are places in Recovery.machines, machine i holding its first held[i] transitions as the snapshot
 * had them; `resum`: places of those whose goodput inputs a later meta record changed. `refused`:
 * the snapshot named a part that cannot be used (why), and the index is built as before.
 */
export type RecoveredIndex = { part: IndexPart; held: Uint32Array; resum: Set<number> } | { refused: string };

export interface StoreStatus {
  /** The last write failed (disk full, unwritable, database down): new records wait in memory and are retried. */
  error: string | null;
  pendingRecords: number;
  /** Records written since the last snapshot (the embedded store's cue to take the next). */
  recordsSinceSnapshot: number;
  bytesWritten: number;
  errors: number;
}

export interface Recovery {
  /** Made from `kept` when first read, where the store gives that (a closed run's machine made afresh from its memory). */
  machines: MachineState[];
  /**
   * The same machines as the engine keeps them (a closed run's as its timeline alone, its machine's
   * memory in its packed columns: timeline/machine.ts settledMachine), in the same order, when the
   * store read them so (the embedded store): what a start reads, without a machine object made per
   * closed run only to be dropped by the engine's restore.
   */
  kept?: readonly (MachineState | Timeline)[];
  /**
   * The same as `kept`, by UID, when the store made that table to read its log (the embedded store):
   * the engine's restore takes it as its own (TimelineEngine.restore), and the recovery lets go of it.
   */
  byUid?: RunsByUid;
  /** The node layers of those machines (a cluster's), with their causes joined; not those in derivedNodeLayers. */
  nodeLayers: Timeline[];
  /**
   * JobSets whose closed node layer is what their JobSet layer derives (timeline/never-up.ts), kept
   * without a timeline of its own (the embedded store's snapshot, format 5 on): the node layer's
   * restore derives them (ClusterEngine.restoreNodeLayer); allNodeLayers() makes them.
   */
  derivedNodeLayers?: string[];
  /** The node pools' timelines (a cluster's), with their causes and JobSets joined; absent: none kept. */
  pools?: Timeline[];
  /** The JobSets' resource usage kept: the histories kept whole (the embedded store's snapshot, PostgreSQL's folded buckets), then the samplings after them. */
  usage?: { snapshot: UsageSnapshotEntry[]; log: UsageRecord[] };
  /** Up to when the previous run observed: a gap begins there. */
  observedUntil: number | null;
  /** The fleet index as the snapshot kept it (absent: none kept). */
  fleetIndex?: RecoveredIndex;
  /** A torn or corrupt last record that was cut off (the embedded store after a crash mid-write). */
  cut: { file: string; line: number; bytes: number } | null;
  records: number;
}

export interface TimelineStore {
  /** Records what an observation changed; made durable by the next group commit. */
  record(update: TimelineUpdate, machine: MachineState): void;
  /**
   * Records a fact (../timeline/facts.ts: a cause attached to a transition, a node-layer transition,
   * a suspension's reason learned later) after what it refers to; what was written is never changed.
   */
  fact(fact: Fact): void;
  /** Records samplings of the JobSets' resource usage (absent: usage is not kept). */
  usage?(records: readonly UsageRecord[]): void;
  /** Everything up to `at` has been observed. */
  observed(at: number | null): void;
  /** Resolves when everything recorded so far is durable (at once while writes are failing). */
  flushed(): Promise<void>;
  /** Compacts: the embedded store writes a snapshot (with the fleet index of `index`, when given) and drops the log before it. */
  snapshot(machines: Iterable<MachineState>, observedUntil: number | null, nodeLayers?: Iterable<Timeline>, pools?: Iterable<Timeline>, usage?: Iterable<UsageSnapshotEntry>, index?: IndexSource): Promise<void>;
  status(): StoreStatus;
  close(): Promise<void>;
}

/** The recovered runs' timelines, in the order of Recovery.machines (a fleet index's places), without making `machines` where the store kept them (`kept`). */
export function recoveredTimelines(recovery: Pick<Recovery, 'machines' | 'kept'>): Timeline[] {
  return recovery.kept === undefined ? recovery.machines.map((m) => m.timeline) : recovery.kept.map(keptTimeline);
}

/** Every node layer of a recovery: those it kept, then those kept as derived, made from their JobSet layer. */
export function allNodeLayers(recovery: Pick<Recovery, 'machines' | 'nodeLayers' | 'derivedNodeLayers'>): Timeline[] {
  if ((recovery.derivedNodeLayers ?? []).length === 0) return recovery.nodeLayers;
  const jobsets = new Map(recovery.machines.map((m) => [m.timeline.uid, m.timeline]));
  const derived: Timeline[] = [];
  for (const uid of recovery.derivedNodeLayers!) {
    const jobset = jobsets.get(uid);
    if (jobset !== undefined) derived.push({ ...timelineFields(jobset), transitions: derivedTransitions(jobset) });
  }
  return [...recovery.nodeLayers, ...derived];
}
