// A timeline's identity: what it says of its JobSet UID besides the transitions (names, labels,
// hardware, creation, the goodput inputs). The one place that lists its fields: the stores write it
// (a meta record, a row), read it back, and write it again only when it changed; a follower takes
// a newer one. The engine keeps it current from each observation (machine.ts, with shared copies).

import { sameLabels } from './intern.ts';
import type { Timeline } from './types.ts';

/** The fields of a timeline that are its identity. */
type IdentityField = 'namespace' | 'name' | 'labels' | 'accelerator' | 'topology' | 'createdAt' | 'accelerators' | 'checkpointIntervalMs' | 'pods';

/** A timeline's identity on its own, every field set: the goodput inputs are 0 and null when none is known. */
export type TimelineIdentity = Required<Pick<Timeline, IdentityField>>;

/** Anything that carries an identity: a timeline, a meta record (the goodput inputs absent before format 3, pods before format 4). */
export type WithIdentity = Pick<Timeline, IdentityField>;

/** The identity of `from`, alone; goodput inputs and pods it lacks are none known (0: its size falls back, series/sizes.ts). */
export function identityOf(from: WithIdentity): TimelineIdentity {
  return {
    namespace: from.namespace,
    name: from.name,
    labels: from.labels,
    accelerator: from.accelerator,
    topology: from.topology,
    createdAt: from.createdAt,
    accelerators: from.accelerators ?? 0,
    checkpointIntervalMs: from.checkpointIntervalMs ?? null,
    pods: from.pods ?? 0,
  };
}

/** Gives `timeline` a newer identity (a later meta record, a row written again). */
export function setIdentity(timeline: Timeline, identity: TimelineIdentity): void {
  Object.assign(timeline, identity);
}

/** Whether `b`'s identity differs from `a`'s (`a` absent: nothing written yet). Label sets by reference first (timeline/intern.ts shares them). */
export function identityChanged(a: WithIdentity | undefined, b: WithIdentity): boolean {
  return (
    a === undefined ||
    a.namespace !== b.namespace ||
    a.name !== b.name ||
    a.accelerator !== b.accelerator ||
    a.topology !== b.topology ||
    a.createdAt !== b.createdAt ||
    (a.accelerators ?? 0) !== (b.accelerators ?? 0) ||
    (a.checkpointIntervalMs ?? null) !== (b.checkpointIntervalMs ?? null) ||
    (a.pods ?? 0) !== (b.pods ?? 0) ||
    !sameLabels(a.labels, b.labels)
  );
}
