// The Kubernetes resources a cluster source lists and watches, and how they name each other. Only
// names: what their fields mean is the object → view function's business (timeline/jobset.ts).

/** The JobSet API's group (jobset.x-k8s.io/v1alpha2). */
export const JOBSET_API_GROUP = 'jobset.x-k8s.io';

/** The label the JobSet controller puts on every Pod it creates, naming its JobSet. */
export const JOBSET_NAME_LABEL = 'jobset.sigs.k8s.io/jobset-name';

/** Kueue's API group (kueue.x-k8s.io): its Workloads say why a JobSet was evicted (watched on request). */
export const KUEUE_API_GROUP = 'kueue.x-k8s.io';
