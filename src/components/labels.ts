// What the editors call the model's values. Records keyed by the shared model's unions, so a value
// added to the model without a label here fails the typecheck.

import type { AggregateName, GROUP_DIMENSIONS, Layer, Metric, QueryType, WindowName } from '../types';

export interface Described {
  label: string;
  description: string;
}

export const QUERY_TYPE_LABELS: Record<QueryType, Described> = {
  series: {
    label: 'Series',
    description: 'A metric over time, one series per JobSet or group (time series, stat, alert rules)',
  },
  summary: { label: 'Summary', description: 'A table with every figure, one row per JobSet or group' },
  states: { label: 'States', description: "Each JobSet's state over time, for the State timeline panel" },
  events: { label: 'Events', description: 'Interruptions as annotation regions, until their recovery' },
  fleet: { label: 'Fleet', description: 'How a metric spreads across JobSets: min, mean, p50, p90, p99, max' },
};

export const METRIC_LABELS: Record<Metric, Described> = {
  uptimeRatio: { label: 'Uptime ratio', description: 'up / (up + down); suspended and unknown time count in neither' },
  upSeconds: { label: 'Up time', description: 'Seconds up' },
  downSeconds: { label: 'Down time', description: 'Seconds down: provisioning + interruption downtime' },
  provisioningSeconds: { label: 'Provisioning time', description: 'Seconds before the first up (or since a resume)' },
  interruptionDowntimeSeconds: { label: 'Interruption downtime', description: 'Seconds down after having been up' },
  suspendedSeconds: { label: 'Suspended time', description: 'Seconds suspended (by a user or a queue such as Kueue)' },
  queuedSeconds: { label: 'Queued time', description: 'Seconds suspended before the first start' },
  unknownSeconds: { label: 'Unknown time', description: 'Seconds the service was not observing' },
  interruptions: { label: 'Interruptions', description: 'Up → down or up → failed' },
  recoveries: { label: 'Recoveries', description: 'Down → up' },
  mttrSeconds: {
    label: 'MTTR',
    description: 'Mean time to recovery: mean length of the down periods that ended in a recovery',
  },
  mtbiSeconds: {
    label: 'MTBI',
    description: 'Mean time between interruptions: mean length of the up periods that ended in one',
  },
  timeToFirstUpSeconds: {
    label: 'Time to first up',
    description: 'From creation (or the first resume) to the first up',
  },
  up: { label: 'Up (state)', description: 'The state at each step: 1 up, 0 provisioning or down, empty otherwise' },
};

export const LAYER_LABELS: Record<Layer, Described> = {
  jobset: { label: 'JobSet', description: "Up-ness by the JobSet's own readiness rule" },
  nodes: {
    label: 'Nodes',
    description: 'Whether the nodes the JobSet runs on are there and Ready (needs a service watching a cluster)',
  },
};

export const AGGREGATE_LABELS: Record<AggregateName, Described> = {
  mean: { label: 'Mean', description: "Mean of the group's JobSets' values" },
  pooled: { label: 'Pooled', description: "From the group's summed totals, e.g. Σup / Σ(up + down)" },
  sum: { label: 'Sum', description: "Sum of the group's JobSets' values" },
  min: { label: 'Min', description: 'Smallest value in the group' },
  max: { label: 'Max', description: 'Largest value in the group' },
  p50: { label: 'p50', description: 'Median across the group' },
  p90: { label: 'p90', description: '90th percentile across the group' },
  p99: { label: 'p99', description: '99th percentile across the group' },
};

export const WINDOW_LABELS: Record<WindowName, Described> = {
  range: { label: 'Range', description: 'One value for the whole time range' },
  step: { label: 'Step', description: "Each step's own bucket" },
  rolling: { label: 'Rolling', description: 'A window of the given length ending at each step' },
  cumulative: { label: 'Cumulative', description: 'From the start of the range to each step' },
};

export const GROUP_LABELS: Record<(typeof GROUP_DIMENSIONS)[number], Described> = {
  none: { label: 'JobSet', description: 'One series or row per JobSet' },
  all: { label: 'Whole fleet', description: 'Every selected JobSet as one group' },
  cluster: { label: 'Cluster', description: 'One group per cluster (when several write to one store)' },
  namespace: { label: 'Namespace', description: 'One group per namespace' },
  accelerator: { label: 'Accelerator', description: 'One group per accelerator type' },
  topology: { label: 'Topology', description: 'One group per topology' },
};
