// What the embedded store writes: log lines and snapshots. A log line is
//   <crc32 of the JSON, 8 hex digits> <JSON>\n
// so a torn or corrupt line is detected, and the log stays readable with ordinary tools.

import { crc32 } from 'node:zlib';
import type { MachineState } from '../timeline/machine.ts';
import type { Cause, State, Transition } from '../timeline/types.ts';

/** Bumped when the on-disk format changes; a data dir of another format is refused, not half-read. */
export const FORMAT = 1;

/** A timeline's identity and labels, written when first seen and whenever they change. */
export interface MetaRecord {
  k: 'meta';
  uid: string;
  namespace: string;
  name: string;
  labels: Record<string, string>;
  accelerator: string | null;
  topology: string | null;
  createdAt: number;
  /** Goodput inputs (issue 13 §3); absent in logs written before them: read as none. */
  accelerators?: number;
  checkpointIntervalMs?: number | null;
}

/** New transitions of a timeline, and the machine's memory after them. */
export interface UpdateRecord {
  k: 'update';
  uid: string;
  /** [at, state]; [at, state, interruptions, recoveries] for events proven after a gap; and the
   *  causes of an interruption as a fifth element. */
  add: ([number, State] | [number, State, number, number] | [number, State, number, number, Cause[]])[];
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

/** The first line of every log file. */
export interface HeaderRecord {
  k: 'header';
  format: number;
}

export type LogRecord = HeaderRecord | MetaRecord | UpdateRecord | ObservedRecord;

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

export function encodeTransition(t: Transition): UpdateRecord['add'][number] {
  const i = t.unobserved?.interruptions ?? 0;
  const r = t.unobserved?.recoveries ?? 0;
  if (t.causes !== undefined && t.causes.length > 0) return [t.at, t.state, i, r, t.causes];
  return t.unobserved ? [t.at, t.state, i, r] : [t.at, t.state];
}

export function decodeTransition(t: UpdateRecord['add'][number]): Transition {
  const transition: Transition = { at: t[0], state: t[1] };
  if (t.length === 4) transition.unobserved = { interruptions: t[2], recoveries: t[3] };
  if (t.length === 5) {
    if (t[2] > 0 || t[3] > 0) transition.unobserved = { interruptions: t[2], recoveries: t[3] };
    transition.causes = t[4];
  }
  return transition;
}

export function metaRecord(machine: MachineState): MetaRecord {
  const tl = machine.timeline;
  return {
    k: 'meta',
    uid: tl.uid,
    namespace: tl.namespace,
    name: tl.name,
    labels: tl.labels,
    accelerator: tl.accelerator,
    topology: tl.topology,
    createdAt: tl.createdAt,
    accelerators: tl.accelerators ?? 0,
    checkpointIntervalMs: tl.checkpointIntervalMs ?? null,
  };
}

/** A snapshot: every machine at the moment the log rolled over to `nextSegment`. */
export interface Snapshot {
  format: number;
  /** Log segments from this one on hold what came after the snapshot. */
  nextSegment: number;
  observedUntil: number | null;
  machines: {
    meta: MetaRecord;
    update: Omit<UpdateRecord, 'k' | 'uid'>;
  }[];
}

export function snapshotOf(machines: Iterable<MachineState>, nextSegment: number, observedUntil: number | null): Snapshot {
  const out: Snapshot['machines'] = [];
  for (const m of machines) {
    out.push({
      meta: metaRecord(m),
      update: { add: m.timeline.transitions.map(encodeTransition), everUp: m.everUp, restarts: m.restarts, rv: m.resourceVersion, deletedAt: m.deletedAt },
    });
  }
  return { format: FORMAT, nextSegment, observedUntil, machines: out };
}
