// What the editors call the model's values. Records keyed by the shared model's unions, so a value
// added to the model without a label here fails the typecheck.

import {
  type AggregateName,
  FIGURE_DEFINITIONS,
  type FigureName,
  FIGURES,
  type GROUP_DIMENSIONS,
  type Layer,
  type Metric,
  type QueryType,
  type SloAnswer,
  type SloIndicator,
  type STATES,
  type UsageMetric,
  USAGE_DEFINITIONS,
  USAGE_METRICS,
  type WindowName,
} from '../types';

export interface Described {
  label: string;
  description: string;
}

/** Each query type: its name, what it is for, and the panel it suits, shown above its editor. */
export const QUERY_TYPE_LABELS: Record<QueryType, Described & { panel: string }> = {
  series: {
    label: 'Series',
    description: 'A metric over time: one line per JobSet or per group.',
    panel: 'Time series, Stat, alert rules',
  },
  summary: {
    label: 'Summary',
    description: 'Every figure over the time range and the state at its end: one row per JobSet or per group.',
    panel: 'Table',
  },
  states: {
    label: 'States',
    description: "Each JobSet's state over time (provisioning, up, down, suspended…): one band per JobSet.",
    panel: 'State timeline',
  },
  events: {
    label: 'Events',
    description:
      'Each interruption as a region from its start to its recovery, and each suspension until its resume with its reason, tagged with the JobSet; or the interruptions counted by cause.',
    panel: 'Annotations; Bar chart when counted by cause',
  },
  fleet: {
    label: 'Fleet',
    description: "How a metric spreads across a group's JobSets: min, mean, p50, p90, p99, max per group.",
    panel: 'Table, Bar chart',
  },
  slo: {
    label: 'SLO',
    description:
      'An objective over a period per JobSet name (across its recreations), namespace, label or the fleet: SLI, error budget, burn rate, budget-consumption alert.',
    panel: 'Stat, Gauge, Bar gauge, Time series, Table, alert rules',
  },
};

/** What an `slo` query's SLI measures (README "SLOs and error budgets"). */
export const SLO_INDICATOR_LABELS: Record<SloIndicator, Described> = {
  uptime: {
    label: 'Uptime',
    description:
      'up ÷ (up + down): provisioning and interruption downtime are bad; queued, suspended and unknown time count for neither',
  },
  schedulingGoodput: {
    label: 'Scheduling goodput',
    description: 'up ÷ wall time: queued, provisioning, interruption downtime, suspended and unknown time are all bad',
  },
};

/** What an `slo` query answers, in the order the Answer list offers them. */
export const SLO_ANSWER_LABELS: Record<SloAnswer, Described> = {
  sli: {
    label: 'SLI',
    description: 'Up ÷ counted time (by the indicator) over the period ending at each point, beside the objective',
  },
  errorBudget: {
    label: 'Error budget',
    description: 'Allowed, consumed and remaining bad seconds over the period, remaining share, time to exhaustion',
  },
  burnRate: {
    label: 'Burn rate',
    description: 'bad ÷ counted ÷ (1 − objective) over the burn window: 1 spends exactly the budget',
  },
  budgetConsumed: {
    label: 'Budget consumed',
    description: "Bad time in the burn window as a share of the period's budget",
  },
  alert: {
    label: 'Alert',
    description:
      'Budget-consumption alert: 1 when the threshold was consumed in the burn window and the short window burns',
  },
};

/**
 * Metric names that cannot be confused: durations say "time", ratios "ratio" or "share", the state
 * says "state". A figure's label and description are its definition's (backend/src/series/figure-definitions.ts).
 */
export const METRIC_LABELS: Record<Metric, Described> = {
  ...(Object.fromEntries(
    FIGURES.map((f) => [f, { label: FIGURE_DEFINITIONS[f].label, description: FIGURE_DEFINITIONS[f].description }])
  ) as Record<FigureName, Described>),
  up: { label: 'Up/down state', description: '1 up, 0 provisioning or down, at each step' },
  ...(Object.fromEntries(
    USAGE_METRICS.map((m) => [m, { label: USAGE_DEFINITIONS[m].label, description: USAGE_DEFINITIONS[m].description }])
  ) as Record<UsageMetric, Described>),
};

/** The states a JobSet can be in at the end of the range, for "State at end". */
export const STATE_LABELS: Record<(typeof STATES)[number], Described> = {
  provisioning: { label: 'Provisioning', description: 'Not up yet since creation or resume' },
  up: { label: 'Up', description: 'Every replicated job ready or succeeded' },
  down: { label: 'Down', description: 'Not up, after having been up' },
  suspended: { label: 'Suspended', description: 'Suspended by a user or a queue' },
  unknown: { label: 'Unknown', description: 'The service was not observing' },
  completed: { label: 'Completed', description: 'Finished successfully' },
  failed: { label: 'Failed', description: 'Finished with a failure' },
  deleted: { label: 'Deleted', description: 'Deleted before the end of the range' },
};

export const LAYER_LABELS: Record<Layer, Described> = {
  jobset: { label: 'JobSet', description: "Up-ness by the JobSet's own readiness rule" },
  nodes: {
    label: 'Nodes',
    description: 'Whether the nodes the JobSet runs on are there and Ready (needs a service watching a cluster)',
  },
  nodepools: {
    label: 'Node pools',
    description: 'One timeline per node pool: all its nodes Ready (needs a service watching a cluster)',
  },
};

/** In the order the Aggregate list offers them (the one that suits the metric comes first). */
export const AGGREGATE_LABELS: Record<AggregateName, Described> = {
  pooled: { label: 'Pooled', description: "From the group's summed totals, e.g. Σup ÷ Σ(up + down)" },
  sum: { label: 'Sum', description: "Sum of the group's values" },
  mean: { label: 'Mean', description: "Mean of the group's values" },
  p50: { label: 'p50', description: 'Median across the group' },
  p90: { label: 'p90', description: '90th percentile across the group' },
  p99: { label: 'p99', description: '99th percentile across the group' },
  min: { label: 'Min', description: 'Smallest value in the group' },
  max: { label: 'Max', description: 'Largest value in the group' },
};

/** In the order the Window choice shows them. */
export const WINDOW_LABELS: Record<WindowName, Described> = {
  step: { label: 'Step', description: 'Each point covers its own step: a line that shows when things changed' },
  rolling: { label: 'Rolling', description: 'Each point covers the given length ending at it, e.g. the last 24h' },
  cumulative: { label: 'Cumulative', description: 'Each point covers the range from its start to the point' },
  range: { label: 'Range', description: 'One point for the whole time range (for Stat panels and tables)' },
};

export const GROUP_LABELS: Record<(typeof GROUP_DIMENSIONS)[number], Described> = {
  none: { label: 'Each JobSet', description: 'No grouping: one series or row per JobSet' },
  all: { label: 'Whole fleet', description: 'Every selected JobSet as one group' },
  namespace: { label: 'Namespace', description: 'One group per namespace' },
  accelerator: { label: 'Accelerator', description: 'One group per accelerator type' },
  topology: { label: 'Topology', description: 'One group per topology' },
  queue: { label: 'Kueue queue', description: 'One group per Kueue queue (kueue.x-k8s.io/queue-name label)' },
  size: {
    label: 'Job size',
    description: 'One group per size bucket: accelerators (GPUs, TPU chips), or pods without any',
  },
  cluster: { label: 'Cluster', description: 'One group per cluster (several clusters writing to one store)' },
  pool: { label: 'Node pool', description: 'One group per node pool (layer Node pools)' },
};
