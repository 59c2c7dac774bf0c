import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { Agent, get as httpGet } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnOwned } from '../../../test/support/processes.ts';
import { upness, UPNESS } from '../../../test/support/cli.ts';
import { Scenario } from '../../../test/support/scenario.ts';
import { formatTraceLine } from '../sources/trace/parse.ts';

const dir = mkdtempSync(join(tmpdir(), 'upness-serve-'));

/** Starts `upness serve` and resolves with its URL once it logs that it listens. */
function serve(args: string[]): Promise<{ url: string; stop: (signal?: NodeJS.Signals) => Promise<number | null>; logs: () => string }> {
  const child = spawnOwned(process.execPath, [UPNESS, 'serve', '--host', '127.0.0.1', '--port', '0', ...(args.includes('--data-dir') ? [] : ['--memory']), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let logs = '';
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk) => {
      logs += chunk;
      const match = /"url":"(http:\/\/[^"]+)"/.exec(logs);
      if (match) {
        resolve({
          url: match[1]!,
          logs: () => logs,
          stop: (signal = 'SIGTERM') =>
            new Promise((done) => {
              child.once('exit', (code) => done(code));
              child.kill(signal);
            }),
        });
      }
    });
    child.stderr!.on('data', (chunk) => (logs += chunk));
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${logs}`)));
  });
}

async function waitReady(url: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 200; i++) {
    const res = await fetch(`${url}/readyz`);
    if (res.status === 200) return (await res.json()) as Record<string, unknown>;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('not ready after 10 s');
}

describe('upness serve', () => {
  it('serves a trace with a token, and stops cleanly on SIGTERM', async () => {
    const trace = join(dir, 'fleet.jsonl');
    const sim = upness(['simulate', '--jobsets', '5', '--days', '1', '--seed', '4', '--out', trace]);
    expect(sim.status).toBe(0);
    writeFileSync(join(dir, 'token'), 'tok\n');
    const service = await serve(['--trace', trace, '--token-file', join(dir, 'token')]);
    try {
      const ready = await waitReady(service.url);
      expect(ready).toMatchObject({ ready: true, source: 'trace' });
      expect((ready.jobsets as number) > 0).toBe(true);
      const unauthorized = await fetch(`${service.url}/api/v1/values/namespaces`);
      expect(unauthorized.status).toBe(401);
      const res = await fetch(`${service.url}/api/v1/query`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer tok' },
        body: JSON.stringify({ from: '2026-01-01T00:00:00Z', to: '2026-01-02T00:00:00Z', queries: [{ refId: 'A', groupBy: 'all', aggregate: 'pooled' }] }),
      });
      const body = (await res.json()) as { results: { A: { frames: { data: { values: number[][] } }[] } } };
      const ratio = body.results.A.frames[0]!.data.values[1]![0]!;
      expect(ratio).toBeGreaterThan(0.5);
      expect(ratio).toBeLessThanOrEqual(1);
      expect(service.logs()).not.toContain('tok"');
    } finally {
      expect(await service.stop()).toBe(0);
    }
  });

  it('exits 1, saying why, when stopping outlasts --shutdown-grace (a request held open)', async () => {
    const service = await serve(['--jobsets', '2', '--history-days', '1', '--shutdown-grace', '1s']);
    await waitReady(service.url);
    // A client that sent half a request and waits: the server cannot finish it, so it cannot stop in time.
    const { hostname, port } = new URL(service.url);
    const held = connect(Number(port), hostname);
    await new Promise<void>((resolve, reject) => held.once('connect', resolve).once('error', reject));
    held.on('error', () => undefined);
    held.write(`GET /healthz HTTP/1.1\r\nHost: ${hostname}\r\n`);
    try {
      expect(await service.stop()).toBe(1);
    } finally {
      held.destroy();
    }
    const lines = service
      .logs()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { level: number; msg: string; graceMs?: number });
    expect(lines.find((l) => l.msg.startsWith('stopping took longer than the shutdown grace period'))).toMatchObject({
      level: 50,
      graceMs: 1000,
      msg: expect.stringContaining('requests still under way'),
    });
  });

  it('waits for a request under way before it exits 0', async () => {
    const service = await serve(['--jobsets', '2', '--history-days', '1']);
    await waitReady(service.url);
    const { hostname, port } = new URL(service.url);
    const held = connect(Number(port), hostname);
    await new Promise<void>((resolve, reject) => held.once('connect', resolve).once('error', reject));
    let answer = '';
    held.on('data', (chunk) => (answer += chunk));
    held.write(`GET /healthz HTTP/1.1\r\nHost: ${hostname}\r\n`);
    const exited = service.stop();
    // The service logs that it is stopping; the request then completes and is answered.
    for (let i = 0; i < 200 && !service.logs().includes('"msg":"stopping"'); i++) await new Promise((r) => setTimeout(r, 25));
    expect(service.logs()).toContain('"msg":"stopping"');
    held.write('Connection: close\r\n\r\n');
    expect(await exited).toBe(0);
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    held.destroy();
  });

  it('keeps an idle keep-alive connection open past Node’s default 5 s, for its clients to close', async () => {
    // Grafana's data proxy and the plugin's Go client keep an idle connection up to 90 s and do not
    // resend a POST that meets a closing connection: the service must not be the one to close it.
    const service = await serve(['--jobsets', '2', '--history-days', '1']);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const get = (): Promise<{ status: number; keepAlive: string; reused: boolean }> =>
      new Promise((resolve, reject) => {
        const req = httpGet(`${service.url}/healthz`, { agent }, (res) => {
          res.resume();
          res.once('end', () => resolve({ status: res.statusCode!, keepAlive: String(res.headers['keep-alive']), reused: req.reusedSocket }));
        });
        req.once('error', reject);
      });
    try {
      const first = await get();
      expect(first).toMatchObject({ status: 200, reused: false });
      expect(Number(/timeout=(\d+)/.exec(first.keepAlive)?.[1])).toBeGreaterThan(90);
      await new Promise((r) => setTimeout(r, 6_000));
      expect(await get()).toMatchObject({ status: 200, reused: true });
    } finally {
      agent.destroy();
      await service.stop();
    }
  });

  it('runs a simulated cluster by default, ready with its history', async () => {
    const service = await serve(['--jobsets', '3', '--history-days', '1']);
    try {
      expect(await waitReady(service.url)).toMatchObject({ ready: true, source: 'simulator' });
      // It makes Pods and Nodes too: the node layer is there, one per JobSet, with nodes that were up.
      const layer = async (which: string): Promise<{ uid: string; upSeconds: number }[]> => {
        const res = await fetch(`${service.url}/api/v1/jobsets?layer=${which}`);
        expect(res.status).toBe(200);
        return ((await res.json()) as { jobsets: { uid: string; upSeconds: number }[] }).jobsets;
      };
      const [jobsets, nodes] = [await layer('jobset'), await layer('nodes')];
      expect(nodes.map((j) => j.uid).sort()).toEqual(jobsets.map((j) => j.uid).sort());
      expect(nodes.some((j) => j.upSeconds > 0)).toBe(true);
      // And its JobSets' resource usage (the simulator's model): some CPU while up over the last day.
      const now = Date.now();
      const res = await fetch(`${service.url}/api/v1/query`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ from: now - 86_400_000, to: now, queries: [{ refId: 'A', queryType: 'summary', groupBy: 'all', figures: ['upSeconds'], usageByState: ['cpuCores'] }] }),
      });
      const [frame] = ((await res.json()) as { results: { A: { frames: { schema: { fields: { name: string }[] }; data: { values: unknown[][] } }[] } } }).results.A.frames;
      const column = frame!.schema.fields.findIndex((f) => f.name === 'cpuCoresWhileUp');
      expect(frame!.data.values[column]![0]).toBeGreaterThan(0);
    } finally {
      await service.stop();
    }
  });

  it('applies --retention under --memory too: a JobSet that ended longer ago is dropped at start, the others stay', async () => {
    // Retention counts back from a recorded trace's last line (here 0 h), not from the wall clock:
    // the trace ends a little before the test runs, so the API's default window (the last 24 h) holds it.
    const HOUR = 3_600_000;
    const now = Date.now();
    const at = (hoursAgo: number): number => now - hoursAgo * HOUR;
    //   ml/old      -96h ─prov─ -95h ─up─ -72h completed    ended 72 h before the end  > --retention 24h: dropped
    //   ml/recent    -3h ─prov─  -2h ─up─  -1h completed    ended  1 h before the end  < 24 h: kept
    //   ml/running  -96h ─prov─ -95h ─up─  0h (still up)    not ended, however old: kept
    const old = new Scenario({ uid: 'u-old', name: 'old', namespace: 'ml' }, at(96)).created().up(at(95)).at(at(72), { ready: 0, succeeded: 2, completedAt: at(72) });
    const recent = new Scenario({ uid: 'u-recent', name: 'recent', namespace: 'ml' }, at(3)).created().up(at(2)).at(at(1), { ready: 0, succeeded: 2, completedAt: at(1) });
    const running = new Scenario({ uid: 'u-running', name: 'running', namespace: 'ml' }, at(96)).created().up(at(95)).at(at(0));
    const lines = [...old.observations, ...recent.observations, ...running.observations].sort((a, b) => a.receivedAt - b.receivedAt).map(formatTraceLine);
    const trace = join(dir, 'retention.jsonl');
    writeFileSync(trace, lines.join('\n') + '\n');

    const listed = async (url: string): Promise<{ uid: string; state: string }[]> => {
      const res = await fetch(`${url}/api/v1/jobsets?from=${new Date(at(100)).toISOString()}&to=${new Date(now).toISOString()}`);
      const body = (await res.json()) as { jobsets: { uid: string; state: string }[] };
      return body.jobsets.map((j) => ({ uid: j.uid, state: j.state })).sort((a, b) => a.uid.localeCompare(b.uid));
    };
    // The default retention (90 d) keeps all three: the trace is what the test says it is.
    const keeping = await serve(['--trace', trace]);
    try {
      expect(await waitReady(keeping.url)).toMatchObject({ jobsets: 3 });
      expect(await listed(keeping.url)).toEqual([
        { uid: 'u-old', state: 'completed' },
        { uid: 'u-recent', state: 'completed' },
        { uid: 'u-running', state: 'up' },
      ]);
    } finally {
      expect(await keeping.stop()).toBe(0);
    }
    const service = await serve(['--trace', trace, '--retention', '24h']);
    try {
      // Ready once the trace is replayed and what ended before the retention period dropped.
      expect(await waitReady(service.url)).toMatchObject({ jobsets: 2 });
      expect(await listed(service.url)).toEqual([
        { uid: 'u-recent', state: 'completed' },
        { uid: 'u-running', state: 'up' },
      ]);
      expect(service.logs()).toMatch(/"dropped":1,.*"why":"at start"/);
    } finally {
      expect(await service.stop()).toBe(0);
    }
  });

  it('on SIGINT with --data-dir: stops the simulator, writes the last snapshot, exits 0; a restart resumes from it', async () => {
    const dataDir = join(dir, 'sigint');
    const first = await serve(['--data-dir', dataDir, '--jobsets', '3', '--history-days', '1']);
    let jobsets: unknown;
    try {
      jobsets = (await waitReady(first.url)).jobsets;
    } finally {
      expect(await first.stop('SIGINT')).toBe(0);
    }
    expect(first.logs()).toContain('"signal":"SIGINT","msg":"stopping"');
    // The store was flushed on the way out: a snapshot holds the timelines.
    expect(existsSync(join(dataDir, 'snapshot.json'))).toBe(true);
    const snapshot = readFileSync(join(dataDir, 'snapshot.json'), 'utf8');
    expect(snapshot.length).toBeGreaterThan(0);
    // With the served view's fleet index beside it, which the restart takes instead of building it.
    expect(existsSync(join(dataDir, 'snapshot.fleet-index'))).toBe(true);
    const second = await serve(['--data-dir', dataDir, '--jobsets', '3', '--history-days', '1']);
    try {
      expect(await waitReady(second.url)).toMatchObject({ source: 'simulator', jobsets });
      expect(second.logs()).toMatch(/"msg":"data dir opened"/);
      expect(second.logs()).toMatch(/"msg":"fleet index taken from the snapshot"/);
    } finally {
      expect(await second.stop()).toBe(0);
    }
    // A damaged index part is refused, said so, and the index built again: the service starts as ever.
    const part = join(dataDir, 'snapshot.fleet-index');
    const bytes = readFileSync(part);
    bytes[bytes.length >> 1]! ^= 0xff;
    writeFileSync(part, bytes);
    const third = await serve(['--data-dir', dataDir, '--jobsets', '3', '--history-days', '1']);
    try {
      expect(await waitReady(third.url)).toMatchObject({ source: 'simulator', jobsets });
      expect(third.logs()).toMatch(/"why":"its checksum is wrong","msg":"the fleet index kept with the snapshot cannot be used: it is built again from the timelines"/);
      expect(third.logs()).not.toMatch(/"msg":"fleet index taken from the snapshot"/);
    } finally {
      expect(await third.stop()).toBe(0);
    }
  });

  it('a malformed trace stops the service it started (exit 1, the line named), instead of leaving it listening', async () => {
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, '{"time":"2026-01-01T00:00:00Z","type":"ADDED","object":{}}\n');
    const child = spawnOwned(process.execPath, [UPNESS, 'serve', '--host', '127.0.0.1', '--port', '0', '--memory', '--trace', bad], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    const code = await new Promise<number | null | 'still running'>((resolve) => {
      const timer = setTimeout(() => resolve('still running'), 20_000);
      child.once('exit', (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    expect(code).toBe(1);
    expect(output).toContain('"msg":"listening"');
    expect(output).toMatch(/upness: line 1: missing field "object.metadata"/);
  });

  // Numbers and durations are parsed by commander (argParser), the command's own checks are
  // UsageErrors: `upness: <flag> must be ...`, exit 2; a file that cannot be read is exit 1.
  it.each([
    [['--port', 'http'], /^upness: --port must be a port number, not "http"$/m, 2],
    [['--port', '70000'], /^upness: --port must be a port number, not "70000"$/m, 2],
    [['--terminal-grace', 'soon'], /^upness: --terminal-grace must be a duration such as 10m or 90d, not "soon"$/m, 2],
    [['--shutdown-grace', 'soon'], /^upness: --shutdown-grace must be a duration such as 10m or 90d, not "soon"$/m, 2],
    [['--token-file', join(dir, 'missing')], /cannot read/, 1],
    [['--retention', 'forever'], /^upness: --retention must be a duration such as 10m or 90d, not "forever"$/m, 2],
    [['--snapshot-every', '0'], /^upness: --snapshot-every must be a positive whole number, not "0"$/m, 2],
    [['--speed', 'fast'], /^upness: --speed must be a positive number, not "fast"$/m, 2],
    [['--jobsets', '-3'], /^upness: --jobsets must be a positive whole number, not "-3"$/m, 2],
    [['--store', 'mysql://db'], /--store must be a postgres:\/\/ or postgresql:\/\/ URL/, 2],
  ])('refuses bad options %j with a clear message', (args, message, status) => {
    const run = upness(['serve', ...args]);
    expect(run.stderr).toMatch(message);
    expect(run.status).toBe(status);
  });

  // Options that exclude each other: commander's .conflicts(), a usage error (exit 2).
  it.each([
    [['--trace', join(dir, 'x.jsonl'), '--kubeconfig', join(dir, 'kubeconfig')], /option '--trace <file>' cannot be used with option '--kubeconfig <file>'/],
    [['--trace', join(dir, 'x.jsonl'), '--context', 'kind'], /option '--trace <file>' cannot be used with option '--context <name>'/],
    [['--trace', join(dir, 'x.jsonl'), '--store', 'postgres://db/upness'], /option '--trace <file>' cannot be used with option '--store <url>'/],
    [['--data-dir', join(dir, 'data'), '--memory'], /option '--memory' cannot be used with option '--data-dir <dir>'/],
    [['--store', 'postgres://db/upness', '--memory'], /option '--memory' cannot be used with option '--store <url>'/],
    // Options that mean something only beside another: given alone they were ignored.
    [['--follow'], /^upness: --follow is used only with --store: give --store too, or leave --follow out$/m],
    [['--lease-name', 'upness'], /^upness: --lease-name is used only with --store/m],
    [['--store', 'postgres://db/upness', '--replica-id', 'a'], /^upness: --replica-id is used only with --lease-name/m],
    [['--parse-threads', '1'], /^upness: --parse-threads is used only with --trace/m],
  ])('refuses options that exclude each other %j', (args, message) => {
    const run = upness(['serve', ...args]);
    expect(run.stderr).toMatch(message);
    expect(run.status).toBe(2);
  });

  it('checks a number from the environment as it checks the flag', () => {
    // The child gets the variable explicitly (Jest's process.env is the test's own copy); the bound
    // only stops a service that started anyway, which is the failure this test is there to catch.
    const run = spawnSync(process.execPath, [UPNESS, 'serve', '--memory'], { env: { ...process.env, UPNESS_PORT: 'eighty' }, encoding: 'utf8', timeout: 60_000 });
    expect(run.stderr).toMatch(/^upness: --port must be a port number, not "eighty"$/m);
    expect(run.status).toBe(2);
  });
});
