// The sampled usage kept in the data dir (the embedded store): samplings logged as they are taken,
// each JobSet's history in a snapshot, both read back after a restart into a book that answers
// every usage query exactly as the one before it did. A data dir without usage (older ones) opens
// with none.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { merge, min, Scenario } from '../../../test/support/scenario.ts';
import { runQueries } from '../frames/run-request.ts';
import { EmbeddedStore } from '../store/embedded.ts';
import { TimelineEngine } from '../timeline/engine.ts';
import { UsageBook } from '../usage/book.ts';
import { USAGE_METRICS, type JobSetUsage, type UsageMetric } from '../usage/jobset-usage.ts';
import { restoreUsage, usageRecords } from './usage-store.ts';

const dirs: string[] = [];
const fresh = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'upness-usage-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

//   ml/train (uid a): 0 ─prov─ 10 ─up─ 40 ─down─ 50 ─up─ 3000 (two days and more: some usage is folded)
//   ml/eval  (pods labelled by name only): 0 ─prov─ 20 ─up─ 3000
const train = new Scenario({ uid: 'a', name: 'train', namespace: 'ml' }, min(0)).created().up(min(10)).down(min(40), { restarts: 1 }).up(min(50)).at(min(3000));
const evalRun = new Scenario({ uid: 'b', name: 'eval', namespace: 'ml' }, min(0)).created().up(min(20)).at(min(3000));
const engine = new TimelineEngine();
for (const o of merge(train, evalRun)) engine.observe(o);
const NOW = min(3000);

/** A sampling every minute, as the sampler would take it (values that differ by minute, one metric missing). */
function sampling(minute: number): JobSetUsage[] {
  const values = (owner: number): Record<UsageMetric, number | null> =>
    Object.fromEntries(USAGE_METRICS.map((m, i) => [m, m === 'volumeBytes' ? null : (minute % 7) + owner * 10 + i])) as Record<UsageMetric, number | null>;
  return [
    { owner: 'a', namespace: 'ml', name: 'train', at: min(minute), values: values(1) },
    ...(minute >= 20 ? [{ owner: 'name:ml/eval', namespace: 'ml', name: 'eval', at: min(minute), values: values(2) }] : []),
  ];
}

const queries = [
  { refId: 'cpu', queryType: 'series', metric: 'cpuCores', window: 'step', intervalMs: 3_600_000 },
  { refId: 'memory', queryType: 'series', metric: 'memoryBytes', groupBy: 'namespace', aggregate: 'sum', window: 'step', intervalMs: 600_000 },
  { refId: 'split', queryType: 'summary', figures: ['upSeconds'], usageByState: ['cpuCores', 'networkReceiveBytesPerSecond', 'volumeBytes'] },
];
const answer = (book: UsageBook) => runQueries({ from: min(0), to: NOW, queries }, { timelines: engine.timelines(), horizon: NOW, usage: book }, NOW).results;

describe('usage in the data dir', () => {
  it('a restart answers every usage query as before: the snapshot, then what was logged after it', async () => {
    const dir = fresh();
    const before = new UsageBook({ holdMs: 120_000 });
    const { store } = await EmbeddedStore.open(dir);
    for (let m = 0; m < 3000; m++) {
      const usages = sampling(m);
      before.record(usages);
      store.usage(usageRecords(usages));
      // As the sampler does: folded beyond a day as it goes; a snapshot part of the way.
      before.compact(min(m));
      if (m === 2000) await store.snapshot([], null, [], [], before.dump());
    }
    before.compact(NOW);
    await store.flushed();
    await store.close();

    const { store: reopened, recovery } = await EmbeddedStore.open(dir);
    await reopened.close();
    expect(recovery.usage!.snapshot.map((e) => e.owner).sort()).toEqual(['a', 'name:ml/eval']);
    expect(recovery.usage!.log.length).toBe(2 * 999);
    const after = new UsageBook({ holdMs: 120_000 });
    restoreUsage(after, recovery.usage, NOW);
    for (const owner of ['a', 'name:ml/eval']) expect(after.get(owner)!.history.size).toEqual(before.get(owner)!.history.size);
    const [was, is] = [answer(before), answer(after)];
    expect(was.split!.status).toBe(200);
    expect((was.cpu!.frames![0]!.data.values[1] as unknown[]).some((v) => v !== null)).toBe(true);
    expect(is).toEqual(was);
  });

  it('retention at the restart drops what is older than it', async () => {
    const dir = fresh();
    const { store } = await EmbeddedStore.open(dir);
    for (let m = 0; m < 100; m++) store.usage(usageRecords(sampling(m)));
    await store.close();
    const { store: reopened, recovery } = await EmbeddedStore.open(dir);
    await reopened.close();
    const book = new UsageBook();
    // Kept for 50 minutes, at minute 100: the samplings from minute 50 on.
    restoreUsage(book, recovery.usage, min(100), 50 * 60_000);
    expect(book.get('a')!.history.points('cpuCores').times[0]).toBe(min(50));
  });

  it('a data dir without usage opens with none', async () => {
    const dir = fresh();
    const { store } = await EmbeddedStore.open(dir);
    await store.snapshot([], null);
    await store.close();
    const { store: reopened, recovery } = await EmbeddedStore.open(dir);
    await reopened.close();
    expect(recovery.usage).toEqual({ snapshot: [], log: [] });
    const book = new UsageBook();
    restoreUsage(book, recovery.usage, NOW);
    expect([...book.entries()]).toEqual([]);
  });
});
