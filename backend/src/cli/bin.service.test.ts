// `node_modules/.bin/upness` is what a user, a script or a Dockerfile calls after `npm install`, with
// whatever node is first on PATH. Under a node too old to strip types (the machine's Node 20) it runs
// itself again with the project's Node 22, and stops when asked as the real process would. On Linux
// it runs with glibc's malloc set as the service wants it (one arena, a fixed mmap threshold; unless
// set): the same process, run again in place.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ready, startServe, type ServeProcess } from '../../../test/support/serve.ts';

const ROOT = join(__dirname, '..', '..', '..');
const BIN = join(ROOT, 'node_modules', '.bin', 'upness');
const SYSTEM_NODE = '/usr/bin/node';

const version = (node: string): [number, number] => {
  const [major, minor] = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim().slice(1).split('.').map(Number);
  return [major!, minor!];
};
const old = existsSync(SYSTEM_NODE) && ((v) => v[0] < 22 || (v[0] === 22 && v[1] < 18))(version(SYSTEM_NODE));

const trace = join(mkdtempSync(join(tmpdir(), 'upness-bin-')), 'trace.jsonl');
const JOBSET = {
  apiVersion: 'jobset.x-k8s.io/v1alpha2',
  kind: 'JobSet',
  metadata: { name: 'train', namespace: 'ml', uid: 'u-1', creationTimestamp: '2026-01-01T00:00:00Z' },
  spec: { replicatedJobs: [{ name: 'w', replicas: 1 }] },
  status: { replicatedJobsStatus: [{ name: 'w', ready: 1, succeeded: 0 }] },
};
writeFileSync(
  trace,
  JSON.stringify({ time: '2026-01-01T00:00:10Z', type: 'ADDED', object: JOBSET }) + '\n' +
  // The same object again a minute later: up from the first observation (00:00:10) to here.
  JSON.stringify({ time: '2026-01-01T00:01:00Z', type: 'MODIFIED', object: JOBSET }) + '\n',
);

(old ? describe : describe.skip)(`the bin under the system's ${SYSTEM_NODE} (too old to strip types)`, () => {
  it('runs the CLI with the project Node 22: the same answer as under Node 22', () => {
    const run = (node: string) => spawnSync(node, [BIN, 'replay', trace], { encoding: 'utf8' });
    const underOld = run(SYSTEM_NODE);
    expect(underOld.stderr).not.toContain('ERR_UNKNOWN_FILE_EXTENSION');
    expect(underOld.status).toBe(0);
    expect(JSON.parse(underOld.stdout).jobsets[0]).toMatchObject({ name: 'train', state: 'up', upSeconds: 50 });
    expect(underOld.stdout).toBe(run(process.execPath).stdout);
  });

  it('passes the exit code on', () => {
    const bad = spawnSync(SYSTEM_NODE, [BIN, 'replay', join(tmpdir(), 'no-such-trace.jsonl')], { encoding: 'utf8' });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('cannot read');
  });

  it('passes SIGTERM on to the service, which stops cleanly', async () => {
    const serve = await startServe(['--memory', '--jobsets', '2', '--history-days', '1'], { node: SYSTEM_NODE, bin: BIN });
    const { child } = serve;
    // Its signal handlers are in place once it is ready (the simulated history is loaded by then).
    await ready(serve);
    const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(serve.logs()).toContain('"signal":"SIGTERM","msg":"stopping"');
  });
});

/** The environment the process `pid` runs with now (Linux: what its last exec was given). */
const environOf = (pid: number): Map<string, string> =>
  new Map(
    readFileSync(`/proc/${pid}/environ`, 'utf8')
      .split('\0')
      .filter((entry) => entry !== '')
      .map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]),
  );

(process.platform === 'linux' ? describe : describe.skip)("glibc's malloc as the service runs with it (backend/bin/malloc.js)", () => {
  const withoutMallocEnv = (): NodeJS.ProcessEnv => {
    const env = { ...process.env };
    delete env.MALLOC_ARENA_MAX;
    delete env.MALLOC_MMAP_THRESHOLD_;
    delete env.GLIBC_TUNABLES;
    return env;
  };

  const stopped = async (serve: ServeProcess): Promise<unknown> => {
    const exited = new Promise((resolve) => serve.child.once('exit', (code, signal) => resolve(code ?? signal)));
    serve.child.kill('SIGTERM');
    return exited;
  };

  it('runs itself again in place with MALLOC_ARENA_MAX=1 and MALLOC_MMAP_THRESHOLD_=131072: the same process, which stops when asked', async () => {
    const serve = await startServe(['--memory', '--jobsets', '2', '--history-days', '1'], { env: withoutMallocEnv() });
    const environ = environOf(serve.child.pid!);
    expect(environ.get('MALLOC_ARENA_MAX')).toBe('1');
    expect(environ.get('MALLOC_MMAP_THRESHOLD_')).toBe('131072');
    await ready(serve);
    expect(await stopped(serve)).toBe(0);
    expect(serve.logs()).toContain('"signal":"SIGTERM","msg":"stopping"');
  });

  it('keeps a value the caller set, and adds the other', async () => {
    const serve = await startServe(['--memory', '--jobsets', '2', '--history-days', '1'], { env: { ...withoutMallocEnv(), MALLOC_ARENA_MAX: '8' } });
    const environ = environOf(serve.child.pid!);
    expect(environ.get('MALLOC_ARENA_MAX')).toBe('8');
    expect(environ.get('MALLOC_MMAP_THRESHOLD_')).toBe('131072');
    await stopped(serve);
  });

  it('keeps a threshold that GLIBC_TUNABLES sets, adding no variable of the same tunable', async () => {
    const serve = await startServe(['--memory', '--jobsets', '2', '--history-days', '1'], { env: { ...withoutMallocEnv(), GLIBC_TUNABLES: 'glibc.malloc.mmap_threshold=262144' } });
    const environ = environOf(serve.child.pid!);
    expect(environ.get('GLIBC_TUNABLES')).toBe('glibc.malloc.mmap_threshold=262144');
    expect(environ.has('MALLOC_MMAP_THRESHOLD_')).toBe(false);
    expect(environ.get('MALLOC_ARENA_MAX')).toBe('1');
    await stopped(serve);
  });

  it('reads the trace from standard input after running itself again', () => {
    const run = spawnSync(process.execPath, [BIN, 'replay', '-'], { input: readFileSync(trace), encoding: 'utf8', env: withoutMallocEnv() });
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout).jobsets[0]).toMatchObject({ name: 'train', state: 'up', upSeconds: 50 });
  });
});
