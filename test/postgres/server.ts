// A real, throwaway PostgreSQL server for tests: Debian's `postgresql` package (installed with apt-get
// the first time, if missing), `initdb` into a temp dir as the unprivileged `postgres` user (the
// server refuses to run as root), `postgres` on loopback on a free port with its socket in the temp
// dir, trust authentication. Nothing is cached in the repository; the temp dir goes with stop().
//
//   const pg = await startPostgres();
//   const url = await pg.createDatabase('t1');     // postgres://upness@127.0.0.1:<port>/t1
//   await pg.stop('immediate'); await pg.start();   // a crash and a restart, same data
//   await pg.destroy();
//
// `node test/postgres/start.ts` starts one by hand (it prints the URL and waits for Ctrl-C).

import { execFile, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { chown, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import pg from 'pg';
import { ensureDebianPackages } from '../support/debian.ts';
import { spawnOwned } from '../support/processes.ts';

const execFileP = promisify(execFile);
const TEMP_PREFIX = 'upness-pg-';
const OWNER_FILE = 'owner.pid';
/** The role tests connect as: a superuser made by initdb, trusted on loopback. */
export const PG_USER = 'upness';

export interface InstallInfo {
  binDir: string;
  version: string;
  /** Milliseconds spent installing the package (0 when it was there already). */
  installMs: number;
}

/** How to stop the server: PostgreSQL's smart/fast/immediate shutdown, or SIGKILL (a crash). */
export type StopMode = 'fast' | 'immediate' | 'kill';

export interface PostgresServer {
  readonly port: number;
  readonly dataDir: string;
  readonly socketDir: string;
  readonly binDir: string;
  readonly version: string;
  readonly running: boolean;
  /** How long initdb and the first start took, and the install (0 when already installed). */
  readonly timings: { installMs: number; initdbMs: number; startMs: number };
  /** A URL for `database` (default: the maintenance database `postgres`). */
  url(database?: string): string;
  /** Creates a database (dropping one of that name first) and returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** Runs SQL as the superuser in `database` (default `postgres`). */
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, params?: unknown[], database?: string): Promise<pg.QueryResult<R>>;
  /** Starts again on the same port with the same data; resolves once it accepts connections. */
  start(): Promise<void>;
  /** Stops the server (default fast: disconnects clients, checkpoints) and waits for it to exit. */
  stop(mode?: StopMode): Promise<void>;
  /** SIGSTOP / SIGCONT to the server and all its processes: connections stay open, nothing answers (a hung database). */
  pause(): Promise<void>;
  resume(): Promise<void>;
  /** Stops it and removes the temp dir. Safe to call twice. */
  destroy(): Promise<void>;
}

export interface StartOptions {
  /** Extra `-c name=value` settings. */
  settings?: Record<string, string>;
  /** Progress messages (default none). */
  log?: (message: string) => void;
}

const run = async (file: string, args: string[], options: { asUser?: string | null; env?: NodeJS.ProcessEnv } = {}): Promise<string> => {
  const [cmd, argv] = options.asUser ? ['runuser', ['-u', options.asUser, '--', file, ...args]] : [file, args];
  const { stdout } = await execFileP(cmd, argv, { env: { ...process.env, ...options.env }, maxBuffer: 16 << 20 });
  return stdout;
};

function findBinDir(): { binDir: string; version: string } | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'postgres')) && existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length === 0 ? null : { binDir: join(root, versions[0]!, 'bin'), version: versions[0]! };
}

/**
 * Finds PostgreSQL's binaries, installing the tier's Debian packages first when they are missing
 * (test/support/debian.ts: apt-get as root, serialised by a lock file so that tiers and test files
 * running at once do not fight over dpkg's lock).
 */
export async function ensurePostgres(log: (m: string) => void = () => {}): Promise<InstallInfo> {
  const started = Date.now();
  // The postgres tier's Debian packages (test/support/debian.ts): postgresql, and procps for pgrep.
  await ensureDebianPackages('postgres', log);
  const installed = findBinDir();
  if (installed === null) throw new Error('the Debian package postgresql is installed, but /usr/lib/postgresql/*/bin/postgres is missing');
  return { ...installed, installMs: Date.now() - started };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Removes the temp dirs of test runs that died without cleaning up (their owner process is gone). */
function removeStaleTempDirs(): void {
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith(TEMP_PREFIX)) continue;
    const dir = join(tmpdir(), name);
    try {
      const owner = Number(readFileSync(join(dir, OWNER_FILE), 'utf8'));
      if (owner > 0 && alive(owner)) continue;
      const pidFile = join(dir, 'data', 'postmaster.pid');
      if (existsSync(pidFile)) {
        const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
        if (pid > 0 && alive(pid)) process.kill(pid, 'SIGQUIT');
      }
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // Not ours, or already gone.
    }
  }
}

/** Servers to kill if the test process exits without destroy() (a failed test, Ctrl-C). */
const running = new Set<{ kill: () => void }>();
let exitHook = false;

export async function startPostgres(options: StartOptions = {}): Promise<PostgresServer> {
  const log = options.log ?? (() => {});
  const install = await ensurePostgres(log);
  removeStaleTempDirs();
  const root = await mkdtemp(join(tmpdir(), TEMP_PREFIX));
  await writeFile(join(root, OWNER_FILE), String(process.pid));
  const dataDir = join(root, 'data');
  const socketDir = join(root, 'sock');
  await mkdir(dataDir, { mode: 0o700 });
  await mkdir(socketDir);
  // PostgreSQL will not run as root: as root, hand the dirs to the postgres user and run as it.
  const asUser = userInfo().uid === 0 ? 'postgres' : null;
  if (asUser !== null) {
    const { stdout } = await execFileP('id', ['-u', asUser]);
    const { stdout: gid } = await execFileP('id', ['-g', asUser]);
    for (const dir of [root, dataDir, socketDir]) await chown(dir, Number(stdout), Number(gid));
  }

  const initStarted = Date.now();
  // --no-sync: a throwaway cluster need not be fsynced once initialised (the server itself still fsyncs).
  await run(join(install.binDir, 'initdb'), ['-D', dataDir, '-U', PG_USER, '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync', '--no-instructions'], { asUser });
  const initdbMs = Date.now() - initStarted;
  const port = await freePort();
  const settings: Record<string, string> = {
    listen_addresses: '127.0.0.1',
    unix_socket_directories: socketDir,
    max_connections: '200',
    // Test servers are restarted often: a short checkpoint after a crash keeps recovery quick.
    logging_collector: 'off',
    ...options.settings,
  };
  const args = ['-D', dataDir, '-p', String(port), ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`])];
  const logFile = join(root, 'postgres.log');

  let child: ChildProcess | null = null;
  let postmasterPid: number | null = null;
  const entry = {
    kill: () => {
      if (postmasterPid !== null && alive(postmasterPid)) process.kill(postmasterPid, 'SIGQUIT');
      rmSync(root, { recursive: true, force: true });
    },
  };
  running.add(entry);
  if (!exitHook) {
    exitHook = true;
    process.once('exit', () => {
      for (const r of running) r.kill();
    });
  }

  const clientConfig = (database: string): pg.ClientConfig => ({ host: '127.0.0.1', port, user: PG_USER, database, connectionTimeoutMillis: 2000 });

  const waitReady = async (deadlineMs: number): Promise<void> => {
    const until = Date.now() + deadlineMs;
    for (;;) {
      const client = new pg.Client(clientConfig('postgres'));
      client.on('error', () => {});
      try {
        await client.connect();
        await client.query('SELECT 1');
        await client.end();
        return;
      } catch (error) {
        await client.end().catch(() => {});
        if (child === null || child.exitCode !== null) {
          throw new Error(`postgres exited while starting (${(error as Error).message}); its log:\n${await readFile(logFile, 'utf8').catch(() => '')}`);
        }
        if (Date.now() > until) throw new Error(`postgres did not accept connections within ${deadlineMs} ms: ${(error as Error).message}`);
        await sleep(25);
      }
    }
  };

  const start = async (): Promise<void> => {
    if (child !== null && child.exitCode === null) return;
    const out = openSync(logFile, 'a');
    // Its own process group: a Ctrl-C meant for the tests reaches it only through stop(); and it
    // dies with the test process however that ends (spawnOwned). As root it runs as `postgres`.
    const spawned = spawnOwned(join(install.binDir, 'postgres'), args, { stdio: ['ignore', out, out], ...(asUser ? { asUser } : {}) });
    closeSync(out);
    child = spawned;
    const exited = new Promise<void>((resolve) => spawned.once('exit', () => resolve()));
    (spawned as ChildProcess & { exited?: Promise<void> }).exited = exited;
    await waitReady(30_000);
    // The postmaster itself (the child, which exec'd it): signals go straight to it.
    postmasterPid = Number((await readFile(join(dataDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
  };

  const stop = async (mode: StopMode = 'fast'): Promise<void> => {
    const current = child as (ChildProcess & { exited?: Promise<void> }) | null;
    if (current === null || current.exitCode !== null || postmasterPid === null) return;
    const signal = mode === 'fast' ? 'SIGINT' : mode === 'immediate' ? 'SIGQUIT' : 'SIGKILL';
    const pid = postmasterPid;
    // Its children (backends, background workers): after a SIGKILL they linger until they notice, and a
    // new postmaster refuses to start while they still hold the shared memory.
    const children = (await execFileP('pgrep', ['-P', String(pid)]).catch(() => ({ stdout: '' }))).stdout.split('\n').filter(Boolean).map(Number);
    try {
      process.kill(pid, signal);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    }
    // Wait for the postmaster to be gone (and, after SIGKILL, for its backends to notice).
    const until = Date.now() + 30_000;
    while (alive(pid) && Date.now() < until) await sleep(10);
    await Promise.race([current.exited, sleep(5000, undefined, { ref: false })]);
    const deadline = Date.now() + 10_000;
    while (children.some(alive) && Date.now() < deadline) await sleep(10);
    postmasterPid = null;
  };

  const startStarted = Date.now();
  try {
    await start();
  } catch (error) {
    entry.kill();
    running.delete(entry);
    throw error;
  }
  const startMs = Date.now() - startStarted;
  log(`postgres ${install.version}: initdb ${initdbMs} ms, start ${startMs} ms, port ${port}, dir ${root}`);

  const query = async <R extends pg.QueryResultRow>(sql: string, params: unknown[] = [], database = 'postgres'): Promise<pg.QueryResult<R>> => {
    const client = new pg.Client(clientConfig(database));
    await client.connect();
    try {
      return await client.query<R>(sql, params);
    } finally {
      await client.end();
    }
  };

  const signalAll = async (signal: NodeJS.Signals): Promise<void> => {
    if (postmasterPid === null) return;
    const { stdout } = await execFileP('pgrep', ['-P', String(postmasterPid)]).catch(() => ({ stdout: '' }));
    for (const pid of [postmasterPid, ...stdout.split('\n').filter(Boolean).map(Number)]) {
      try {
        process.kill(pid, signal);
      } catch {
        // Exited meanwhile.
      }
    }
  };

  let destroyed: Promise<void> | null = null;
  return {
    port,
    dataDir,
    socketDir,
    binDir: install.binDir,
    version: install.version,
    get running() {
      return child !== null && child.exitCode === null;
    },
    timings: { installMs: install.installMs, initdbMs, startMs },
    url: (database = 'postgres') => `postgres://${PG_USER}@127.0.0.1:${port}/${database}`,
    async createDatabase(name) {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a plain database name: ${name}`);
      await query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await query(`CREATE DATABASE ${name}`);
      return `postgres://${PG_USER}@127.0.0.1:${port}/${name}`;
    },
    query,
    start,
    stop,
    pause: () => signalAll('SIGSTOP'),
    resume: () => signalAll('SIGCONT'),
    destroy: () =>
      (destroyed ??= (async () => {
        await signalAll('SIGCONT');
        await stop('immediate');
        running.delete(entry);
        await rm(root, { recursive: true, force: true });
      })()),
  };
}
