// The schemas that check what arrives over HTTP, built from the shared query model.

import { z } from 'zod';
import { LEAST_PERIOD } from './slo.ts';
import { LIMITS } from './step.ts';
import { MAX_TIME_MS } from './time.ts';
import { AGGREGATES, CAUSE_GROUP, DEFAULT_QUERY, FIGURE_DEFINITIONS, FIGURES, GROUP_DIMENSIONS, LAYERS, METRICS, parseDuration, QUERY_TYPES, SLO_ANSWERS, STATES, WINDOWS } from './types.ts';

const MAX_DAYS = LIMITS.maxDurationMs / 86_400_000;

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

const groupBySchema = z.union([z.enum(GROUP_DIMENSIONS), z.literal(CAUSE_GROUP), z.string().regex(/^label:.+$/, 'must be none, all, cluster, namespace, accelerator, topology, queue or label:<key>')], {
  error: 'must be none, all, cluster, namespace, accelerator, topology, queue or label:<key>',
});

/** What each figure is (its definition's unit and description), for the OpenAPI document's enums. */
const FIGURE_DESCRIPTIONS = Object.fromEntries(FIGURES.map((f) => [f, `${FIGURE_DEFINITIONS[f].description} (unit: ${FIGURE_DEFINITIONS[f].unit})`]));
/** A figure by name; `x-enumDescriptions` says what each is (as Redocly and other OpenAPI tools read it). */
const figureName = z.enum(FIGURES).meta({ 'x-enumDescriptions': FIGURE_DESCRIPTIONS });
/** A figure, or `up`: the state itself. */
const metricName = z.enum(METRICS).meta({ 'x-enumDescriptions': { ...FIGURE_DESCRIPTIONS, up: 'the state: 1 up, 0 provisioning or down, null otherwise (unit: none)' } });

/** A duration field of an `slo` query; `what` says what it is and its bounds (checked in query/slo.ts). */
function sloDuration(what: string): z.ZodString {
  return z
    .string()
    .max(100)
    .refine((s) => parseDuration(s) !== null, 'must be a duration such as 1h, 7d or 28d')
    .describe(`${what}; units ms, s, m, h, d, w`);
}

/** One query as it arrives; unknown fields (Grafana's datasource, hide, key, …) are ignored. */
export const querySchema = z.looseObject(
  {
  refId: z.string().min(1, 'must not be empty').max(64).describe('names the query in the answer (unique in a request)'),
  queryType: z.enum(QUERY_TYPES).default(DEFAULT_QUERY.queryType).describe('what the query answers: series, summary, states, events, fleet or slo'),
  metric: metricName.default(DEFAULT_QUERY.metric).describe('the figure of a series or fleet query'),
  layer: z.enum(LAYERS).default(DEFAULT_QUERY.layer).describe('jobset, or nodes: the node layer (its nodes present and Ready), for a Kubernetes source'),
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
    .describe('none (per JobSet; for slo per JobSet name), all, cluster, namespace, accelerator, topology, queue, label:<key> (JobSets without the label: the group ""), or cause (events only)'),
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
  figures: z.array(figureName).max(FIGURES.length).default(DEFAULT_QUERY.figures as (typeof FIGURES)[number][]).describe('summary: only these figure columns (empty: every figure)'),
  // `slo` (issue 13): the period and windows against each other and the retention are checked in query/slo.ts.
  objective: z
    .number({ error: 'must be a number strictly between 0 and 1, such as 0.95' })
    .gt(0, 'must be strictly between 0 and 1, such as 0.95')
    .lt(1, 'must be strictly between 0 and 1, such as 0.95')
    .default(DEFAULT_QUERY.objective)
    .describe("slo: the objective, strictly between 0 and 1; grouped by name, a JobSet's upness.dev/objective label overrides it"),
  period: sloDuration(`slo: the compliance period, a duration from ${LEAST_PERIOD} up to the service's --retention (at most ${MAX_DAYS} days)`).default(DEFAULT_QUERY.period),
  sloAnswer: z.enum(SLO_ANSWERS).default(DEFAULT_QUERY.sloAnswer).describe('slo: which answer'),
  burnWindow: sloDuration('slo: the burn window (burn rate, budget consumed lately), at most the period').default(DEFAULT_QUERY.burnWindow),
  shortWindow: sloDuration('slo: the short window of an alert (still burning), at most the burn window').default(DEFAULT_QUERY.shortWindow),
  burnFactor: z
    .number()
    .min(0, 'must be 0 (none) or a positive burn-rate factor')
    .max(1e6)
    .default(DEFAULT_QUERY.burnFactor)
    .describe('slo: a burn-rate factor meant for an alert (0: none); one the objective cannot reach gets a notice'),
  budgetThreshold: z
    .number()
    .gt(0, 'must be a fraction of the budget above 0')
    .max(1, 'must be a fraction of the budget, at most 1')
    .default(DEFAULT_QUERY.budgetThreshold)
    .describe("slo alert: the share of the period's budget consumed in the burn window that fires"),
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
  },
  { error: objectError },
);

export type ParsedQuery = z.infer<typeof querySchema>;

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
