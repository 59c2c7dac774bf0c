import { createHash } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { z } from 'zod';
import type { Observation } from '../../observation/types.ts';
import { transitionsOf, type Timeline } from '../../timeline/types.ts';
import { TERMINAL_STATES } from '../../timeline/types.ts';
import { DEFAULT_START, simulateFleet } from './fleet.ts';
import { averageObjectBytes, objectJson, traceLine, writeTrace } from './trace-output.ts';

// What a consumer may rely on in every simulated object.
const count = z.number().int().nonnegative();
const kubeTimestamp = z.string().regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
const JobSet = z.object({
  apiVersion: z.literal('jobset.x-k8s.io/v1alpha2'),
  kind: z.literal('JobSet'),
  metadata: z.object({
    name: z.string().regex(/^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/),
    namespace: z.enum(['team-a', 'team-b', 'research', 'ml-platform']),
    uid: z.uuid(),
    resourceVersion: z.string().regex(/^\d+$/),
    generation: z.number().int().positive(),
    creationTimestamp: kubeTimestamp,
    labels: z.record(z.string(), z.string()),
    annotations: z.record(z.string(), z.string()).optional(),
    deletionTimestamp: kubeTimestamp.optional(),
  }),
  spec: z.object({
    replicatedJobs: z
      .array(
        z.object({
          name: z.string(),
          replicas: z.number().int().positive(),
          template: z.object({
            spec: z.object({
              parallelism: z.number().int().positive(),
              completions: z.number().int().positive(),
              backoffLimit: count,
              template: z.object({
                spec: z.object({
                  nodeSelector: z.record(z.string(), z.string()),
                  restartPolicy: z.literal('Never'),
                  containers: z
                    .array(z.object({ name: z.string(), image: z.string(), resources: z.object({}).loose() }).loose())
                    .min(1),
                }),
              }),
            }),
          }),
        }),
      )
      .min(1),
    failurePolicy: z.object({ maxRestarts: count }).loose(),
    successPolicy: z.object({ operator: z.literal('All') }).loose(),
    suspend: z.boolean(),
  }),
  status: z.object({
    replicatedJobsStatus: z
      .array(z.object({ name: z.string(), ready: count, succeeded: count, failed: count, active: count, suspended: count }))
      .min(1),
    restarts: count,
    restartsCountTowardsMax: count,
    conditions: z.array(
      z.object({
        type: z.enum(['Suspended', 'Completed', 'Failed']),
        status: z.enum(['True', 'False']),
        reason: z.string(),
        message: z.string(),
        lastTransitionTime: kubeTimestamp,
      }),
    ),
    terminalState: z.enum(['Completed', 'Failed']).optional(),
  }),
});
type JobSetShape = z.infer<typeof JobSet>;

const asJobSet = (o: Observation): JobSetShape => o.object as unknown as JobSetShape;
const ms = (kubeTime: string): number => Date.parse(kubeTime);

function digest(lines: Iterable<string>): string {
  const h = createHash('sha256');
  for (const l of lines) h.update(l).update('\n');
  return h.digest('hex');
}

/** The observations and truth of a small fleet, computed once per seed. */
const cache = new Map<number, { observations: Observation[]; truth: Timeline[] }>();
function small(seed: number): { observations: Observation[]; truth: Timeline[] } {
  let run = cache.get(seed);
  if (run === undefined) {
    const fleet = simulateFleet({ jobsets: 20, days: 3, seed });
    run = { observations: [...fleet.observations()], truth: fleet.truth() };
    cache.set(seed, run);
  }
  return run;
}

const SEEDS = [1, 2, 3];

describe('simulateFleet: the observation stream', () => {
  it('is the same for the same seed and different for another', () => {
    const a = simulateFleet({ jobsets: 30, days: 2, seed: 11 });
    const b = simulateFleet({ jobsets: 30, days: 2, seed: 11 });
    const c = simulateFleet({ jobsets: 30, days: 2, seed: 12 });
    const hashA = digest(a.traceLines());
    expect(digest(b.traceLines())).toBe(hashA);
    expect(digest(a.traceLines())).toBe(hashA); // each call starts over
    expect(digest(c.traceLines())).not.toBe(hashA);
    expect(digest(Array.from(a.observations(), traceLine))).toBe(hashA);
  });

  it('without `nodes`, is the JobSet-only stream it was before that option, byte for byte', () => {
    // Pinned (the digest of the stream before the option existed): the benchmarks stay comparable.
    const pinned = 'dd51ae9cc7f8ccda90abb2c88246ee1b158e2dace804ce35670d6e96f290d799';
    expect(digest(simulateFleet({ jobsets: 30, days: 2, seed: 11 }).traceLines())).toBe(pinned);
    expect(digest(simulateFleet({ jobsets: 30, days: 2, seed: 11, nodes: false }).traceLines())).toBe(pinned);
    expect(digest(simulateFleet({ jobsets: 30, days: 2, seed: 11, workloads: false }).traceLines())).toBe(pinned);
  });

  it('gives trace lines equal to serializing the observations, and objects equal to JSON.stringify', () => {
    const fleet = simulateFleet({ jobsets: 10, days: 2, seed: 5 });
    const lines = [...fleet.traceLines()];
    const observations = [...fleet.observations()];
    expect(lines).toHaveLength(observations.length);
    observations.forEach((o, i) => {
      const plain = JSON.stringify(o.object);
      expect(objectJson(o.object)).toBe(plain);
      expect(lines[i]).toBe(JSON.stringify({ time: new Date(o.receivedAt).toISOString(), type: o.type, object: o.object }));
      expect(JSON.parse(lines[i]!)).toEqual({ time: new Date(o.receivedAt).toISOString(), type: o.type, object: JSON.parse(plain) });
    });
    // Objects built elsewhere, or changed, take the plain path.
    const changed = { ...observations[0]!.object, extra: 1 };
    expect(objectJson(changed)).toBe(JSON.stringify(changed));
  });

  it.each(SEEDS)('is in time order, within the period, and every object is a JobSet (seed %i)', (seed) => {
    const { observations } = small(seed);
    const end = DEFAULT_START + 3 * 86_400_000;
    let last = -Infinity;
    let lastRevision = 0;
    for (const o of observations) {
      expect(Number.isInteger(o.receivedAt)).toBe(true);
      expect(o.receivedAt).toBeGreaterThanOrEqual(last);
      expect(o.receivedAt).toBeGreaterThanOrEqual(DEFAULT_START);
      expect(o.receivedAt).toBeLessThan(end);
      last = o.receivedAt;
      const parsed = JobSet.safeParse(o.object);
      if (!parsed.success) throw new Error(`${JSON.stringify(o)}\n${parsed.error.message}`);
      const revision = Number(asJobSet(o).metadata.resourceVersion);
      expect(revision).toBeGreaterThan(lastRevision);
      lastRevision = revision;
      if (o.type === 'DELETED') expect(asJobSet(o).metadata.deletionTimestamp).toBeDefined();
    }
  });

  it.each(SEEDS)('creates each UID once, ADDED at its creationTimestamp, and nothing after DELETED (seed %i)', (seed) => {
    const { observations } = small(seed);
    const seen = new Map<string, { deleted: boolean; lastAt: number; generation: number }>();
    const live = new Map<string, string>(); // namespace/name → uid
    for (const o of observations) {
      const { metadata, status } = asJobSet(o);
      const key = `${metadata.namespace}/${metadata.name}`;
      const s = seen.get(metadata.uid);
      if (o.type === 'ADDED') {
        expect(s).toBeUndefined();
        expect(o.receivedAt).toBe(ms(metadata.creationTimestamp));
        // A name is reused only once the previous JobSet of that name is gone.
        expect(live.has(key)).toBe(false);
        live.set(key, metadata.uid);
        seen.set(metadata.uid, { deleted: false, lastAt: o.receivedAt, generation: metadata.generation });
        continue;
      }
      expect(s).toBeDefined();
      expect(s!.deleted).toBe(false);
      // Observations of one JobSet never share a time.
      expect(o.receivedAt).toBeGreaterThan(s!.lastAt);
      expect(metadata.generation).toBeGreaterThanOrEqual(s!.generation);
      s!.lastAt = o.receivedAt;
      s!.generation = metadata.generation;
      expect(status.restartsCountTowardsMax).toBeLessThanOrEqual(status.restarts);
      if (o.type === 'DELETED') {
        s!.deleted = true;
        live.delete(key);
      }
    }
  });

  it('re-creates some JobSets under the same name, with a new UID', () => {
    for (const seed of SEEDS) {
      const { truth } = small(seed);
      const byName = new Map<string, Set<string>>();
      for (const t of truth) {
        const key = `${t.namespace}/${t.name}`;
        byName.set(key, (byName.get(key) ?? new Set()).add(t.uid));
      }
      const reused = [...byName.values()].filter((uids) => uids.size > 1);
      expect(reused.length).toBeGreaterThan(3);
      expect(truth.length).toBeGreaterThan(20);
    }
  });

  it('has realistic objects and rates', () => {
    const fleet = simulateFleet({ jobsets: 50, days: 2, seed: 9 });
    const bytes = averageObjectBytes(fleet.observations(), 5000);
    expect(bytes).toBeGreaterThan(1500);
    expect(bytes).toBeLessThan(5000);
    const observations = [...fleet.observations()];
    // A few observations per JobSet-hour: nothing like a hot loop.
    const perSlotHour = observations.length / (50 * 48);
    expect(perSlotHour).toBeGreaterThan(0.5);
    expect(perSlotHour).toBeLessThan(20);
    const shapes = new Set(observations.map((o) => asJobSet(o).spec.replicatedJobs.map((r) => r.name).join('+')));
    expect(shapes).toEqual(new Set(['slice', 'workers', 'driver+workers']));
    const selectors = new Set(
      observations.flatMap((o) =>
        asJobSet(o).spec.replicatedJobs.flatMap((r) => Object.values(r.template.spec.template.spec.nodeSelector)),
      ),
    );
    for (const s of ['tpu-v5p-slice', 'tpu-v5-lite-podslice', 'nvidia-h100-80gb', '2x2x2', '4x4']) expect(selectors).toContain(s);
    expect(observations.some((o) => asJobSet(o).metadata.labels['kueue.x-k8s.io/queue-name'] !== undefined)).toBe(true);
  });

  it('handles edge options', () => {
    expect([...simulateFleet({ jobsets: 0, days: 1, seed: 1 }).observations()]).toEqual([]);
    const short = simulateFleet({ jobsets: 3, days: 0.01, seed: 1, start: Date.UTC(2025, 5, 1, 12) });
    for (const o of short.observations()) {
      expect(o.receivedAt).toBeGreaterThanOrEqual(Date.UTC(2025, 5, 1, 12));
      expect(o.receivedAt).toBeLessThan(Date.UTC(2025, 5, 1, 12) + 864_000);
    }
    expect(() => simulateFleet({ jobsets: -1, days: 1, seed: 1 })).toThrow(RangeError);
    expect(() => simulateFleet({ jobsets: 1, days: 0, seed: 1 })).toThrow(RangeError);
    expect(() => simulateFleet({ jobsets: 1, days: 1, seed: 1.5 })).toThrow(RangeError);
    expect(() => simulateFleet({ jobsets: 1, days: 1, seed: 1, profile: { fatalShare: 2 } })).toThrow(RangeError);
    expect(() => simulateFleet({ jobsets: 1, days: 1, seed: 1, profile: { mtbiMedian: 0 } })).toThrow(RangeError);
    expect(simulateFleet({ jobsets: 1, days: 1, seed: 1, profile: 'demo' }).profile.mtbiMedian).toBe(45 * 60_000);
  });

  it('long-running: weeks-long runs make a few UIDs per name a month, not dozens', () => {
    const uids = (profile: 'realistic' | 'long-running'): number => simulateFleet({ jobsets: 30, days: 30, seed: 3, profile }).truth().length;
    const long = uids('long-running');
    expect(long / 30).toBeLessThan(8);
    expect(uids('realistic') / long).toBeGreaterThan(10);
  });

  it('writes a trace with writeTrace', async () => {
    const fleet = simulateFleet({ jobsets: 5, days: 1, seed: 4 });
    const sink = new PassThrough();
    const chunks: string[] = [];
    sink.on('data', (c: Buffer) => chunks.push(c.toString()));
    const lines = await writeTrace(fleet.observations(), sink);
    sink.end();
    const text = chunks.join('');
    expect(text.split('\n').filter(Boolean)).toEqual([...fleet.traceLines()]);
    expect(lines).toBe([...fleet.traceLines()].length);
  });
});

describe('simulateFleet: the truth', () => {
  it.each(SEEDS)('obeys the timeline invariants (seed %i)', (seed) => {
    const { observations, truth } = small(seed);
    const received = new Map<string, Set<number>>();
    for (const o of observations) {
      const set = received.get(o.object.metadata.uid) ?? new Set<number>();
      set.add(o.receivedAt);
      received.set(o.object.metadata.uid, set);
    }
    expect(new Set(truth.map((t) => t.uid)).size).toBe(truth.length);
    expect(truth.length).toBe(received.size);
    for (const t of truth) {
      const tr = transitionsOf(t);
      expect(tr.length).toBeGreaterThan(0);
      expect(tr[0]!.at).toBe(t.createdAt);
      expect(t.createdAt % 1000).toBe(0);
      expect(['provisioning', 'suspended']).toContain(tr[0]!.state);
      for (let i = 1; i < tr.length; i++) {
        const prev = tr[i - 1]!;
        const cur = tr[i]!;
        expect(cur.at).toBeGreaterThanOrEqual(prev.at);
        expect(cur.state).not.toBe(prev.state);
        expect(TERMINAL_STATES.has(prev.state)).toBe(false);
        if (cur.state === 'up' || cur.state === 'down') {
          // From ready counts: at an observation's receivedAt.
          expect(received.get(t.uid)!.has(cur.at)).toBe(true);
        } else {
          // From an object timestamp: a whole second, at least 1 s after the previous transition.
          expect(cur.at % 1000).toBe(0);
          expect(cur.at - prev.at).toBeGreaterThanOrEqual(1000);
        }
        if (cur.state === 'provisioning') expect(prev.state).toBe('suspended');
        if (cur.state === 'down') expect(prev.state).toBe('up');
        if (cur.at === prev.at) expect([prev.state, cur.state]).toEqual(['down', 'up']);
      }
      expect(t.labels['ml.example.com/team']).toBe(t.namespace);
      expect(t.accelerator).not.toBeNull();
    }
  });

  it('is what the streaming callback reports, once per UID', () => {
    const fleet = simulateFleet({ jobsets: 20, days: 3, seed: 1 });
    const streamed: Timeline[] = [];
    let observationsSeen = 0;
    for (const _ of fleet.observations((t) => streamed.push(t))) observationsSeen++;
    expect(observationsSeen).toBe(small(1).observations.length);
    const sorted = [...streamed].sort((a, b) => a.createdAt - b.createdAt || (a.uid < b.uid ? -1 : 1));
    expect(sorted).toEqual(small(1).truth);
  });

  it('carries the accelerator and topology of the pod templates', () => {
    const { observations, truth } = small(2);
    const byUid = new Map(truth.map((t) => [t.uid, t]));
    for (const o of observations.filter((x) => x.type === 'ADDED')) {
      const t = byUid.get(o.object.metadata.uid)!;
      const selectors = asJobSet(o).spec.replicatedJobs.map((r) => r.template.spec.template.spec.nodeSelector);
      const accelerator = selectors
        .map((s) => s['cloud.google.com/gke-tpu-accelerator'] ?? s['cloud.google.com/gke-accelerator'])
        .find((x) => x !== undefined);
      const topology = selectors.map((s) => s['cloud.google.com/gke-tpu-topology']).find((x) => x !== undefined);
      expect(t.accelerator).toBe(accelerator);
      expect(t.topology).toBe(topology ?? null);
      expect(t.labels).toEqual(asJobSet(o).metadata.labels);
      expect(t.name).toBe(o.object.metadata.name);
    }
  });

  it('gives some JobSets accelerators and a checkpoint interval, and none to others', () => {
    const truth = simulateFleet({ jobsets: 40, days: 3, seed: 5 }).truth();
    const annotated = truth.filter((t) => (t.checkpointIntervalMs ?? null) !== null);
    expect(annotated.length).toBeGreaterThan(0);
    expect(annotated.length).toBeLessThan(truth.length);
    expect(new Set(annotated.map((t) => t.checkpointIntervalMs))).toEqual(new Set([30 * 60_000, 60 * 60_000]));
    // Every run of this simulator holds a TPU or GPU slice: 4 chips per TPU host, 8 GPUs per node.
    for (const t of truth) {
      expect(t.accelerators).toBeGreaterThan(0);
      expect(t.accelerators! % 4).toBe(0);
    }
  });

  it.each(SEEDS)('exercises every feature in 20 JobSets × 3 days (seed %i)', (seed) => {
    const { observations, truth } = small(seed);
    const seen = {
      queued: 0,
      fastRestart: 0,
      interruption: 0,
      recovery: 0,
      suspendedMidRun: 0,
      completed: 0,
      failed: 0,
      failedFromUp: 0,
      deletedWhileActive: 0,
      deletedAfterEnd: 0,
    };
    for (const t of truth) {
      const tr = transitionsOf(t);
      if (tr[0]!.state === 'suspended') seen.queued++;
      for (let i = 1; i < tr.length; i++) {
        const prev = tr[i - 1]!;
        const cur = tr[i]!;
        if (prev.state === 'down' && cur.state === 'up') {
          if (prev.at === cur.at) seen.fastRestart++;
          else seen.recovery++;
        }
        if (prev.state === 'up' && cur.state === 'down' && tr[i + 1]?.at !== cur.at) seen.interruption++;
        if (cur.state === 'suspended' && tr.slice(0, i).some((x) => x.state === 'up')) seen.suspendedMidRun++;
        if (cur.state === 'failed' && prev.state === 'up') seen.failedFromUp++;
      }
      const last = tr[tr.length - 1]!.state;
      if (last === 'completed') seen.completed++;
      if (last === 'failed') seen.failed++;
      if (last === 'deleted') seen.deletedWhileActive++;
    }
    const ended = new Set(truth.filter((t) => TERMINAL_STATES.has(transitionsOf(t)[transitionsOf(t).length - 1]!.state)).map((t) => t.uid));
    const finishedThenDeleted = observations.filter(
      (o) => o.type === 'DELETED' && asJobSet(o).status.terminalState !== undefined && ended.has(o.object.metadata.uid),
    );
    seen.deletedAfterEnd = finishedThenDeleted.length;
    for (const [feature, n] of Object.entries(seen)) {
      if (n === 0) throw new Error(`no ${feature} in seed ${seed}: ${JSON.stringify(seen)}`);
    }

    // Observation-level shapes: partial ready counts while provisioning, restarts rising after a drop,
    // and jobs finishing one by one before completion (ready + succeeded stays full).
    let partial = 0;
    let restartAfterDrop = 0;
    let finishing = 0;
    const previous = new Map<string, JobSetShape>();
    for (const o of observations) {
      const js = asJobSet(o);
      const total = js.spec.replicatedJobs.reduce((a, r) => a + r.replicas, 0);
      const ready = js.status.replicatedJobsStatus.reduce((a, r) => a + r.ready, 0);
      const done = js.status.replicatedJobsStatus.reduce((a, r) => a + r.succeeded, 0);
      const before = previous.get(js.metadata.uid);
      if (ready > 0 && ready + done < total && !js.spec.suspend) partial++;
      if (before !== undefined && js.status.restarts > before.status.restarts) {
        const readyBefore = before.status.replicatedJobsStatus.reduce((a, r) => a + r.ready, 0);
        if (readyBefore < total && readyBefore > 0) restartAfterDrop++;
      }
      if (done > 0 && ready + done === total && js.status.terminalState === undefined) finishing++;
      previous.set(js.metadata.uid, js);
    }
    expect(partial).toBeGreaterThan(10);
    expect(restartAfterDrop).toBeGreaterThan(0);
    expect(finishing).toBeGreaterThan(0);
  });

  it('puts each up/down transition on an observation that shows it', () => {
    const { observations, truth } = small(1);
    // For each UID: the observation at each receivedAt, and the one before it.
    const at = new Map<string, { now: JobSetShape; before: JobSetShape | undefined }>();
    const previous = new Map<string, JobSetShape>();
    for (const o of observations) {
      const js = asJobSet(o);
      at.set(`${js.metadata.uid}@${o.receivedAt}`, { now: js, before: previous.get(js.metadata.uid) });
      previous.set(js.metadata.uid, js);
    }
    const isUp = (js: JobSetShape): boolean =>
      js.status.replicatedJobsStatus.reduce((a, r) => a + r.ready + r.succeeded, 0) >=
      js.spec.replicatedJobs.reduce((a, r) => a + r.replicas, 0);
    for (const t of truth) {
      const tr = transitionsOf(t);
      for (let i = 1; i < tr.length; i++) {
        const cur = tr[i]!;
        if (cur.state !== 'up' && cur.state !== 'down') continue;
        const { now, before } = at.get(`${t.uid}@${cur.at}`)!;
        expect(before).toBeDefined();
        const fast = cur.state === 'down' ? tr[i + 1]?.at === cur.at : tr[i - 1]!.at === cur.at;
        if (fast) {
          expect(isUp(before!) && isUp(now)).toBe(true);
          expect(now.status.restarts).toBeGreaterThan(before!.status.restarts);
        } else {
          expect(isUp(now)).toBe(cur.state === 'up');
          expect(isUp(before!)).toBe(cur.state === 'down');
        }
      }
    }
  });

  it('keeps terminal conditions and deletion timestamps consistent with the truth', () => {
    const { observations, truth } = small(3);
    const byUid = new Map(truth.map((t) => [t.uid, t]));
    for (const o of observations) {
      const js = asJobSet(o);
      const t = byUid.get(js.metadata.uid)!;
      const last = transitionsOf(t)[transitionsOf(t).length - 1]!;
      const terminal = js.status.conditions.find((c) => (c.type === 'Completed' || c.type === 'Failed') && c.status === 'True');
      if (terminal !== undefined) {
        expect(last.state).toBe(terminal.type === 'Completed' ? 'completed' : 'failed');
        expect(last.at).toBe(ms(terminal.lastTransitionTime));
        expect(js.status.terminalState).toBe(terminal.type);
      }
      if (o.type === 'DELETED' && terminal === undefined) {
        expect(last).toEqual({ at: ms(js.metadata.deletionTimestamp!), state: 'deleted' });
      }
      const suspended = js.status.conditions.find((c) => c.type === 'Suspended');
      expect(js.spec.suspend).toBe(suspended?.status === 'True');
    }
  });
});

// What a consumer may rely on in the Pods and Nodes of a fleet with `nodes`.
const Pod = z.object({
  apiVersion: z.literal('v1'),
  kind: z.literal('Pod'),
  metadata: z.object({
    name: z.string().regex(/^[a-z]([-a-z0-9]{0,251}[a-z0-9])?$/),
    namespace: z.string(),
    uid: z.uuid(),
    resourceVersion: z.string().regex(/^\d+$/),
    creationTimestamp: kubeTimestamp,
    labels: z.object({
      'jobset.sigs.k8s.io/jobset-name': z.string(),
      'jobset.sigs.k8s.io/jobset-uid': z.uuid(),
      'jobset.sigs.k8s.io/replicatedjob-name': z.string(),
      'jobset.sigs.k8s.io/job-index': z.string().regex(/^\d+$/),
      'batch.kubernetes.io/job-completion-index': z.string().regex(/^\d+$/),
      'batch.kubernetes.io/job-name': z.string(),
    }),
    ownerReferences: z.array(z.object({ apiVersion: z.literal('batch/v1'), kind: z.literal('Job'), name: z.string(), uid: z.uuid(), controller: z.literal(true) })).length(1),
    deletionTimestamp: kubeTimestamp.optional(),
  }),
  spec: z.object({ nodeName: z.string().optional() }),
  status: z.object({ phase: z.enum(['Pending', 'Running', 'Succeeded']), conditions: z.array(z.object({ type: z.literal('PodScheduled'), status: z.enum(['True', 'False']), lastTransitionTime: kubeTimestamp })) }),
});
const Node = z.object({
  apiVersion: z.literal('v1'),
  kind: z.literal('Node'),
  metadata: z.object({
    name: z.string().regex(/^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/),
    uid: z.uuid(),
    resourceVersion: z.string().regex(/^\d+$/),
    creationTimestamp: kubeTimestamp,
    labels: z.object({ 'cloud.google.com/gke-nodepool': z.string(), 'node.kubernetes.io/instance-type': z.string(), 'topology.kubernetes.io/zone': z.string() }).loose(),
  }),
  spec: z.object({ unschedulable: z.literal(true).optional() }).loose(),
  status: z.object({
    capacity: z.record(z.string(), z.string()),
    conditions: z.array(z.object({ type: z.literal('Ready'), status: z.enum(['True', 'False', 'Unknown']), lastTransitionTime: kubeTimestamp, reason: z.string() })).length(1),
  }).loose(),
});
type PodShape = z.infer<typeof Pod>;
type NodeShape = z.infer<typeof Node>;

describe('simulateFleet with nodes: the cluster under the JobSets', () => {
  const fleet = simulateFleet({ jobsets: 12, days: 2, seed: 4, nodes: true });
  const observations = [...fleet.observations()];

  it('gives trace lines equal to serializing the observations', () => {
    const lines = [...fleet.traceLines()];
    expect(lines).toHaveLength(observations.length);
    expect(digest(lines)).toBe(digest(observations.map(traceLine)));
    expect(lines.some((l) => l.includes('"kind":"Pod"'))).toBe(true);
  });

  it('has Pods and Nodes as the API returns them, in pools, each pod on a node that exists', () => {
    const jobsets = new Map<string, string>(); // uid → namespace/name
    const nodes = new Map<string, NodeShape>();
    /** TPU slice pool → its nodes now, and the most it held at once. */
    const tpuPools = new Map<string, { now: Set<string>; most: number; hosts: number }>();
    let bound = 0;
    let last = -Infinity;
    for (const o of observations) {
      expect(o.receivedAt).toBeGreaterThanOrEqual(last);
      last = o.receivedAt;
      const { object } = o;
      if (object.kind === 'JobSet') {
        jobsets.set(object.metadata.uid, `${object.metadata.namespace}/${object.metadata.name}`);
        continue;
      }
      if (object.kind === 'Node') {
        const parsed = Node.safeParse(object);
        if (!parsed.success) throw new Error(`${JSON.stringify(o)}\n${parsed.error.message}`);
        const node = parsed.data;
        const labels = node.metadata.labels as Record<string, string>;
        const topology = labels['cloud.google.com/gke-tpu-topology'];
        if (topology !== undefined) {
          expect(labels['cloud.google.com/gke-tpu-accelerator']).toMatch(/^tpu-/);
          expect(node.status.capacity['google.com/tpu']).toBe('4');
          const pool = labels['cloud.google.com/gke-nodepool']!;
          const chips = topology.split('x').reduce((a, d) => a * Number(d), 1);
          const p = tpuPools.get(pool) ?? { now: new Set<string>(), most: 0, hosts: chips / 4 };
          if (o.type === 'DELETED') p.now.delete(node.metadata.name);
          else p.now.add(node.metadata.name);
          p.most = Math.max(p.most, p.now.size);
          tpuPools.set(pool, p);
        } else if (labels['cloud.google.com/gke-accelerator'] !== undefined) {
          expect(node.status.capacity['nvidia.com/gpu']).toBe('8');
        }
        if (o.type === 'DELETED') nodes.delete(node.metadata.name);
        else nodes.set(node.metadata.name, node);
        continue;
      }
      const parsed = Pod.safeParse(object);
      if (!parsed.success) throw new Error(`${JSON.stringify(o)}\n${parsed.error.message}`);
      const pod: PodShape = parsed.data;
      const labels = pod.metadata.labels;
      // It belongs to a JobSet already seen, by its labels; its owner is the JobSet's Job.
      expect(jobsets.get(labels['jobset.sigs.k8s.io/jobset-uid'])).toBe(`${pod.metadata.namespace}/${labels['jobset.sigs.k8s.io/jobset-name']}`);
      expect(pod.metadata.ownerReferences[0]!.name).toBe(labels['batch.kubernetes.io/job-name']);
      expect(labels['batch.kubernetes.io/job-name']).toBe(`${labels['jobset.sigs.k8s.io/jobset-name']}-${labels['jobset.sigs.k8s.io/replicatedjob-name']}-${labels['jobset.sigs.k8s.io/job-index']}`);
      if (o.type === 'DELETED') expect(pod.metadata.deletionTimestamp).toBeDefined();
      if (pod.spec.nodeName !== undefined && o.type !== 'DELETED' && pod.status.phase === 'Running') {
        // Bound to a node that is there and Ready, scheduled no later than seen.
        bound++;
        expect(nodes.get(pod.spec.nodeName)?.status.conditions[0]!.status).toBe('True');
        expect(Date.parse(pod.status.conditions[0]!.lastTransitionTime)).toBeLessThanOrEqual(o.receivedAt);
      }
    }
    expect(bound).toBeGreaterThan(100);
    // One pool per TPU slice: never more nodes at once than the slice has hosts (chips ÷ 4).
    expect(tpuPools.size).toBeGreaterThan(5);
    for (const p of tpuPools.values()) expect(p.most).toBe(p.hosts);
  });

  it('breaks nodes (NotReady, or deleted and replaced), and changes pools as planned (cordoned, then deleted)', () => {
    const ready = new Map<string, string>();
    const cordoned = new Set<string>();
    let notReady = 0;
    let plannedDeletions = 0;
    let unplannedDeletions = 0;
    for (const o of observations) {
      if (o.object.kind !== 'Node') continue;
      const node = o.object as unknown as NodeShape;
      const name = node.metadata.name;
      if (node.spec.unschedulable === true) cordoned.add(name);
      if (o.type === 'DELETED') {
        if (cordoned.has(name)) plannedDeletions++;
        else unplannedDeletions++;
        continue;
      }
      const status = node.status.conditions[0]!.status;
      if (ready.get(name) === 'True' && status === 'Unknown') notReady++;
      ready.set(name, status);
    }
    expect(notReady).toBeGreaterThan(3);
    expect(unplannedDeletions).toBeGreaterThan(3);
    expect(plannedDeletions).toBeGreaterThan(unplannedDeletions);
  });

  it('keeps the node layer\'s truth beside the JobSet layer\'s: the same UIDs, down only when a node broke', () => {
    const truth: Timeline[] = [];
    const nodeLayer: Timeline[] = [];
    for (const _ of fleet.observations((t, n) => {
      truth.push(t);
      nodeLayer.push(n!);
    })) {
      // Drain.
    }
    expect(nodeLayer.map((t) => t.uid)).toEqual(truth.map((t) => t.uid));
    expect(fleet.nodeTruth().map((t) => t.uid).sort()).toEqual(truth.map((t) => t.uid).sort());
    expect(simulateFleet({ jobsets: 3, days: 1, seed: 1 }).nodeTruth()).toEqual([]);
    let downs = 0;
    for (const [i, n] of nodeLayer.entries()) {
      expect(transitionsOf(n)[0]).toEqual({ at: truth[i]!.createdAt, state: transitionsOf(truth[i]!)[0]!.state });
      for (const tr of transitionsOf(n)) {
        if (tr.state !== 'down') continue;
        downs++;
        // Its cause is the node's, and the JobSet layer's interruption that followed carries it too.
        expect(tr.causes).toHaveLength(1);
        const cause = tr.causes![0]!;
        expect(['NodeNotReady', 'NodeDeleted']).toContain(cause.kind);
        expect(transitionsOf(truth[i]!).some((j) => (j.state === 'down' || j.state === 'failed') && j.causes?.[0] === cause && j.at >= cause.at && j.at <= cause.at + 30_000)).toBe(true);
      }
    }
    expect(downs).toBeGreaterThan(3);
  });

  it('keeps the node pools\' truth: a TPU slice per pool with its hardware, down only when one of its nodes broke, ended by the scale-down', () => {
    const pools = fleet.poolTruth();
    expect(simulateFleet({ jobsets: 3, days: 1, seed: 1 }).poolTruth()).toEqual([]);
    expect(new Set(pools.map((p) => p.uid)).size).toBe(pools.length);
    const slices = pools.filter((p) => p.name.startsWith('tpu-'));
    expect(slices.length).toBeGreaterThan(0);
    for (const s of slices) expect(s.topology).not.toBeNull();
    let downs = 0;
    for (const p of pools) {
      expect(p.uid).toBe(`nodepool:${p.name}:${p.createdAt}`);
      expect(transitionsOf(p)[0]!.at).toBe(p.createdAt);
      for (const tr of transitionsOf(p)) {
        if (tr.state !== 'down') continue;
        downs++;
        expect(tr.causes).toHaveLength(1);
        expect(tr.causes![0]!.node).toContain(p.name);
      }
    }
    expect(downs).toBeGreaterThan(3);
    expect(pools.filter((p) => transitionsOf(p).at(-1)!.state === 'completed').length).toBeGreaterThan(pools.length / 2);
    // Pools are made per JobSet: at most that one ran on each.
    for (const p of pools.filter((q) => transitionsOf(q).length > 1)) expect(p.jobsets!.length).toBeLessThanOrEqual(1);
  });
});

describe('simulateFleet with workloads: Kueue\'s Workloads of the Kueue JobSets', () => {
  const fleet = simulateFleet({ jobsets: 20, days: 3, seed: 2, workloads: true });
  const observations = [...fleet.observations()];
  const workloads = observations.filter((o) => o.object.kind === 'Workload');

  it('gives trace lines equal to serializing the observations', () => {
    expect([...fleet.traceLines()]).toEqual(observations.map(traceLine));
  });

  it('owns each Workload by a Kueue JobSet, evicts it before its JobSet is suspended and admits it before it resumes', () => {
    const jobsets = new Map(observations.filter((o) => o.object.kind === 'JobSet').map((o) => [o.object.metadata.uid, o.object]));
    expect(workloads.length).toBeGreaterThan(0);
    const owners = new Set<string>();
    for (const o of workloads) {
      expect(o.object.apiVersion).toBe('kueue.x-k8s.io/v1beta2');
      const owner = (o.object.metadata.ownerReferences as { kind: string; uid: string; controller: boolean }[])[0]!;
      expect([owner.kind, owner.controller]).toEqual(['JobSet', true]);
      const jobset = jobsets.get(owner.uid)!;
      expect(jobset.metadata.labels!['kueue.x-k8s.io/queue-name']).toBe((o.object.spec as { queueName: string }).queueName);
      owners.add(owner.uid);
    }
    // Every Kueue JobSet has one; no other JobSet has any.
    expect([...owners].sort()).toEqual([...jobsets.values()].filter((j) => j.metadata.labels!['kueue.x-k8s.io/queue-name'] !== undefined).map((j) => j.metadata.uid).filter((u, i, a) => a.indexOf(u) === i).sort());
    // Each preemption in the truth has its Workload's Evicted condition, at the suspension's time, seen no later than the JobSet's.
    const evictions = workloads.flatMap((o) => {
      const c = ((o.object.status as { conditions: { type: string; status: string; lastTransitionTime: string }[] }).conditions).find((x) => x.type === 'Evicted' && x.status === 'True');
      return c === undefined || o.type === 'DELETED' ? [] : [`${(o.object.metadata.ownerReferences as { uid: string }[])[0]!.uid}@${ms(c.lastTransitionTime)}`];
    });
    const preemptions = fleet.truth().flatMap((t) => transitionsOf(t).filter((tr) => tr.suspension?.reason === 'Preempted').map((tr) => `${t.uid}@${tr.at}`));
    expect(preemptions.length).toBeGreaterThan(0);
    expect(new Set(evictions)).toEqual(new Set(preemptions));
  });
});
