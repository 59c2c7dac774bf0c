// The query editors' logic, without React: what a new query is, which aggregate suits a metric, what
// Group by and Namespaces may hold (only what the service accepts), and when a change is a change.

import { parseLabelSelector, parseNamePattern } from '../../../backend/src/query/selector';
import { hasVariable } from '../../interpolate';
import {
  type AggregateName,
  DEFAULT_QUERY,
  FIGURE_DEFINITIONS,
  FIGURE_GROUPS,
  type FigureGroup,
  type FigureName,
  FIGURES,
  GROUP_DIMENSIONS,
  type GroupByName,
  MAX_TABLE_LIMIT,
  type Metric,
  parseDuration,
  type QueryType,
  sizeBucketLabels,
  sizeBucketsProblem,
  SLO_ANSWER_COLUMNS,
  type SloAnswer,
  type SloColumn,
  sortableColumns,
  sortColumns,
  type UpnessQuery,
  type UsageMetric,
  USAGE_METRICS,
} from '../../types';

/** A query as the service reads it: the stored fields over the shared defaults. */
export type Resolved = typeof DEFAULT_QUERY & UpnessQuery;

/** The stored fields over the service's defaults (a field stored as undefined takes its default). */
export function resolve(query: UpnessQuery): Resolved {
  const stored = Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined));
  return { ...DEFAULT_QUERY, ...stored, refId: query.refId };
}

/** How the metrics are grouped in the Metric list, in this order: the figures' groups, the state, then resource usage. */
export const METRIC_GROUPS = [...FIGURE_GROUPS, 'State', 'Usage'] as const;
export type MetricGroup = (typeof METRIC_GROUPS)[number];

/** Each metric's group: a figure's from its definition (backend/src/series/figure-definitions.ts), `up` the state. */
export const METRIC_GROUP: Record<Metric, MetricGroup> = {
  ...(Object.fromEntries(FIGURES.map((f) => [f, FIGURE_DEFINITIONS[f].group])) as Record<FigureName, FigureGroup>),
  up: 'State',
  ...(Object.fromEntries(USAGE_METRICS.map((m) => [m, 'Usage'])) as Record<UsageMetric, 'Usage'>),
};

/**
 * The aggregate that suits a metric when JobSets are grouped: `pooled` for the ratio (Σup / Σ(up +
 * down), not a mean of ratios), `sum` for seconds and counts, `p50` for mean times (one stuck JobSet
 * should not move a group's typical MTTR), `mean` for the state (the share of the group that is up).
 */
export function defaultAggregate(metric: Metric): AggregateName {
  switch (METRIC_GROUP[metric]) {
    case 'Ratios':
    // Goodput figures pool as the ratio does (shares of Σ wall; seconds: pooled is the sum).
    case 'Goodput':
      return 'pooled';
    case 'Durations':
    case 'Counts':
      return 'sum';
    case 'Mean times':
      return 'p50';
    case 'State':
      return 'mean';
    // A group's usage is its JobSets' together.
    case 'Usage':
      return 'sum';
  }
}

/**
 * A new query of a type, drawing the right panel at once: a series is one line per namespace of
 * each step's uptime ratio, pooled (a range window would give one dot per series); a summary one row
 * per JobSet; a fleet spread across the whole fleet.
 */
export function newQuery(queryType: QueryType = 'series'): Omit<UpnessQuery, 'refId'> {
  const base = { ...DEFAULT_QUERY, clusters: [], namespaces: [], states: [], figures: [], queryType };
  switch (queryType) {
    case 'series':
      return { ...base, groupBy: 'namespace', aggregate: 'pooled', window: 'step' };
    case 'fleet':
      return { ...base, groupBy: 'all' };
    case 'slo':
      // One value per JobSet name at the end of the range: a Stat, Gauge or Table at once.
      return { ...base, window: 'range' };
    default:
      return base;
  }
}

/**
 * The query as its editor shows it. The service reads a fleet query's `up` as the uptime ratio and
 * its "per JobSet" as the whole fleet; the editor stores what it shows, so stored and shown agree.
 * `groupBy: cause` (events only) left by a change of type becomes the default grouping.
 */
export function normalize<Q extends UpnessQuery>(query: Q): Q {
  if (query.groupBy === 'cause' && query.queryType !== 'events') {
    // Counting by cause is an `events` query's alone; the service refuses it on any other.
    return normalize({ ...query, groupBy: DEFAULT_QUERY.groupBy });
  }
  if (query.queryType !== 'fleet') {
    return query;
  }
  const patch: Partial<UpnessQuery> = {};
  if (query.metric === 'up') {
    patch.metric = 'uptimeRatio';
  }
  if (query.groupBy === undefined || query.groupBy === 'none') {
    patch.groupBy = 'all';
  }
  return Object.keys(patch).length === 0 ? query : { ...query, ...patch };
}

/** The query after its type changed: the other fields stay, made valid for the new type. */
export function withType(query: UpnessQuery, queryType: QueryType): UpnessQuery {
  return normalize({ ...query, queryType });
}

/** The query after its metric changed; an aggregate left at the old metric's default follows the metric. */
export function withMetric(query: UpnessQuery, metric: Metric): UpnessQuery {
  const q = resolve(query);
  const followed = query.aggregate === undefined || query.aggregate === defaultAggregate(q.metric);
  return followed ? { ...query, metric, aggregate: defaultAggregate(metric) } : { ...query, metric };
}

/** The same fields with the same values (arrays in order, key order ignored). */
export function sameQuery(a: UpnessQuery, b: UpnessQuery): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of keys) {
    const x = (a as unknown as Record<string, unknown>)[key];
    const y = (b as unknown as Record<string, unknown>)[key];
    if (x !== y && JSON.stringify(x) !== JSON.stringify(y)) {
      return false;
    }
  }
  return true;
}

// Label keys as Kubernetes allows them ([prefix/]name), as the service checks them in a selector.
const LABEL_KEY = /^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

/** Whether text is a Kubernetes label key (`team`, `ml.example.com/team`). */
export function isLabelKey(text: string): boolean {
  return text.length <= 316 && LABEL_KEY.test(text);
}

/** The Group by dimensions, as the service names them. */
export function isDimension(text: string): text is (typeof GROUP_DIMENSIONS)[number] {
  return (GROUP_DIMENSIONS as readonly string[]).includes(text);
}

/**
 * What a text typed into Group by stands for, or null when the service would refuse it: a dimension
 * (`namespace`), `label:<key>`, or a bare label key, which becomes `label:<key>`.
 */
export function toGroupBy(text: string): GroupByName | null {
  const typed = text.trim();
  if (isDimension(typed)) {
    return typed;
  }
  const key = typed.startsWith('label:') ? typed.slice('label:'.length).trim() : typed;
  return isLabelKey(key) || hasVariable(key) ? `label:${key}` : null;
}

export const NAMESPACE_GLOB_HINT =
  'Namespaces are exact names: for a pattern use Name (e.g. train-*), or pick a $variable';

/**
 * Why a typed namespace is refused, or undefined when the service can match it: a namespace name (a
 * DNS label) or a dashboard variable. Globs match nothing in Namespaces; one name per entry.
 */
export function namespaceProblem(text: string): string | undefined {
  const typed = text.trim();
  if (typed === '' || hasVariable(typed)) {
    return undefined;
  }
  if (/[*?[\]]/.test(typed) || /^\/.*\/$/.test(typed)) {
    return NAMESPACE_GLOB_HINT;
  }
  if (typed.includes(',')) {
    return 'One namespace at a time: pick or type each one';
  }
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(typed) || typed.length > 63) {
    return `"${typed}" is not a namespace name (lowercase letters, digits and -)`;
  }
  return undefined;
}

/** Size buckets as typed: upper bounds separated by commas (`1, 8, 64, 512`). */
export function formatSizeBuckets(bounds: readonly number[]): string {
  return bounds.join(', ');
}

/** The upper bounds typed, or why the service would refuse them (its own words). */
export function parseSizeBuckets(text: string): number[] | { error: string } {
  const parts = text.split(/[\s,]+/).filter((p) => p !== '');
  if (parts.some((p) => !/^\d+$/.test(p))) {
    return { error: 'Upper bounds: whole numbers separated by commas, e.g. 1, 8, 64, 512' };
  }
  const bounds = parts.map(Number);
  const problem = sizeBucketsProblem(bounds);
  return problem === null ? bounds : { error: `Size buckets ${problem}` };
}

/** What the buckets of `bounds` are called, as the service labels its groups. */
export function sizeBucketsShown(bounds: readonly number[]): string {
  return sizeBucketLabels(bounds).join(', ');
}

export const ROLLING_ERROR = 'Enter a duration: 30m, 24h, 7d, 1h30m';

/** The message for a rolling window length, or undefined when it is fine (or holds a variable). */
export function rollingError(text: string): string | undefined {
  return hasVariable(text) || parseDuration(text) !== null ? undefined : ROLLING_ERROR;
}

/** The service's own message for a label selector it cannot read (variables are checked once replaced). */
export function labelSelectorError(text: string): string | undefined {
  return checkWith(text, parseLabelSelector, 'labelSelector');
}

/** The service's own message for a name pattern it cannot read (a bad regular expression). */
export function namePatternError(text: string): string | undefined {
  return checkWith(text, parseNamePattern, 'name');
}

function checkWith(text: string, parse: (text: string) => unknown, field: string): string | undefined {
  if (hasVariable(text)) {
    return undefined;
  }
  try {
    parse(text);
    return undefined;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return message.startsWith(`${field}: `) ? message.slice(field.length + 2) : message;
  }
}

// --- `slo` queries (issue 13) ---

/** What an objective must be, as the service says it. */
export const OBJECTIVE_ERROR = 'An objective is a ratio strictly between 0 and 1, such as 0.95';

export function objectiveError(text: string): string | undefined {
  const value = Number(text);
  return text !== '' && Number.isFinite(value) && value > 0 && value < 1 ? undefined : OBJECTIVE_ERROR;
}

/** A period or window: a duration; a period at least 1h (the service also holds it to its retention). */
export function sloDurationError(text: string, least?: { ms: number; text: string }): string | undefined {
  if (hasVariable(text)) {
    return undefined;
  }
  const ms = parseDuration(text);
  if (ms === null) {
    return 'A number and a unit (ms, s, m, h, d, w), e.g. 5m, 1h, 28d';
  }
  return least !== undefined && ms < least.ms ? `At least ${least.text}` : undefined;
}

/** A share of the budget: above 0, at most 1. */
export function fractionError(text: string): string | undefined {
  const value = Number(text);
  return text !== '' && Number.isFinite(value) && value > 0 && value <= 1
    ? undefined
    : 'A share of the budget above 0 and at most 1, such as 0.02';
}

export const LIMIT_ERROR = 'A whole number of rows from 1, or empty for every row';

/** A table's limit: empty (every row) or a whole number from 1, as the service takes it. */
export function limitError(text: string): string | undefined {
  if (text === '') {
    return undefined;
  }
  const value = Number(text);
  return /^\d+$/.test(text) && value >= 1 && value <= MAX_TABLE_LIMIT ? undefined : LIMIT_ERROR;
}

/** The number columns a table query's rows show: a summary's asked figures, an slo answer's asked `columns` (none asked: all). */
export function shownColumns(q: Resolved): readonly string[] {
  const all = sortColumns(q);
  const asked = q.queryType === 'slo' ? (q.columns ?? []) : [];
  return asked.length === 0 ? all : all.filter((c) => (asked as readonly string[]).includes(c));
}

/** The sort column of a table query when the service no longer sorts by it (another answer, usage removed), else undefined. */
export function staleSortColumn(q: Resolved): string | undefined {
  return q.sort !== undefined && !sortableColumns(q).includes(q.sort.by) ? q.sort.by : undefined;
}

/** An slo query's `columns` kept for another answer: those the new answer has, none left meaning all (the service refuses another answer's). */
export function columnsForAnswer(
  columns: readonly SloColumn[] | undefined,
  answer: SloAnswer
): SloColumn[] | undefined {
  const own = SLO_ANSWER_COLUMNS[answer] as readonly SloColumn[];
  const kept = (columns ?? []).filter((c) => own.includes(c));
  return kept.length === 0 ? undefined : kept;
}
