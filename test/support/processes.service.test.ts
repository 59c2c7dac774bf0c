// No test leaves a process behind, however it ends: each case runs a small fixture test file in a
// nested Jest (with the backend tiers' environment) that starts stand-in servers through
// spawnOwned and then ends badly, and checks that every server is gone and Jest exited by itself.

import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { spawnOwned } from './processes.ts';

const ROOT = join(__dirname, '..', '..');
const JEST = join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js');
const CONFIG = join(__dirname, 'fixtures', 'jest.config.cjs');

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

interface NestedRun {
  child: ChildProcess;
  output: () => string;
  /** The servers the fixtures started (and 'started' marks). */
  lines: () => string[];
  /** Resolves with the exit code or signal; rejects if Jest has not exited within `ms`. */
  exited: (ms: number) => Promise<number | string>;
}

function nestedJest(fixtures: string[], flags: string[] = []): NestedRun {
  const pids = join(mkdtempSync(join(tmpdir(), 'upness-fixture-')), 'pids');
  writeFileSync(pids, '');
  const child = spawnOwned(process.execPath, [JEST, '--config', CONFIG, '--ci', ...flags, ...fixtures.map((f) => join(__dirname, 'fixtures', `${f}.fixture.ts`))], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, UPNESS_FIXTURE_PIDS: pids },
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const done = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  return {
    child,
    output: () => output,
    lines: () => readFileSync(pids, 'utf8').split('\n').filter(Boolean),
    exited: (ms) =>
      Promise.race([
        done,
        sleep(ms, undefined, { ref: false }).then(() => {
          throw new Error(`the nested Jest did not exit within ${ms} ms:\n${output}`);
        }),
      ]),
  };
}

const servers = (run: NestedRun): number[] => run.lines().filter((l) => l !== 'started').map(Number);

async function allGone(pids: number[]): Promise<void> {
  for (let i = 0; i < 100 && pids.some(alive); i++) await sleep(50);
  expect(pids.filter(alive)).toEqual([]);
}

async function until(what: string, condition: () => boolean, ms = 60_000): Promise<void> {
  for (const end = Date.now() + ms; !condition(); await sleep(50)) {
    if (Date.now() > end) throw new Error(`not ${what} after ${ms} ms`);
  }
}

describe('servers started by tests die with the test run', () => {
  it('when a beforeAll times out with a server started, and its setup starts another after the file ended (in band)', async () => {
    const run = nestedJest(['hook-timeout'], ['--runInBand']);
    expect(await run.exited(60_000)).toBe(1);
    // The first server was killed at the end of the file; the late one was refused, not started.
    expect(servers(run)).toHaveLength(1);
    expect(run.output()).toContain('killed 1 process(es) it left running');
    await allGone(servers(run));
  });

  it('when tests fail in worker processes', async () => {
    const run = nestedJest(['fails', 'hook-timeout'], ['--maxWorkers=2']);
    expect(await run.exited(60_000)).toBe(1);
    expect(servers(run)).toHaveLength(2);
    await allGone(servers(run));
  });

  it.each(['SIGINT', 'SIGTERM', 'SIGKILL'] as const)('when the test run is stopped with %s', async (signal) => {
    const run = nestedJest(['hangs'], ['--runInBand']);
    await until('started', () => run.lines().includes('started'));
    const [server] = servers(run);
    expect(alive(server!)).toBe(true);
    run.child.kill(signal);
    await run.exited(30_000);
    await allGone([server!]);
  });
});
