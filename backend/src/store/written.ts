// What a store last wrote of each timeline, so that it writes again only what changed: the
// timeline's identity (timeline/identity.ts) and the machine's memory that decides its future
// transitions (restarts, ever up, deletion). Compared field by field, label sets by reference first
// (timeline/intern.ts shares them): serialising both on every observation to spot a change was a hot
// path of ingest.

import type { TimelineIdentity, WithIdentity } from '../timeline/identity.ts';
import type { MachineState } from '../timeline/machine.ts';

export type Memory = Pick<MachineState, 'restarts' | 'everUp' | 'deletedAt'>;
export type Written = TimelineIdentity & Memory;

/** One object of its fields (a store keeps one a timeline: identityOf and a spread made two, the second's fields out of line). */
export function writtenOf(identity: WithIdentity, memory: Memory): Written {
  return {
    // identityOf's fields (the type makes a missing one an error).
    namespace: identity.namespace,
    name: identity.name,
    labels: identity.labels,
    accelerator: identity.accelerator,
    topology: identity.topology,
    createdAt: identity.createdAt,
    accelerators: identity.accelerators ?? 0,
    checkpointIntervalMs: identity.checkpointIntervalMs ?? null,
    pods: identity.pods ?? 0,
    restarts: memory.restarts,
    everUp: memory.everUp,
    deletedAt: memory.deletedAt,
  };
}

export function memoryChanged(w: Written | undefined, m: Memory): boolean {
  return w === undefined || w.restarts !== m.restarts || w.everUp !== m.everUp || w.deletedAt !== m.deletedAt;
}
