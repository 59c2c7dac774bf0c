// What every query type works from: the timelines a query selected, the time up to which they are
// observed, its range and its (defaulted) fields.

import type { Timeline } from '../timeline/types.ts';
import type { UpnessQuery } from '../query/types.ts';
import type { Steps } from '../query/step.ts';

export type ResolvedQuery = Required<Omit<UpnessQuery, 'refId'>> & { refId: string };

export interface QueryContext {
  query: ResolvedQuery;
  timelines: readonly Timeline[];
  horizon: number;
  from: number;
  to: number;
  steps: Steps;
}
