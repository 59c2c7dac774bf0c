// Values that flow from the observation path into the timeline and on to the series stage.
// Times are epoch milliseconds (integers), so sums of durations stay exact.

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

/** The states of DESIGN.md. The last three are terminal: nothing accrues after them. */
export type State = 'provisioning' | 'up' | 'down' | 'suspended' | 'unknown' | 'completed' | 'failed' | 'deleted';

export const TERMINAL_STATES: ReadonlySet<State> = new Set<State>(['completed', 'failed', 'deleted']);

/** Entering `state` at `at`. A timeline is the ordered list of these; each state lasts until the next. */
export interface Transition {
  at: number;
  state: State;
}

/** One JobSet UID's whole history. Name, namespace and the rest are labels of the UID. */
export interface Timeline {
  uid: string;
  namespace: string;
  name: string;
  labels: Record<string, string>;
  /** TPU/GPU accelerator and topology from the pod templates' nodeSelectors, when they say. */
  accelerator: string | null;
  topology: string | null;
  createdAt: number;
  /** Non-empty, times non-decreasing, the first at `createdAt`; a terminal state, if any, is last. */
  transitions: Transition[];
}
