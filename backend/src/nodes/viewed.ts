// The node layers' part of a viewed observation (timeline/viewed.ts): a Pod's view and the failures
// it shows, a Node's view for the node layer and for the pool layer. What ClusterEngine.observeViewed
// takes; the same views the layers make of the object themselves.

import type { Observation } from '../observation/types.ts';
import { routeOf, viewObservation, type ViewedObservation } from '../timeline/viewed.ts';
import type { SpecFieldsCache } from '../timeline/jobset.ts';
import { podFailures, viewNode, viewPod, type CauseFact, type NodeView, type PodView } from './objects.ts';
import { viewPoolNode, type PoolNodeView } from './pools/objects.ts';

type Seen = Pick<ViewedObservation, 'receivedAt' | 'type'>;

export type PodObservation = Seen & { route: 'Pod'; uid: string; pod: PodView; failures: CauseFact[] };
export type NodeObservation = Seen & { route: 'Node'; uid: string; node: NodeView; poolNode: PoolNodeView };
export type ClusterViewedObservation = Exclude<ViewedObservation, { route: 'Pod' | 'Node' }> | PodObservation | NodeObservation;

/** `poolLabel`: the pool layer's option (PoolLayerOptions.poolLabel), which its view of a Node depends on; `specs`: viewJobSet's. */
export function viewClusterObservation(observation: Observation, poolLabel: string | null, specs: SpecFieldsCache | null = null): ClusterViewedObservation {
  const { receivedAt, type, object } = observation;
  switch (routeOf(object)) {
    case 'Pod': {
      const pod = viewPod(object);
      // The node layer reads a pod's failures only when it belongs to a JobSet.
      const failures = pod.jobsetName === null ? [] : podFailures(object, receivedAt);
      return { receivedAt, type, route: 'Pod', uid: object.metadata.uid, pod, failures };
    }
    case 'Node':
      return { receivedAt, type, route: 'Node', uid: object.metadata.uid, node: viewNode(object), poolNode: viewPoolNode(object, poolLabel) };
    default:
      return viewObservation(observation, specs) as ClusterViewedObservation;
  }
}
