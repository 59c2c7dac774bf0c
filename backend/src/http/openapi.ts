// The OpenAPI description of the API. The query body's schema is generated from the zod schemas the
// server validates with, so the two cannot drift; a test checks the routes and their answers.

import { z } from 'zod';
import { querySchema } from '../query/model.ts';

const error = { type: 'object', properties: { error: { type: 'string' } }, required: ['error'] };
const json = (schema: object, description: string) => ({ description, content: { 'application/json': { schema } } });
const timeParam = (name: 'from' | 'to', description: string) => ({
  name,
  in: 'query',
  required: false,
  description: `${description}: epoch ms, RFC 3339, or now-<duration>`,
  schema: { type: 'string' },
});
const layerParam = {
  name: 'layer',
  in: 'query',
  required: false,
  description: '`jobset` (default), or `nodes`: the node layer (its nodes present and Ready), for a Kubernetes source',
  schema: { type: 'string', enum: ['jobset', 'nodes'] },
};
const filterParams = [
  { name: 'cluster', in: 'query', required: false, description: 'only these clusters (repeatable)', schema: { type: 'array', items: { type: 'string' } }, explode: true },
  { name: 'namespace', in: 'query', required: false, description: 'only these namespaces (repeatable)', schema: { type: 'array', items: { type: 'string' } }, explode: true },
  { name: 'name', in: 'query', required: false, description: 'JobSet name: a glob, or /regex/', schema: { type: 'string' } },
  { name: 'labelSelector', in: 'query', required: false, description: 'a Kubernetes label selector', schema: { type: 'string' } },
  { name: 'state', in: 'query', required: false, description: 'only JobSets in these states at `to` (repeatable)', schema: { type: 'array', items: { type: 'string' } }, explode: true },
  layerParam,
];
const frame = { type: 'object', description: "Grafana data-frame JSON ({schema, data})", properties: { schema: { type: 'object' }, data: { type: 'object' } } };

export const VALUE_KINDS = ['clusters', 'namespaces', 'jobsets', 'labelKeys', 'labelValues', 'accelerators', 'topologies'] as const;

export function openApiDocument(): object {
  const query = z.toJSONSchema(querySchema, { target: 'openapi-3.0', unrepresentable: 'any' });
  return {
    openapi: '3.0.3',
    info: { title: 'Upness', version: '1', description: 'Exact up/down timelines and figures for Kubernetes JobSets.' },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: {
        Query: query,
        QueryRequest: {
          type: 'object',
          required: ['queries'],
          properties: {
            from: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
            to: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
            queries: { type: 'array', minItems: 1, maxItems: 100, items: { $ref: '#/components/schemas/Query' } },
          },
        },
        Error: error,
      },
    },
    security: [{ bearer: [] }],
    paths: {
      '/api/v1/query': {
        post: {
          summary: "Run queries (the body Grafana sends to /api/ds/query); answers with data frames per refId",
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/QueryRequest' } } } },
          responses: {
            200: json(
              {
                type: 'object',
                properties: {
                  results: {
                    type: 'object',
                    additionalProperties: {
                      type: 'object',
                      properties: { status: { type: 'integer' }, frames: { type: 'array', items: frame }, error: { type: 'string' } },
                    },
                  },
                },
              },
              'at least one query answered; each result has its own status',
            ),
            400: json(error, 'the body is malformed, or every query was'),
            401: json(error, 'missing or wrong bearer token'),
            413: json(error, 'the body is larger than 1 MB'),
          },
        },
      },
      '/api/v1/jobsets': {
        get: {
          summary: 'Every figure for every JobSet over a window (default: the last 24 h)',
          parameters: [timeParam('from', 'window start'), timeParam('to', 'window end'), ...filterParams],
          responses: { 200: json({ type: 'object' }, '{from, to, jobsets: [...]}'), 400: json(error, 'a parameter is malformed'), 401: json(error, 'missing or wrong bearer token') },
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
            400: json(error, 'a parameter is malformed'),
            401: json(error, 'missing or wrong bearer token'),
            404: json(error, 'no JobSet bore that name'),
          },
        },
      },
      '/api/v1/values/{what}': {
        get: {
          summary: 'Values for editors and template variables',
          parameters: [
            { name: 'what', in: 'path', required: true, schema: { type: 'string', enum: [...VALUE_KINDS] } },
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
            400: json(error, 'a parameter is malformed or missing (from, to, key), or `to` is before `from`'),
            401: json(error, 'missing or wrong bearer token'),
            404: json(error, 'unknown kind of value'),
          },
        },
      },
      '/api/v1/openapi.json': { get: { summary: 'This document', security: [], responses: { 200: json({ type: 'object' }, 'OpenAPI 3.0') } } },
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
