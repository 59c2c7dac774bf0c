// `upness serve` as a child process, as a user runs it, for the tests that need a real service:
// started through spawnOwned (it cannot outlive the test run), resolved once it logs the URL it
// listens on; `ready` then waits for /readyz (its history loaded, its signal handlers in place).

import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { spawnOwned } from './processes.ts';

export const UPNESS_BIN = join(import.meta.dirname, '..', '..', 'backend', 'bin', 'upness.js');

export interface ServeProcess {
  child: ChildProcess;
  url: string;
  /** Everything it printed so far (JSON log lines). */
  logs(): string;
}

/** Starts `upness serve --host 127.0.0.1 --port 0 <args>` with `node` (default: this Node, with `nodeArgs`) running `bin`. */
export function startServe(args: readonly string[], options: { node?: string; nodeArgs?: readonly string[]; bin?: string; env?: NodeJS.ProcessEnv } = {}): Promise<ServeProcess> {
  const child = spawnOwned(options.node ?? process.execPath, [...(options.nodeArgs ?? []), options.bin ?? UPNESS_BIN, 'serve', '--host', '127.0.0.1', '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(options.env ? { env: options.env } : {}),
  });
  let logs = '';
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk) => {
      logs += chunk;
      const match = /"url":"(http:\/\/[^"]+)"/.exec(logs);
      if (match) resolve({ child, url: match[1]!, logs: () => logs });
    });
    child.stderr!.on('data', (chunk) => (logs += chunk));
    child.once('exit', (code) => reject(new Error(`upness serve exited with ${code}: ${logs}`)));
  });
}

/** Waits until the service says it is ready (200 from /readyz), at most `ms`. */
export async function ready(serve: ServeProcess, ms = 60_000): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(50)) {
    if ((await fetch(`${serve.url}/readyz`).catch(() => null))?.status === 200) return;
  }
  throw new Error(`upness serve at ${serve.url} not ready after ${ms} ms: ${serve.logs()}`);
}
