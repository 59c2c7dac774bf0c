/* eslint-disable @typescript-eslint/no-explicit-any -- the bodies are the JSON answers of the API under test */
// The simulated cluster's usage, served over HTTP, against the simulator's own truth: its truth
// timelines (fleet.truth(), not what the service worked out) and its usage model. The served
// figures are the engine's timelines joined with the usage book; the truth is computed here apart,
// by cutting the window at every sampling and every true transition and adding up the pieces.

import { startService, type TestService } from '../../../test/support/service.ts';
import { SIMULATED_USAGE_INTERVAL_MS, simulatedUsage, simulateFleet } from '../sources/simulator/index.ts';
import { transitionsOf, type State, type Timeline } from '../timeline/types.ts';
import { TERMINAL_STATES } from '../timeline/types.ts';
import { UsageBook } from '../usage/book.ts';
import { SimulatedUsageFeed } from './simulated-usage.ts';

const SEED = 11;
const HOUR = 3_600_000;
const STEP = SIMULATED_USAGE_INTERVAL_MS;
const fleet = simulateFleet({ jobsets: 4, days: 1.5, seed: SEED, profile: 'demo', nodes: true, workloads: true });
// The last twelve hours but one: samplings as taken (within a day of the last), every state seen.
const TO = Math.floor((fleet.end - HOUR) / HOUR) * HOUR;
const FROM = TO - 12 * HOUR;

function trueState(tl: Timeline, t: number): State | null {
  let state: State | null = null;
  for (const tr of transitionsOf(tl)) {
    if (tr.at > t) break;
    state = tr.state;
  }
  return state;
}

type Split = 'up' | 'notUp' | 'provisioning' | 'down' | 'suspended';

/** The truth of one JobSet over [from, to): each piece between samplings and true transitions, its state's and its sampling's. */
function truthOf(tl: Timeline, metric: 'cpuCores' | 'memoryBytes', from: number, to: number): { mean: number | null; byState: Record<Split, number | null> } {
  const cuts = new Set<number>([from, to]);
  for (let t = Math.ceil(from / STEP) * STEP; t < to; t += STEP) cuts.add(t);
  for (const tr of transitionsOf(tl)) if (tr.at > from && tr.at < to) cuts.add(tr.at);
  const sorted = [...cuts].sort((a, b) => a - b);
  const sums: Record<string, { area: number; covered: number }> = {};
  const add = (key: string, length: number, value: number): void => {
    const s = (sums[key] ??= { area: 0, covered: 0 });
    s.area += length * value;
    s.covered += length;
  };
  for (let i = 0; i + 1 < sorted.length; i++) {
    const [a, b] = [sorted[i]!, sorted[i + 1]!];
    const sampledAt = Math.floor(a / STEP) * STEP;
    // What the simulated sampler took at that sampling: the model in the true state then.
    const usage = simulatedUsage(SEED, tl, trueState(tl, sampledAt), sampledAt);
    if (usage === null) continue;
    add('all', b - a, usage[metric]);
    const state = trueState(tl, a);
    if (state === null || TERMINAL_STATES.has(state) || state === 'unknown') continue;
    add(state, b - a, usage[metric]);
    if (state === 'provisioning' || state === 'down') add('notUp', b - a, usage[metric]);
  }
  const mean = (key: string): number | null => (sums[key] && sums[key].covered > 0 ? sums[key].area / sums[key].covered : null);
  return { mean: mean('all'), byState: { up: mean('up'), notUp: mean('notUp'), provisioning: mean('provisioning'), down: mean('down'), suspended: mean('suspended') } };
}

function expectClose(served: number | null, truth: number | null): void {
  if (truth === null) {
    expect(served).toBeNull();
    return;
  }
  expect(served).not.toBeNull();
  expect(Math.abs(served! - truth) / Math.max(1, Math.abs(truth))).toBeLessThan(1e-9);
}

function columns(frame: any): Record<string, any[]> {
  return Object.fromEntries(frame.schema.fields.map((f: any, i: number) => [f.name, frame.data.values[i]]));
}

let service: TestService;
let truth: Timeline[];
beforeAll(async () => {
  service = await startService([...fleet.observations()], { nodes: true });
  const book = new UsageBook({ holdMs: STEP });
  new SimulatedUsageFeed(() => service.view.engine.timelines(), book, { seed: SEED, from: fleet.start }).sampleUntil(fleet.end);
  service.view.setUsage(book);
  truth = fleet.truth();
}, 60_000);
afterAll(() => service.close());

async function ask(q: Record<string, unknown>): Promise<any[]> {
  const res = await service.post('/api/v1/query', { from: FROM, to: TO, queries: [{ refId: 'A', ...q }] });
  expect(res.body.results.A.error).toBeUndefined();
  return res.body.results.A.frames;
}

describe('a history sampled in parts', () => {
  it('holds what one sampling of the whole history holds, an hour at a time or all at once', () => {
    const timelines = () => service.view.engine.timelines();
    const atOnce = new UsageBook({ holdMs: STEP });
    const added = new SimulatedUsageFeed(timelines, atOnce, { seed: SEED, from: fleet.start }).sampleUntil(fleet.end);
    const hourly = new UsageBook({ holdMs: STEP });
    const feed = new SimulatedUsageFeed(timelines, hourly, { seed: SEED, from: fleet.start });
    let addedHourly = 0;
    for (let t = fleet.start; t < fleet.end + HOUR; t += HOUR) addedHourly += feed.sampleUntil(Math.min(t, fleet.end));
    expect(addedHourly).toBe(added);
    expect(added).toBeGreaterThan(1000);
    // Folded buckets and the last day's samplings, the same values.
    const folded = atOnce.dump().reduce((n, e) => n + e.history.folded.t.length, 0);
    expect(folded).toBeGreaterThan(100);
    // By owner: a JobSet enters the book when it is first sampled, which the parts' order decides.
    const byOwner = (book: UsageBook) => book.dump().sort((x, y) => (x.owner < y.owner ? -1 : x.owner > y.owner ? 1 : 0));
    expect(byOwner(hourly)).toEqual(byOwner(atOnce));
  });
});

describe('the simulated usage served equals the simulator truth', () => {
  it('the window holds up, provisioning and down time with usage, in several JobSets', async () => {
    const [frame] = await ask({ queryType: 'summary', figures: ['upSeconds', 'provisioningSeconds', 'interruptionDowntimeSeconds'], usageByState: ['cpuCores'] });
    const c = columns(frame);
    expect(c.uid!.length).toBeGreaterThan(3);
    expect(c.cpuCoresWhileUp!.filter((v) => v !== null).length).toBeGreaterThan(2);
    expect(c.cpuCoresWhileProvisioning!.filter((v) => v !== null).length).toBeGreaterThan(0);
    expect(c.cpuCoresWhileDown!.filter((v) => v !== null).length).toBeGreaterThan(0);
  });

  it.each(['cpuCores', 'memoryBytes'] as const)('summary usageByState %s: every JobSet split by state as the truth is', async (metric) => {
    const [frame] = await ask({ queryType: 'summary', figures: ['upSeconds'], usageByState: [metric] });
    const c = columns(frame);
    const byUid = new Map(truth.map((tl) => [tl.uid, tl]));
    c.uid!.forEach((uid: string, row: number) => {
      const t = truthOf(byUid.get(uid)!, metric, FROM, TO).byState;
      expectClose(c[`${metric}WhileUp`]![row], t.up);
      expectClose(c[`${metric}WhileNotUp`]![row], t.notUp);
      expectClose(c[`${metric}WhileProvisioning`]![row], t.provisioning);
      expectClose(c[`${metric}WhileDown`]![row], t.down);
      expectClose(c[`${metric}WhileSuspended`]![row], t.suspended);
    });
    // Busy while up, near idle while not, the fleet pooled: the model's point, seen through the service
    // (a JobSet's own not-up mean may be near its up one: a sampling holds 30 s past an interruption).
    const [all] = await ask({ queryType: 'summary', groupBy: 'all', figures: ['upSeconds'], usageByState: [metric] });
    const pooled = columns(all);
    expect(pooled[`${metric}WhileUp`]![0]).toBeGreaterThan(5 * pooled[`${metric}WhileNotUp`]![0]);
  });

  it('series cpuCores per namespace, summed: each hour the JobSets true means added up', async () => {
    const frames = await ask({ queryType: 'series', metric: 'cpuCores', groupBy: 'namespace', aggregate: 'sum', window: 'step', intervalMs: HOUR });
    expect(frames.length).toBeGreaterThan(0);
    for (const frame of frames) {
      const namespace = frame.schema.fields[1].labels.namespace as string;
      const [times, values] = frame.data.values as [number[], (number | null)[]];
      times.forEach((t, k) => {
        const means = truth.filter((tl) => tl.namespace === namespace).flatMap((tl) => truthOf(tl, 'cpuCores', t - HOUR, t).mean ?? []);
        expectClose(values[k]!, means.length === 0 ? null : means.reduce((a, b) => a + b, 0));
      });
    }
  });
});
