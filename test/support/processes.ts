// Child processes that die with the test run, however it ends.
//
// Every server a test starts (upness serve, kube-apiserver, etcd, postgres) goes through
// spawnOwned(), which makes three promises:
// - the kernel kills the child when the process that started it dies, even by SIGKILL
//   (`setpriv --pdeathsig KILL`, util-linux: Linux's PR_SET_PDEATHSIG, kept across the exec);
// - at the end of each test file, after every afterAll hook and also when one timed out, the
//   file's test environment (environment.cjs) kills whatever it left running, and refuses any
//   server that a still-running promise tries to start after the file has ended;
// - on a normal process exit, everything still running is killed.
// Each child leads its own process group, so a Ctrl-C in the terminal reaches it only through the
// test run, and a kill takes its own children with it.

import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { existsSync } from 'node:fs';

export interface OwnedOptions extends SpawnOptions {
  /** Run as this user (with its groups): PostgreSQL refuses to run as root. */
  asUser?: string;
}

interface Registry {
  children: Set<ChildProcess>;
  /** Set when the test file has ended: nothing may be started any more. */
  closedBecause: string | null;
  /** Kills every child still running; returns a line per child killed. */
  killAll(): string[];
}

// The key the test environment reads in its teardown (environment.cjs): one registry per test
// file, since each file has its own global object.
const KEY = '__upnessOwnedProcesses';
const SETPRIV = '/usr/bin/setpriv';

function registry(): Registry {
  const global = globalThis as unknown as Record<string, Registry | undefined>;
  const existing = global[KEY];
  if (existing) return existing;
  const children = new Set<ChildProcess>();
  const created: Registry = {
    children,
    closedBecause: null,
    killAll() {
      const killed: string[] = [];
      for (const child of children) {
        if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
          killed.push(`${child.pid} ${child.spawnargs.slice(0, 6).join(' ')}`);
          killGroup(child.pid);
        }
      }
      children.clear();
      return killed;
    },
  };
  global[KEY] = created;
  process.once('exit', () => created.killAll());
  return created;
}

function killGroup(pid: number): void {
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, 'SIGKILL');
      return;
    } catch {
      // No such group (it was not detached) or already gone: try the process itself.
    }
  }
}

/** Like child_process.spawn, but the child cannot outlive the test run (see above). */
export function spawnOwned(command: string, args: readonly string[], options: OwnedOptions = {}): ChildProcess {
  const owned = registry();
  if (owned.closedBecause !== null) {
    throw new Error(`not starting ${command}: ${owned.closedBecause}`);
  }
  const { asUser, ...spawnOptions } = options;
  let argv: string[] = [command, ...args];
  if (process.platform === 'linux' && existsSync(SETPRIV)) {
    const user = asUser === undefined ? [] : ['--reuid', asUser, '--regid', asUser, '--init-groups'];
    argv = [SETPRIV, '--pdeathsig', 'KILL', ...user, '--', ...argv];
  } else if (asUser !== undefined) {
    throw new Error(`running ${command} as ${asUser} needs ${SETPRIV} (Debian's util-linux)`);
  }
  const child = spawn(argv[0]!, argv.slice(1), { detached: true, ...spawnOptions });
  owned.children.add(child);
  child.once('exit', () => owned.children.delete(child));
  child.once('error', () => owned.children.delete(child));
  return child;
}

/** Kills every owned child of this test file now (tests that want a clean slate mid-file). */
export function killOwned(): number {
  return registry().killAll().length;
}

/**
 * For a globalSetup that starts servers shared by the test files (shared-servers.ts): the children
 * started so far stay owned by this process (killed on its exit, and by the kernel when it dies),
 * but the registry is taken off the global object. Jest copies the main process's globals into
 * each test file's, so the files would otherwise share it, kill the shared servers when the first
 * file ends, and refuse every server started after that.
 */
export function keepOwnedFromTestFiles(): void {
  delete (globalThis as unknown as Record<string, Registry | undefined>)[KEY];
}
