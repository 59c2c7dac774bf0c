// `npm run bench:usage`: what sampling resource usage (--watch-usage) costs the service.
//   CPU: a sampling of P pods (default 10,000; 8 a node, 4 a JobSet), each node's answer a JSON
//   string of a kubelet's stats/summary shape (pods with containers, CPU, memory, network with two
//   interfaces, volumes, ephemeral storage), parsed as the sampler parses it (JSON.parse, the
//   summary's schema), summed per JobSet with network rates against the previous sampling, and
//   added to the usage book. Measured: process CPU time over R samplings (default 20), per 1,000
//   pods per sampling, and per day at the default interval (30 s: 2,880 samplings a day).
//   Memory: the book of 250 JobSets (1,000 pods; 100 with --smoke) after a day of samplings at 30 s, then after a
//   week (a day as sampled, the rest as 5-minute means): heap and array buffers after a full
//   garbage collection, per 1,000 pods, and per pod-day.
//   Store: the same JobSets' samplings written to the data dir (the embedded store: one `usage`
//   record per JobSet a sampling) for a day, values with the digits real ones have: log bytes per
//   pod-day; and the snapshot's usage (each JobSet's history) after a day and after a week: bytes
//   per pod-day as sampled and as 5-minute means. With --postgres, the same day written by the
//   PostgreSQL store (a PostgreSQL of the postgres tier's kind), then folded by a snapshot: bytes
//   per pod-day of upness_usage (with its indexes) as sampled and as 5-minute means.
//   Not measured: the apiserver's and the kubelets' side (one proxied GET per node per interval).
// Options: --pods P --rounds R, --smoke, --postgres. Run with --expose-gc (the npm script does).

import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedStore } from '../src/store/embedded.ts';
import { PostgresStore } from '../src/store/postgres.ts';
import { usageRecords } from '../src/runtime/usage-store.ts';
import type { JobSetUsage } from '../src/usage/jobset-usage.ts';
import { UsageBook } from '../src/usage/book.ts';
import { attribute, podOwners, USAGE_METRICS, type CounterReading, type UsageMetric } from '../src/usage/jobset-usage.ts';
import { parseKubeletSummary, type PodSample } from '../src/usage/kubelet-summary.ts';
import type { KubeObject } from '../src/observation/types.ts';
import { benchArgs } from './args.ts';

const { values: args } = benchArgs(import.meta.filename, {
  options: { pods: { type: 'string', default: '10000' }, rounds: { type: 'string', default: '20' }, smoke: { type: 'boolean', default: false }, postgres: { type: 'boolean', default: false } },
});
const pods = args.smoke ? 400 : Number(args.pods);
const rounds = args.smoke ? 2 : Number(args.rounds);
const PODS_PER_NODE = 8;
const PODS_PER_JOBSET = 4;
const INTERVAL_MS = 30_000;
const DAY_SAMPLINGS = 86_400_000 / INTERVAL_MS;

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) {
  process.stderr.write('run with node --expose-gc (npm run bench:usage does)\n');
  process.exit(2);
}

const T0 = Date.UTC(2026, 0, 1);
const iso = (ms: number): string => new Date(ms).toISOString();

const podObjects: KubeObject[] = Array.from({ length: pods }, (_, i) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    uid: `pod-${i}`,
    name: `train-${Math.floor(i / PODS_PER_JOBSET)}-${i % PODS_PER_JOBSET}`,
    namespace: 'ml',
    labels: { 'jobset.sigs.k8s.io/jobset-name': `train-${Math.floor(i / PODS_PER_JOBSET)}`, 'jobset.sigs.k8s.io/jobset-uid': `js-${Math.floor(i / PODS_PER_JOBSET)}` },
  },
  spec: { nodeName: `node-${Math.floor(i / PODS_PER_NODE)}` },
}));
const owners = podOwners(podObjects);

/** One node's answer at sampling `round`, as the wire carries it. */
function answer(node: number, round: number): string {
  const at = iso(T0 + round * INTERVAL_MS);
  const podStats = [];
  for (let i = node * PODS_PER_NODE; i < Math.min(pods, (node + 1) * PODS_PER_NODE); i++) {
    const bytes = (round + 1) * 1_000_000 + i;
    podStats.push({
      podRef: { name: podObjects[i]!.metadata.name, namespace: 'ml', uid: `pod-${i}` },
      startTime: iso(T0),
      containers: [{ name: 'main', startTime: iso(T0), cpu: { time: at, usageNanoCores: 3_000_000_000, usageCoreNanoSeconds: 1e15 }, memory: { time: at, workingSetBytes: 8e9, usageBytes: 9e9, rssBytes: 7e9 }, rootfs: { usedBytes: 1e6 }, logs: { usedBytes: 1e5 } }],
      cpu: { time: at, usageNanoCores: 3_000_000_000 + i, usageCoreNanoSeconds: 1e15 },
      memory: { time: at, availableBytes: 1e9, usageBytes: 9e9, workingSetBytes: 8e9 + i, rssBytes: 7e9, pageFaults: 1000, majorPageFaults: 1 },
      network: { time: at, name: 'eth0', rxBytes: bytes, txBytes: bytes, interfaces: [{ name: 'eth0', rxBytes: bytes, txBytes: bytes }, { name: 'net1', rxBytes: bytes, txBytes: bytes }] },
      volume: [{ time: at, availableBytes: 1e9, capacityBytes: 2e9, usedBytes: 1e6, name: 'scratch' }],
      'ephemeral-storage': { time: at, availableBytes: 1e10, capacityBytes: 2e10, usedBytes: 2e6 },
    });
  }
  return JSON.stringify({ node: { nodeName: `node-${node}`, startTime: iso(T0) }, pods: podStats });
}

const nodes = Math.ceil(pods / PODS_PER_NODE);
// The answers are made before the clock starts: the kubelet's work, not ours.
const answers = Array.from({ length: rounds + 1 }, (_, r) => Array.from({ length: nodes }, (_, n) => answer(n, r)));

const book = new UsageBook({ holdMs: 2 * INTERVAL_MS });
let readings: Map<string, CounterReading> = new Map();
function sample(round: number): void {
  const samples: PodSample[] = [];
  for (let n = 0; n < nodes; n++) samples.push(...parseKubeletSummary(JSON.parse(answers[round]![n]!), `node-${n}`));
  const result = attribute(samples, owners, readings, T0 + round * INTERVAL_MS);
  readings = result.readings;
  book.record(result.usages);
}
sample(0); // warm up, and the first readings
const cpuBefore = process.cpuUsage();
const wallBefore = performance.now();
for (let r = 1; r <= rounds; r++) sample(r);
const cpu = process.cpuUsage(cpuBefore);
const wallMs = performance.now() - wallBefore;
const cpuMsPerSampling = (cpu.user + cpu.system) / 1000 / rounds;
const per1000 = cpuMsPerSampling / (pods / 1000);

// Memory: 1,000 pods' book (250 JobSets) after a day and after a week of samplings.
function bytesNow(): number {
  gc!();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}
// The smoke run checks that it runs: a tenth of the JobSets (its per-pod figures are then of 100 pods).
const jobsets = (args.smoke ? 100 : 1000) / PODS_PER_JOBSET;
const values = Object.fromEntries(USAGE_METRICS.map((m) => [m, 1.5])) as Record<UsageMetric, number>;
const before = bytesNow();
const held = new UsageBook({ holdMs: 2 * INTERVAL_MS });
const fill = (fromSampling: number, toSampling: number): void => {
  for (let s = fromSampling; s < toSampling; s++) {
    const at = T0 + s * INTERVAL_MS;
    held.record(Array.from({ length: jobsets }, (_, j) => ({ owner: `js-${j}`, namespace: 'ml', name: `train-${j}`, at, values })));
    if (s % 120 === 0) held.compact(at);
  }
};
fill(0, DAY_SAMPLINGS);
const afterDay = bytesNow() - before;
fill(DAY_SAMPLINGS, 7 * DAY_SAMPLINGS);
held.compact(T0 + 7 * DAY_SAMPLINGS * INTERVAL_MS);
const afterWeek = bytesNow() - before;
const measuredPods = jobsets * PODS_PER_JOBSET;
const foldedPodDay = (afterWeek - afterDay) / 6 / measuredPods;

// Store: a day of samplings logged, and the snapshot after a day and after a week.
/** A JobSet's values at sampling `s`, with the digits the sampler's have (cores from nanocores, bytes, rates from counters ÷ 30 s). */
function realistic(j: number, s: number): Record<UsageMetric, number> {
  const n = (s * 7919 + j * 104_729) % 1_000_000;
  return {
    cpuCores: (12_000_000_000 + n * 1013) / 1e9,
    memoryBytes: 32_000_000_000 + n * 4096,
    networkReceiveBytesPerSecond: (4_000_000_000 + n * 977) / 30,
    networkTransmitBytesPerSecond: (3_000_000_000 + n * 983) / 30,
    ephemeralStorageBytes: 8_000_000 + n,
    volumeBytes: 4_000_000 + n,
    pods: PODS_PER_JOBSET,
  };
}
const dir = mkdtempSync(join(tmpdir(), 'upness-bench-usage-'));
const storeBytes = await (async () => {
  try {
    const { store } = await EmbeddedStore.open(dir);
    const kept = new UsageBook({ holdMs: 2 * INTERVAL_MS });
    const day = (fromSampling: number, toSampling: number, log: boolean): void => {
      for (let s = fromSampling; s < toSampling; s++) {
        const at = T0 + s * INTERVAL_MS;
        const usages: JobSetUsage[] = Array.from({ length: jobsets }, (_, j) => ({ owner: `js-${j}`, namespace: 'ml', name: `train-${j}`, at, values: realistic(j, s) }));
        kept.record(usages);
        if (log) store.usage(usageRecords(usages));
        if (s % 120 === 0) kept.compact(at);
      }
    };
    const snapshotBytes = async (): Promise<number> => {
      await store.snapshot([], null, [], [], kept.dump());
      return statSync(join(dir, 'snapshot.json')).size;
    };
    const logged = store.status().bytesWritten;
    day(0, DAY_SAMPLINGS, true);
    await store.flushed();
    const logDay = store.status().bytesWritten - logged;
    kept.compact(T0 + DAY_SAMPLINGS * INTERVAL_MS);
    // (A snapshot without usage is about a hundred bytes: not taken off.)
    const snapshotDay = await snapshotBytes();
    day(DAY_SAMPLINGS, 7 * DAY_SAMPLINGS, false);
    kept.compact(T0 + 7 * DAY_SAMPLINGS * INTERVAL_MS);
    const snapshotWeek = await snapshotBytes();
    await store.close();
    return { logDay, snapshotDay, snapshotWeek };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
})();

// PostgreSQL (--postgres): the same day of samplings written by the PostgreSQL store (a row per JobSet
// a sampling), then folded by a snapshot into 5-minute rows; table and index bytes after VACUUM FULL
// (what the rows take, without the dead ones a delete leaves until autovacuum).
const postgresBytes = !args.postgres
  ? null
  : await (async () => {
      const { startPostgres } = await import('../../test/postgres/server.ts');
      const server = await startPostgres();
      try {
        const url = await server.createDatabase('usage');
        const { store } = await PostgresStore.open(url, { cluster: 'default' });
        const kept = new UsageBook({ holdMs: 2 * INTERVAL_MS });
        for (let s = 0; s < DAY_SAMPLINGS; s++) {
          const at = T0 + s * INTERVAL_MS;
          const usages: JobSetUsage[] = Array.from({ length: jobsets }, (_, j) => ({ owner: `js-${j}`, namespace: 'ml', name: `train-${j}`, at, values: realistic(j, s) }));
          kept.record(usages);
          store.usage(usageRecords(usages));
          if (s % 120 === 0) await store.flushed();
        }
        await store.flushed();
        const size = async (): Promise<{ rows: number; bytes: number }> => {
          await server.query('VACUUM FULL upness_usage', [], 'usage');
          const r = await server.query<{ rows: string; bytes: string }>("SELECT count(*) AS rows, pg_total_relation_size('upness_usage') AS bytes FROM upness_usage", [], 'usage');
          return { rows: Number(r.rows[0]!.rows), bytes: Number(r.rows[0]!.bytes) };
        };
        const sampled = await size();
        // A day later, the whole day is older than a day: the snapshot folds all of it.
        kept.compact(T0 + 2 * DAY_SAMPLINGS * INTERVAL_MS + 300_000);
        await store.snapshot([], null, [], [], kept.dump());
        const folded = await size();
        await store.close();
        return { sampled, folded };
      } finally {
        await server.destroy();
      }
    })();

const mb = (b: number): string => (b / 1e6).toFixed(1);
process.stdout.write(
  [
    `usage sampling: ${pods} pods on ${nodes} nodes, ${pods / PODS_PER_JOBSET} JobSets, ${rounds} samplings (${(wallMs / rounds).toFixed(1)} ms wall each)`,
    `  CPU: ${cpuMsPerSampling.toFixed(1)} ms a sampling; ${per1000.toFixed(2)} ms per 1,000 pods a sampling; ${((per1000 * DAY_SAMPLINGS) / 1000).toFixed(1)} CPU-s per 1,000 pods a day at 30 s`,
    `  memory, ${measuredPods} pods (${jobsets} JobSets): ${mb(afterDay)} MB after a day as sampled; ${mb(afterWeek)} MB after a week (a day sampled, 6 days of 5-minute means)`,
    `  per pod-day: ${(afterDay / measuredPods / 1000).toFixed(1)} kB as sampled (the last day), ${(foldedPodDay / 1000).toFixed(2)} kB as 5-minute means (every day before)`,
    `  store bytes per pod-day (the data dir; ${measuredPods} pods, ${jobsets} JobSets, a record per JobSet a sampling): ${(storeBytes.logDay / measuredPods / 1000).toFixed(1)} kB of log as sampled (deleted by the next snapshot);` +
      ` in the snapshot ${(storeBytes.snapshotDay / measuredPods / 1000).toFixed(1)} kB as sampled (the last day), ${((storeBytes.snapshotWeek - storeBytes.snapshotDay) / 6 / measuredPods / 1000).toFixed(2)} kB as 5-minute means (every day before)`,
    ...(postgresBytes === null
      ? []
      : [
          `  PostgreSQL bytes per pod-day (upness_usage with its indexes): ${(postgresBytes.sampled.bytes / measuredPods / 1000).toFixed(1)} kB as sampled (${postgresBytes.sampled.rows} rows, the last day),` +
            ` ${(postgresBytes.folded.bytes / measuredPods / 1000).toFixed(2)} kB as 5-minute means (${postgresBytes.folded.rows} rows, every day before)`,
        ]),
  ].join('\n') + '\n',
);
