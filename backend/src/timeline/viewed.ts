// An observation already reduced to what the engine reads of it (its kind, and the view of its object),
// so the reduction can happen elsewhere (a worker thread that parses a trace) and the engine gets a
// small record instead of the whole object. The engine routes an Observation and a ViewedObservation
// alike (routeOf), so both give the same timelines.

import type { KubeObject, Observation, ObservationType } from '../observation/types.ts';
import { isJobSet, viewJobSet, type JobSetView, type SpecFieldsCache } from './jobset.ts';
import { isWorkload, viewWorkload, type WorkloadView } from './workload.ts';

/** What the engine does with an object, by its kind and API version. */
export type Route = 'JobSet' | 'Workload' | 'Pod' | 'Node' | 'other';

export function routeOf(object: KubeObject): Route {
  if (isJobSet(object)) return 'JobSet';
  if (isWorkload(object)) return 'Workload';
  if ((object.kind === 'Pod' || object.kind === 'Node') && object.apiVersion === 'v1') return object.kind;
  return 'other';
}

interface Seen {
  receivedAt: number;
  type: ObservationType;
}

/** The JobSet layer's form: Pods and Nodes are only counted (by UID); the node layer extends them (nodes/viewed.ts). */
export type ViewedObservation =
  | (Seen & { route: 'JobSet'; view: JobSetView })
  | (Seen & { route: 'Workload'; view: WorkloadView })
  | (Seen & { route: 'Pod' | 'Node'; uid: string })
  | (Seen & { route: 'other' });

/** `specs`: the spec fields of shared, unchanged spec objects (viewJobSet). */
export function viewObservation({ receivedAt, type, object }: Observation, specs: SpecFieldsCache | null = null): ViewedObservation {
  const route = routeOf(object);
  switch (route) {
    case 'JobSet':
      return { receivedAt, type, route, view: viewJobSet(object, specs) };
    case 'Workload':
      return { receivedAt, type, route, view: viewWorkload(object) };
    case 'Pod':
    case 'Node':
      return { receivedAt, type, route, uid: object.metadata.uid };
    default:
      return { receivedAt, type, route };
  }
}
