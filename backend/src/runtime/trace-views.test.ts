// The views of trace lines encoded in numbers and a string table (trace-views.ts) decode to exactly the
// views they were made from: every field, the same keys in the same order, across the chunks of one
// worker's table and across the times it empties it.

import type { ClusterViewedObservation } from '../nodes/viewed.ts';
import { simulateFleet } from '../sources/simulator/index.ts';
import { viewTraceChunk } from './trace-chunk.ts';
import { ViewDecoder, ViewEncoder, type EncodedViews } from './trace-views.ts';

/** Every observation of `encoded` with its line, as the replay receives them. */
function decoded(decoder: ViewDecoder, encoded: EncodedViews): { observations: ClusterViewedObservation[]; lines: number[] } {
  const observations: ClusterViewedObservation[] = [];
  const lines: number[] = [];
  decoder.forEach(
    encoded,
    (o, line) => {
      observations.push(o);
      lines.push(line);
    },
    () => false,
  );
  return { observations, lines };
}

/** The same views: equal values, and equal JSON (the same keys in the same order). */
function expectSame(actual: unknown, expected: unknown): void {
  expect(actual).toStrictEqual(expected);
  expect(JSON.stringify(actual)).toBe(JSON.stringify(expected));
}

/** A simulated cluster's trace (JobSets, Pods, Nodes, Kueue's Workloads) in chunks of about `lines` lines. */
function chunks(seed: number, lines = 50): string[] {
  const all = [...simulateFleet({ jobsets: 10, days: 1, seed, nodes: true, workloads: true }).traceLines()];
  const out: string[] = [];
  for (let i = 0; i < all.length; i += lines) out.push(all.slice(i, i + lines).join('\n'));
  return out;
}

/** The leaf paths of an observation's view that hold a value (not null), as `route:path` (arrays by their elements). */
function setPaths(o: ClusterViewedObservation, into: Set<string>): void {
  const walk = (value: unknown, path: string): void => {
    if (value === null || value === undefined) return;
    if (Array.isArray(value)) for (const v of value) walk(v, `${path}[]`);
    else if (typeof value === 'object' && path !== 'view.labels') for (const [k, v] of Object.entries(value)) walk(v, path === '' ? k : `${path}.${k}`);
    else into.add(`${o.route}:${path}`);
  };
  walk(o, '');
}

const MS = Date.UTC(2026, 0, 1);

type JobSetViewed = Extract<ClusterViewedObservation, { route: 'JobSet' }>;

/** A JobSet's view with every optional field empty. */
const bare: JobSetViewed['view'] = {
  uid: 'u-0',
  namespace: '',
  name: 'n',
  labels: {},
  resourceVersion: null,
  createdAt: null,
  deletingAt: null,
  suspended: false,
  suspendedSince: null,
  suspension: null,
  resumedAt: null,
  terminal: null,
  replicas: 0,
  readyOrSucceeded: 0,
  restarts: 0,
  accelerator: null,
  topology: null,
  accelerators: 0,
  checkpointIntervalMs: null,
  expectedNodes: 0,
  failure: null,
};

/** Views with the fields a simulated trace leaves empty set, and the other way round. */
const unusual: ClusterViewedObservation[] = [
  {
    receivedAt: MS,
    type: 'MODIFIED',
    route: 'JobSet',
    view: {
      uid: 'u-1',
      namespace: 'team-ü',
      name: 'failed-one',
      labels: { 'upness.dev/objective': '0.97', team: 'ü — 2 × wartend', '1': 'digits first' },
      resourceVersion: 'not-a-number',
      createdAt: MS - 1000,
      deletingAt: MS - 10,
      suspended: true,
      suspendedSince: MS - 500,
      suspension: { reason: null, message: 'only a message' },
      resumedAt: MS - 700,
      terminal: { outcome: 'failed', at: null },
      replicas: 2.5,
      readyOrSucceeded: 0,
      restarts: 3,
      accelerator: 'tpu-v5p-slice',
      topology: '2x2x4',
      accelerators: 64,
      checkpointIntervalMs: 1_800_000,
      expectedNodes: 4,
      failure: { at: null, reason: 'FailedJobs', message: null },
    },
  },
  { receivedAt: MS, type: 'DELETED', route: 'JobSet', view: bare },
  { receivedAt: MS, type: 'DELETED', route: 'JobSet', view: { ...bare, uid: 'u-2', terminal: { outcome: 'completed', at: MS }, failure: { at: MS + 1, reason: null, message: 'why' } } },
  // A resourceVersion that would not read back the same as a number.
  { receivedAt: MS, type: 'ADDED', route: 'JobSet', view: { ...bare, uid: 'u-3', resourceVersion: '0012' } },
  { receivedAt: MS, type: 'ADDED', route: 'JobSet', view: { ...bare, uid: 'u-4', resourceVersion: '90071992547409930' } },
  // Labels that are not all strings (parse.ts does not check them): sent as they are.
  { receivedAt: MS, type: 'ADDED', route: 'JobSet', view: { ...bare, uid: 'u-5', labels: { a: 1 } as unknown as Record<string, string> } },
  { receivedAt: MS + 1, type: 'MODIFIED', route: 'Workload', view: { uid: 'w-1', jobsetUid: null, eviction: null } },
  { receivedAt: MS + 1, type: 'MODIFIED', route: 'Workload', view: { uid: 'w-2', jobsetUid: 'u-1', eviction: { at: null, suspension: { reason: 'Preempted', message: null } } } },
  {
    receivedAt: MS + 2,
    type: 'MODIFIED',
    route: 'Pod',
    uid: 'p-1',
    pod: { uid: 'p-1', namespace: 'ns', name: 'pod', jobsetName: 'failed-one', jobsetUid: 'u-1', slot: 'workers/0/0', nodeName: 'node-1', scheduledAt: MS },
    failures: [{ key: 'pod/p-1/failed', cause: { kind: 'PodFailed', at: MS, pod: 'pod', node: 'node-1', reason: 'Evicted', message: 'memory' } }],
  },
  {
    receivedAt: MS + 2,
    type: 'DELETED',
    route: 'Pod',
    uid: 'p-2',
    pod: { uid: 'p-2', namespace: '', name: 'lone', jobsetName: null, jobsetUid: null, slot: 'pod/p-2', nodeName: null, scheduledAt: null },
    failures: [],
  },
  {
    receivedAt: MS + 3,
    type: 'MODIFIED',
    route: 'Node',
    uid: 'n-1',
    node: { name: 'node-1', uid: 'n-1', ready: 'Unknown', readySince: null, reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.' },
    poolNode: { name: 'node-1', uid: 'n-1', pool: null, createdAt: null, ready: 'False', readySince: MS - 5, leaving: true, accelerator: null, topology: null, tpuChips: 4, expectedNodes: 16 },
  },
  { receivedAt: MS + 4, type: 'ADDED', route: 'other' },
];

describe('views encoded for the trace workers', () => {
  it.each([1, 2])('decode to the views of every line of a simulated cluster, chunk after chunk of one table (seed %i)', (seed) => {
    const encoder = new ViewEncoder();
    let decoder = new ViewDecoder();
    const seen = new Set<string>();
    let observations = 0;
    for (const text of chunks(seed)) {
      const chunk = viewTraceChunk(text, 'example.com/pool');
      expect(chunk.error).toBeNull();
      const encoded = encoder.encode(chunk.observations, chunk.lineNumbers);
      // What the worker sends is what a structured clone carries.
      decoder = decoder.learn(structuredClone(encoded));
      const back = decoded(decoder, structuredClone(encoded));
      expectSame(back.observations, chunk.observations);
      expect(back.lines).toEqual([...chunk.lineNumbers]);
      for (const o of chunk.observations) setPaths(o, seen);
      observations += chunk.observations.length;
    }
    expect(observations).toBeGreaterThan(1000);
    // The simulated cluster has every route, and the fields that say what happened.
    for (const path of ['JobSet:view.uid', 'JobSet:view.suspension.reason', 'JobSet:view.terminal.at', 'JobSet:view.failure.reason', 'JobSet:view.checkpointIntervalMs', 'Workload:view.eviction.suspension.reason', 'Pod:pod.nodeName', 'Pod:pod.scheduledAt', 'Node:node.reason', 'Node:poolNode.pool', 'Node:poolNode.tpuChips']) {
      expect([...seen]).toContain(path);
    }
  });

  it("decode the same views written into memory an earlier chunk's numbers filled, as a worker writes them (trace-worker.ts)", () => {
    const encoder = new ViewEncoder();
    let decoder = new ViewDecoder();
    let memory = new ArrayBuffer(0);
    let reused = 0;
    for (const text of [...chunks(3, 40), ...chunks(3, 7)]) {
      const chunk = viewTraceChunk(text, 'example.com/pool');
      // Garbage where the last chunk's numbers were: every number of this chunk's records is written again.
      new Float64Array(memory).fill(-7.5);
      const encoded = encoder.encode(chunk.observations, chunk.lineNumbers, (bytes) => {
        if (memory.byteLength >= bytes) reused++;
        else memory = new ArrayBuffer(bytes);
        return memory;
      });
      expect(encoded.numbers.buffer).toBe(memory);
      decoder = decoder.learn(structuredClone(encoded));
      const back = decoded(decoder, structuredClone(encoded));
      expectSame(back.observations, chunk.observations);
      expect(back.lines).toEqual([...chunk.lineNumbers]);
    }
    expect(reused).toBeGreaterThan(10);
  });

  it('decode every field set and unset, and what they do not cover as itself', () => {
    const encoded = new ViewEncoder().encode(unusual, Int32Array.from(unusual, (_, i) => 3 * i + 1));
    // Only the pod with failures and the labels that are not strings went as themselves.
    expect(encoded.cloned.map((o) => (o.route === 'JobSet' ? o.view.uid : o.route === 'Pod' ? o.uid : o.route))).toEqual(['u-5', 'p-1']);
    const back = decoded(new ViewDecoder().learn(structuredClone(encoded)), structuredClone(encoded));
    expectSame(back.observations, unusual);
    expect(back.lines).toEqual(unusual.map((_, i) => 3 * i + 1));
    const seen = new Set<string>();
    for (const o of unusual) setPaths(o, seen);
    expect(seen.size).toBeGreaterThan(45);
  });

  it("decode a JobSet's labels as each record has them, when they change between its records", () => {
    // The encoder reuses the number of a JobSet's last labels when the next are the same: any change must show.
    const labelSets: Record<string, string>[] = [
      { a: '1' },
      { a: '1' },
      { a: '2' },
      { a: '2', b: '1' },
      { b: '1', a: '2' },
      { b: '1' },
      { 1: 'x', b: '1' },
      { a: 2 } as unknown as Record<string, string>,
      { a: '2', b: '1' },
      Object.assign(Object.create({ inherited: 'x' }) as Record<string, string>, { a: '2', b: '1' }),
      { a: '2', b: '1' },
      {},
    ];
    const views: ClusterViewedObservation[] = labelSets.flatMap((labels, i) =>
      ['u-1', 'u-2'].map((uid) => ({ receivedAt: MS + i, type: 'MODIFIED', route: 'JobSet', view: { ...bare, uid, labels } }) as const),
    );
    const encoder = new ViewEncoder();
    let decoder = new ViewDecoder();
    // One chunk per record, and all in one: the labels kept across chunks and within one.
    for (const chunk of [...views.map((v) => [v]), views]) {
      const encoded = structuredClone(encoder.encode(chunk, Int32Array.from(chunk, (_, i) => i + 1)));
      decoder = decoder.learn(encoded);
      const back = decoded(decoder, encoded).observations;
      expect(back.map((o) => (o.route === 'JobSet' ? JSON.stringify(o.view.labels) : ''))).toEqual(chunk.map((o) => (o.route === 'JobSet' ? JSON.stringify(o.view.labels) : '')));
      // Only plain objects of strings are encoded; the rest travel as themselves (a number's and an inherited key's, for each JobSet).
      if (chunk.length > 1) expect(encoded.cloned).toHaveLength(4);
    }
  });

  it('keep a chunk decodable after its worker emptied the table for a later one', () => {
    const encoder = new ViewEncoder(20);
    let decoder = new ViewDecoder();
    const waiting: { encoded: EncodedViews; decoder: ViewDecoder; views: ClusterViewedObservation[] }[] = [];
    let resets = 0;
    for (const text of chunks(4, 7).slice(0, 30)) {
      const chunk = viewTraceChunk(text, null);
      const encoded = structuredClone(encoder.encode(chunk.observations, chunk.lineNumbers));
      if (encoded.reset) resets++;
      decoder = decoder.learn(encoded);
      waiting.push({ encoded, decoder, views: chunk.observations });
    }
    expect(resets).toBeGreaterThan(3);
    // Applied only once every later chunk has been learned, as the replay may.
    for (const w of waiting) expectSame(decoded(w.decoder, w.encoded).observations, w.views);
  });

  it('stop at a bad line: the views before it, with their lines', () => {
    const [text] = chunks(5, 20);
    const lines = text!.split('\n');
    const bad = [...lines.slice(0, 7), '', '{"time": "2026-01-01T00:00:00Z"', ...lines.slice(7)].join('\n');
    const chunk = viewTraceChunk(bad, null);
    expect(chunk.error).toEqual({ line: 9, detail: expect.stringMatching(/^not valid JSON/) });
    const encoded = structuredClone(new ViewEncoder().encode(chunk.observations, chunk.lineNumbers));
    const back = decoded(new ViewDecoder().learn(encoded), encoded);
    expect(back.lines).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expectSame(back.observations, chunk.observations);
  });

  it('leave out what the replay skips without building its view', () => {
    const chunk = viewTraceChunk(chunks(6)[0]!, null);
    const encoded = new ViewEncoder().encode(chunk.observations, chunk.lineNumbers);
    const asked: number[] = [];
    const kept: ClusterViewedObservation[] = [];
    new ViewDecoder().learn(encoded).forEach(
      encoded,
      (o) => kept.push(o),
      (_receivedAt, line) => {
        asked.push(line);
        return line % 2 === 0;
      },
    );
    expect(asked).toEqual([...chunk.lineNumbers]);
    expectSame(kept, chunk.observations.filter((_, i) => chunk.lineNumbers[i]! % 2 !== 0));
  });
});
