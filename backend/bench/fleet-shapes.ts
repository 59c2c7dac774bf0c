// Kube-shaped JobSets, Pods and Nodes of a realistic size (managedFields, containers with env, a
// node's images, conditions, ...), shared by the benchmarks that need a fleet: bench:memory feeds
// them to the engine, bench:watch creates them in a real kube-apiserver.

import type { KubeObject } from '../src/observation/types.ts';

export const T0 = Date.UTC(2026, 0, 1);
export const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

export type PodPhase = 'pending' | 'scheduled' | 'running' | 'oom';

export interface FleetShapes {
  nodeObject(name: string, at: number, ready: boolean): KubeObject;
  podObject(js: number, rj: number, job: number, completion: number, attempt: number, node: string, phase: PodPhase, at: number): KubeObject;
  jobsetObject(js: number, at: number, ready: number, restarts: number): KubeObject;
}

/** The object makers for JobSets of `replicas` × `parallelism` pods; each object made gets the next resourceVersion. */
export function fleetShapes({ replicas, parallelism }: { replicas: number; parallelism: number }): FleetShapes {
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
          'cloud.google.com/gke-nodepool': `pool-${name.slice(0, -3)}`,
          'cloud.google.com/gke-tpu-accelerator': 'tpu-v5p-slice',
          'cloud.google.com/gke-tpu-topology': '2x2x2',
          'cloud.google.com/machine-family': 'ct5p',
          'cloud.google.com/gke-os-distribution': 'cos',
          'cloud.google.com/gke-boot-disk': 'pd-balanced',
          'cloud.google.com/gke-container-runtime': 'containerd',
          'cloud.google.com/gke-placement-group': `pg-${name.slice(0, -3)}`,
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

  return { nodeObject, podObject, jobsetObject };
}
