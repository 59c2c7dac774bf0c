// The store's metrics, read from a real embedded store: bytes written and write errors are counters
// (Prometheus `_total`), failing and pending records gauges.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import client from 'prom-client';
import { simulateFleet } from '../sources/simulator/index.ts';
import { TimelineEngine } from '../timeline/engine.ts';
import { EmbeddedStore } from './embedded.ts';
import { registerStoreMetrics } from './metrics.ts';

test('the store registers its metrics: counters for what only grows, gauges for the rest', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'upness-store-metrics-'));
  const { store } = await EmbeddedStore.open(dir);
  try {
    const engine = new TimelineEngine({ onUpdate: (u, m) => store.record(u, m) });
    for (const o of simulateFleet({ jobsets: 2, days: 1, seed: 1 }).observations()) engine.observe(o);
    await store.flushed();
    const registry = new client.Registry();
    registerStoreMetrics(registry, () => store.status());
    const text = await registry.metrics();
    expect(text).toContain('# TYPE upness_store_written_bytes_total counter');
    expect(text).toContain('# TYPE upness_store_write_errors_total counter');
    expect(text).toContain('# TYPE upness_store_failing gauge');
    expect(text).toContain('# TYPE upness_store_pending_records gauge');
    expect(text).toContain(`upness_store_written_bytes_total ${store.status().bytesWritten}\n`);
    expect(store.status().bytesWritten).toBeGreaterThan(0);
    expect(text).toContain('upness_store_write_errors_total 0\n');
    expect(text).toContain('upness_store_failing 0\n');
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
