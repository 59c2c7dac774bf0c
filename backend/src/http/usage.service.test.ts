/* eslint-disable @typescript-eslint/no-explicit-any -- the bodies are the JSON answers of the API under test */
// Resource usage through the query API (issue 20 §4): `series` of a usage metric per JobSet and per
// group, and a `summary`'s means split by state, over real HTTP, on the JobSets and the usage drawn
// below, with hand-computed answers. The usage book is filled as the sampler fills it (a sum per
// JobSet per sampling); where it comes from is the sampler's and the simulator's own tests.

import { tableFromIPC } from 'apache-arrow';
import { merge, min, Scenario } from '../../../test/support/scenario.ts';
import { startService, type TestService } from '../../../test/support/service.ts';
import { UsageBook } from '../usage/book.ts';
import { USAGE_METRICS, type UsageMetric } from '../usage/jobset-usage.ts';
import { readArrowAnswer } from './query.ts';

//   ml/train (uid a), 2 pods:      0 ─prov─ 10 ─up─ 40 ─down─ 50 ─up─ 60 (now)
//     cpu:                          0.5        8        1         8      (a sampling every minute, 0..59)
//     memory:                       4 GiB throughout
//   ml/eval (uid b; its pods carry only the JobSet's name):  0 ─prov─ 20 ─up─ 60
//     cpu:                                                   none      2 (20..59)
//   other/solo (uid c): 0 ─prov─ 5 ─up─ 60, no usage at all
const GiB = 2 ** 30;
const train = new Scenario({ uid: 'a', name: 'train', namespace: 'ml' }, min(0)).created().up(min(10)).down(min(40), { restarts: 1 }).up(min(50)).at(min(60));
const evalRun = new Scenario({ uid: 'b', name: 'eval', namespace: 'ml' }, min(0)).created().up(min(20)).at(min(60));
const solo = new Scenario({ uid: 'c', name: 'solo', namespace: 'other' }, min(0)).created().up(min(5)).at(min(60));

function sampling(owner: string, name: string, minute: number, values: Partial<Record<UsageMetric, number>>) {
  return { owner, namespace: 'ml', name, at: min(minute), values: Object.fromEntries(USAGE_METRICS.map((m) => [m, values[m] ?? null])) as Record<UsageMetric, number | null> };
}

function drawnBook(): UsageBook {
  // Held a minute: each sampling covers the minute up to the next one.
  const book = new UsageBook({ holdMs: 60_000 });
  for (let m = 0; m < 60; m++) {
    const cpu = m < 10 ? 0.5 : m < 40 ? 8 : m < 50 ? 1 : 8;
    book.record([sampling('a', 'train', m, { cpuCores: cpu, memoryBytes: 4 * GiB, pods: 2 })]);
    if (m >= 20) book.record([sampling('name:ml/eval', 'eval', m, { cpuCores: 2 })]);
  }
  return book;
}

const FROM = min(0);
const TO = min(60);

let service: TestService;
let without: TestService;
beforeAll(async () => {
  const observations = merge(train, evalRun, solo);
  // A cluster's engine, as a cluster is served: it has a node layer, which usage refuses.
  service = await startService(observations, { nodes: true });
  service.view.setUsage(drawnBook());
  without = await startService(observations);
});
afterAll(async () => {
  await service.close();
  await without.close();
});

async function ask(q: Record<string, unknown>, on: TestService = service) {
  const res = await on.post('/api/v1/query', { from: FROM, to: TO, queries: [{ refId: 'A', ...q }] });
  return res.body.results.A as { status: number; error?: string; frames?: any[] };
}

async function frames(q: Record<string, unknown>, on: TestService = service): Promise<any[]> {
  const r = await ask(q, on);
  expect(r.error).toBeUndefined();
  expect(r.status).toBe(200);
  return r.frames!;
}

/** A series frame's values by time (minutes after T0). */
function byMinute(frame: any): Record<number, number | null> {
  const [times, values] = frame.data.values as [number[], (number | null)[]];
  return Object.fromEntries(times.map((t, i) => [(t - min(0)) / 60_000, values[i]!]));
}

function columns(frame: any): Record<string, unknown[]> {
  return Object.fromEntries(frame.schema.fields.map((f: any, i: number) => [f.name, frame.data.values[i]]));
}

describe('series of a usage metric', () => {
  it('per JobSet: each step the mean over its window (t − 10m, t]; null where there is no usage', async () => {
    const result = await frames({ queryType: 'series', metric: 'cpuCores', window: 'step', intervalMs: 600_000 });
    const byName = Object.fromEntries(result.map((f) => [f.schema.name, f]));
    expect(Object.keys(byName).sort()).toEqual(['ml/eval', 'ml/train', 'other/solo']);
    expect(byMinute(byName['ml/train'])).toEqual({ 0: null, 10: 0.5, 20: 8, 30: 8, 40: 8, 50: 1, 60: 8 });
    // eval's usage is found by its namespace/name (its pods carry no UID label).
    expect(byMinute(byName['ml/eval'])).toEqual({ 0: null, 10: null, 20: null, 30: 2, 40: 2, 50: 2, 60: 2 });
    expect(byMinute(byName['other/solo'])).toEqual({ 0: null, 10: null, 20: null, 30: null, 40: null, 50: null, 60: null });
    const field = byName['ml/train'].schema.fields[1];
    expect(field).toMatchObject({ name: 'cpuCores', labels: { namespace: 'ml', jobset: 'train', uid: 'a' }, config: { unit: 'none' } });
  });

  it('grouped by namespace, sum: the JobSets together; a group without usage is null', async () => {
    const result = await frames({ queryType: 'series', metric: 'cpuCores', window: 'step', intervalMs: 600_000, groupBy: 'namespace', aggregate: 'sum' });
    const byName = Object.fromEntries(result.map((f) => [f.schema.name, f]));
    expect(byMinute(byName.ml)).toEqual({ 0: null, 10: 0.5, 20: 8, 30: 10, 40: 10, 50: 3, 60: 10 });
    expect(byMinute(byName.other)).toEqual({ 0: null, 10: null, 20: null, 30: null, 40: null, 50: null, 60: null });
    // pooled (the group as one) is the sum too.
    const pooled = await frames({ queryType: 'series', metric: 'cpuCores', window: 'step', intervalMs: 600_000, groupBy: 'namespace', aggregate: 'pooled', namespaces: ['ml'] });
    expect(byMinute(pooled[0])).toEqual(byMinute(byName.ml));
  });

  it('grouped, mean and max: across the JobSets that have usage in the window', async () => {
    const mean = await frames({ queryType: 'series', metric: 'cpuCores', window: 'step', intervalMs: 600_000, groupBy: 'all', aggregate: 'mean' });
    expect(byMinute(mean[0])).toEqual({ 0: null, 10: 0.5, 20: 8, 30: 5, 40: 5, 50: 1.5, 60: 5 });
    const max = await frames({ queryType: 'series', metric: 'cpuCores', window: 'step', intervalMs: 600_000, groupBy: 'all', aggregate: 'max' });
    expect(byMinute(max[0])).toEqual({ 0: null, 10: 0.5, 20: 8, 30: 8, 40: 8, 50: 2, 60: 8 });
  });

  it('window range: one point, the mean over the whole range; rolling and cumulative windows', async () => {
    const [range] = await frames({ queryType: 'series', metric: 'cpuCores', window: 'range', name: 'train' });
    // (10 × 0.5 + 30 × 8 + 10 × 1 + 10 × 8) ÷ 60
    expect(byMinute(range)).toEqual({ 60: (5 + 240 + 10 + 80) / 60 });
    const [rolling] = await frames({ queryType: 'series', metric: 'cpuCores', window: 'rolling', rolling: '20m', intervalMs: 600_000, name: 'train' });
    expect(byMinute(rolling)).toMatchObject({ 20: (0.5 + 8) / 2, 50: (8 + 1) / 2, 60: (1 + 8) / 2 });
    const [cumulative] = await frames({ queryType: 'series', metric: 'cpuCores', window: 'cumulative', intervalMs: 600_000, name: 'train' });
    expect(byMinute(cumulative)).toMatchObject({ 10: 0.5, 20: (0.5 + 8) / 2, 50: (5 + 240 + 10) / 50 });
  });

  it('memory in bytes, with its unit', async () => {
    const [frame] = await frames({ queryType: 'series', metric: 'memoryBytes', window: 'range', name: 'train' });
    expect(byMinute(frame)).toEqual({ 60: 4 * GiB });
    expect(frame.schema.fields[1].config.unit).toBe('bytes');
  });
});

describe('summary: usage split by state', () => {
  it('per JobSet: the mean while up, not up (provisioning and down), provisioning, down and suspended', async () => {
    const [frame] = await frames({ queryType: 'summary', figures: ['upSeconds'], usageByState: ['cpuCores', 'memoryBytes'] });
    const c = columns(frame);
    // The table's own order: namespace, name.
    expect(c.name).toEqual(['eval', 'train', 'solo']);
    expect(c.upSeconds).toEqual([40 * 60, 40 * 60, 55 * 60]);
    // train: up 10─40 and 50─60 at 8; provisioning 0─10 at 0.5; down 40─50 at 1; not up (10 min at 0.5, 10 at 1) 0.75.
    // eval: up at 2; its provisioning had no usage, so no mean (not 0). solo: no usage at all.
    expect(c.cpuCoresWhileUp).toEqual([2, 8, null]);
    expect(c.cpuCoresWhileNotUp).toEqual([null, 0.75, null]);
    expect(c.cpuCoresWhileProvisioning).toEqual([null, 0.5, null]);
    expect(c.cpuCoresWhileDown).toEqual([null, 1, null]);
    expect(c.cpuCoresWhileSuspended).toEqual([null, null, null]);
    expect(c.memoryBytesWhileUp).toEqual([null, 4 * GiB, null]);
    expect(c.memoryBytesWhileNotUp).toEqual([null, 4 * GiB, null]);
    const units = Object.fromEntries(frame.schema.fields.map((f: any) => [f.name, f.config?.unit]));
    expect(units).toMatchObject({ cpuCoresWhileUp: 'none', memoryBytesWhileDown: 'bytes' });
    expect(frame.schema.meta?.notices).toBeUndefined();
  });

  it('over a part of the range: the states clipped to it', async () => {
    // 35─45: up 35─40 at 8, down 40─45 at 1.
    const res = await service.post('/api/v1/query', { from: min(35), to: min(45), queries: [{ refId: 'A', queryType: 'summary', name: 'train', figures: ['upSeconds'], usageByState: ['cpuCores'] }] });
    const c = columns(res.body.results.A.frames[0]);
    expect(c).toMatchObject({ upSeconds: [300], cpuCoresWhileUp: [8], cpuCoresWhileDown: [1], cpuCoresWhileNotUp: [1], cpuCoresWhileProvisioning: [null] });
  });

  it('grouped: the members pooled, each weighing by the time its usage covers', async () => {
    const [frame] = await frames({ queryType: 'summary', groupBy: 'namespace', aggregate: 'pooled', figures: ['upSeconds'], usageByState: ['cpuCores'] });
    const c = columns(frame);
    expect(c.namespace).toEqual(['ml', 'other']);
    expect(c.jobsets).toEqual([2, 1]);
    // ml: (8 × 40m + 2 × 40m) ÷ 80m while up; not up only train's 20 covered minutes.
    expect(c.cpuCoresWhileUp).toEqual([5, null]);
    expect(c.cpuCoresWhileNotUp).toEqual([0.75, null]);
    expect(c.cpuCoresWhileDown).toEqual([1, null]);
  });

  it('sorts and limits by a usage column', async () => {
    const [top] = await frames({ queryType: 'summary', figures: ['upSeconds'], usageByState: ['cpuCores'], sort: { by: 'cpuCoresWhileUp', direction: 'desc' }, limit: 1 });
    expect(columns(top)).toMatchObject({ name: ['train'], cpuCoresWhileUp: [8] });
    // The totals are of every row, the three JobSets pooled: up (8 × 40m + 2 × 40m) ÷ 80m; down only train's.
    expect(top.schema.meta.custom).toMatchObject({ rows: 3, shown: 1, totals: { jobsets: 3, cpuCoresWhileUp: 5, cpuCoresWhileDown: 1, cpuCoresWhileNotUp: 0.75, cpuCoresWhileSuspended: null } });
    const [groups] = await frames({ queryType: 'summary', groupBy: 'namespace', figures: ['upSeconds'], usageByState: ['cpuCores'], sort: { by: 'cpuCoresWhileUp', direction: 'asc' } });
    // Nulls last either way.
    expect(columns(groups)).toMatchObject({ namespace: ['ml', 'other'], cpuCoresWhileUp: [5, null] });
  });
});

describe('what usage refuses, and a source without usage', () => {
  it('a 400 naming the field: an unknown metric, a usage metric of the node layer or of a fleet query, a figure as usageByState', async () => {
    expect(await ask({ queryType: 'series', metric: 'cpu' })).toMatchObject({ status: 400, error: expect.stringMatching(/^queries\[0\]\.metric: Invalid option/) });
    expect(await ask({ queryType: 'series', metric: 'cpuCores', layer: 'nodes' })).toMatchObject({ status: 400, error: expect.stringMatching(/^queries\[0\]\.layer: cpuCores is the resource usage of a JobSet's pods/) });
    expect(await ask({ queryType: 'fleet', metric: 'memoryBytes' })).toMatchObject({ status: 400, error: expect.stringMatching(/^queries\[0\]\.metric: memoryBytes is resource usage/) });
    expect(await ask({ queryType: 'summary', usageByState: ['upSeconds'] })).toMatchObject({ status: 400, error: expect.stringMatching(/^queries\[0\]\.usageByState\[0\]: Invalid option/) });
  });

  it("without usage: a series is one empty frame whose notice says why; a summary's usage columns are null, with the notice", async () => {
    const series = await frames({ queryType: 'series', metric: 'cpuCores', window: 'step', intervalMs: 600_000 }, without);
    expect(series).toHaveLength(1);
    expect(series[0].schema.fields).toEqual([]);
    expect(series[0].schema.meta.notices[0].text).toMatch(/^No resource usage here/);
    const [summary] = await frames({ queryType: 'summary', figures: ['upSeconds'], usageByState: ['cpuCores'] }, without);
    const c = columns(summary);
    expect(c.upSeconds).toEqual([40 * 60, 40 * 60, 55 * 60]);
    expect(c.cpuCoresWhileUp).toEqual([null, null, null]);
    expect(summary.schema.meta.notices[0].text).toMatch(/^No resource usage here/);
    // A summary that asks for no usage says nothing of it.
    const [plain] = await frames({ queryType: 'summary', figures: ['upSeconds'] }, without);
    expect(plain.schema.meta?.notices).toBeUndefined();
  });

  it('the Arrow answer carries the same usage', async () => {
    const res = await fetch(`${service.url}/api/v1/query?frames=arrow`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ from: FROM, to: TO, queries: [{ refId: 'A', queryType: 'series', metric: 'cpuCores', window: 'range', name: 'train' }] }),
    });
    expect(res.status).toBe(200);
    const answer = readArrowAnswer(new Uint8Array(await res.arrayBuffer()));
    const table = tableFromIPC(answer.results.A!.arrowFiles![0]!);
    expect(table.getChild('cpuCores')!.toArray()[0]).toBeCloseTo((5 + 240 + 10 + 80) / 60, 12);
  });
});
