// Every figure, defined once: its name (the key), how Grafana shows it, where the editor lists it,
// what it means, and its value from a totals vector (totals-layout.ts). The rest is derived: the
// series stage's values (figures.ts) and pooled values (fleet.ts, over the fleet index's summed
// totals), the query model's figure list (query/types.ts), the OpenAPI enum and its descriptions
// (query/model.ts), the per-JobSet gauges of /metrics, and the editors' metric list (src/).
// Pure, and its one import is the layout leaf, so the plugin's frontend takes it as it is.

import {
  ACCELERATOR_LOST,
  ACCELERATOR_UP,
  CHECKPOINT_LOSS,
  CHECKPOINTED_UP,
  CHECKPOINTED_WALL,
  INTERRUPTED_UP,
  INTERRUPTION_DOWN,
  INTERRUPTIONS,
  MEASURED_INTERRUPTIONS,
  MEASURED_RECOVERIES,
  PROVISIONING,
  QUEUED,
  RECOVERED_DOWN,
  RECOVERIES,
  SUSPENDED,
  UNKNOWN,
  UP,
} from './totals-layout.ts';

/** How the editor groups the metrics, in the order it lists them (the state `up` adds its own). */
export const FIGURE_GROUPS = ['Ratios', 'Durations', 'Counts', 'Mean times', 'Goodput'] as const;
export type FigureGroup = (typeof FIGURE_GROUPS)[number];

/** Grafana unit ids, as the frames carry them: seconds, ratios as percent, counts as plain numbers. */
export type FigureUnit = 's' | 'percentunit' | 'none';

export interface FigureDefinition {
  /** The editor's name for it: durations say "time", ratios "ratio" or "share". */
  label: string;
  /** What it is, in a line: the editor, the OpenAPI document and the docs show it. */
  description: string;
  unit: FigureUnit;
  group: FigureGroup;
  /** A sum over time or a count: it adds up across adjacent windows and JobSets (a `sum` over no JobSet is 0). */
  additive: boolean;
  /** The totals columns `value` reads (totals-layout.ts); a test holds it to them. */
  columns: readonly number[];
  /** It is the time to first up, which is not a total: `value` returns its third argument. */
  firstUp?: true;
  /**
   * The value from the totals vector that starts at `o` in `totals`. Per JobSet from its own totals;
   * pooled over a group from the group's summed totals (the fleet index's, or the members' summed),
   * which is what `pooled` means. `timeToFirstUpSeconds` is the JobSet's own, or the group's mean.
   * Hot path: no allocation.
   */
  value(totals: ArrayLike<number>, o: number, timeToFirstUpSeconds: number | null): number | null;
  /** Its per-JobSet gauge on /metrics (MegaMon's name where MegaMon has one), over the JobSet's life; unset while null. */
  gauge?: { name: string; help: string };
}

/** A run's life inside the window: every state that accrues (suspended holds queued). */
function wallOf(t: ArrayLike<number>, o: number): number {
  return t[o + UP]! + t[o + PROVISIONING]! + t[o + INTERRUPTION_DOWN]! + t[o + SUSPENDED]! + t[o + UNKNOWN]!;
}

const WALL = [UP, PROVISIONING, INTERRUPTION_DOWN, SUSPENDED, UNKNOWN];

function shareOfWall(t: ArrayLike<number>, o: number, part: number): number | null {
  const wall = wallOf(t, o);
  return wall > 0 ? part / wall : null;
}

/** In the order tables show them. */
export const FIGURE_DEFINITIONS = {
  upSeconds: {
    label: 'Time up',
    description: 'Seconds up',
    unit: 's',
    group: 'Durations',
    additive: true,
    columns: [UP],
    value: (t, o) => t[o + UP]! / 1000,
    gauge: { name: 'megamon_jobset_up_time_seconds', help: 'Total time up.' },
  },
  downSeconds: {
    label: 'Time down',
    description: 'Provisioning + downtime after interruptions',
    unit: 's',
    group: 'Durations',
    additive: true,
    columns: [PROVISIONING, INTERRUPTION_DOWN],
    value: (t, o) => (t[o + PROVISIONING]! + t[o + INTERRUPTION_DOWN]!) / 1000,
    gauge: { name: 'megamon_jobset_down_time_seconds', help: 'Total time down: provisioning plus interruption downtime.' },
  },
  provisioningSeconds: {
    label: 'Time provisioning',
    description: 'Seconds down before the first up',
    unit: 's',
    group: 'Durations',
    additive: true,
    columns: [PROVISIONING],
    value: (t, o) => t[o + PROVISIONING]! / 1000,
    gauge: { name: 'megamon_jobset_down_time_initial_seconds', help: 'Provisioning time before the first up (and after resumes).' },
  },
  interruptionDowntimeSeconds: {
    label: 'Time down after interruptions',
    description: 'Seconds down after having been up',
    unit: 's',
    group: 'Durations',
    additive: true,
    columns: [INTERRUPTION_DOWN],
    value: (t, o) => t[o + INTERRUPTION_DOWN]! / 1000,
  },
  suspendedSeconds: {
    label: 'Time suspended',
    description: 'Seconds suspended by a user or a queue',
    unit: 's',
    group: 'Durations',
    additive: true,
    columns: [SUSPENDED],
    value: (t, o) => t[o + SUSPENDED]! / 1000,
    gauge: { name: 'upness_jobset_suspended_seconds', help: 'Time suspended (excluded from up and down time).' },
  },
  queuedSeconds: {
    label: 'Time queued',
    description: 'Seconds suspended before the first start',
    unit: 's',
    group: 'Durations',
    additive: true,
    columns: [QUEUED],
    value: (t, o) => t[o + QUEUED]! / 1000,
    gauge: { name: 'upness_jobset_queued_seconds', help: 'Time suspended before the first start.' },
  },
  unknownSeconds: {
    label: 'Time unknown',
    description: 'Seconds the service was not observing',
    unit: 's',
    group: 'Durations',
    additive: true,
    columns: [UNKNOWN],
    value: (t, o) => t[o + UNKNOWN]! / 1000,
    gauge: { name: 'upness_jobset_unknown_seconds', help: 'Time not observed.' },
  },
  interruptions: {
    label: 'Interruptions',
    description: 'Up → down, or up → failed',
    unit: 'none',
    group: 'Counts',
    additive: true,
    columns: [INTERRUPTIONS],
    value: (t, o) => t[o + INTERRUPTIONS]!,
    gauge: { name: 'megamon_jobset_interruption_count', help: 'Interruptions: up → down or up → failed.' },
  },
  recoveries: {
    label: 'Recoveries',
    description: 'Down → up',
    unit: 'none',
    group: 'Counts',
    additive: true,
    columns: [RECOVERIES],
    value: (t, o) => t[o + RECOVERIES]!,
    gauge: { name: 'megamon_jobset_recovery_count', help: 'Recoveries: down → up.' },
  },
  mttrSeconds: {
    label: 'MTTR',
    description: 'Mean time to recovery',
    unit: 's',
    group: 'Mean times',
    additive: false,
    columns: [RECOVERED_DOWN, MEASURED_RECOVERIES],
    value: (t, o) => {
      const n = t[o + MEASURED_RECOVERIES]!;
      return n > 0 ? t[o + RECOVERED_DOWN]! / n / 1000 : null;
    },
    gauge: { name: 'megamon_jobset_down_time_between_recovery_mean_seconds', help: 'Mean time to recovery (MTTR).' },
  },
  mtbiSeconds: {
    label: 'MTBI',
    description: 'Mean time between interruptions',
    unit: 's',
    group: 'Mean times',
    additive: false,
    columns: [INTERRUPTED_UP, MEASURED_INTERRUPTIONS],
    value: (t, o) => {
      const n = t[o + MEASURED_INTERRUPTIONS]!;
      return n > 0 ? t[o + INTERRUPTED_UP]! / n / 1000 : null;
    },
    gauge: { name: 'megamon_jobset_up_time_between_interruption_mean_seconds', help: 'Mean time between interruptions (MTBI).' },
  },
  uptimeRatio: {
    label: 'Uptime ratio',
    description: 'up ÷ (up + down), as a percentage',
    unit: 'percentunit',
    group: 'Ratios',
    additive: false,
    columns: [UP, PROVISIONING, INTERRUPTION_DOWN],
    value: (t, o) => {
      const up = t[o + UP]!;
      const total = up + t[o + PROVISIONING]! + t[o + INTERRUPTION_DOWN]!;
      return total > 0 ? up / total : null;
    },
    gauge: { name: 'upness_jobset_uptime_ratio', help: 'Up time ÷ (up + down time).' },
  },
  timeToFirstUpSeconds: {
    label: 'Time to first up',
    description: 'From creation (or resume) to first up',
    unit: 's',
    group: 'Mean times',
    additive: false,
    columns: [],
    firstUp: true,
    value: (_t, _o, timeToFirstUpSeconds) => timeToFirstUpSeconds,
    gauge: { name: 'upness_jobset_time_to_first_up_seconds', help: 'Creation (or first resume) to the first up.' },
  },
  // Goodput (issue 13 §3): where the wall time went. up + queued + provisioning + interruption
  // downtime + suspended (not queued) + unknown = wall, exactly.
  wallSeconds: {
    label: 'Wall time',
    description: "The JobSet's life inside the window (creation → end)",
    unit: 's',
    group: 'Goodput',
    additive: true,
    columns: WALL,
    value: (t, o) => wallOf(t, o) / 1000,
  },
  schedulingGoodput: {
    label: 'Scheduling goodput',
    description: 'up ÷ wall time, as a percentage',
    unit: 'percentunit',
    group: 'Goodput',
    additive: false,
    columns: WALL,
    value: (t, o) => shareOfWall(t, o, t[o + UP]!),
  },
  suspendedNotQueuedSeconds: {
    label: 'Time suspended after start',
    description: 'Seconds suspended, not counting queued time',
    unit: 's',
    group: 'Goodput',
    additive: true,
    columns: [SUSPENDED, QUEUED],
    value: (t, o) => (t[o + SUSPENDED]! - t[o + QUEUED]!) / 1000,
  },
  queuedFraction: {
    label: 'Queued share of wall',
    description: 'Queued time ÷ wall time',
    unit: 'percentunit',
    group: 'Goodput',
    additive: false,
    columns: [...WALL, QUEUED],
    value: (t, o) => shareOfWall(t, o, t[o + QUEUED]!),
  },
  provisioningFraction: {
    label: 'Provisioning share of wall',
    description: 'Provisioning time ÷ wall time',
    unit: 'percentunit',
    group: 'Goodput',
    additive: false,
    columns: WALL,
    value: (t, o) => shareOfWall(t, o, t[o + PROVISIONING]!),
  },
  interruptionDowntimeFraction: {
    label: 'Interruption share of wall',
    description: 'Downtime after interruptions ÷ wall time',
    unit: 'percentunit',
    group: 'Goodput',
    additive: false,
    columns: WALL,
    value: (t, o) => shareOfWall(t, o, t[o + INTERRUPTION_DOWN]!),
  },
  suspendedNotQueuedFraction: {
    label: 'Suspended share of wall',
    description: 'Suspended (not queued) time ÷ wall time',
    unit: 'percentunit',
    group: 'Goodput',
    additive: false,
    columns: [...WALL, QUEUED],
    value: (t, o) => shareOfWall(t, o, t[o + SUSPENDED]! - t[o + QUEUED]!),
  },
  unknownFraction: {
    label: 'Unknown share of wall',
    description: 'Unobserved time ÷ wall time',
    unit: 'percentunit',
    group: 'Goodput',
    additive: false,
    columns: WALL,
    value: (t, o) => shareOfWall(t, o, t[o + UNKNOWN]!),
  },
  acceleratorSecondsUp: {
    label: 'Accelerator time up',
    description: 'Accelerators × seconds up',
    unit: 's',
    group: 'Goodput',
    additive: true,
    columns: [ACCELERATOR_UP],
    value: (t, o) => t[o + ACCELERATOR_UP]! / 1000,
  },
  acceleratorSecondsLost: {
    label: 'Accelerator time lost',
    description: 'Accelerators × seconds provisioning, down or unknown',
    unit: 's',
    group: 'Goodput',
    additive: true,
    columns: [ACCELERATOR_LOST],
    value: (t, o) => t[o + ACCELERATOR_LOST]! / 1000,
  },
  estimatedEffectiveTrainingRatio: {
    label: 'ETTR (estimated)',
    description: '(up − interruptions × checkpoint interval ÷ 2) ÷ wall; only JobSets with the checkpoint-interval annotation',
    unit: 'percentunit',
    group: 'Goodput',
    additive: false,
    columns: [CHECKPOINTED_UP, CHECKPOINT_LOSS, CHECKPOINTED_WALL],
    value: (t, o) => {
      // Only timelines with a checkpoint interval take part; none of them lived: null.
      const wall = t[o + CHECKPOINTED_WALL]!;
      return wall > 0 ? Math.max(0, t[o + CHECKPOINTED_UP]! - t[o + CHECKPOINT_LOSS]!) / wall : null;
    },
  },
  // Added after the goodput figures, so that every earlier column keeps its place.
  restartsPerDay: {
    label: 'Interruptions per day',
    description: 'Interruptions (restarts faster than the watch included) per day of up + down time',
    unit: 'none',
    group: 'Counts',
    additive: false,
    columns: [INTERRUPTIONS, UP, PROVISIONING, INTERRUPTION_DOWN],
    value: (t, o) => {
      // interruptions ÷ ((upSeconds + downSeconds) ÷ 86400), in the totals' milliseconds.
      const counted = t[o + UP]! + t[o + PROVISIONING]! + t[o + INTERRUPTION_DOWN]!;
      return counted > 0 ? t[o + INTERRUPTIONS]! / (counted / 86_400_000) : null;
    },
  },
} satisfies Record<string, FigureDefinition>;

export type FigureName = keyof typeof FIGURE_DEFINITIONS;

/** Every figure, in the order tables show them. */
export const FIGURES = Object.keys(FIGURE_DEFINITIONS) as readonly FigureName[];

/** Each figure's value type: `number`, or `number | null` where it can be undefined. */
export type Figures = { [K in FigureName]: ReturnType<(typeof FIGURE_DEFINITIONS)[K]['value']> };

/** A figure's definition, typed as the general shape. */
export function definitionOf(figure: FigureName): FigureDefinition {
  return FIGURE_DEFINITIONS[figure];
}
