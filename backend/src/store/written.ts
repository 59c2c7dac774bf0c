// What a store last wrote of each timeline, so that it writes again only what changed: the
// timeline's identity (name, namespace, labels, accelerator, topology, creation) and the machine's
// memory that decides its future transitions (restarts, ever up, deletion). Compared field by field,
// label sets by reference first (timeline/intern.ts shares them): serialising both on every
// observation to spot a change was a hot path of ingest.

import { sameLabels } from '../timeline/intern.ts';
import type { MachineState } from '../timeline/machine.ts';
import type { Timeline } from '../timeline/types.ts';

export type Identity = Pick<Timeline, 'namespace' | 'name' | 'labels' | 'accelerator' | 'topology' | 'createdAt' | 'accelerators' | 'checkpointIntervalMs'>;
export type Memory = Pick<MachineState, 'restarts' | 'everUp' | 'deletedAt'>;
export type Written = Identity & Memory;

export function writtenOf(identity: Identity, memory: Memory): Written {
  const { namespace, name, labels, accelerator, topology, createdAt, accelerators, checkpointIntervalMs } = identity;
  return { namespace, name, labels, accelerator, topology, createdAt, accelerators, checkpointIntervalMs, restarts: memory.restarts, everUp: memory.everUp, deletedAt: memory.deletedAt };
}

export function identityChanged(w: Written | undefined, tl: Identity): boolean {
  return (
    w === undefined ||
    w.namespace !== tl.namespace ||
    w.name !== tl.name ||
    w.accelerator !== tl.accelerator ||
    w.topology !== tl.topology ||
    w.createdAt !== tl.createdAt ||
    (w.accelerators ?? 0) !== (tl.accelerators ?? 0) ||
    (w.checkpointIntervalMs ?? null) !== (tl.checkpointIntervalMs ?? null) ||
    !sameLabels(w.labels, tl.labels)
  );
}

export function memoryChanged(w: Written | undefined, m: Memory): boolean {
  return w === undefined || w.restarts !== m.restarts || w.everUp !== m.everUp || w.deletedAt !== m.deletedAt;
}
