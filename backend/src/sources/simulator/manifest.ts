// What a simulated JobSet looks like: the object types (as the API server returns them, without
// managedFields) and the manifests users submit — TPU multislice, GPU, and driver + workers.
// Types are aliases, not interfaces, so they are assignable to the index-signed KubeObject.

import type { Rng } from './rng.ts';

export type Condition = {
  readonly type: 'Suspended' | 'Completed' | 'Failed';
  readonly status: 'True' | 'False';
  readonly lastTransitionTime: string;
  readonly reason: string;
  readonly message: string;
};

export type ReplicatedJobStatus = {
  name: string;
  ready: number;
  succeeded: number;
  failed: number;
  active: number;
  suspended: number;
};

export type JobSetStatus = {
  conditions: readonly Condition[];
  restarts: number;
  restartsCountTowardsMax: number;
  replicatedJobsStatus: ReplicatedJobStatus[];
  terminalState?: 'Completed' | 'Failed';
};

type Json = string | number | boolean | null | readonly Json[] | { readonly [key: string]: Json };

export type ReplicatedJobSpec = {
  readonly name: string;
  readonly replicas: number;
  readonly template: { readonly [key: string]: Json };
};

export type JobSetSpec = {
  readonly replicatedJobs: readonly ReplicatedJobSpec[];
  readonly network: { readonly [key: string]: Json };
  readonly successPolicy: { readonly [key: string]: Json };
  readonly failurePolicy: { readonly maxRestarts: number; readonly [key: string]: Json };
  readonly startupPolicy: { readonly [key: string]: Json };
  readonly suspend: boolean;
};

export type JobSetMetadata = {
  name: string;
  namespace: string;
  uid: string;
  resourceVersion: string;
  generation: number;
  creationTimestamp: string;
  labels: Readonly<Record<string, string>>;
  annotations?: Readonly<Record<string, string>>;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
};

export type JobSetObject = {
  apiVersion: 'jobset.x-k8s.io/v1alpha2';
  kind: 'JobSet';
  metadata: JobSetMetadata;
  spec: JobSetSpec;
  status: JobSetStatus;
};

export type ShapeKind = 'tpu-multislice' | 'gpu' | 'driver-workers';

/** Everything about a JobSet that stays the same across its life, and across a same-name re-creation. */
export type Manifest = {
  readonly kind: ShapeKind;
  readonly name: string;
  readonly namespace: string;
  readonly labels: Readonly<Record<string, string>>;
  /** Submitted through Kueue: created suspended, can be preempted. */
  readonly queued: boolean;
  readonly replicatedJobNames: readonly string[];
  readonly replicas: readonly number[];
  readonly totalReplicas: number;
  /** Index of the replicated job that finishes last at completion (the driver), or -1. */
  readonly finishesLast: number;
  readonly maxRestarts: number;
  readonly accelerator: string | null;
  readonly topology: string | null;
  /** Goodput truth (issue 13 §3): the accelerators the pod templates hold, as the simulator chose them. */
  readonly accelerators: number;
  /** Job size truth (issue 20 §3): the pods its replicated jobs run at once, as the simulator chose them. */
  readonly pods: number;
  /** The `upness.dev/checkpoint-interval` annotation it carries, and its length in ms; null: none. */
  readonly checkpointInterval: { readonly text: string; readonly ms: number } | null;
  readonly specRunning: JobSetSpec;
  readonly specSuspended: JobSetSpec;
  // JSON text of the parts above that every observation repeats, for the trace-line fast path.
  readonly specRunningJson: string;
  readonly specSuspendedJson: string;
  readonly labelsJson: string;
  readonly replicatedJobNamesJson: readonly string[];
};

export type NamespaceSetup = { readonly name: string; readonly queue: string | null; readonly weight: number };

export const NAMESPACES: readonly NamespaceSetup[] = [
  { name: 'team-a', queue: 'team-a-tpu', weight: 3 },
  { name: 'team-b', queue: null, weight: 3 },
  { name: 'research', queue: 'research-shared', weight: 2 },
  { name: 'ml-platform', queue: null, weight: 1 },
];

export const PROJECTS: readonly string[] = [
  'llama3-8b',
  'llama3-70b',
  'gemma2-9b',
  'gemma2-27b',
  'mixtral-8x7b',
  't5-xl',
  'vit-l16',
  'resnet50',
];

const TASKS: readonly string[] = ['pretrain', 'sft', 'dpo', 'eval', 'bench', 'ablation', 'distill'];

type TpuType = { readonly accelerator: string; readonly topologies: readonly string[] };
const TPUS: readonly TpuType[] = [
  { accelerator: 'tpu-v5p-slice', topologies: ['2x2x2', '2x2x4', '2x4x4'] },
  { accelerator: 'tpu-v5-lite-podslice', topologies: ['2x4', '4x4', '4x8'] },
];
const GPUS: readonly string[] = ['nvidia-h100-80gb', 'nvidia-h100-80gb', 'nvidia-a100-80gb'];

/** Hosts (pods) per TPU slice: four chips per host. */
function hostsOf(topology: string): number {
  let chips = 1;
  for (const d of topology.split('x')) chips *= Number(d);
  return Math.max(1, chips / 4);
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

function env(pairs: Record<string, string>): Json[] {
  return Object.entries(pairs).map(([name, value]) => ({ name, value }));
}

const ANNOTATE_EXCLUSIVE = { 'alpha.jobset.sigs.k8s.io/exclusive-topology': 'cloud.google.com/gke-nodepool' };

function tpuSliceJob(name: string, replicas: number, tpu: TpuType, topology: string, project: string): ReplicatedJobSpec {
  const hosts = hostsOf(topology);
  return {
    name,
    replicas,
    template: {
      metadata: { annotations: ANNOTATE_EXCLUSIVE },
      spec: {
        parallelism: hosts,
        completions: hosts,
        backoffLimit: 0,
        completionMode: 'Indexed',
        template: {
          metadata: { labels: { 'ml.example.com/project': project } },
          spec: {
            hostNetwork: true,
            dnsPolicy: 'ClusterFirstWithHostNet',
            restartPolicy: 'Never',
            terminationGracePeriodSeconds: 30,
            priorityClassName: 'training',
            nodeSelector: {
              'cloud.google.com/gke-tpu-accelerator': tpu.accelerator,
              'cloud.google.com/gke-tpu-topology': topology,
            },
            tolerations: [{ key: 'google.com/tpu', operator: 'Exists', effect: 'NoSchedule' }],
            containers: [
              {
                name: 'jax-tpu',
                image: 'us-docker.pkg.dev/example-ml/images/maxtext:2026.01.2',
                imagePullPolicy: 'IfNotPresent',
                command: ['bash', '-c'],
                args: [
                  `python3 -u -m MaxText.train MaxText/configs/base.yml run_name=$(JOBSET_NAME) model_name=${project} ` +
                    `base_output_directory=gs://example-ml-checkpoints/${project} dataset_path=gs://example-ml-data ` +
                    `steps=40000 per_device_batch_size=4 dcn_data_parallelism=${replicas} ici_fsdp_parallelism=-1 ` +
                    'enable_checkpointing=true checkpoint_period=500',
                ],
                env: env({
                  JAX_PLATFORMS: 'tpu,cpu',
                  TPU_STDERR_LOG_LEVEL: '0',
                  TPU_MIN_LOG_LEVEL: '0',
                  LIBTPU_INIT_ARGS: '--xla_tpu_enable_async_collective_fusion=true --xla_enable_async_all_gather=true',
                }),
                ports: [
                  { containerPort: 8471, protocol: 'TCP' },
                  { containerPort: 8080, protocol: 'TCP' },
                ],
                resources: { requests: { 'google.com/tpu': '4' }, limits: { 'google.com/tpu': '4' } },
                securityContext: { privileged: true },
                volumeMounts: [{ name: 'dshm', mountPath: '/dev/shm' }],
              },
            ],
            volumes: [{ name: 'dshm', emptyDir: { medium: 'Memory' } }],
          },
        },
      },
    },
  };
}

function gpuWorkersJob(name: string, replicas: number, nodes: number, gpu: string, project: string): ReplicatedJobSpec {
  return {
    name,
    replicas,
    template: {
      metadata: { annotations: ANNOTATE_EXCLUSIVE },
      spec: {
        parallelism: nodes,
        completions: nodes,
        backoffLimit: 0,
        completionMode: 'Indexed',
        template: {
          metadata: { labels: { 'ml.example.com/project': project } },
          spec: {
            restartPolicy: 'Never',
            terminationGracePeriodSeconds: 60,
            priorityClassName: 'training',
            nodeSelector: { 'cloud.google.com/gke-accelerator': gpu },
            tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }],
            containers: [
              {
                name: 'pytorch',
                image: 'nvcr.io/nvidia/pytorch:25.12-py3',
                imagePullPolicy: 'IfNotPresent',
                command: ['torchrun'],
                args: [
                  `--nnodes=${replicas * nodes}`,
                  '--nproc-per-node=8',
                  '--rdzv-backend=c10d',
                  `--rdzv-endpoint=$(JOBSET_NAME)-${name}-0-0.$(JOBSET_NAME):29500`,
                  'train.py',
                  `--model=${project}`,
                  '--checkpoint-dir=/checkpoints',
                ],
                env: env({
                  NCCL_DEBUG: 'WARN',
                  NCCL_SOCKET_IFNAME: 'eth0',
                  TORCH_DISTRIBUTED_DEBUG: 'OFF',
                  PYTORCH_CUDA_ALLOC_CONF: 'expandable_segments:True',
                }),
                ports: [{ containerPort: 29500, protocol: 'TCP' }],
                resources: {
                  requests: { cpu: '200', memory: '1800Gi', 'nvidia.com/gpu': '8' },
                  limits: { 'nvidia.com/gpu': '8' },
                },
                volumeMounts: [
                  { name: 'dshm', mountPath: '/dev/shm' },
                  { name: 'checkpoints', mountPath: '/checkpoints' },
                ],
              },
            ],
            volumes: [
              { name: 'dshm', emptyDir: { medium: 'Memory' } },
              { name: 'checkpoints', persistentVolumeClaim: { claimName: `${project}-checkpoints` } },
            ],
          },
        },
      },
    },
  };
}

function driverJob(project: string): ReplicatedJobSpec {
  return {
    name: 'driver',
    replicas: 1,
    template: {
      spec: {
        parallelism: 1,
        completions: 1,
        backoffLimit: 0,
        template: {
          spec: {
            restartPolicy: 'Never',
            nodeSelector: { 'cloud.google.com/gke-nodepool': 'cpu-pool' },
            containers: [
              {
                name: 'driver',
                image: 'us-docker.pkg.dev/example-ml/images/driver:2026.01.2',
                command: ['python3', '-m', 'trainer.driver'],
                args: [`--project=${project}`, '--workers=$(JOBSET_NAME)-workers', '--port=6000'],
                ports: [{ containerPort: 6000, protocol: 'TCP' }],
                resources: { requests: { cpu: '4', memory: '16Gi' }, limits: { memory: '16Gi' } },
              },
            ],
          },
        },
      },
    },
  };
}

function jobsetSpec(replicatedJobs: ReplicatedJobSpec[], successTargets: string[] | null, maxRestarts: number): JobSetSpec {
  return {
    replicatedJobs,
    network: { enableDNSHostnames: true, publishNotReadyAddresses: true },
    successPolicy: successTargets === null ? { operator: 'All' } : { operator: 'All', targetReplicatedJobs: successTargets },
    failurePolicy: {
      maxRestarts,
      restartStrategy: 'Recreate',
      rules: [
        { name: 'maintenance', action: 'RestartJobSetAndIgnoreMaxRestarts', onJobFailureReasons: ['PodFailurePolicy'] },
      ],
    },
    startupPolicy: { startupPolicyOrder: 'AnyOrder' },
    suspend: false,
  };
}

type Specs = {
  readonly specRunning: JobSetSpec;
  readonly specSuspended: JobSetSpec;
  readonly specRunningJson: string;
  readonly specSuspendedJson: string;
};

// Specs depend only on a handful of drawn parameters, so JobSets share them (a few thousand at most):
// building and freezing a spec per JobSet would cost more than all of its observations.
const SPECS = new Map<string, Specs>();
// The JSON text of each shared spec, so serializing an observation need not walk it again.
const SPEC_JSON = new WeakMap<object, string>();

function sharedSpecs(key: string, build: () => { jobs: ReplicatedJobSpec[]; successTargets: string[] | null; maxRestarts: number }): Specs {
  let specs = SPECS.get(key);
  if (specs === undefined) {
    const { jobs, successTargets, maxRestarts } = build();
    const specRunning = deepFreeze(jobsetSpec(jobs, successTargets, maxRestarts));
    const specSuspended = Object.freeze({ ...specRunning, suspend: true });
    const specRunningJson = JSON.stringify(specRunning);
    const specSuspendedJson = JSON.stringify(specSuspended);
    SPEC_JSON.set(specRunning, specRunningJson);
    SPEC_JSON.set(specSuspended, specSuspendedJson);
    specs = { specRunning, specSuspended, specRunningJson, specSuspendedJson };
    SPECS.set(key, specs);
  }
  return specs;
}

/** JSON.stringify(spec) for a spec the simulator made, else undefined. */
export function specJson(spec: unknown): string | undefined {
  return typeof spec === 'object' && spec !== null ? SPEC_JSON.get(spec) : undefined;
}

/** A new manifest, as a user of `namespace` would submit it. `name` must be unique in the namespace. */
export function newManifest(rng: Rng, name: string, project: string, task: string, ns: NamespaceSetup): Manifest {
  const kind = rng.weighted<ShapeKind>(['tpu-multislice', 'gpu', 'driver-workers'], [0.45, 0.35, 0.2]);
  const maxRestarts = rng.weighted([3, 5, 10], [0.3, 0.4, 0.3]);
  let specs: Specs;
  let accelerator: string;
  let topology: string | null = null;
  let finishesLast = -1;
  // Chips per TPU host and GPUs per node, as the pod templates below ask for them.
  let accelerators: number;
  let pods: number;
  if (kind === 'tpu-multislice') {
    const tpu = rng.pick(TPUS);
    const topo = rng.pick(tpu.topologies);
    const slices = rng.int(2, 8);
    topology = topo;
    accelerator = tpu.accelerator;
    accelerators = slices * hostsOf(topo) * 4;
    // A pod per TPU host of each slice.
    pods = slices * hostsOf(topo);
    specs = sharedSpecs(`${kind}/${project}/${accelerator}/${topo}/${slices}/${maxRestarts}`, () => ({
      jobs: [tpuSliceJob('slice', slices, tpu, topo, project)],
      successTargets: null,
      maxRestarts,
    }));
  } else if (kind === 'gpu') {
    const gpu = rng.pick(GPUS);
    const replicas = rng.int(1, 4);
    const nodes = rng.int(1, 2);
    accelerator = gpu;
    accelerators = replicas * nodes * 8;
    pods = replicas * nodes;
    specs = sharedSpecs(`${kind}/${project}/${gpu}/${replicas}/${nodes}/${maxRestarts}`, () => ({
      jobs: [gpuWorkersJob('workers', replicas, nodes, gpu, project)],
      successTargets: null,
      maxRestarts,
    }));
  } else {
    // The driver runs on CPU; the workers are on TPU or GPU, and the JobSet succeeds with the driver.
    finishesLast = 0;
    const workers = rng.int(2, 6);
    if (rng.chance(0.5)) {
      const tpu = rng.pick(TPUS);
      const topo = rng.pick(tpu.topologies);
      topology = topo;
      accelerator = tpu.accelerator;
      accelerators = workers * hostsOf(topo) * 4;
      // The driver's pod, and one per TPU host of each worker slice.
      pods = 1 + workers * hostsOf(topo);
      specs = sharedSpecs(`${kind}/${project}/${accelerator}/${topo}/${workers}/${maxRestarts}`, () => ({
        jobs: [driverJob(project), tpuSliceJob('workers', workers, tpu, topo, project)],
        successTargets: ['driver'],
        maxRestarts,
      }));
    } else {
      const gpu = rng.pick(GPUS);
      accelerator = gpu;
      accelerators = workers * 8;
      pods = 1 + workers;
      specs = sharedSpecs(`${kind}/${project}/${gpu}/${workers}/${maxRestarts}`, () => ({
        jobs: [driverJob(project), gpuWorkersJob('workers', workers, 1, gpu, project)],
        successTargets: ['driver'],
        maxRestarts,
      }));
    }
  }
  const labels: Record<string, string> = {
    'app.kubernetes.io/name': project,
    'app.kubernetes.io/component': 'training',
    'ml.example.com/team': ns.name,
    'ml.example.com/task': task,
  };
  if (ns.queue !== null) labels['kueue.x-k8s.io/queue-name'] = ns.queue;
  const jobs = specs.specRunning.replicatedJobs;
  const replicas = Object.freeze(jobs.map((j) => j.replicas));
  // Multi-slice TPU runs declare a 30 min checkpoint interval, the driver-led ones 1 h, plain GPU
  // runs none (no draw from the stream: adding it changed no other choice of the simulator).
  const checkpointInterval =
    kind === 'tpu-multislice' ? { text: '30m', ms: 30 * 60_000 } : kind === 'driver-workers' ? { text: '1h', ms: 60 * 60_000 } : null;
  return Object.freeze({
    kind,
    name,
    namespace: ns.name,
    labels: Object.freeze(labels),
    queued: ns.queue !== null,
    replicatedJobNames: Object.freeze(jobs.map((j) => j.name)),
    replicas,
    totalReplicas: replicas.reduce((a, b) => a + b, 0),
    finishesLast,
    maxRestarts,
    accelerator,
    topology,
    accelerators,
    pods,
    checkpointInterval: checkpointInterval === null ? null : Object.freeze(checkpointInterval),
    specRunning: specs.specRunning,
    specSuspended: specs.specSuspended,
    specRunningJson: specs.specRunningJson,
    specSuspendedJson: specs.specSuspendedJson,
    labelsJson: JSON.stringify(labels),
    replicatedJobNamesJson: Object.freeze(jobs.map((j) => JSON.stringify(j.name))),
  });
}

/** A task name for a new JobSet of a project. */
export function pickTask(rng: Rng): string {
  return rng.pick(TASKS);
}
