// `npm run bench:memory`: what a cluster source's engine (the JobSet layer and the node layer) holds in
// memory once a fleet with its pods and nodes has been observed.
//   The fleet: N JobSets (default 10,000, the big size of `npm run bench`), each with R replicated-job
//   replicas × P parallelism pods (default 2 × 2), one pod per node, on nodes of their own. Every
//   object is kube-shaped and of a realistic size (managedFields, containers with env, a node's
//   images, conditions, ...) and is parsed from JSON for each watch event, as the watcher does.
//   Each JobSet: its nodes join Ready, it is created, its pods are created, scheduled and become
//   Ready, it is up; every node reports status again; one JobSet in ten loses a pod to OOMKilled,
//   restarts (the pod is replaced on the same node) and is up again. At the end every JobSet, pod
//   and node is alive: the whole fleet is what a live watch would hold.
//   Measured: process.memoryUsage() after a full garbage collection, before the fleet and after it,
//   with the engine still reachable. Run with --expose-gc (the npm script does).
// Options: --jobsets N --replicas R --parallelism P, --smoke.

import { parseArgs } from 'node:util';
import { ClusterEngine } from '../src/nodes/engine.ts';
import type { KubeObject, Observation, ObservationType } from '../src/observation/types.ts';

const { values: args } = parseArgs({
  options: {
    jobsets: { type: 'string', default: '10000' },
    replicas: { type: 'string', default: '2' },
    parallelism: { type: 'string', default: '2' },
    smoke: { type: 'boolean', default: false },
  },
});
const jobsets = args.smoke ? 50 : Number(args.jobsets);
const replicas = Number(args.replicas);
const parallelism = Number(args.parallelism);
const podsPer = replicas * parallelism;

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) {
  process.stderr.write('run with node --expose-gc (npm run bench:memory does)\n');
  process.exit(2);
}

const T0 = Date.UTC(2026, 0, 1);
const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
let rv = 1_000;
const fields = (n: number): Record<string, unknown> => Object.fromEntries(Array.from({ length: n }, (_, i) => [`f:field-${i}`, { '.': {}, [`f:sub-${i}`]: {} }]));
const managedFields = (manager: string, at: number, n: number): unknown => ({
  manager,
  operation: 'Update',
  apiVersion: 'v1',
  time: iso(at),
  fieldsType: 'FieldsV1',
  fieldsV1: fields(n),
});

function nodeObject(name: string, at: number, ready: boolean): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      uid: `uid-${name}`,
      resourceVersion: String(++rv),
      creationTimestamp: iso(T0),
      labels: {
        'kubernetes.io/hostname': name,
        'kubernetes.io/arch': 'amd64',
        'kubernetes.io/os': 'linux',
        'node.kubernetes.io/instance-type': 'ct5p-hightpu-4t',
        'topology.kubernetes.io/region': 'us-east5',
        'topology.kubernetes.io/zone': 'us-east5-a',
        'cloud.google.com/gke-nodepool': `pool-${name.slice(0, -2)}`,
        'cloud.google.com/gke-tpu-accelerator': 'tpu-v5p-slice',
        'cloud.google.com/gke-tpu-topology': '2x2x2',
        'cloud.google.com/machine-family': 'ct5p',
        'cloud.google.com/gke-os-distribution': 'cos',
        'cloud.google.com/gke-boot-disk': 'pd-balanced',
        'cloud.google.com/gke-container-runtime': 'containerd',
        'cloud.google.com/gke-placement-group': `pg-${name.slice(0, -2)}`,
      },
      annotations: {
        'container.googleapis.com/instance_id': String(1e15 + rv),
        'node.alpha.kubernetes.io/ttl': '0',
        'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
        'csi.volume.kubernetes.io/nodeid': JSON.stringify({ 'pd.csi.storage.gke.io': `projects/p/zones/us-east5-a/instances/${name}` }),
      },
      managedFields: [managedFields('kubelet', T0, 12), managedFields('kube-controller-manager', T0, 4), managedFields('node-problem-detector', at, 8)],
    },
    spec: { podCIDR: '10.4.0.0/24', podCIDRs: ['10.4.0.0/24'], providerID: `gce://p/us-east5-a/${name}` },
    status: {
      capacity: { cpu: '208', 'ephemeral-storage': '98831908Ki', 'google.com/tpu': '4', memory: '464015256Ki', pods: '110' },
      allocatable: { cpu: '207690m', 'ephemeral-storage': '47060071478', 'google.com/tpu': '4', memory: '451543448Ki', pods: '110' },
      conditions: [
        ...['FrequentUnregisterNetDevice', 'KernelDeadlock', 'FrequentKubeletRestart', 'FrequentContainerdRestart', 'ReadonlyFilesystem', 'FrequentDockerRestart'].map((type) => ({
          type,
          status: 'False',
          lastHeartbeatTime: iso(at),
          lastTransitionTime: iso(T0),
          reason: `No${type}`,
          message: `node is functioning properly (${type})`,
        })),
        ...['MemoryPressure', 'DiskPressure', 'PIDPressure'].map((type) => ({ type, status: 'False', lastHeartbeatTime: iso(at), lastTransitionTime: iso(T0), reason: `KubeletHasNo${type}`, message: `kubelet has no ${type}` })),
        { type: 'Ready', status: ready ? 'True' : 'False', lastHeartbeatTime: iso(at), lastTransitionTime: iso(T0), reason: ready ? 'KubeletReady' : 'KubeletNotReady', message: ready ? 'kubelet is posting ready status' : 'container runtime is down' },
      ],
      addresses: [
        { type: 'InternalIP', address: '10.128.0.12' },
        { type: 'ExternalIP', address: '34.1.2.3' },
        { type: 'Hostname', address: name },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        machineID: 'a1b2c3d4e5f60718293a4b5c6d7e8f90',
        systemUUID: 'a1b2c3d4-e5f6-0718-293a-4b5c6d7e8f90',
        bootID: 'b2c3d4e5-f607-1829-3a4b-5c6d7e8f9001',
        kernelVersion: '6.1.100+',
        osImage: 'Container-Optimized OS from Google',
        containerRuntimeVersion: 'containerd://1.7.24',
        kubeletVersion: 'v1.32.2-gke.1182003',
        kubeProxyVersion: 'v1.32.2-gke.1182003',
        operatingSystem: 'linux',
        architecture: 'amd64',
      },
      images: Array.from({ length: 24 }, (_, i) => ({
        names: [`us-docker.pkg.dev/project/images/component-${i}@sha256:${'0123456789abcdef'.repeat(4)}`, `us-docker.pkg.dev/project/images/component-${i}:v1.${i}.0`],
        sizeBytes: 100_000_000 + i * 1_234_567,
      })),
    },
  };
}

type PodPhase = 'pending' | 'scheduled' | 'running' | 'oom';

function podObject(js: number, rj: number, job: number, completion: number, attempt: number, node: string, phase: PodPhase, at: number): KubeObject {
  const jobset = `train-${js}`;
  const name = `${jobset}-rj${rj}-${job}-${completion}-${attempt}`;
  const scheduled = phase !== 'pending';
  const running = phase === 'running';
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: `team-${js % 4}`,
      uid: `uid-${name}`,
      resourceVersion: String(++rv),
      creationTimestamp: iso(at),
      labels: {
        'jobset.sigs.k8s.io/jobset-name': jobset,
        'jobset.sigs.k8s.io/jobset-uid': `uid-js-${js}`,
        'jobset.sigs.k8s.io/replicatedjob-name': `rj${rj}`,
        'jobset.sigs.k8s.io/job-index': String(job),
        'jobset.sigs.k8s.io/job-key': `${'f'.repeat(40)}${js}`,
        'jobset.sigs.k8s.io/restart-attempt': String(attempt),
        'batch.kubernetes.io/job-completion-index': String(completion),
        'batch.kubernetes.io/controller-uid': `uid-job-${js}-${rj}-${job}`,
        'batch.kubernetes.io/job-name': `${jobset}-rj${rj}-${job}`,
        'controller-uid': `uid-job-${js}-${rj}-${job}`,
        'job-name': `${jobset}-rj${rj}-${job}`,
      },
      annotations: {
        'batch.kubernetes.io/job-completion-index': String(completion),
        'jobset.sigs.k8s.io/jobset-name': jobset,
        'jobset.sigs.k8s.io/replicatedjob-replicas': String(replicas),
        'jobset.sigs.k8s.io/job-index': String(job),
      },
      ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: `${jobset}-rj${rj}-${job}`, uid: `uid-job-${js}-${rj}-${job}`, controller: true, blockOwnerDeletion: true }],
      managedFields: [managedFields('kube-controller-manager', at, 10), ...(scheduled ? [managedFields('kubelet', at, 14)] : [])],
    },
    spec: {
      ...(scheduled ? { nodeName: node } : {}),
      restartPolicy: 'Never',
      subdomain: jobset,
      hostname: `${jobset}-rj${rj}-${job}-${completion}`,
      nodeSelector: { 'cloud.google.com/gke-tpu-accelerator': 'tpu-v5p-slice', 'cloud.google.com/gke-tpu-topology': '2x2x2' },
      tolerations: [
        { key: 'google.com/tpu', operator: 'Exists', effect: 'NoSchedule' },
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      ],
      containers: [
        {
          name: 'main',
          image: 'us-docker.pkg.dev/project/images/trainer:2026-01-01',
          command: ['python3', '-m', 'trainer.main'],
          args: ['--config=/etc/config/run.yaml', `--run=${jobset}`, '--checkpoint-dir=gs://bucket/checkpoints'],
          env: Array.from({ length: 16 }, (_, i) => ({ name: `TRAINER_SETTING_${i}`, value: `value-${i}-${'x'.repeat(24)}` })),
          resources: { limits: { 'google.com/tpu': '4' }, requests: { 'google.com/tpu': '4', cpu: '8', memory: '64Gi' } },
          ports: [{ containerPort: 8471, protocol: 'TCP' }, { containerPort: 8080, protocol: 'TCP' }],
          volumeMounts: [
            { name: 'config', mountPath: '/etc/config' },
            { name: 'kube-api-access', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true },
          ],
          terminationMessagePath: '/dev/termination-log',
          terminationMessagePolicy: 'File',
          imagePullPolicy: 'IfNotPresent',
        },
      ],
      volumes: [
        { name: 'config', configMap: { name: `${jobset}-config`, defaultMode: 420 } },
        { name: 'kube-api-access', projected: { defaultMode: 420, sources: [{ serviceAccountToken: { expirationSeconds: 3607, path: 'token' } }, { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } }] } },
      ],
      schedulerName: 'default-scheduler',
      serviceAccountName: 'default',
      priority: 0,
      enableServiceLinks: true,
      preemptionPolicy: 'PreemptLowerPriority',
    },
    status: {
      phase: phase === 'oom' ? 'Failed' : running ? 'Running' : 'Pending',
      conditions: [
        { type: 'PodScheduled', status: scheduled ? 'True' : 'False', lastTransitionTime: iso(at) },
        ...(scheduled ? [{ type: 'Initialized', status: 'True', lastTransitionTime: iso(at) }] : []),
        ...(scheduled ? [{ type: 'ContainersReady', status: running ? 'True' : 'False', lastTransitionTime: iso(at) }] : []),
        ...(scheduled ? [{ type: 'Ready', status: running ? 'True' : 'False', lastTransitionTime: iso(at) }] : []),
      ],
      ...(scheduled ? { hostIP: '10.128.0.12', podIP: '10.4.0.17', podIPs: [{ ip: '10.4.0.17' }], startTime: iso(at) } : {}),
      ...(scheduled
        ? {
            containerStatuses: [
              {
                name: 'main',
                image: 'us-docker.pkg.dev/project/images/trainer:2026-01-01',
                imageID: `us-docker.pkg.dev/project/images/trainer@sha256:${'0123456789abcdef'.repeat(4)}`,
                containerID: `containerd://${'abcdef0123456789'.repeat(4)}`,
                ready: running,
                started: running,
                restartCount: 0,
                state:
                  phase === 'oom'
                    ? { terminated: { exitCode: 137, reason: 'OOMKilled', startedAt: iso(at - 60_000), finishedAt: iso(at) } }
                    : running
                      ? { running: { startedAt: iso(at) } }
                      : { waiting: { reason: 'ContainerCreating' } },
              },
            ],
          }
        : {}),
      qosClass: 'Burstable',
    },
  };
}

function jobsetObject(js: number, at: number, ready: number, restarts: number): KubeObject {
  const rjs = Array.from({ length: 1 }, (_, i) => i);
  return {
    apiVersion: 'jobset.x-k8s.io/v1alpha2',
    kind: 'JobSet',
    metadata: { name: `train-${js}`, namespace: `team-${js % 4}`, uid: `uid-js-${js}`, resourceVersion: String(++rv), creationTimestamp: iso(T0 + js * 50), labels: { team: `team-${js % 4}` } },
    spec: {
      replicatedJobs: rjs.map((i) => ({
        name: `rj${i}`,
        replicas,
        template: { spec: { parallelism, completions: parallelism, template: { spec: { nodeSelector: { 'cloud.google.com/gke-tpu-accelerator': 'tpu-v5p-slice' } } } } },
      })),
    },
    status: { restarts, replicatedJobsStatus: [{ name: 'rj0', ready, succeeded: 0, failed: 0, active: replicas, suspended: 0 }], conditions: [] },
  };
}

interface Event {
  at: number;
  type: ObservationType;
  make: () => KubeObject;
}

/** The fleet's watch events, in time order; objects are made (as JSON, then parsed) only when fed. */
function fleet(): Event[] {
  const events: Event[] = [];
  for (let js = 0; js < jobsets; js++) {
    const t = T0 + js * 50;
    const nodes = Array.from({ length: podsPer }, (_, k) => `node-${js}-${String(k).padStart(2, '0')}`);
    for (const n of nodes) events.push({ at: t, type: 'ADDED', make: () => nodeObject(n, t, true) });
    events.push({ at: t + 1_000, type: 'ADDED', make: () => jobsetObject(js, t + 1_000, 0, 0) });
    for (let k = 0; k < podsPer; k++) {
      const job = Math.floor(k / parallelism);
      const completion = k % parallelism;
      const node = nodes[k]!;
      events.push({ at: t + 2_000, type: 'ADDED', make: () => podObject(js, 0, job, completion, 0, node, 'pending', t + 2_000) });
      events.push({ at: t + 3_000, type: 'MODIFIED', make: () => podObject(js, 0, job, completion, 0, node, 'scheduled', t + 3_000) });
      events.push({ at: t + 60_000, type: 'MODIFIED', make: () => podObject(js, 0, job, completion, 0, node, 'running', t + 60_000) });
    }
    events.push({ at: t + 61_000, type: 'MODIFIED', make: () => jobsetObject(js, t + 61_000, replicas, 0) });
    for (const n of nodes) events.push({ at: t + 300_000, type: 'MODIFIED', make: () => nodeObject(n, t + 300_000, true) });
    if (js % 10 === 0) {
      const node = nodes[0]!;
      const at = t + 600_000;
      events.push({ at, type: 'MODIFIED', make: () => podObject(js, 0, 0, 0, 0, node, 'oom', at) });
      events.push({ at: at + 1_000, type: 'MODIFIED', make: () => jobsetObject(js, at + 1_000, 0, 1) });
      events.push({ at: at + 2_000, type: 'DELETED', make: () => podObject(js, 0, 0, 0, 0, node, 'oom', at) });
      events.push({ at: at + 3_000, type: 'ADDED', make: () => podObject(js, 0, 0, 0, 1, node, 'scheduled', at + 3_000) });
      events.push({ at: at + 60_000, type: 'MODIFIED', make: () => podObject(js, 0, 0, 0, 1, node, 'running', at + 60_000) });
      events.push({ at: at + 61_000, type: 'MODIFIED', make: () => jobsetObject(js, at + 61_000, replicas, 1) });
    }
  }
  // Stable: a JobSet's events at one time keep their order.
  return events.sort((a, b) => a.at - b.at);
}

const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
function settled(): NodeJS.MemoryUsage {
  for (let i = 0; i < 3; i++) gc!();
  return process.memoryUsage();
}

const events = fleet();
const engine = new ClusterEngine();
const before = settled();
let bytes = 0;
const started = performance.now();
for (const e of events) {
  // Each watch event is its own JSON document: parsed objects share nothing, as from the watcher.
  const json = JSON.stringify(e.make());
  bytes += json.length;
  const observation: Observation = { receivedAt: e.at, type: e.type, object: JSON.parse(json) as KubeObject };
  engine.observe(observation);
}
const seconds = (performance.now() - started) / 1000;
const after = settled();

const counts = engine.counts;
const up = engine.nodeLayer.timelines().filter((tl) => tl.transitions.at(-1)?.state === 'up').length;
const log = (line: string): void => void process.stdout.write(`${line}\n`);
log(`Upness memory benchmark — Node ${process.version}`);
log(`fleet: ${jobsets.toLocaleString('en-US')} JobSets × ${replicas} replicas × ${parallelism} parallelism: ${counts.pods.toLocaleString('en-US')} pods and ${counts.nodes.toLocaleString('en-US')} nodes alive at the end`);
log(`observed: ${counts.observations.toLocaleString('en-US')} watch events, ${mib(bytes)} of JSON (${Math.round(bytes / events.length).toLocaleString('en-US')} bytes each on average) in ${seconds.toFixed(1)} s`);
log(`node layer: ${up.toLocaleString('en-US')} of ${engine.nodeLayer.timelines().length.toLocaleString('en-US')} up at the end`);
log(`after a full GC, before the fleet: rss ${mib(before.rss)}, heapUsed ${mib(before.heapUsed)}`);
log(`after a full GC, after the fleet:  rss ${mib(after.rss)}, heapUsed ${mib(after.heapUsed)}`);
log(`held by the engine: rss +${mib(after.rss - before.rss)}, heapUsed +${mib(after.heapUsed - before.heapUsed)}`);
// Keeps the engine reachable until measured (and checks it saw the whole fleet).
if (counts.jobsets !== jobsets || up !== jobsets) {
  process.stderr.write(`expected ${jobsets} JobSets with their node layer up, got ${counts.jobsets} and ${up}\n`);
  process.exit(1);
}
