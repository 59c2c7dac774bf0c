// The usage metrics a JobSet's history keeps, their Grafana units and what each is. A leaf (no
// imports): the query model and the editors take the names from here.

export const USAGE_METRICS = [
  'cpuCores',
  'memoryBytes',
  'networkReceiveBytesPerSecond',
  'networkTransmitBytesPerSecond',
  'ephemeralStorageBytes',
  'volumeBytes',
  'pods',
] as const;
export type UsageMetric = (typeof USAGE_METRICS)[number];

export interface UsageMetricDefinition {
  /** Grafana's unit id. */
  unit: string;
  label: string;
  description: string;
}

export const USAGE_DEFINITIONS: Readonly<Record<UsageMetric, UsageMetricDefinition>> = {
  cpuCores: { unit: 'none', label: 'CPU cores', description: "CPU in use by the JobSet's pods, in cores (the kubelets' usageNanoCores, summed)" },
  memoryBytes: { unit: 'bytes', label: 'Memory', description: "memory working set of the JobSet's pods, summed" },
  networkReceiveBytesPerSecond: { unit: 'Bps', label: 'Network received', description: "bytes per second received by the JobSet's pods, summed" },
  networkTransmitBytesPerSecond: { unit: 'Bps', label: 'Network sent', description: "bytes per second sent by the JobSet's pods, summed" },
  ephemeralStorageBytes: { unit: 'bytes', label: 'Ephemeral storage', description: "ephemeral storage used by the JobSet's pods (writable layers, logs, emptyDir), summed" },
  volumeBytes: { unit: 'bytes', label: 'Volumes', description: "bytes used on the volumes of the JobSet's pods, summed" },
  pods: { unit: 'none', label: 'Pods measured', description: "the JobSet's pods whose usage was measured" },
};

export function isUsageMetric(metric: string): metric is UsageMetric {
  return (USAGE_METRICS as readonly string[]).includes(metric);
}
