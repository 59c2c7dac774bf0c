// A real, throwaway Kubernetes control plane for tests: etcd + kube-apiserver on loopback, no
// controllers, no nodes, with the JobSet CRD installed. Binaries come from build.sh (built from
// pinned Go modules, cached under ~/.cache/upness); certificates are made with the openssl CLI.
//
//   const cluster = await startCluster();
//   const res = await cluster.request('GET', '/apis/jobset.x-k8s.io/v1alpha2/jobsets');
//   await cluster.stop();
//
// Without a controller-manager nothing reacts to objects: no Jobs/Pods are created for a JobSet,
// namespaces never finish deleting, and garbage collection does not happen. Tests write status
// through the /status subresource themselves.

import { execFile, spawn } from 'node:child_process';
import { ensureDebianPackages } from '../support/debian.ts';
import { spawnOwned } from '../support/processes.ts';
import type { ChildProcess } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { closeSync, openSync, readFileSync, rmSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { Agent, request as httpsRequest } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';

const execFileP = promisify(execFile);
const HERE = import.meta.dirname;

export interface ClusterOptions {
  /** Extra kube-apiserver flags, appended after the defaults (for scalar flags the last one wins),
   * e.g. ['--watch-cache=false', '--min-request-timeout=5']. */
  apiserverFlags?: string[];
  /** Extra etcd flags, appended after the defaults (the last one wins), e.g.
   * ['--auto-compaction-mode=revision', '--auto-compaction-retention=100']. */
  etcdFlags?: string[];
  /** Install the JobSet CRD and wait until it is served (default true). */
  installJobSetCrd?: boolean;
  /** Install Kueue's Workload CRD too (kueue.x-k8s.io, from the pinned sigs.k8s.io/kueue; default false). */
  installWorkloadCrd?: boolean;
  /** How long to wait for each component to become ready (default 60 s). */
  readyTimeoutMs?: number;
  /** Keep the temp dir (certificates, kubeconfig, etcd data, logs) after stop(). Default: the
   * UPNESS_KEEP_CLUSTER environment variable is set. */
  keepTempDir?: boolean;
  /** Progress messages (default: none). Build progress from build.sh always goes to stderr. */
  log?: (message: string) => void;
}

export interface RequestOptions {
  /** Default application/json; application/merge-patch+json for PATCH. */
  contentType?: string;
  /** Give up after this long (default 30 s), so a paused apiserver cannot hang a test forever. */
  timeoutMs?: number;
}

export interface ApiResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  json<T = unknown>(): T;
}

/** One of the two server processes. Its ports, flags and data survive stop()/start(). */
export interface ServerProcess {
  readonly name: string;
  /** pid of the running process, or undefined while it is stopped. */
  readonly pid: number | undefined;
  readonly running: boolean;
  /** The full argument list used by the next start(); replace it to restart with other flags. */
  args: string[];
  readonly logFile: string;
  /** Start again (same ports, same data) and wait until it is ready. */
  start(): Promise<void>;
  /** Send `signal` (SIGTERM: graceful, SIGKILL: crash) and wait for the exit; a process that does
   * not exit within `timeoutMs` (default 15 s) is killed. */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<void>;
  /** Send any signal without waiting, e.g. SIGSTOP / SIGCONT to freeze and thaw it. */
  signal(signal: NodeJS.Signals): void;
}

export interface Cluster {
  /** https://127.0.0.1:<port> */
  readonly server: string;
  readonly kubeconfigPath: string;
  /** PEM files: the throwaway CA, and the admin client certificate (O=system:masters). */
  readonly caFile: string;
  readonly clientCertFile: string;
  readonly clientKeyFile: string;
  /** The same PEMs as strings, for building your own https/TLS clients (e.g. for watches). */
  readonly tls: { ca: string; cert: string; key: string };
  /** http://127.0.0.1:<port>; etcd's JSON gateway is under /v3 (e.g. POST /v3/kv/compaction). */
  readonly etcdEndpoint: string;
  readonly tempDir: string;
  /** Directory holding the kube-apiserver and etcd binaries. */
  readonly binDir: string;
  readonly apiserver: ServerProcess;
  readonly etcd: ServerProcess;
  readonly apiserverPid: number | undefined;
  readonly etcdPid: number | undefined;
  /** A request to the apiserver as cluster admin. Objects are sent as JSON, strings as-is. */
  request(method: string, path: string, body?: unknown, options?: RequestOptions): Promise<ApiResponse>;
  /** Stop the apiserver (default SIGTERM) and start it again on the same port against the same etcd;
   * `flags` replaces the extra apiserver flags for the new process. */
  restartApiserver(options?: { signal?: NodeJS.Signals; flags?: string[] }): Promise<void>;
  stopApiserver(signal?: NodeJS.Signals): Promise<void>;
  startApiserver(): Promise<void>;
  /** SIGSTOP / SIGCONT: the process keeps its sockets but answers nothing. */
  pauseApiserver(): void;
  resumeApiserver(): void;
  restartEtcd(options?: { signal?: NodeJS.Signals }): Promise<void>;
  pauseEtcd(): void;
  resumeEtcd(): void;
  /** Kill both processes and remove the temp dir. Safe to call twice. */
  stop(): Promise<void>;
}

/** Where a running cluster is and how to reach it: what a test file needs to use a cluster that
 * another process started (test/support/shared-servers.ts), without control of its processes. */
export type ClusterAddress = Pick<Cluster, 'server' | 'kubeconfigPath' | 'caFile' | 'clientCertFile' | 'clientKeyFile' | 'tls' | 'etcdEndpoint' | 'tempDir' | 'binDir'>;

/** A cluster's address plus a cluster-admin client: the part of Cluster a file on a shared cluster gets. */
export type ClusterClient = ClusterAddress & Pick<Cluster, 'request'>;

export function addressOf(cluster: Cluster): ClusterAddress {
  const { server, kubeconfigPath, caFile, clientCertFile, clientKeyFile, tls, etcdEndpoint, tempDir, binDir } = cluster;
  return { server, kubeconfigPath, caFile, clientCertFile, clientKeyFile, tls, etcdEndpoint, tempDir, binDir };
}

/** A client of the cluster at `address` (as Cluster.request: cluster admin, no keep-alive); `destroy` frees its sockets. */
export function clusterClient(address: ClusterAddress): ClusterClient & { destroy(): void } {
  const agent = new Agent({ ...address.tls, keepAlive: false });
  return {
    ...address,
    request: (method, path, body, opts = {}) => apiRequest(agent, address.server, method, path, body, opts),
    destroy: () => agent.destroy(),
  };
}

/** Build (first time only, takes minutes) or find the binaries; returns their directory. */
export async function ensureBinaries(): Promise<string> {
  return runScript('build.sh');
}

/** Path of the JobSet CRD manifest at the pinned sigs.k8s.io/jobset version (see crd.sh). */
export async function jobsetCrdPath(): Promise<string> {
  return runScript('crd.sh');
}

/** Path of Kueue's Workload CRD manifest at the pinned sigs.k8s.io/kueue version (see crd.sh). */
export async function workloadCrdPath(): Promise<string> {
  return runScript('crd.sh', 'workload');
}

/** Run a script next to this file; its stderr (progress) goes to ours, its last stdout line is the result. */
function runScript(name: string, ...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(join(HERE, name), args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const result = out.trim().split('\n').pop() ?? '';
      if (code === 0 && result !== '') resolve(result);
      else reject(new Error(`${name} failed (exit code ${code})`));
    });
  });
}

export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const log = options.log ?? (() => {});
  const readyTimeoutMs = options.readyTimeoutMs ?? 60_000;
  const keepTempDir = options.keepTempDir ?? Boolean(process.env.UPNESS_KEEP_CLUSTER);
  const started = Date.now();

  const binDir = await ensureBinaries();
  await removeStaleTempDirs();
  const tempDir = await mkdtemp(join(tmpdir(), TEMP_PREFIX));
  let teardown = async () => {};
  try {
    await writeFile(join(tempDir, OWNER_FILE), String(process.pid));
    log(`cluster: temp dir ${tempDir}`);
    const pki = await makePki(tempDir);
    const [etcdPort, etcdPeerPort, apiPort] = await freePorts(3);
    const etcdEndpoint = `http://127.0.0.1:${etcdPort}`;
    const server = `https://127.0.0.1:${apiPort}`;
    const tls = {
      ca: readFileSync(pki.caFile, 'utf8'),
      cert: readFileSync(pki.clientCertFile, 'utf8'),
      key: readFileSync(pki.clientKeyFile, 'utf8'),
    };
    // No keep-alive: pooled sockets would break across apiserver restarts.
    const agent = new Agent({ ...tls, keepAlive: false });
    const request = (method: string, path: string, body?: unknown, opts: RequestOptions = {}) =>
      apiRequest(agent, server, method, path, body, opts);

    const peerUrl = `http://127.0.0.1:${etcdPeerPort}`;
    const etcd: Daemon = new Daemon('etcd', join(binDir, 'etcd'), join(tempDir, 'etcd.log'), [
      '--name=default',
      `--data-dir=${join(tempDir, 'etcd-data')}`,
      `--listen-client-urls=${etcdEndpoint}`,
      `--advertise-client-urls=${etcdEndpoint}`,
      `--listen-peer-urls=${peerUrl}`,
      `--initial-advertise-peer-urls=${peerUrl}`,
      `--initial-cluster=default=${peerUrl}`,
      '--log-level=warn',
      // A single member still waits out an election timeout (default 1 s) before it serves.
      '--heartbeat-interval=10',
      '--election-timeout=100',
      // Throwaway data: skipping fsync keeps slow CI disks from dominating every write.
      '--unsafe-no-fsync=true',
      ...(options.etcdFlags ?? []),
    ], () => waitUntil('etcd', readyTimeoutMs, etcd, async () => {
      const res = await fetch(`${etcdEndpoint}/health`, { signal: AbortSignal.timeout(2000) });
      return res.ok;
    }));

    const apiserverDefaults = [
      `--etcd-servers=${etcdEndpoint}`,
      '--bind-address=127.0.0.1',
      '--advertise-address=127.0.0.1',
      `--secure-port=${apiPort}`,
      `--tls-cert-file=${pki.serverCertFile}`,
      `--tls-private-key-file=${pki.serverKeyFile}`,
      `--client-ca-file=${pki.caFile}`,
      '--authorization-mode=RBAC',
      // Required even without controllers: the apiserver signs and verifies service account tokens.
      '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
      `--service-account-key-file=${pki.serviceAccountPublicKeyFile}`,
      `--service-account-signing-key-file=${pki.serviceAccountKeyFile}`,
      '--service-cluster-ip-range=10.0.0.0/24',
      // The default lease reconciler publishes the advertise address as the `kubernetes` Endpoints;
      // a loopback address is rejected there, and on shutdown it blocks trying to remove its lease.
      '--endpoint-reconciler-type=none',
    ];
    const apiserver: Daemon = new Daemon('kube-apiserver', join(binDir, 'kube-apiserver'), join(tempDir, 'kube-apiserver.log'),
      [...apiserverDefaults, ...(options.apiserverFlags ?? [])],
      () => waitUntil('kube-apiserver', readyTimeoutMs, apiserver, async () => {
        const res = await request('GET', '/readyz', undefined, { timeoutMs: 2000 });
        return res.status === 200;
      }));

    // Set up before starting anything, so a failure half-way still cleans up.
    teardown = async () => {
      forgetOnExit(tempDir);
      // Nothing is kept, so skip the apiserver's graceful shutdown (about a second).
      await apiserver.stop('SIGKILL');
      await etcd.stop('SIGTERM');
      agent.destroy();
      // A kept dir loses its owner file, so removeStaleTempDirs leaves it alone.
      await rm(keepTempDir ? join(tempDir, OWNER_FILE) : tempDir, { recursive: true, force: true });
    };
    rememberOnExit(tempDir, [apiserver, etcd], keepTempDir);

    log('cluster: starting etcd');
    await etcd.start();
    log(`cluster: etcd ready (${Date.now() - started} ms); starting kube-apiserver`);
    await apiserver.start();
    log(`cluster: kube-apiserver ready (${Date.now() - started} ms)`);

    const kubeconfigPath = join(tempDir, 'kubeconfig');
    await writeKubeconfig(kubeconfigPath, server, pki);

    if (options.installJobSetCrd ?? true) {
      await installCrd(request, await jobsetCrdPath(), readyTimeoutMs);
      log(`cluster: JobSet CRD established (${Date.now() - started} ms)`);
    }
    if (options.installWorkloadCrd === true) {
      await installCrd(request, await workloadCrdPath(), readyTimeoutMs);
      log(`cluster: Workload CRD established (${Date.now() - started} ms)`);
    }

    let stopping: Promise<void> | undefined;
    const stop = () => (stopping ??= teardown());

    return {
      server,
      kubeconfigPath,
      caFile: pki.caFile,
      clientCertFile: pki.clientCertFile,
      clientKeyFile: pki.clientKeyFile,
      tls,
      etcdEndpoint,
      tempDir,
      binDir,
      apiserver,
      etcd,
      get apiserverPid() {
        return apiserver.pid;
      },
      get etcdPid() {
        return etcd.pid;
      },
      request,
      async restartApiserver(opts = {}) {
        await apiserver.stop(opts.signal ?? 'SIGTERM');
        if (opts.flags) apiserver.args = [...apiserverDefaults, ...opts.flags];
        await apiserver.start();
      },
      stopApiserver: (signal = 'SIGTERM') => apiserver.stop(signal),
      startApiserver: () => apiserver.start(),
      pauseApiserver: () => apiserver.signal('SIGSTOP'),
      resumeApiserver: () => apiserver.signal('SIGCONT'),
      async restartEtcd(opts = {}) {
        await etcd.stop(opts.signal ?? 'SIGTERM');
        await etcd.start();
      },
      pauseEtcd: () => etcd.signal('SIGSTOP'),
      resumeEtcd: () => etcd.signal('SIGCONT'),
      stop,
    };
  } catch (err) {
    await teardown().catch(() => {});
    if (!keepTempDir) await rm(tempDir, { recursive: true, force: true });
    throw err;
  }
}

/** A long-running child process whose output is appended to a log file across restarts. */
class Daemon implements ServerProcess {
  readonly name: string;
  readonly logFile: string;
  args: string[];
  private readonly binary: string;
  private readonly waitReady: () => Promise<void>;
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();

  constructor(name: string, binary: string, logFile: string, args: string[], waitReady: () => Promise<void>) {
    this.name = name;
    this.binary = binary;
    this.logFile = logFile;
    this.args = args;
    this.waitReady = waitReady;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return this.child !== undefined;
  }

  async start(): Promise<void> {
    if (this.child) throw new Error(`${this.name} is already running`);
    const fd = openSync(this.logFile, 'a');
    // UPNESS_PARENT_PID makes the wrapper binaries ask the kernel to kill them when this process
    // dies (see kube-apiserver/main.go), so a crashed test run leaves nothing behind.
    const child = spawnOwned(this.binary, this.args, {
      stdio: ['ignore', fd, fd],
      env: { ...process.env, UPNESS_PARENT_PID: String(process.pid) },
    });
    closeSync(fd);
    this.child = child;
    this.exited = new Promise((resolve) => {
      const gone = () => {
        if (this.child === child) this.child = undefined;
        resolve();
      };
      child.once('exit', gone);
      child.once('error', gone); // e.g. the binary is missing: no 'exit' follows
    });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    await this.waitReady();
  }

  async stop(signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 15_000): Promise<void> {
    const child = this.child;
    if (!child) return;
    child.kill('SIGCONT'); // a SIGSTOPped process would not act on SIGTERM
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    await this.exited;
    clearTimeout(timer);
  }

  signal(signal: NodeJS.Signals): void {
    if (!this.child) throw new Error(`${this.name} is not running`);
    this.child.kill(signal);
  }

  /** The last lines of the log, for error messages. */
  tail(lines = 30): string {
    try {
      return readFileSync(this.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '';
    }
  }
}

/** Poll `ready` until it returns true; fail early if the process exits. */
async function waitUntil(what: string, timeoutMs: number, daemon: Daemon, ready: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // The temp dir (and the whole log) is removed on failure unless UPNESS_KEEP_CLUSTER is set.
    if (!daemon.running) throw new Error(`${what} exited during startup; end of ${daemon.logFile}:\n${daemon.tail()}`);
    if (await ready().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${what} not ready after ${timeoutMs} ms; end of ${daemon.logFile}:\n${daemon.tail()}`);
    await sleep(100);
  }
}

function apiRequest(agent: Agent, server: string, method: string, path: string, body: unknown, opts: RequestOptions): Promise<ApiResponse> {
  const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  const contentType = opts.contentType ?? (method === 'PATCH' ? 'application/merge-patch+json' : 'application/json');
  return new Promise((resolve, reject) => {
    const req = httpsRequest(new URL(path, server), {
      method,
      agent,
      timeout: opts.timeoutMs ?? 30_000,
      headers: { accept: 'application/json', ...(payload === undefined ? {} : { 'content-type': contentType }) },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.on('error', reject);
      res.on('end', () => resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        body: text,
        json: <T>() => JSON.parse(text) as T,
      }));
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer after ${opts.timeoutMs ?? 30_000} ms`)));
    req.on('error', reject);
    req.end(payload);
  });
}

interface Pki {
  caFile: string;
  serverCertFile: string;
  serverKeyFile: string;
  clientCertFile: string;
  clientKeyFile: string;
  serviceAccountKeyFile: string;
  serviceAccountPublicKeyFile: string;
}

/** A throwaway CA, a serving certificate for 127.0.0.1 and an admin client certificate. */
async function makePki(dir: string): Promise<Pki> {
  const file = (name: string) => join(dir, name);
  const newKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '7'];
  // `req -x509 -CA` (sign with our CA in one step) needs OpenSSL 3.
  const signed = ['-CA', file('ca.crt'), '-CAkey', file('ca.key'), '-addext', 'basicConstraints=critical,CA:FALSE'];
  await openssl(['req', '-x509', ...newKey, '-subj', '/CN=upness-test-ca', '-keyout', file('ca.key'), '-out', file('ca.crt')]);
  await openssl(['req', '-x509', ...newKey, ...signed, '-subj', '/CN=kube-apiserver',
    '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost', '-addext', 'extendedKeyUsage=serverAuth',
    '-keyout', file('apiserver.key'), '-out', file('apiserver.crt')]);
  // Client-certificate authentication takes the user from CN and the groups from O; system:masters
  // is bound to cluster-admin by the default RBAC policy.
  await openssl(['req', '-x509', ...newKey, ...signed, '-subj', '/O=system:masters/CN=upness-admin',
    '-addext', 'extendedKeyUsage=clientAuth', '-keyout', file('admin.key'), '-out', file('admin.crt')]);

  // Service account keys need no certificate, so Node can make them.
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  await writeFile(file('sa.key'), privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  await writeFile(file('sa.pub'), publicKey.export({ type: 'spki', format: 'pem' }));

  return {
    caFile: file('ca.crt'),
    serverCertFile: file('apiserver.crt'),
    serverKeyFile: file('apiserver.key'),
    clientCertFile: file('admin.crt'),
    clientKeyFile: file('admin.key'),
    serviceAccountKeyFile: file('sa.key'),
    serviceAccountPublicKeyFile: file('sa.pub'),
  };
}

/** The certificates are made with the openssl CLI, which the kube tier's prepare step installs
 *  (test/support/debian.ts); a file run on its own installs it here first. */
async function openssl(args: string[]): Promise<void> {
  await ensureDebianPackages('kube');
  try {
    await execFileP('openssl', args);
  } catch (err) {
    throw new Error(`openssl ${args.slice(0, 2).join(' ')} failed: ${(err as { stderr?: string }).stderr ?? String(err)}`);
  }
}

/** Ports that were free a moment ago. All are held open together so they are distinct. */
async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(Array.from({ length: count }, () => new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => resolve(srv));
  })));
  const ports = servers.map((srv) => (srv.address() as AddressInfo).port);
  await Promise.all(servers.map((srv) => new Promise((resolve) => srv.close(resolve))));
  return ports;
}

/** kubeconfig is YAML, and JSON is YAML, so no YAML library is needed to write it. */
async function writeKubeconfig(path: string, server: string, pki: Pki): Promise<void> {
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'upness-test', cluster: { server, 'certificate-authority': pki.caFile } }],
    users: [{ name: 'upness-admin', user: { 'client-certificate': pki.clientCertFile, 'client-key': pki.clientKeyFile } }],
    contexts: [{ name: 'upness-test', context: { cluster: 'upness-test', user: 'upness-admin', namespace: 'default' } }],
    'current-context': 'upness-test',
  };
  await writeFile(path, JSON.stringify(config, null, 2) + '\n', { mode: 0o600 });
}

type Requester = (method: string, path: string, body?: unknown, opts?: RequestOptions) => Promise<ApiResponse>;

/** Create the CRD from its YAML (the apiserver accepts application/yaml request bodies, so nothing
 * here parses YAML) and wait until its resource is actually served. */
async function installCrd(request: Requester, crdFile: string, timeoutMs: number): Promise<void> {
  const yaml = await readFile(crdFile, 'utf8');
  const created = await request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', yaml, { contentType: 'application/yaml' });
  if (created.status !== 201) throw new Error(`creating CRD from ${crdFile}: HTTP ${created.status}: ${created.body}`);
  const crd = created.json<{ metadata: { name: string }; spec: { group: string; names: { plural: string }; versions: { name: string; served: boolean }[] } }>();

  const deadline = Date.now() + timeoutMs;
  type Condition = { type: string; status: string; lastTransitionTime: string };
  const established = async () => {
    const res = await request('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`);
    const conditions = res.json<{ status?: { conditions?: Condition[] } }>().status?.conditions ?? [];
    return conditions.find((c) => c.type === 'Established' && c.status === 'True');
  };
  let condition: Condition | undefined;
  while (!(condition = await established())) {
    if (Date.now() > deadline) throw new Error(`CRD ${crd.metadata.name} not Established after ${timeoutMs} ms`);
    await sleep(100);
  }
  // The apiserver delays every create that arrives within 2 s of a CRD becoming Established by 2 s
  // (customresource_handler.go, for HA setups). Wait that out here rather than in the first test.
  await sleep(Math.max(0, Date.parse(condition.lastTransitionTime) + 2_100 - Date.now()));
  // Established can precede the handler for each version being installed; list them to be sure.
  for (const version of crd.spec.versions.filter((v) => v.served)) {
    const path = `/apis/${crd.spec.group}/${version.name}/${crd.spec.names.plural}`;
    while ((await request('GET', path)).status !== 200) {
      if (Date.now() > deadline) throw new Error(`${path} not served after ${timeoutMs} ms`);
      await sleep(100);
    }
  }
}

const TEMP_PREFIX = 'upness-kube-';
const OWNER_FILE = 'owner.pid';

/** Remove temp dirs (about 125 MB each, mostly etcd's preallocated WAL) of test processes that were
 * killed before they could clean up. */
async function removeStaleTempDirs(): Promise<void> {
  for (const name of await readdir(tmpdir())) {
    if (!name.startsWith(TEMP_PREFIX)) continue;
    const dir = join(tmpdir(), name);
    const owner = Number(await readFile(join(dir, OWNER_FILE), 'utf8').catch(() => ''));
    if (owner > 0 && !isAlive(owner)) await rm(dir, { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // exists, but not ours
  }
}

// If the test process exits without stop() (a failed test, process.exit), kill the servers and
// remove the temp dir synchronously. (If it is killed outright, the kernel kills the servers; see
// UPNESS_PARENT_PID above, and the next startCluster removes the temp dir.)
const live = new Map<string, { daemons: Daemon[]; keep: boolean }>();
let exitHookInstalled = false;

function rememberOnExit(tempDir: string, daemons: Daemon[], keep: boolean): void {
  live.set(tempDir, { daemons, keep });
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const [dir, { daemons: running, keep: keepDir }] of live) {
      for (const daemon of running) {
        try {
          if (daemon.pid !== undefined) process.kill(daemon.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      rmSync(keepDir ? join(dir, OWNER_FILE) : dir, { recursive: true, force: true });
    }
  });
}

function forgetOnExit(tempDir: string): void {
  live.delete(tempDir);
}
