/* eslint-disable @typescript-eslint/no-explicit-any -- the document is JSON read from the API */
// The OpenAPI document the service serves: valid OpenAPI 3.0 (checked by a validator, not by us),
// its request schemas exactly what zod derives from the schemas the server validates with, every
// query field described with its default, and every limit it describes the one validation applies.

import SwaggerParser from '@apidevtools/swagger-parser';
import { z } from 'zod';
import { min, Scenario } from '../../../test/support/scenario.ts';
import { startService, type TestService } from '../../../test/support/service.ts';
import { querySchema } from '../frames/query-types/index.ts';
import { queryRequestSchema } from '../query/model.ts';
import { DEFAULT_QUERY, parseDuration } from '../query/types.ts';

const JOBSET = new Scenario({ uid: 'u-a', name: 'a', namespace: 'ns' }, min(0)).created().up(min(10));
let service: TestService;
let doc: any;

beforeAll(async () => {
  service = await startService(JOBSET.observations);
  const res = await service.get('/api/v1/openapi.json');
  expect(res.status).toBe(200);
  doc = res.body;
});
afterAll(() => service.close());

const OPTIONS = { target: 'openapi-3.0', unrepresentable: 'any', io: 'input' } as const;

it('is valid OpenAPI 3.0', async () => {
  expect(doc.openapi).toMatch(/^3\.0\.\d+$/);
  await expect(SwaggerParser.validate(structuredClone(doc))).resolves.toBeDefined();
});

it('has the request schemas zod derives from the schemas the server validates with', () => {
  expect(doc.components.schemas.Query).toEqual(JSON.parse(JSON.stringify(z.toJSONSchema(querySchema, OPTIONS))));
  // A request's queries are `unknown` to zod (each is checked on its own): in the document, Query.
  const request = JSON.parse(JSON.stringify(z.toJSONSchema(queryRequestSchema, OPTIONS)));
  request.properties.queries.items = { $ref: '#/components/schemas/Query' };
  expect(doc.components.schemas.QueryRequest).toEqual(request);
  expect(doc.paths['/api/v1/query'].post.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/QueryRequest' });
});

it('describes every query field, and gives each defaulted one its default', () => {
  const { properties, required } = doc.components.schemas.Query;
  expect(required).toEqual(['refId']);
  for (const [name, schema] of Object.entries<any>(properties)) expect([name, typeof schema.description]).toEqual([name, 'string']);
  for (const [name, value] of Object.entries(DEFAULT_QUERY)) expect([name, properties[name].default]).toEqual([name, value]);
});

/** One query through the real API: its status. */
async function status(query: Record<string, unknown>): Promise<number> {
  const res = await service.post('/api/v1/query', { from: String(min(0)), to: String(min(120)), queries: [{ refId: 'A', ...query }] });
  return res.body.results.A.status;
}

it('describes the least slo period that validation takes, and it refuses a shorter one', async () => {
  const { description } = doc.components.schemas.Query.properties.period;
  const least = /from (\S+) up to/.exec(description)?.[1];
  expect(least).toBeDefined();
  const leastMs = parseDuration(least!)!;
  expect(await status({ queryType: 'slo', period: least, burnWindow: least, shortWindow: least })).toBe(200);
  const shorter = `${leastMs - 1}ms`;
  expect(await status({ queryType: 'slo', period: shorter, burnWindow: '1ms', shortWindow: '1ms' })).toBe(400);
  // Every duration the document gives as an example of a period is one it takes.
  for (const example of description.match(/\b\d+[a-z]+\b/g) ?? []) {
    if (parseDuration(example) !== null && parseDuration(example)! <= 400 * 86_400_000) expect([example, parseDuration(example)! >= leastMs]).toEqual([example, true]);
  }
});

it('describes numeric limits that validation applies exactly', async () => {
  const { properties } = doc.components.schemas.Query;
  const numeric = Object.entries<any>(properties).filter(([, s]) => s.type === 'number' || s.type === 'integer');
  expect(numeric.map(([name]) => name)).toEqual(expect.arrayContaining(['objective', 'burnFactor', 'budgetThreshold', 'intervalMs']));
  for (const [name, schema] of numeric) {
    const base = name === 'intervalMs' || name === 'maxDataPoints' ? {} : { queryType: 'slo' };
    if (schema.minimum !== undefined) {
      expect([name, 'at the minimum', await status({ ...base, [name]: schema.minimum })]).toEqual([name, 'at the minimum', schema.exclusiveMinimum ? 400 : 200]);
      expect([name, 'below it', querySchema.safeParse({ refId: 'A', [name]: schema.minimum - 1e-9 }).success]).toEqual([name, 'below it', false]);
    }
    if (schema.maximum !== undefined) {
      // Within the limits of a field, not of others (a burn factor is checked only against the objective).
      const ok = querySchema.safeParse({ refId: 'A', [name]: schema.maximum }).success;
      expect([name, 'at the maximum', ok]).toEqual([name, 'at the maximum', !schema.exclusiveMaximum]);
      expect([name, 'above it', querySchema.safeParse({ refId: 'A', [name]: schema.maximum * (1 + 1e-9) + 1e-9 }).success]).toEqual([name, 'above it', false]);
    }
  }
});

it("describes a table query's sort and limit (issue 21 §2), and the answer's meta they bring", async () => {
  const { sort, limit } = doc.components.schemas.Query.properties;
  expect(sort).toMatchObject({ type: 'object', required: ['by'], properties: { by: { type: 'string' }, direction: { enum: ['desc', 'asc'], default: 'desc' } } });
  expect(sort.description).toMatch(/nulls last/);
  expect(limit).toMatchObject({ type: 'integer', minimum: 1 });
  expect(limit.description).toMatch(/meta\.custom/);
  const res = await service.post('/api/v1/query', { from: String(min(0)), to: String(min(120)), queries: [{ refId: 'A', queryType: 'summary', sort: { by: 'upSeconds' }, limit: 1 }] });
  const frame = res.body.results.A.frames[0];
  // One JobSet (provisioning from 0 to 10 min, up at 10, the last thing observed): its totals are its row.
  const row = Object.fromEntries(frame.schema.fields.map((f: any, i: number) => [f.name, frame.data.values[i][0]]).filter(([name]: [string]) => !['namespace', 'name', 'uid', 'state'].includes(name)));
  expect(frame.schema.meta.custom).toEqual({ rows: 1, shown: 1, totals: { jobsets: 1, ...row } });
  expect(row.downSeconds).toBe(600);
});
