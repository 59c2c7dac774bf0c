// The schemas that check what arrives over HTTP, built from the shared query model: the fields
// every query type reads and the request's; each query type's own fields are its module's
// (frames/query-types), which builds the query schema with querySchemaWith.

import { z } from 'zod';
import { LIMITS } from './step.ts';
import { MAX_TIME_MS } from './time.ts';
import { AGGREGATES, CAUSE_GROUP, DEFAULT_QUERY, FIGURE_DEFINITIONS, FIGURES, USAGE_DEFINITIONS, USAGE_METRICS, GROUP_DIMENSIONS, LAYERS, MAX_SIZE_BUCKETS, METRICS, parseDuration, QUERY_TYPES, sizeBucketsProblem, STATES, WINDOWS } from './types.ts';

export const MAX_DAYS = LIMITS.maxDurationMs / 86_400_000;

/** What a value is, in words, for "expected …, received …" (zod says "array" and "object" alike). */
function kind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'number') return 'a number';
  if (typeof value === 'boolean') return 'a boolean';
  return typeof value;
}

/** A JSON object, not an array, null or a scalar. */
const objectError = (issue: { code: string; input?: unknown }): string | undefined =>
  issue.code === 'invalid_type' ? `expected a JSON object, received ${kind(issue.input)}` : undefined;

/** A time: epoch ms (a number, or a string of digits), RFC 3339, or now-<duration>; checked by parseTimeParam. */
export const TIME_DESCRIPTION = `epoch ms (a number, or a string of digits), RFC 3339, or now-<duration>; within ±${MAX_TIME_MS} ms of 1970 (what a date can hold)`;
const time = z
  .union([z.string().max(100), z.number()], {
    error: (issue) => (issue.input === undefined ? 'missing' : 'must be epoch milliseconds (a number or a string of digits), an RFC 3339 time or now-<duration>'),
  })
  .describe(TIME_DESCRIPTION);

const GROUP_BY_CHOICES = 'must be none, all, cluster, namespace, accelerator, topology, queue, size or label:<key>';
const groupBySchema = z.union([z.enum(GROUP_DIMENSIONS), z.literal(CAUSE_GROUP), z.string().regex(/^label:.+$/, GROUP_BY_CHOICES)], { error: GROUP_BY_CHOICES });

/** Upper bounds of the job size buckets: checked whole (ascending), so the message names the bound at fault. */
const sizeBucketsSchema = z
  .array(z.number({ error: 'must hold numbers' }), { error: (issue) => `must be an array of upper bounds, received ${kind(issue.input)}` })
  .superRefine((bounds, ctx) => {
    const problem = sizeBucketsProblem(bounds);
    if (problem !== null) ctx.addIssue({ code: 'custom', message: problem, input: bounds });
  });

/** What each figure is (its definition's unit and description), for the OpenAPI document's enums. */
const FIGURE_DESCRIPTIONS = Object.fromEntries(FIGURES.map((f) => [f, `${FIGURE_DEFINITIONS[f].description} (unit: ${FIGURE_DEFINITIONS[f].unit})`]));
/** A figure by name; `x-enumDescriptions` says what each is (as Redocly and other OpenAPI tools read it). */
export const figureName = z
  .enum(FIGURES, { error: (issue) => `${typeof issue.input === 'string' ? `"${issue.input}" is not a figure` : 'must be the name of a figure'}: one of ${FIGURES.join(', ')}` })
  .meta({ 'x-enumDescriptions': FIGURE_DESCRIPTIONS });
/** What each usage metric is (series only; README "Resource usage"). */
const USAGE_DESCRIPTIONS = Object.fromEntries(USAGE_METRICS.map((m) => [m, `${USAGE_DEFINITIONS[m].description} (unit: ${USAGE_DEFINITIONS[m].unit})`]));
/** A usage metric by name. */
export const usageMetricName = z.enum(USAGE_METRICS).meta({ 'x-enumDescriptions': USAGE_DESCRIPTIONS });
const USAGE_AS_METRIC = Object.fromEntries(Object.entries(USAGE_DESCRIPTIONS).map(([m, d]) => [m, `resource usage (series only): ${d}`]));
/** A figure, `up`: the state itself, or a usage metric. */
const metricName = z.enum(METRICS).meta({ 'x-enumDescriptions': { ...FIGURE_DESCRIPTIONS, up: 'the state: 1 up, 0 provisioning or down, null otherwise (unit: none)', ...USAGE_AS_METRIC } });

/** The fields every query type reads (what it selects, how it groups and windows), in the order
 *  the OpenAPI document lists them and a query's first bad field is reported. */
export const SHARED_FIELDS = {
  refId: z.string().min(1, 'must not be empty').max(64).describe('names the query in the answer (unique in a request)'),
  queryType: z.enum(QUERY_TYPES).default(DEFAULT_QUERY.queryType).describe('what the query answers: series, summary, states, events, fleet or slo'),
  metric: metricName.default(DEFAULT_QUERY.metric).describe('the figure of a series or fleet query, or a resource usage metric (series only: per JobSet, or a group\'s JobSets summed)'),
  layer: z.enum(LAYERS).default(DEFAULT_QUERY.layer).describe('jobset, nodes: the node layer (its nodes present and Ready), or nodepools: one timeline per node pool (README "Node pools"), for a Kubernetes source'),
  clusters: z.array(z.string().max(253)).max(1000).default(DEFAULT_QUERY.clusters).describe('only these clusters (empty: all)'),
  namespaces: z.array(z.string().max(253)).max(1000).default(DEFAULT_QUERY.namespaces).describe('only these namespaces (empty: all)'),
  name: z
    .string()
    .max(1000)
    .default(DEFAULT_QUERY.name)
    .describe('a JobSet name, a glob (train-*), or a regular expression between slashes run in linear time (no backreferences, lookahead or i/u/v/d flags); empty: any'),
  labelSelector: z.string().max(4000).default(DEFAULT_QUERY.labelSelector).describe('a Kubernetes label selector (team=ml,tier in (a,b),!canary); empty: any'),
  states: z.array(z.enum(STATES)).default(DEFAULT_QUERY.states as (typeof STATES)[number][]).describe('only JobSets in one of these states at `to` (empty: any)'),
  groupBy: groupBySchema
    .default(DEFAULT_QUERY.groupBy)
    .describe(
      'none (per JobSet; for slo per JobSet name), all, cluster, namespace, accelerator, topology, queue, size (job size: accelerators, or pods without any, in the buckets of sizeBuckets), label:<key> (JobSets without the label: the group ""), or cause (events only)',
    ),
  sizeBuckets: sizeBucketsSchema
    .default(DEFAULT_QUERY.sizeBuckets)
    .describe(
      `groupBy size: the buckets' upper bounds, strictly ascending whole numbers from 1, at most ${MAX_SIZE_BUCKETS} ([1, 8, 64, 512]: the groups 1, 2-8, 9-64, 65-512 and >512; a JobSet of no known size: unknown)`,
    ),
  aggregate: z.enum(AGGREGATES).default(DEFAULT_QUERY.aggregate).describe("how a group's JobSets combine"),
  window: z
    .enum(WINDOWS)
    .default(DEFAULT_QUERY.window)
    .describe('range: one point at `to` over the whole range; step, rolling or cumulative: a point per step (for slo every one of them is a point per step, each over its own period)'),
  rolling: z
    .string()
    .max(100)
    .refine((s) => parseDuration(s) !== null, 'must be a duration such as 30m, 24h or 7d')
    .refine((s) => (parseDuration(s) ?? 0) <= LIMITS.maxDurationMs, `must be at most ${MAX_DAYS} days`)
    .default(DEFAULT_QUERY.rolling)
    .describe(`the rolling window: a duration such as 30m, 24h or 7d, at most ${MAX_DAYS} days`),
};

/** The fields of a query's points and range, after the query types' own fields. */
export const RANGE_FIELDS = {
  intervalMs: z
    .number()
    .positive()
    .max(LIMITS.maxDurationMs, `must be at most ${LIMITS.maxDurationMs} (${MAX_DAYS} days)`)
    .describe(`the step Grafana asks for, ms (at least ${LIMITS.minStepMs}; raised so the range holds at most maxDataPoints points)`)
    .optional(),
  /** An upper bound (Grafana alerting sends 43,200): held to the limit, not refused. */
  maxDataPoints: z
    .number()
    .int()
    .positive()
    .describe(`points per series at most (default ${LIMITS.defaultMaxDataPoints}); a larger one is held to ${LIMITS.maxPointsPerSeries}`)
    .optional(),
  /** A per-query range, overriding the request's (the Go plugin backend sends one per query). */
  timeRange: z
    .object({ from: time, to: time }, { error: objectError })
    .describe("this query's own range, overriding the request's from and to")
    .optional(),
};

/**
 * One query as it arrives: the shared fields, then each query type's own (frames/query-types:
 * `summary` its figures, `slo` its objective and windows), then the range's. Unknown fields
 * (Grafana's datasource, hide, key, …) are ignored.
 */
export function querySchemaWith<Own extends z.ZodRawShape>(own: Own) {
  return z.looseObject({ ...SHARED_FIELDS, ...own, ...RANGE_FIELDS }, { error: objectError });
}

/**
 * A problem with the request as a whole (not one query): the whole request is a 400. Here, beside
 * the request's schema, so that the HTTP edge's error handler (http/errors.ts) knows it without
 * loading the query engine (frames/run-request.ts, which throws it).
 */
export class RequestError extends Error {}

/**
 * The first issue as `path: message`, e.g. `queries[0].figures[1]: Invalid option: …`. `prefix` is
 * where the validated value sits (`queries[2]`); `whole` names it when the issue is about the value
 * itself (`body`, `query string`), so a message never starts with a bare colon.
 */
export function describeZodError(error: z.ZodError, prefix: string, whole = 'body'): string {
  const issue = error.issues[0]!;
  let path = prefix;
  for (const key of issue.path) {
    if (typeof key === 'number') path += `[${key}]`;
    else path += path === '' ? String(key) : `.${String(key)}`;
  }
  const message = issue.message.replace(/^Invalid input: /, '');
  return `${path === '' ? whole : path}: ${message.endsWith('received undefined') ? 'missing' : message}`;
}

/** The body of POST /api/v1/query: what Grafana sends to /api/ds/query. */
export const queryRequestSchema = z.looseObject(
  {
    from: time.optional().describe(`the range's start, unless a query has its own timeRange: ${TIME_DESCRIPTION}`),
    to: time.optional().describe(`the range's end, unless a query has its own timeRange: ${TIME_DESCRIPTION}`),
    // Queries are checked one by one, so one bad query does not fail the others.
    queries: z.array(z.unknown()).min(1, 'must hold at least one query').max(100, 'must hold at most 100 queries'),
  },
  { error: objectError },
);
