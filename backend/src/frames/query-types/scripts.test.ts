// Each query type's script (testdata/<type>/script.txt, in test/support/query-script.ts's form):
// its queries run through the request runner as the API runs them, are checked against the
// expectations worked out by hand in the script, and their answers against the golden frames beside
// it (testdata/<type>/<query>.json), byte for byte. After a deliberate change to the frames,
// `UPDATE_GOLDENS=1 npx jest --selectProjects unit -- backend/src/frames/query-types` rewrites the
// goldens; review the diff.

import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseScript, type Expectation, type ScriptQuery } from '../../../../test/support/query-script.ts';
import { QUERY_TYPES } from '../../query/types.ts';
import type { FrameJSON } from '../frame.ts';
import { runQueries } from '../run-request.ts';

const TESTDATA = join(__dirname, 'testdata');
const UPDATE = process.env.UPDATE_GOLDENS === '1';

function answer(q: ScriptQuery): ReturnType<typeof runQueries> {
  return runQueries({ from: String(q.from), to: String(q.to), queries: [{ refId: 'A', ...q.query }] }, { timelines: q.timelines, horizon: q.horizon, retentionMs: 400 * 86_400_000 }, q.horizon);
}

/** A fraction, to 12 significant digits: 0.05 × 43,200 s is 2160.000000000002. */
function closeTo(v: number): unknown {
  return expect.closeTo(v, Math.max(0, 12 - Math.ceil(Math.log10(Math.abs(v) || 1))));
}

function check(e: Expectation, result: { status: number; frames?: FrameJSON[]; error?: string }): void {
  const where = `script line ${e.line}`;
  if (e.kind === 'error') {
    expect({ where, status: result.status, error: result.error }).toEqual({ where, status: e.status, error: e.message });
    return;
  }
  expect({ where, status: result.status, error: result.error }).toEqual({ where, status: 200, error: undefined });
  const frames = result.frames!;
  if (e.kind === 'frames') {
    expect({ where, frames: frames.length }).toEqual({ where, frames: e.count });
    return;
  }
  const frame = frames.find((f) => f.schema.name === e.frame);
  expect({ where, frame: frame?.schema.name }).toEqual({ where, frame: e.frame });
  const i = frame!.schema.fields.findIndex((f) => f.name === e.field);
  expect({ where, field: i >= 0 ? e.field : undefined }).toEqual({ where, field: e.field });
  const expected = e.values.map((v) => (typeof v === 'object' && v !== null && 'fraction' in v ? closeTo(v.fraction as number) : v));
  expect({ where, values: frame!.data.values[i] }).toEqual({ where, values: expected });
}

describe.each(QUERY_TYPES.map((t) => [t]))('the %s script', (type) => {
  const dir = join(TESTDATA, type);
  const queries = parseScript(readFileSync(join(dir, 'script.txt'), 'utf8'));

  it('has queries, each with an expectation worked out by hand, each a query of its type', () => {
    expect(queries.length).toBeGreaterThanOrEqual(3);
    for (const q of queries) {
      expect({ query: q.name, expectations: q.expectations.length > 0, type: q.query.queryType }).toEqual({ query: q.name, expectations: true, type });
    }
  });

  it('has a golden for every query and none without one', () => {
    const goldens = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
    expect(goldens).toEqual(queries.map((q) => `${q.name}.json`).sort());
  });

  it.each(queries.map((q) => [q.name, q] as const))('%s: answers what the script expects', (_name, q) => {
    const { results } = answer(q);
    for (const e of q.expectations) check(e, results.A!);
  });

  it.each(queries.map((q) => [q.name, q] as const))('%s: answers its golden, byte for byte', (_name, q) => {
    const text = `${JSON.stringify(answer(q), null, 2)}\n`;
    const golden = join(dir, `${q.name}.json`);
    if (UPDATE) writeFileSync(golden, text);
    expect(text).toBe(readFileSync(golden, 'utf8'));
  });
});
