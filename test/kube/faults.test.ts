// The watch under real faults of a real kube-apiserver (cluster.ts): killed and started again,
// frozen (SIGSTOP: every connection half-open) and thawed, 410 Gone after etcd compaction with the
// watch cache off, and watches closed by the server every few seconds. After each, the timelines
// must be right, with `unknown` exactly where nothing could be known, and the watcher running.
//
// `upness serve` reaches the apiserver through a TCP proxy (proxy.ts) that the test can hold: the
// fault itself is the apiserver's, the hold only keeps the watcher away while the test changes
// objects, so that what changed "while nobody watched" is known to the test.

import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startCluster, type Cluster } from './cluster.ts';
import { FaultProxy } from './proxy.ts';
import {
  FAST_WATCH,
  getJson,
  jobsetManifest,
  jobsetStatus,
  Kube,
  metric,
  metricSum,
  podManifest,
  readiness,
  runningPodStatus,
  startServe,
  states,
  waitFor,
  waitReady,
  writeKubeconfig,
  type Service,
  type TimelineJson,
} from './harness.ts';

const SLACK = 1500;

interface Setup {
  cluster: Cluster;
  kube: Kube;
  proxy: FaultProxy;
  service: Service;
}

async function setup(apiserverFlags: string[], watchArgs: string[] = FAST_WATCH, viaProxy = true): Promise<Setup> {
  const cluster = await startCluster({ apiserverFlags });
  const kube = new Kube(cluster);
  const proxy = await FaultProxy.start(cluster.server);
  const kubeconfig = viaProxy ? writeKubeconfig(cluster, join(cluster.tempDir, 'proxy.kubeconfig'), { server: proxy.url }) : cluster.kubeconfigPath;
  const service = await startServe(['--kubeconfig', kubeconfig, ...watchArgs]);
  await waitReady(service);
  await kube.namespace('default');
  return { cluster, kube, proxy, service };
}

async function teardown(s: Setup | undefined): Promise<void> {
  if (process.env.UPNESS_TEST_LOGS && s) {
    for (const l of s.service.lines()) if (l.level >= 40) process.stderr.write(`  ${JSON.stringify(l)}\n`);
  }
  await s?.service.stop();
  await s?.proxy.stop();
  await s?.cluster.stop();
}

async function timeline(s: Setup, name: string, layer: 'jobset' | 'nodes' = 'jobset'): Promise<TimelineJson[]> {
  const r = await getJson<{ timelines: TimelineJson[] }>(`${s.service.url}/api/v1/jobsets/default/${name}?layer=${layer}`);
  return r.status === 200 ? r.body.timelines : [];
}

async function until(s: Setup, name: string, expected: string[][], layer: 'jobset' | 'nodes' = 'jobset', timeoutMs = 20_000): Promise<TimelineJson[]> {
  return waitFor(`${name} (${layer}) to be ${JSON.stringify(expected)}`, async () => {
    const got = await timeline(s, name, layer);
    return JSON.stringify(got.map(states)) === JSON.stringify(expected) ? got : undefined;
  }, timeoutMs, 50);
}

async function metrics(s: Setup): Promise<string> {
  return (await getJson<string>(`${s.service.url}/metrics`)).body;
}

/** Restart counts by resource and cause, e.g. {"jobsets/connection": 2}. */
function restarts(text: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [, labels, value] of text.matchAll(/^upness_watch_restarts_total\{(.*)\} (\S+)$/gm)) {
    const resource = /resource="([^"]+)"/.exec(labels!)![1];
    const cause = /cause="([^"]+)"/.exec(labels!)![1];
    out[`${resource}/${cause}`] = Number(value);
  }
  return out;
}

/** JobSets up and running, with pods on Ready nodes for the first one. */
async function running(s: Setup, names: string[]): Promise<void> {
  await s.kube.createNode('node-1');
  await s.kube.createNode('node-2');
  for (const name of names) await s.kube.createJobSet('default', jobsetManifest(name));
  const first = await s.kube.getJobSet('default', names[0]!);
  for (const i of [0, 1]) {
    await s.kube.createPod('default', podManifest({ name: `${names[0]}-workers-${i}-0`, jobset: first.metadata, jobIndex: i, nodeName: `node-${i + 1}` }));
    await s.kube.podStatus('default', `${names[0]}-workers-${i}-0`, runningPodStatus());
  }
  for (const name of names) await s.kube.jobsetStatus('default', name, jobsetStatus(2));
  for (const name of names) await until(s, name, [['provisioning', 'up']]);
  await until(s, names[0]!, [['provisioning', 'up']], 'nodes');
}

const report = (what: string, fields: Record<string, unknown>): void => {
  process.stderr.write(`faults.test: ${what}: ${JSON.stringify(fields)}\n`);
};

/** The watcher keeps watching: a change made now shows within a couple of seconds. */
async function stillWatching(s: Setup, name: string, before: string[]): Promise<number> {
  const t = Date.now();
  await s.kube.jobsetStatus('default', name, jobsetStatus(0, { restarts: 9 }));
  await until(s, name, [[...before, 'down']], 'jobset', 5_000);
  return Date.now() - t;
}

describe('the apiserver is killed mid-watch and started again', () => {
  let s: Setup | undefined;
  const t0 = Date.now();
  beforeAll(async () => {
    s = await setup([]);
  }, 120_000);
  afterAll(async () => {
    await teardown(s);
    report('kill: file section', { seconds: (Date.now() - t0) / 1000 });
  });

  //   steady: 0 ─prov─ ─up──────────────────────────────────────── (unchanged: no unknown)
  //   flaky:  0 ─prov─ ─up─ ╳kill ─unknown─ resync ─up (restarted meanwhile: 1 interruption, 1 recovery)
  //   gone:   0 ─prov─ ─up─ ╳kill ─unknown─ resync deleted
  //   born:                 ╳kill  created ─unknown─ resync ─up
  it('keeps what held, marks unknown what changed, counts the proven restart, and watches on', async () => {
    const { cluster, kube, proxy } = s!;
    await running(s!, ['steady', 'flaky', 'gone']);
    proxy.hold(); // nothing the watcher sends gets through until pass(): it cannot resync early
    const killedAt = Date.now();
    await cluster.stopApiserver('SIGKILL');
    const notReady = await waitFor('/readyz to turn false', async () => {
      const r = await readiness(s!.service);
      return r.status === 503 ? { at: Date.now(), reason: r.body.reason! } : undefined;
    }, 15_000, 50);
    // All three watches break at once; the reason names the first one found broken (a race).
    expect(notReady.reason).toMatch(/watch broken: .*(jobsets|pods|nodes)/);
    await cluster.startApiserver();
    await kube.jobsetStatus('default', 'flaky', jobsetStatus(2, { restarts: 1 })); // down and up again, unseen
    await kube.deleteJobSet('default', 'gone');
    const bornAt = Date.now();
    await kube.createJobSet('default', jobsetManifest('born'));
    await kube.jobsetStatus('default', 'born', jobsetStatus(2));
    const passedAt = Date.now();
    proxy.pass();
    await waitReady(s!.service, 20_000);
    const resyncedBy = Date.now();

    const [steady] = await until(s!, 'steady', [['provisioning', 'up']]);
    expect(steady!.figures.unknownSeconds).toBe(0);
    const [flaky] = await until(s!, 'flaky', [['provisioning', 'up', 'unknown', 'up']]);
    const unknown = flaky!.intervals[2]!;
    expect(Date.parse(unknown.from)).toBeGreaterThanOrEqual(killedAt - 100);
    expect(Date.parse(unknown.from)).toBeLessThanOrEqual(killedAt + SLACK);
    expect(Date.parse(unknown.to!)).toBeGreaterThanOrEqual(passedAt);
    expect(Date.parse(unknown.to!)).toBeLessThanOrEqual(resyncedBy + SLACK);
    expect(flaky!.figures).toMatchObject({ interruptions: 1, recoveries: 1, mttrSeconds: null, mtbiSeconds: null });
    const [gone] = await until(s!, 'gone', [['provisioning', 'up', 'unknown', 'deleted']]);
    const [born] = await until(s!, 'born', [['unknown', 'up']]);
    expect(Date.parse(born!.intervals[0]!.from)).toBeGreaterThanOrEqual(Math.floor(bornAt / 1000) * 1000);
    // The node layer of `steady` held: its nodes did not change.
    await until(s!, 'steady', [['provisioning', 'up']], 'nodes');

    const text = await metrics(s!);
    const counts = restarts(text);
    expect(metricSum(text, 'upness_watch_restarts_total', { resource: 'jobsets' })).toBeGreaterThanOrEqual(1);
    for (const key of Object.keys(counts)) expect(key).toMatch(/^(jobsets|pods|nodes)\/(connection|timeout|watchdog)$/);
    const latency = await stillWatching(s!, 'steady', ['provisioning', 'up']);
    report('kill', {
      restarts: counts,
      notReadyAfterMs: notReady.at - killedAt,
      unknownSeconds: { steady: steady!.figures.unknownSeconds, flaky: flaky!.figures.unknownSeconds, gone: gone!.figures.unknownSeconds, born: born!.figures.unknownSeconds },
      resyncMsAfterRelease: resyncedBy - passedAt,
      nextChangeSeenInMs: latency,
    });
  }, 90_000);
});

describe('the apiserver is frozen (SIGSTOP: connections half-open) and thawed', () => {
  let s: Setup | undefined;
  const t0 = Date.now();
  beforeAll(async () => {
    s = await setup([]);
  }, 120_000);
  afterAll(async () => {
    await teardown(s);
    report('freeze: file section', { seconds: (Date.now() - t0) / 1000 });
  });

  it('the watchdog declares the silent watches broken; after the thaw they resync', async () => {
    const { cluster, kube, proxy } = s!;
    await running(s!, ['steady', 'changed']);
    const pausedAt = Date.now();
    cluster.pauseApiserver();
    // Nothing errors: connections stay open and answer nothing. Only silence tells.
    const notReady = await waitFor('/readyz to turn false', async () => {
      const r = await readiness(s!.service);
      return r.status === 503 ? { at: Date.now(), reason: r.body.reason! } : undefined;
    }, 30_000, 100);
    expect(notReady.reason).toMatch(/watch broken/);
    await waitFor('watchdog restarts of all three watches', async () => {
      const c = restarts(await metrics(s!));
      return (c['jobsets/watchdog'] ?? 0) >= 1 && (c['pods/watchdog'] ?? 0) >= 1 && (c['nodes/watchdog'] ?? 0) >= 1;
    }, 30_000, 200);
    // The staleness is there to alert on: more than the watchdog's 6 s for every resource.
    const stale = await metrics(s!);
    for (const resource of ['jobsets', 'pods', 'nodes']) expect(metric(stale, 'upness_watch_seconds_since_last_event', { resource })).toBeGreaterThan(6);
    proxy.hold();
    cluster.resumeApiserver();
    await kube.jobsetStatus('default', 'changed', jobsetStatus(0, { restarts: 1 }));
    const passedAt = Date.now();
    proxy.pass();
    await waitReady(s!.service, 30_000);
    const resyncedBy = Date.now();

    const [steady] = await until(s!, 'steady', [['provisioning', 'up']]);
    expect(steady!.figures.unknownSeconds).toBe(0);
    const [changed] = await until(s!, 'changed', [['provisioning', 'up', 'unknown', 'down']]);
    const unknown = changed!.intervals[2]!;
    // Unknown from the last sign of life before the freeze (at most one watch timeout earlier).
    expect(Date.parse(unknown.from)).toBeGreaterThanOrEqual(pausedAt - 4_000 - SLACK);
    expect(Date.parse(unknown.from)).toBeLessThanOrEqual(pausedAt + SLACK);
    expect(Date.parse(unknown.to!)).toBeGreaterThanOrEqual(passedAt);
    expect(Date.parse(unknown.to!)).toBeLessThanOrEqual(resyncedBy + SLACK);
    expect(changed!.figures.interruptions).toBe(1); // proven: up before, down after
    const counts = restarts(await metrics(s!));
    const latency = await stillWatching(s!, 'steady', ['provisioning', 'up']);
    report('freeze', {
      restarts: counts,
      notReadyAfterMs: notReady.at - pausedAt,
      unknownSeconds: { steady: steady!.figures.unknownSeconds, changed: changed!.figures.unknownSeconds },
      resyncMsAfterRelease: resyncedBy - passedAt,
      nextChangeSeenInMs: latency,
    });
  }, 120_000);
});

describe('410 Gone: the watch cache is off and etcd compacted past the watch', () => {
  let s: Setup | undefined;
  const t0 = Date.now();
  beforeAll(async () => {
    // A quiet watch is reopened after 2 s: with the proxy held, it reopens from its old resourceVersion.
    s = await setup(['--watch-cache=false'], ['--watch-timeout', '2s', '--watch-silence', '20s', '--watch-backoff-initial', '200ms', '--watch-backoff-max', '2s', '--list-timeout', '4s', '--ready-broken-after', '2s']);
  }, 120_000);
  afterAll(async () => {
    await teardown(s);
    report('410: file section', { seconds: (Date.now() - t0) / 1000 });
  });

  it('relists, closes what vanished as deleted, marks unknown what changed since the watch closed', async () => {
    const { cluster, kube, proxy } = s!;
    await running(s!, ['steady', 'changed', 'gone']);
    const heldAt = Date.now();
    proxy.hold();
    await sleep(3_000); // the watches time out and try to reopen: held
    await kube.jobsetStatus('default', 'changed', jobsetStatus(2, { restarts: 1 }));
    await kube.deleteJobSet('default', 'gone');
    for (let i = 0; i < 3; i++) await kube.req('POST', '/api/v1/namespaces/default/configmaps', { metadata: { generateName: 'filler-' } });
    const revision = await kube.revision();
    const compacted = await fetch(`${cluster.etcdEndpoint}/v3/kv/compaction`, { method: 'POST', body: JSON.stringify({ revision: String(revision), physical: true }) });
    expect([compacted.status, await compacted.text()]).toEqual([200, expect.stringContaining('"revision"')]);
    const passedAt = Date.now();
    proxy.pass();
    await waitFor('a relist after 410 Gone', async () => (restarts(await metrics(s!))['jobsets/gone'] ?? 0) >= 1, 15_000, 100);
    await waitReady(s!.service);
    const resyncedBy = Date.now();

    const [steady] = await until(s!, 'steady', [['provisioning', 'up']]);
    const [changed] = await until(s!, 'changed', [['provisioning', 'up', 'unknown', 'up']]);
    const [gone] = await until(s!, 'gone', [['provisioning', 'up', 'unknown', 'deleted']]);
    const unknown = changed!.intervals[2]!;
    // From the end of the last watch that was not refused (it timed out at most 2 s into the hold).
    expect(Date.parse(unknown.from)).toBeGreaterThanOrEqual(heldAt - 100);
    expect(Date.parse(unknown.from)).toBeLessThanOrEqual(heldAt + 2_000 + SLACK);
    expect(Date.parse(unknown.to!)).toBeGreaterThanOrEqual(passedAt);
    expect(Date.parse(unknown.to!)).toBeLessThanOrEqual(resyncedBy + SLACK);
    expect(changed!.figures).toMatchObject({ interruptions: 1, recoveries: 1 });
    expect(steady!.figures.unknownSeconds).toBe(0);

    const counts = restarts(await metrics(s!));
    // A 410 is handled by the watch itself (a relist), not by a restart after an error.
    expect(Object.keys(counts).filter((k) => !k.endsWith('/gone'))).toEqual([]);
    const latency = await stillWatching(s!, 'steady', ['provisioning', 'up']);
    report('410', {
      restarts: counts,
      unknownSeconds: { steady: steady!.figures.unknownSeconds, changed: changed!.figures.unknownSeconds, gone: gone!.figures.unknownSeconds },
      nextChangeSeenInMs: latency,
    });
  }, 90_000);
});

describe('the apiserver closes watches every few seconds (--min-request-timeout=2)', () => {
  let s: Setup | undefined;
  const t0 = Date.now();
  beforeAll(async () => {
    // The client's own timeout is long: every close here is the server's.
    s = await setup(['--min-request-timeout=2'], ['--watch-timeout', '60s', '--watch-silence', '90s', '--ready-broken-after', '2s'], false);
  }, 120_000);
  afterAll(async () => {
    await teardown(s);
    report('min-request-timeout: file section', { seconds: (Date.now() - t0) / 1000 });
  });

  //   0 ─prov─ ─up─ ─down─ ─up─ ─down─ ─up─ ... over about 20 s, one change every 2.5 s
  it('reconnects without losing or delaying anything: no restart, no unknown', async () => {
    await running(s!, ['flipping']);
    const expected = ['provisioning', 'up'];
    const windows: { before: number; after: number }[] = [];
    for (let i = 1; i <= 8; i++) {
      await sleep(2_500);
      const up = i % 2 === 0;
      const before = Date.now();
      await s!.kube.jobsetStatus('default', 'flipping', jobsetStatus(up ? 2 : 1, { restarts: Math.ceil(i / 2) }));
      expected.push(up ? 'up' : 'down');
      await until(s!, 'flipping', [expected], 'jobset', 5_000);
      windows.push({ before, after: Date.now() });
    }
    const [tl] = await until(s!, 'flipping', [expected]);
    tl!.intervals.slice(2).forEach((interval, i) => {
      expect(Date.parse(interval.from)).toBeGreaterThanOrEqual(windows[i]!.before);
      expect(Date.parse(interval.from)).toBeLessThanOrEqual(windows[i]!.after + 50);
    });
    expect(tl!.figures).toMatchObject({ unknownSeconds: 0, interruptions: 4, recoveries: 4 });
    const text = await metrics(s!);
    expect(restarts(text)).toEqual({});
    const reconnects = metric(text, 'upness_watch_reconnects_total', { resource: 'jobsets' })!;
    expect(reconnects).toBeGreaterThanOrEqual(4);
    report('min-request-timeout', { reconnects: { jobsets: reconnects, pods: metric(text, 'upness_watch_reconnects_total', { resource: 'pods' }), nodes: metric(text, 'upness_watch_reconnects_total', { resource: 'nodes' }) }, restarts: restarts(text) });
  }, 90_000);
});

describe('the service itself stops and starts again, keeping its data dir', () => {
  let s: Setup | undefined;
  const t0 = Date.now();
  beforeAll(async () => {
    s = await setup([], FAST_WATCH, false);
  }, 120_000);
  afterAll(async () => {
    await teardown(s);
    report('service restart: file section', { seconds: (Date.now() - t0) / 1000 });
  });

  //   steady:  ─up─ ╳ service down ╳ ─up──────── (unchanged: held)
  //   changed: ─up─ ╳ restarted meanwhile ╳ unknown ─ up (1 interruption, 1 recovery proven)
  //   gone:    ─up─ ╳ deleted meanwhile ╳ unknown ─ deleted at the first sync
  //   steady's node layer: ─up─ ╳ service down ╳ ─up── (restored from the data dir; its nodes held)
  it('resumes from its data dir: the time it was down is unknown where the objects changed', async () => {
    const { cluster, kube } = s!;
    await s!.service.stop();
    const dataDir = join(cluster.tempDir, 'upness-data');
    const args = ['--kubeconfig', cluster.kubeconfigPath, '--data-dir', dataDir, ...FAST_WATCH];
    s!.service = await startServe(args);
    await waitReady(s!.service);
    await running(s!, ['steady', 'changed', 'gone']);
    // The store records the time observed every second, and once more at the stop; 3 s of quiet put
    // the last transition well before the bound below (until 2026-11-28 the stop's snapshot wrote
    // the last transition's time over the marks: this waited 1.2 s, and passed while that took
    // under 1.5 s).
    await sleep(3_000);
    const nodesBefore = await timeline(s!, 'steady', 'nodes');
    const stoppedAt = Date.now();
    expect(await s!.service.stop()).toBe(0);
    // It watches, and marks the time observed, until it has stopped: a few ms past the request.
    const stoppedBy = Date.now();
    await kube.jobsetStatus('default', 'changed', jobsetStatus(2, { restarts: 1 }));
    await kube.deleteJobSet('default', 'gone');
    await sleep(1_000);
    const restartedAt = Date.now();
    s!.service = await startServe(args);
    await waitReady(s!.service);
    const readyBy = Date.now();

    const [steady] = await until(s!, 'steady', [['provisioning', 'up']]);
    const [changed] = await until(s!, 'changed', [['provisioning', 'up', 'unknown', 'up']]);
    const [gone] = await until(s!, 'gone', [['provisioning', 'up', 'unknown', 'deleted']]);
    // The node layer was kept: the same transitions as before the restart, none added for the gap.
    const nodesAfter = await until(s!, 'steady', [['provisioning', 'up']], 'nodes');
    expect(nodesAfter[0]!.intervals.map((i) => [i.state, i.from])).toEqual(nodesBefore[0]!.intervals.map((i) => [i.state, i.from]));
    const unknown = changed!.intervals[2]!;
    expect(Date.parse(unknown.from)).toBeGreaterThanOrEqual(stoppedAt - 1_500);
    expect(Date.parse(unknown.from)).toBeLessThanOrEqual(stoppedBy);
    expect(Date.parse(unknown.to!)).toBeGreaterThanOrEqual(restartedAt);
    expect(Date.parse(unknown.to!)).toBeLessThanOrEqual(readyBy + SLACK);
    expect(changed!.figures).toMatchObject({ interruptions: 1, recoveries: 1 });
    expect(steady!.figures.unknownSeconds).toBe(0);
    report('service restart', {
      unknownSeconds: { steady: steady!.figures.unknownSeconds, changed: changed!.figures.unknownSeconds, gone: gone!.figures.unknownSeconds },
      downMs: restartedAt - stoppedAt,
    });
  }, 90_000);
});
