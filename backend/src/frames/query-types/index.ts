// The query types, one module each, and the query schema they make together: the shared fields,
// each type's own in this order (the OpenAPI document's, and the order a query's first bad field
// is found in), then the range's.

import type { z } from 'zod';
import type { QueryType } from '../../query/types.ts';
import { querySchemaWith } from '../../query/model.ts';
import { eventsType } from './events.ts';
import { fleetType } from './fleet.ts';
import type { QueryTypeModule } from './module.ts';
import { seriesType } from './series.ts';
import { sloType } from './slo.ts';
import { statesType } from './states.ts';
import { summaryType } from './summary.ts';

export const QUERY_TYPE_MODULES: Readonly<Record<QueryType, QueryTypeModule>> = {
  series: seriesType,
  summary: summaryType,
  states: statesType,
  events: eventsType,
  fleet: fleetType,
  slo: sloType,
};

/** The types' own fields, all of them: read by the type that owns each (the runner reads only the shared ones). */
const OWN_FIELDS: Record<never, z.ZodType> = Object.assign({}, ...Object.values(QUERY_TYPE_MODULES).map((m) => m.fields));

/** One query as it arrives (query/model.ts's shared fields, and every type's own). */
export const querySchema = querySchemaWith(OWN_FIELDS);
