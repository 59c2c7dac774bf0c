// The schemas that check what arrives over HTTP, built from the shared query model.

import { z } from 'zod';
import { AGGREGATES, FIGURES, GROUP_DIMENSIONS, LAYERS, METRICS, parseDuration, QUERY_TYPES, STATES, WINDOWS } from './types.ts';

const groupBySchema = z.union([z.enum(GROUP_DIMENSIONS), z.string().regex(/^label:.+$/, 'must be none, all, cluster, namespace, accelerator, topology or label:<key>')], {
  error: 'must be none, all, cluster, namespace, accelerator, topology or label:<key>',
});

/** One query as it arrives; unknown fields (Grafana's datasource, hide, key, …) are ignored. */
export const querySchema = z.looseObject({
  refId: z.string().min(1, 'must not be empty').max(64),
  queryType: z.enum(QUERY_TYPES).optional(),
  metric: z.enum(METRICS).optional(),
  layer: z.enum(LAYERS).optional(),
  clusters: z.array(z.string().max(253)).max(1000).optional(),
  namespaces: z.array(z.string().max(253)).max(1000).optional(),
  name: z.string().max(1000).optional(),
  labelSelector: z.string().max(4000).optional(),
  states: z.array(z.enum(STATES)).optional(),
  groupBy: groupBySchema.optional(),
  aggregate: z.enum(AGGREGATES).optional(),
  window: z.enum(WINDOWS).optional(),
  rolling: z
    .string()
    .refine((s) => parseDuration(s) !== null, 'must be a duration such as 30m, 24h or 7d')
    .optional(),
  figures: z.array(z.enum(FIGURES)).max(FIGURES.length).optional(),
  intervalMs: z.number().positive().optional(),
  maxDataPoints: z.number().int().positive().optional(),
  /** A per-query range, overriding the request's (the Go plugin backend sends one per query). */
  timeRange: z.object({ from: z.union([z.string(), z.number()]), to: z.union([z.string(), z.number()]) }).optional(),
});

export type ParsedQuery = z.infer<typeof querySchema>;

/** The body of POST /api/v1/query: what Grafana sends to /api/ds/query. */
export const queryRequestSchema = z.looseObject({
  from: z.union([z.string(), z.number()]).optional(),
  to: z.union([z.string(), z.number()]).optional(),
  // Queries are checked one by one, so one bad query does not fail the others.
  queries: z.array(z.unknown()).min(1, 'must hold at least one query').max(100, 'must hold at most 100 queries'),
});
