// The layout of a totals vector: what each column holds (milliseconds for durations, counts for
// events). A leaf, without imports: the figure definitions read columns by these names, and the
// plugin's frontend takes those definitions (through query/types.ts) as they are.

export const UP = 0;
export const PROVISIONING = 1;
export const INTERRUPTION_DOWN = 2;
export const SUSPENDED = 3;
export const QUEUED = 4;
export const UNKNOWN = 5;
export const INTERRUPTIONS = 6;
export const RECOVERIES = 7;
/** Σ whole lengths of the down periods that ended in a recovery (for MTTR). */
export const RECOVERED_DOWN = 8;
/** Σ whole lengths of the up periods that ended in an interruption (for MTBI). */
export const INTERRUPTED_UP = 9;
/** How many periods those sums hold: events seen happen (not ones proven after a gap, whose periods are unknown). */
export const MEASURED_RECOVERIES = 10;
export const MEASURED_INTERRUPTIONS = 11;
// Goodput (issue 13 §3): per-timeline weighted copies of the columns above, so that they pool
// across a fleet. Each is linear in the columns above with the timeline's own constants, so
// C(b) − C(a) still gives a window's value.
/** accelerators × up ms. */
export const ACCELERATOR_UP = 12;
/** accelerators × (provisioning + interruption downtime + unknown) ms: holding or waiting for the slice. */
export const ACCELERATOR_LOST = 13;
/** up ms of timelines with a checkpoint interval (ETTR's numerator before the loss). */
export const CHECKPOINTED_UP = 14;
/** wall ms of timelines with a checkpoint interval (ETTR's denominator). */
export const CHECKPOINTED_WALL = 15;
/** Σ interruptions × checkpoint interval / 2, ms: the expected progress lost (a count-like sum). */
export const CHECKPOINT_LOSS = 16;
export const FIELDS = 17;
/** The columns that the sweeps accrue themselves; the rest (goodput) are derived from them per timeline. */
export const BASE_FIELDS = 12;

/**
 * Whether each column accrues with time while a timeline is in a state (a duration, which the fleet
 * index keeps as rate·t − W) rather than adding up at events (counts, and sums of whole periods).
 */
export const ACCRUES_WITH_TIME: readonly boolean[] = Array.from({ length: FIELDS }, (_, column) =>
  [UP, PROVISIONING, INTERRUPTION_DOWN, SUSPENDED, QUEUED, UNKNOWN, ACCELERATOR_UP, ACCELERATOR_LOST, CHECKPOINTED_UP, CHECKPOINTED_WALL].includes(column),
);

/** Column names, for messages and tests. */
export const COLUMN_NAMES: readonly string[] = [
  'UP',
  'PROVISIONING',
  'INTERRUPTION_DOWN',
  'SUSPENDED',
  'QUEUED',
  'UNKNOWN',
  'INTERRUPTIONS',
  'RECOVERIES',
  'RECOVERED_DOWN',
  'INTERRUPTED_UP',
  'MEASURED_RECOVERIES',
  'MEASURED_INTERRUPTIONS',
  'ACCELERATOR_UP',
  'ACCELERATOR_LOST',
  'CHECKPOINTED_UP',
  'CHECKPOINTED_WALL',
  'CHECKPOINT_LOSS',
];
