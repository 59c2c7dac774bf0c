// What every source (a live cluster, a trace file, the simulator) delivers: one watch event at a
// time, with the whole Kubernetes object as the API returned it. A leaf: it imports nothing, and
// every stage below it (sources, timeline, nodes) takes its input in these terms.
// Times are epoch milliseconds (integers).

export type ObservationType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** A Kubernetes object as the API returned it. Only metadata is required to route it. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: {
    uid: string;
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    creationTimestamp?: string;
    deletionTimestamp?: string;
    [key: string]: unknown;
  };
  spec?: unknown;
  status?: unknown;
  [key: string]: unknown;
}

/** One watch event, from a live cluster, a trace file or the simulator. */
export interface Observation {
  receivedAt: number;
  type: ObservationType;
  object: KubeObject;
}

/** Where a source delivers: the timeline engine, seen from a source (which must not import it). */
export interface ObservationSink<Counts = unknown> {
  observe(observation: Observation): void;
  /** What the sink has taken in so far, for progress lines. */
  readonly counts: Counts;
}
