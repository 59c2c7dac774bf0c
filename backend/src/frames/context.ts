// What every query type works from: the timelines a query selected, the time up to which they are
// observed, its range and its (defaulted) fields.

import type { FleetIndex } from '../series/fleet-index.ts';
import type { SelectionIndexes } from '../series/selection-indexes.ts';
import type { Timeline } from '../timeline/types.ts';
import type { OptionalQueryField, UpnessQuery } from '../query/types.ts';
import type { Steps } from '../query/step.ts';
import type { UsageBook } from '../usage/book.ts';

/** A query with its defaults: every field set but the optional ones (a table's sort and limit). */
export type ResolvedQuery = Required<Omit<UpnessQuery, 'refId' | OptionalQueryField>> & Pick<UpnessQuery, OptionalQueryField> & { refId: string };

export interface QueryContext {
  query: ResolvedQuery;
  /** The timelines the query selects: worked out on first use (the fleet index may answer without them). */
  readonly timelines: readonly Timeline[];
  horizon: number;
  from: number;
  to: number;
  /** The start of the earliest window the query's points cover: the selection is of JobSets that lived in [selectFrom, to]. */
  selectFrom: number;
  steps: Steps;
  /** The JobSet layer's fleet index, when the source keeps one. */
  index: FleetIndex | null;
  /** Fleet indexes of the selections that the JobSet layer's index does not partition by, when the source keeps them. */
  selections?: SelectionIndexes | null;
  /** The request's "now" (when an unused selection index is dropped). */
  now: number;
  /** What the queries of one request share once worked out (a panel's series over the same windows). */
  memo?: Map<string, unknown>;
  /** How long the service keeps history (`--retention`), ms, when known: an SLO period may not be longer. */
  retentionMs?: number | null;
  /** The JobSets' resource usage, when the service keeps it (--watch-usage, the simulator); null: none. */
  usage?: UsageBook | null;
}
