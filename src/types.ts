// The plugin's types. The query model itself (fields, allowed values, defaults, units, durations)
// is the service's, shared as it is: one definition for the editor, the Go backend that forwards it
// and the service that answers it. Only what Grafana adds lives here.

import type { DataSourceJsonData } from '@grafana/data';
import type { DataQuery } from '@grafana/schema';

import type { UpnessQuery as ServiceQuery } from '../backend/src/query/types';

export {
  AGGREGATES,
  DEFAULT_QUERY,
  FIGURE_DEFINITIONS,
  FIGURE_GROUPS,
  FIGURES,
  GROUP_DIMENSIONS,
  isUsageMetric,
  LAYERS,
  MAX_TABLE_LIMIT,
  METRICS,
  parseDuration,
  QUERY_TYPES,
  SLO_ANSWER_COLUMNS,
  SLO_ANSWERS,
  SLO_INDICATORS,
  sizeBucketLabels,
  sizeBucketsProblem,
  SORT_DIRECTIONS,
  sortableColumns,
  sortColumns,
  STATES,
  TABLE_QUERY_TYPES,
  unitOf,
  USAGE_DEFINITIONS,
  USAGE_METRICS,
  USAGE_SPLITS,
  usageColumn,
  WINDOWS,
} from '../backend/src/query/types';
export type {
  AggregateName,
  FigureGroup,
  FigureName,
  GroupByName,
  Layer,
  Metric,
  QueryType,
  SloAnswer,
  SloColumn,
  SloIndicator,
  SortDirection,
  TableSort,
  UsageMetric,
  WindowName,
} from '../backend/src/query/types';

/** A panel's query: the service's model plus what Grafana keeps on every query (hide, key, datasource). */
export interface UpnessQuery extends Omit<DataQuery, 'queryType'>, ServiceQuery {}

/** The data source's settings (jsonData), read by the Go plugin backend. */
export interface UpnessOptions extends DataSourceJsonData {
  /** Where the Upness service answers, e.g. `http://upness.upness.svc:8080`. */
  url?: string;
  /** Seconds the Go backend waits for the service's answer to one request (default 30). */
  timeoutSeconds?: number;
}

/** Secrets (secureJsonData): sent to the Go backend only, never back to the browser. */
export interface UpnessSecureJsonData {
  /** The service's bearer token (`upness serve --token-file`, `UPNESS_TOKEN`). */
  token?: string;
}

/** What `GET /api/v1/values/{what}` lists: the sources of template variables and editor options. */
export const VALUE_KINDS = [
  'clusters',
  'namespaces',
  'jobsets',
  'labelKeys',
  'labelValues',
  'accelerators',
  'topologies',
  'pools',
] as const;
export type ValueKind = (typeof VALUE_KINDS)[number];

/**
 * A template variable's query: which values to list, with the argument `jobsets` (namespace) or
 * `labelValues` (label key) takes. Written as text it is `jobsets($namespace)`, `labelValues(team)`…
 */
export interface UpnessVariableQuery extends DataQuery {
  what: ValueKind;
  /** For `jobsets`: only these namespaces (comma-separated; variables allowed). Empty: all. */
  namespace?: string;
  /** For `labelValues`: the label key (variables allowed). */
  key?: string;
}
