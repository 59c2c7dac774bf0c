// The query model: one type shared by the Grafana plugin's frontend (src/) and the service.
// Plain types and constants only, so the frontend bundle takes it as it is; its imports are the
// figure definitions and the job size buckets, which the series stage owns (pure, importing only the totals layout).

import { FIGURE_DEFINITIONS, FIGURE_GROUPS, FIGURES, type FigureDefinition, type FigureGroup, type FigureName } from '../series/figure-definitions.ts';
import { DEFAULT_SIZE_BUCKETS, MAX_SIZE_BUCKETS, sizeBucketLabels, sizeBucketsProblem, UNKNOWN_SIZE } from '../series/sizes.ts';
import { isUsageMetric, USAGE_DEFINITIONS, USAGE_METRICS, type UsageMetric } from '../usage/metrics.ts';

export const QUERY_TYPES = ['series', 'summary', 'states', 'events', 'fleet', 'slo'] as const;
export type QueryType = (typeof QUERY_TYPES)[number];

export { FIGURE_DEFINITIONS, FIGURE_GROUPS, FIGURES };
export { DEFAULT_SIZE_BUCKETS, MAX_SIZE_BUCKETS, sizeBucketLabels, sizeBucketsProblem, UNKNOWN_SIZE };
export type { FigureDefinition, FigureGroup, FigureName };
export { isUsageMetric, USAGE_DEFINITIONS, USAGE_METRICS, type UsageMetric };
/** Every figure, `up`: the state itself (1 up, 0 provisioning or down, null otherwise), and the resource usage metrics (series only). */
export const METRICS = [...FIGURES, 'up', ...USAGE_METRICS] as const;
export type Metric = (typeof METRICS)[number];

export const LAYERS = ['jobset', 'nodes', 'nodepools'] as const;
export type Layer = (typeof LAYERS)[number];

export const STATES = ['provisioning', 'up', 'down', 'suspended', 'unknown', 'completed', 'failed', 'deleted'] as const;

export const AGGREGATES = ['sum', 'mean', 'min', 'max', 'p50', 'p90', 'p99', 'pooled'] as const;
export type AggregateName = (typeof AGGREGATES)[number];

/** `none`: one series per JobSet; `all`: the whole fleet as one; or a dimension. */
/** `queue`: the Kueue queue (`kueue.x-k8s.io/queue-name` label) the JobSet was submitted to (issue 13 §4). */
/** `size`: the job size (accelerators, or pods without any) in the buckets of `sizeBuckets` (issue 20 §3, series/sizes.ts). */
/** `pool`: a node pool timeline's pool (`layer: nodepools`, its `pool` label); '' for a JobSet. */
export const GROUP_DIMENSIONS = ['none', 'all', 'cluster', 'namespace', 'accelerator', 'topology', 'queue', 'size', 'pool'] as const;
export const QUEUE_LABEL = 'kueue.x-k8s.io/queue-name';
/** `cause`: an `events` query's interruptions counted by cause category (issue 13 §4); events only. */
export const CAUSE_GROUP = 'cause';
export type GroupByName = (typeof GROUP_DIMENSIONS)[number] | typeof CAUSE_GROUP | `label:${string}`;

/** `step`: each step's own bucket; `rolling`: a window of `rolling` length ending at each step;
 *  `cumulative`: from the range start to each step; `range`: one value for the whole range. */
export const WINDOWS = ['step', 'rolling', 'cumulative', 'range'] as const;
export type WindowName = (typeof WINDOWS)[number];

/** The table queries (issue 21 §2): they take a `sort` and a `limit`, decided in the service. */
export const TABLE_QUERY_TYPES = ['summary', 'slo'] as const satisfies readonly QueryType[];

/** `desc`: the largest first (the default: "burning fastest"); `asc`: the smallest first. Nulls go last either way. */
export const SORT_DIRECTIONS = ['desc', 'asc'] as const;
export type SortDirection = (typeof SORT_DIRECTIONS)[number];

/** The most rows a table's limit may ask for: more than any table the limits let a query make. */
export const MAX_TABLE_LIMIT = 1_000_000;

/** A table's order: by a number column its rows carry (see sortColumns), ties in the table's own order. */
export interface TableSort {
  by: string;
  direction?: SortDirection;
}

/** What a panel asks for. Every field but refId, sort and limit has a default (see DEFAULT_QUERY). */
export interface UpnessQuery {
  refId: string;
  queryType?: QueryType;
  metric?: Metric;
  layer?: Layer;
  /** Only these clusters (empty: all), when several write to one store. */
  clusters?: string[];
  /** Only these namespaces (empty: all). */
  namespaces?: string[];
  /** JobSet name: a glob (`train-*`), or a regular expression between slashes (`/^train-\d+$/`). */
  name?: string;
  /** A Kubernetes label selector: `team=ml,tier in (a,b),!canary`. */
  labelSelector?: string;
  /** Only JobSets whose state at the end of the range is one of these (empty: any). */
  states?: string[];
  groupBy?: GroupByName;
  /** `groupBy: size`: the buckets' upper bounds, strictly ascending whole numbers from 1 ([1, 8, 64, 512]: 1, 2-8, 9-64, 65-512, >512). */
  sizeBuckets?: number[];
  aggregate?: AggregateName;
  window?: WindowName;
  /** Length of the rolling window: `30m`, `24h`, `7d`. */
  rolling?: string;
  /** `summary`: only these figure columns (empty: every figure). */
  figures?: string[];
  /** `summary`: for each of these usage metrics, its mean while up, not up, provisioning, down and suspended (USAGE_SPLITS). */
  usageByState?: UsageMetric[];
  // --- `slo` queries (issue 13 section 1) ---
  /** `slo`: the objective, a ratio strictly between 0 and 1 (0.95). A JobSet name's `upness.dev/objective` label overrides it when grouped by name. */
  objective?: number;
  /** `slo`: the compliance period, a duration from 1h up to the retention (`28d`, `7d`, `30d`). */
  period?: string;
  /** `slo`: which answer (see SLO_ANSWERS). */
  sloAnswer?: SloAnswer;
  /** `slo`: what the SLI measures (see SLO_INDICATORS): `uptime` (the default) or `schedulingGoodput`. */
  indicator?: SloIndicator;
  /** `slo`: the burn window (burn rate, budget consumed lately, current burn): at most the period. */
  burnWindow?: string;
  /** `slo`: the short window of an alert ("still burning"): at most the burn window. */
  shortWindow?: string;
  /** `slo`: a burn-rate factor the caller means to alert on (0: none); one that can never fire at the objective gets a notice. */
  burnFactor?: number;
  /** `slo` `alert`: the share of the period's budget consumed in the burn window that fires (held down so it can fire at any objective). */
  budgetThreshold?: number;
  // --- table queries (summary, slo: issue 21 §2); absent: every row, in the table's own order ---
  /** The rows' order: by a figure the row carries, descending by default; nulls last. */
  sort?: TableSort;
  /** At most this many rows (for slo: frames), after the sort; a whole number from 1. */
  limit?: number;
  /** `slo`: `table` answers one table frame, a row per group (and point); absent or `series`: a frame per group. */
  format?: SloFormat;
  /** `slo`: only these of the answer's number columns (absent or empty: all of them), as `figures` narrows a summary's; the sort may name any of them. */
  columns?: SloColumn[];
}

/** The fields without a default: absent means "not asked" (every row, in the table's own order; an slo answer's frame per group and every column). */
export type OptionalQueryField = 'sort' | 'limit' | 'format' | 'columns';

/** How an `slo` answer is laid out: `series`, a frame per group (what alert rules and time series panels read); `table`, one table frame with a row per group and point. */
export const SLO_FORMATS = ['series', 'table'] as const;
export type SloFormat = (typeof SLO_FORMATS)[number];

/** What an `slo` query answers: `sli` (with the objective), `errorBudget` (allowed, consumed, remaining, time to exhaustion),
 *  `burnRate` over the burn window, `budgetConsumed` in the burn window, `alert` (1 firing, 0 not). */
export const SLO_ANSWERS = ['sli', 'errorBudget', 'burnRate', 'budgetConsumed', 'alert'] as const;
export type SloAnswer = (typeof SLO_ANSWERS)[number];

/**
 * What an `slo` query's SLI measures (issue 20 §6); good time is up time for both. `uptime`: up ÷
 * (up + down), suspended, queued and unknown time counting for neither. `schedulingGoodput`: up ÷
 * wall, queued, provisioning, interruption downtime, suspended and unknown time all bad (the figure
 * `schedulingGoodput` over the same window). Named `indicator`, not `sli`: `sli` is an answer.
 */
export const SLO_INDICATORS = ['uptime', 'schedulingGoodput'] as const;
export type SloIndicator = (typeof SLO_INDICATORS)[number];

/** The number columns of each `slo` answer, in the frame's order (after its time field). */
export const SLO_ANSWER_COLUMNS = {
  sli: ['sli', 'objective'],
  errorBudget: ['allowedSeconds', 'consumedSeconds', 'remainingSeconds', 'remainingFraction', 'burnRate', 'timeToExhaustionSeconds'],
  burnRate: ['burnRate'],
  budgetConsumed: ['budgetConsumed'],
  alert: ['alert'],
} as const satisfies Record<SloAnswer, readonly string[]>;
export type SloColumn = (typeof SLO_ANSWER_COLUMNS)[SloAnswer][number];
/** Every answer's columns, once each, in the answers' order: the names an `slo` query's `columns` may hold. */
export const SLO_COLUMNS = [...new Set(SLO_ANSWERS.flatMap((a) => SLO_ANSWER_COLUMNS[a]))] as SloColumn[];

/**
 * The states a usage metric's mean is split by in a summary (usage/by-state.ts): `notUp` is
 * provisioning and down together, the time `downSeconds` counts.
 */
export const USAGE_SPLITS = ['up', 'notUp', 'provisioning', 'down', 'suspended'] as const;
export type UsageSplit = (typeof USAGE_SPLITS)[number];

/** A summary's column of a usage metric's mean in a state: `cpuCoresWhileUp`, `memoryBytesWhileNotUp`. */
export function usageColumn(metric: UsageMetric, split: UsageSplit): string {
  return `${metric}While${split[0]!.toUpperCase()}${split.slice(1)}`;
}

/** A usage metric's summary columns, in USAGE_SPLITS' order. */
export function usageColumns(metric: UsageMetric): string[] {
  return USAGE_SPLITS.map((split) => usageColumn(metric, split));
}

/**
 * The columns a table query's `sort.by` may name: the number columns of its rows. A summary's figure
 * columns (the asked `figures`, or every figure) and, grouped, `jobsets`; an slo answer's columns
 * (at its last point, `to`). Empty for the other query types, which take no sort.
 */
export function sortColumns(query: Pick<Required<UpnessQuery>, 'queryType' | 'groupBy' | 'figures' | 'sloAnswer'> & Pick<UpnessQuery, 'usageByState'>): readonly string[] {
  if (query.queryType === 'summary') {
    const figures = query.figures.length === 0 ? FIGURES : FIGURES.filter((f) => query.figures.includes(f));
    const usage = (query.usageByState ?? []).flatMap((m) => usageColumns(m));
    return query.groupBy === 'none' ? [...figures, ...usage] : ['jobsets', ...figures, ...usage];
  }
  if (query.queryType === 'slo') return SLO_ANSWER_COLUMNS[query.sloAnswer];
  return [];
}

/**
 * The columns the service sorts a table query's rows by: any figure of a summary, whether its
 * `figures` return it or not (and its usage columns, and `jobsets` grouped); any column of an slo
 * answer, whether its `columns` return it or not. A panel may show one figure and order by another.
 */
export function sortableColumns(query: Pick<Required<UpnessQuery>, 'queryType' | 'groupBy' | 'sloAnswer'> & Pick<UpnessQuery, 'usageByState'>): readonly string[] {
  if (query.queryType === 'summary') return sortColumns({ ...query, figures: [] });
  if (query.queryType === 'slo') return SLO_ANSWER_COLUMNS[query.sloAnswer];
  return [];
}

export const DEFAULT_QUERY: Required<Omit<UpnessQuery, 'refId' | OptionalQueryField>> = {
  queryType: 'series',
  metric: 'uptimeRatio',
  layer: 'jobset',
  clusters: [],
  namespaces: [],
  name: '',
  labelSelector: '',
  states: [],
  groupBy: 'none',
  sizeBuckets: [...DEFAULT_SIZE_BUCKETS],
  aggregate: 'mean',
  window: 'range',
  rolling: '24h',
  figures: [],
  usageByState: [],
  // `slo`
  objective: 0.95,
  period: '28d',
  sloAnswer: 'sli',
  indicator: 'uptime',
  burnWindow: '1h',
  shortWindow: '5m',
  burnFactor: 0,
  budgetThreshold: 0.02,
};

/** Units Grafana knows, per metric: a figure's own (figure-definitions.ts), a usage metric's (usage/metrics.ts); the state is a plain number. */
export function unitOf(metric: Metric): string {
  if (metric === 'up') return 'none';
  return isUsageMetric(metric) ? USAGE_DEFINITIONS[metric].unit : FIGURE_DEFINITIONS[metric].unit;
}

const DURATION = /^(\d+(?:ms|s|m|h|d|w))+$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `1h30m` → 5,400,000 ms; null when it is not a duration. */
export function parseDuration(text: string): number | null {
  if (!DURATION.test(text)) return null;
  let ms = 0;
  for (const [, n, unit] of text.matchAll(/(\d+)(ms|s|m|h|d|w)/g)) ms += Number(n) * UNIT_MS[unit!]!;
  return ms > 0 && Number.isSafeInteger(ms) ? ms : null;
}

