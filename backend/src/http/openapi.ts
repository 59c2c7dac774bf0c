// The OpenAPI description of the API. The request body's schemas (Query, QueryRequest) are generated
// from the zod schemas the server validates with (descriptions, enums, defaults and limits in one
// place), so the two cannot drift; tests check the routes, their answers and the schemas.

import { z } from 'zod';
import { querySchema } from '../frames/query-types/index.ts';
import { queryRequestSchema, TIME_DESCRIPTION } from '../query/model.ts';
import { LIMITS } from '../query/step.ts';
import { ARROW_ANSWER_TYPE, FRAME_ENCODINGS } from './query.ts';
import { VALUE_KINDS } from './values.ts';

const n = (x: number): string => x.toLocaleString('en-US');
const DAYS = LIMITS.maxRangeMs / 86_400_000;
/** The limits of a request, each checked before any work: a 400 naming the field, what is too large and the limit. */
const LIMITS_TEXT =
  `Limits, each checked before any work and refused with a 400 that names the field, what is too large and the limit: ` +
  `100 queries per request; a range of at most ${DAYS} days (a rolling window and intervalMs too); times within ±8.64e15 ms of 1970; ` +
  `${n(LIMITS.maxSeriesPerQuery)} series per query; ${n(LIMITS.maxPointsPerSeries)} points per series (maxDataPoints is held to it); ` +
  `${n(LIMITS.maxValuesPerQuery)} values worked out per query and ${n(LIMITS.maxValuesPerRequest)} per request ` +
  `(a series query's points × its series, or × the JobSets it evaluates one by one; other query types one per JobSet or group); a 1 MB body.`;

const error = { type: 'object', properties: { error: { type: 'string' } }, required: ['error'] };
const json = (schema: object, description: string) => ({ description, content: { 'application/json': { schema } } });
/** A query answer: JSON, or with ?frames=arrow the binary answer the `frames` parameter describes. */
const jsonOrArrow = (schema: object, description: string) => ({
  description,
  content: { 'application/json': { schema }, [ARROW_ANSWER_TYPE]: { schema: { type: 'string', format: 'binary' } } },
});
const timeParam = (name: 'from' | 'to', description: string) => ({
  name,
  in: 'query',
  required: false,
  description: `${description}: ${TIME_DESCRIPTION}`,
  schema: { type: 'string' },
});
const layerParam = {
  name: 'layer',
  in: 'query',
  required: false,
  description: '`jobset` (default), `nodes`: the node layer (its nodes present and Ready), or `nodepools`: one timeline per node pool (named by its pool), for a Kubernetes source',
  schema: { type: 'string', enum: ['jobset', 'nodes', 'nodepools'] },
};
const filterParams = [
  { name: 'cluster', in: 'query', required: false, description: 'only these clusters (repeatable)', schema: { type: 'array', items: { type: 'string' } }, explode: true },
  { name: 'namespace', in: 'query', required: false, description: 'only these namespaces (repeatable)', schema: { type: 'array', items: { type: 'string' } }, explode: true },
  { name: 'name', in: 'query', required: false, description: 'JobSet name: a glob, or /regex/ (run in linear time: no backreferences, lookahead or i/u/v/d flags)', schema: { type: 'string' } },
  { name: 'labelSelector', in: 'query', required: false, description: 'a Kubernetes label selector', schema: { type: 'string' } },
  { name: 'state', in: 'query', required: false, description: 'only JobSets in these states at `to` (repeatable)', schema: { type: 'array', items: { type: 'string' } }, explode: true },
  layerParam,
];
const frame = { type: 'object', description: "Grafana data-frame JSON ({schema, data})", properties: { schema: { type: 'object' }, data: { type: 'object' } } };

/**
 * The request schemas as OpenAPI 3.0 components, from the zod schemas: what the server accepts (the
 * input side, so defaulted fields are optional; unknown fields are ignored, not refused). A request's
 * queries are checked one by one (one bad query does not fail the others), so its items are `unknown`
 * to zod: here they are the Query schema.
 */
export function requestSchemas(): { Query: object; QueryRequest: object } {
  const options = { target: 'openapi-3.0', unrepresentable: 'any', io: 'input' } as const;
  const item = queryRequestSchema.shape.queries.element;
  return {
    Query: z.toJSONSchema(querySchema, options),
    QueryRequest: z.toJSONSchema(queryRequestSchema, {
      ...options,
      override: (ctx) => {
        if (ctx.zodSchema === item) ctx.jsonSchema.$ref = '#/components/schemas/Query';
      },
    }),
  };
}

export function openApiDocument(): object {
  return {
    openapi: '3.0.3',
    info: {
      title: 'Upness',
      version: '1',
      description: `Exact up/down timelines and figures for Kubernetes JobSets. This document is served without the bearer token (it holds no data); everything else under /api/v1, and /metrics, needs it when one is set. ${LIMITS_TEXT}`,
    },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: {
        ...requestSchemas(),
        Error: error,
      },
    },
    security: [{ bearer: [] }],
    paths: {
      '/api/v1/query': {
        post: {
          summary: "Run queries (the body Grafana sends to /api/ds/query); answers with data frames per refId",
          parameters: [
            {
              name: 'frames',
              in: 'query',
              required: false,
              description:
                `how the answer carries its frames: json (default) as each result's \`frames\`, the data-frame JSON; arrow as Apache Arrow IPC files in the layout the Grafana Go SDK reads with data.UnmarshalArrowFrames (what the plugin backend asks for), in a binary answer of type ${ARROW_ANSWER_TYPE}: a 4-byte big-endian length H, H bytes of JSON head {"results": {refId: {status, error?, arrowFrames: [[offset, length], ...]}}}, then the files at those offsets (from the end of the head, 8-byte aligned). A result whose times Arrow cannot carry (after 2262) has \`frames\` in the head instead`,
              schema: { type: 'string', enum: [...FRAME_ENCODINGS], default: 'json' },
            },
          ],
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/QueryRequest' } } } },
          responses: {
            200: jsonOrArrow(
              {
                type: 'object',
                properties: {
                  results: {
                    type: 'object',
                    additionalProperties: {
                      type: 'object',
                      properties: {
                        status: { type: 'integer' },
                        frames: { type: 'array', items: frame },
                        error: { type: 'string' },
                      },
                    },
                  },
                },
              },
              'at least one query answered; each result has its own status',
            ),
            400: json(
              error,
              `the frames parameter is neither json nor arrow, the body is malformed (not JSON, not a JSON object, no queries), or every query was: a field out of its range, a time beyond what a date holds, or a limit exceeded (each result's error names the field). ${LIMITS_TEXT}`,
            ),
            401: json(error, 'missing or wrong bearer token'),
            413: json(error, 'the body is larger than 1 MB'),
          },
        },
      },
      '/api/v1/jobsets': {
        get: {
          summary: 'Every figure for every JobSet over a window (default: the last 24 h)',
          parameters: [timeParam('from', 'window start'), timeParam('to', 'window end'), ...filterParams],
          responses: {
            200: json({ type: 'object' }, '{from, to, jobsets: [...]}'),
            400: json(error, `a parameter is malformed, a time is beyond what a date holds, or the range is longer than ${DAYS} days (the error names the parameter)`),
            401: json(error, 'missing or wrong bearer token'),
          },
        },
      },
      '/api/v1/jobsets/{namespace}/{name}': {
        get: {
          summary: 'Every timeline (UID) that bore the name: intervals, events and figures',
          parameters: [
            { name: 'namespace', in: 'path', required: true, schema: { type: 'string' } },
            { name: 'name', in: 'path', required: true, schema: { type: 'string' } },
            timeParam('from', 'window start (default: creation)'),
            timeParam('to', 'window end (default: now)'),
            layerParam,
          ],
          responses: {
            200: json({ type: 'object' }, '{timelines: [...]}'),
            400: json(error, `a parameter or the path is malformed, a time is beyond what a date holds, or the range is longer than ${DAYS} days (the error names it)`),
            401: json(error, 'missing or wrong bearer token'),
            404: json(error, 'no JobSet bore that name'),
          },
        },
      },
      '/api/v1/nodepools/{name}': {
        get: {
          summary: 'Every timeline of a node pool (it ended and came back): intervals, events with the nodes that caused them, and figures',
          parameters: [
            { name: 'name', in: 'path', required: true, schema: { type: 'string' } },
            timeParam('from', 'window start (default: creation)'),
            timeParam('to', 'window end (default: now)'),
          ],
          responses: {
            200: json({ type: 'object' }, '{timelines: [...]}'),
            400: json(error, `a parameter is malformed, a time is beyond what a date holds, or the range is longer than ${DAYS} days (the error names it)`),
            401: json(error, 'missing or wrong bearer token'),
            404: json(error, 'no node pool of that name was seen, or the source has no node pools'),
          },
        },
      },
      '/api/v1/values/{what}': {
        get: {
          summary: 'Values for editors and template variables',
          parameters: [
            {
              name: 'what',
              in: 'path',
              required: true,
              description: 'what to list; `pools` lists the node pools (layer nodepools; `namespace` does not narrow them, and a source without Nodes has none)',
              schema: { type: 'string', enum: [...VALUE_KINDS] },
            },
            { name: 'namespace', in: 'query', required: false, schema: { type: 'array', items: { type: 'string' } }, explode: true },
            { name: 'key', in: 'query', required: false, description: 'the label key, for labelValues', schema: { type: 'string' } },
            {
              name: 'from',
              in: 'query',
              required: false,
              description: 'only JobSets that lived at some moment of [from, to]: not ended before `from` (epoch ms, RFC 3339 or now-<duration>; default: no bound)',
              schema: { type: 'string' },
            },
            { name: 'to', in: 'query', required: false, description: 'only JobSets created by `to` (default: no bound)', schema: { type: 'string' } },
          ],
          responses: {
            200: json({ type: 'object', properties: { values: { type: 'array', items: { type: 'string' } } } }, 'sorted, unique'),
            400: json(error, 'a parameter or the path is malformed (from, to, key), key is missing, or `to` is before `from` (the error names it)'),
            401: json(error, 'missing or wrong bearer token'),
            404: json(error, 'unknown kind of value'),
          },
        },
      },
      '/api/v1/openapi.json': { get: { summary: 'This document, served without the token (it holds no data)', security: [], responses: { 200: json({ type: 'object' }, 'OpenAPI 3.0') } } },
      '/healthz': { get: { summary: 'The process is alive', security: [], responses: { 200: json({ type: 'object' }, '{status: "ok"}') } } },
      '/readyz': {
        get: {
          summary: 'Synced and current',
          security: [],
          responses: { 200: json({ type: 'object' }, '{ready: true, source, jobsets, observations, horizon}'), 503: json({ type: 'object' }, '{ready: false, reason}') },
        },
      },
      '/metrics': {
        get: {
          summary: 'Prometheus metrics: the service and per-JobSet gauges (MegaMon names)',
          responses: { 200: { description: 'Prometheus text format', content: { 'text/plain': { schema: { type: 'string' } } } }, 401: json(error, 'missing or wrong bearer token') },
        },
      },
    },
  };
}
