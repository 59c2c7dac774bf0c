// `npm test`: every step CI runs (the same list as the tier scripts: typecheck, lint, unit,
// service, kube, postgres, plugin, browser, build, bench smoke), scheduled for a 2-core machine:
//
// - the expensive prerequisites (kube-apiserver and etcd, PostgreSQL, the alert template renderer,
//   the plugin's Go modules and first build) start at once, in the background, outside any test's
//   timeout; a step starts only when the prerequisites it needs are ready (each tier's globalSetup
//   still checks them itself, which is then a cache hit);
// - the tiers that mostly wait on servers (kube, postgres) run beside the CPU-bound steps; the
//   CPU-bound steps run `nice`d, so the timing-sensitive tests keep the cores when they need them
//   (README "Timing"); never more CPU-bound steps at once than UPNESS_TEST_JOBS (default 1: on 2
//   cores a second one only competes with the first) nor server tiers than UPNESS_TEST_WAITING
//   (default 2);
// - each step's output goes to a log file (the directory is printed first); a progress line when a
//   step starts and ends; a failing step's whole output is printed; at the end a table of wall
//   times and `N passed, M failed` (steps);
// - every step runs in its own process group, killed (SIGTERM, then SIGKILL) however the run ends:
//   Ctrl-C, SIGTERM, or --bail after a failing step. The servers the tiers start die with them
//   (test/support/processes.ts).
//
//   node test/support/run-tests.ts [--bail] [--list] [step ...]   (default: every step)

import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..', '..');

interface Step {
  name: string;
  /** Argument vector, run from the repository's root. */
  command: string[];
  /** Prerequisites (or other steps) that must have passed first. */
  needs: string[];
  /** Takes a CPU-bound slot (see UPNESS_TEST_JOBS); a waiting step (servers) does not. */
  cpu: boolean;
  /** A prerequisite: not counted among the steps, starts at once. */
  prerequisite?: boolean;
}

const npm = (script: string): string[] => ['npm', 'run', '--silent', script];
const prepare = (what: string): string[] => [process.execPath, 'test/support/prepare.ts', what];

// The order is the priority among steps that are ready: the long waiting tiers first, so they
// overlap the most; then the CPU-bound steps, quickest feedback first.
const STEPS: Step[] = [
  { name: 'prepare kube', command: prepare('kube'), needs: [], cpu: false, prerequisite: true },
  { name: 'prepare postgres', command: prepare('postgres'), needs: [], cpu: false, prerequisite: true },
  { name: 'prepare render', command: prepare('render'), needs: [], cpu: false, prerequisite: true },
  { name: 'prepare plugin', command: ['bash', 'test/support/plugin.sh', '--prepare'], needs: [], cpu: false, prerequisite: true },
  { name: 'prepare browser', command: prepare('browser'), needs: [], cpu: false, prerequisite: true },
  { name: 'kube', command: npm('test:kube'), needs: ['prepare kube'], cpu: false },
  { name: 'postgres', command: npm('test:postgres'), needs: ['prepare kube', 'prepare postgres'], cpu: false },
  { name: 'typecheck', command: npm('typecheck'), needs: [], cpu: true },
  { name: 'lint', command: npm('lint'), needs: [], cpu: true },
  { name: 'unit', command: npm('test:unit'), needs: [], cpu: true },
  { name: 'service', command: npm('test:service'), needs: ['prepare render'], cpu: true },
  { name: 'plugin', command: npm('test:plugin'), needs: ['prepare plugin'], cpu: true },
  { name: 'build', command: npm('build'), needs: ['prepare plugin'], cpu: true },
  { name: 'browser', command: npm('test:browser'), needs: ['prepare browser'], cpu: true },
  // The plugin benchmark's smoke run builds the plugin's tests with the Go modules the plugin's prepare fetched.
  { name: 'bench smoke', command: npm('bench:smoke'), needs: ['prepare plugin'], cpu: true },
];

type State = 'waiting' | 'running' | 'passed' | 'failed' | 'skipped';
interface Run {
  step: Step;
  state: State;
  started?: number;
  ended?: number;
  child?: ChildProcess;
  log: string;
  why?: string;
}

const args = process.argv.slice(2);
const bail = args.includes('--bail');
if (args.includes('--list')) {
  for (const step of STEPS) process.stdout.write(`${step.name}${step.prerequisite ? ' (prerequisite)' : ''}: ${step.command.join(' ')}\n`);
  process.exit(0);
}
const chosen = args.filter((a) => !a.startsWith('--'));
const unknown = chosen.filter((name) => !STEPS.some((s) => s.name === name && !s.prerequisite));
if (unknown.length > 0) {
  process.stderr.write(`run-tests: unknown step(s): ${unknown.join(', ')} (--list shows them)\n`);
  process.exit(2);
}
const jobs = Math.max(1, Number(process.env.UPNESS_TEST_JOBS ?? 1) || 1);
/** Waiting steps (the server tiers) at once. */
const waiting = Math.max(1, Number(process.env.UPNESS_TEST_WAITING ?? 2) || 2);

// The steps asked for, and the prerequisites they need.
const wanted = new Set(chosen.length > 0 ? chosen : STEPS.filter((s) => !s.prerequisite).map((s) => s.name));
for (const step of STEPS) if (wanted.has(step.name)) for (const need of step.needs) wanted.add(need);

const logDir = mkdtempSync(join(tmpdir(), 'upness-test-run-'));
const runs: Run[] = STEPS.filter((s) => wanted.has(s.name)).map((step) => ({
  step,
  state: 'waiting',
  log: join(logDir, `${step.name.replace(/\W+/g, '-')}.log`),
}));
const t0 = Date.now();
const clock = (): string => `${((Date.now() - t0) / 1000).toFixed(0).padStart(4)} s`;
const say = (line: string): void => void process.stdout.write(`[${clock()}] ${line}\n`);
const seconds = (run: Run): string => (run.started === undefined ? '' : (((run.ended ?? Date.now()) - run.started) / 1000).toFixed(1));

let stopping = false;

function start(run: Run): void {
  run.state = 'running';
  run.started = Date.now();
  const out = createWriteStream(run.log);
  // CPU-bound steps yield to the waiting tiers (their timing-sensitive tests) and to the
  // prerequisites' builds: `nice` lowers only the scheduling weight, never the result.
  const argv = run.step.cpu ? ['nice', '-n', '10', ...run.step.command] : run.step.command;
  const child = spawn(argv[0]!, argv.slice(1), {
    cwd: ROOT,
    detached: true, // its own process group, killed as a whole
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, FORCE_COLOR: '0' },
  });
  run.child = child;
  child.stdout.pipe(out, { end: false });
  child.stderr.pipe(out, { end: false });
  say(`start ${run.step.name}: ${run.step.command.join(' ')}`);
  const finish = (code: number | null, signal: NodeJS.Signals | null, error?: Error): void => {
    if (run.ended !== undefined) return;
    run.ended = Date.now();
    run.child = undefined;
    killGroup(child, 'SIGKILL'); // whatever the step left behind in its group
    out.end(() => {
      if (code === 0) {
        run.state = 'passed';
        say(`pass  ${run.step.name} (${seconds(run)} s)`);
      } else {
        run.state = 'failed';
        run.why = error ? error.message : signal ? `killed by ${signal}` : `exit code ${code}`;
        say(`FAIL  ${run.step.name} (${seconds(run)} s, ${run.why}); its output (${run.log}):`);
        if (!stopping) process.stdout.write(readFileSync(run.log, 'utf8').replace(/^/gm, `  ${run.step.name} | `) + '\n');
        if (bail && !stopping) void stop(`--bail: ${run.step.name} failed`);
      }
      schedule();
    });
  };
  child.once('exit', (code, signal) => finish(code, signal));
  child.once('error', (error) => finish(null, null, error));
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // the group is gone already
  }
}

function schedule(): void {
  if (stopping) return;
  for (const run of runs) {
    if (run.state !== 'waiting') continue;
    const needs = run.step.needs.map((name) => runs.find((r) => r.step.name === name)!);
    const failed = needs.find((r) => r.state === 'failed' || r.state === 'skipped');
    if (failed) {
      run.state = 'skipped';
      run.why = `${failed.step.name} did not pass`;
      say(`skip  ${run.step.name}: ${run.why}`);
      continue;
    }
    if (needs.some((r) => r.state !== 'passed')) continue;
    const busy = runs.filter((r) => r.state === 'running' && !r.step.prerequisite && r.step.cpu === run.step.cpu).length;
    if (!run.step.prerequisite && busy >= (run.step.cpu ? jobs : waiting)) continue;
    start(run);
  }
  if (runs.every((r) => r.state !== 'waiting' && r.state !== 'running')) report();
}

/** Ends the run early: SIGTERM to every step's group, SIGKILL to what is left after 5 s. */
async function stop(why: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  say(`stopping (${why}): killing every running step`);
  const running = runs.filter((r) => r.child);
  for (const run of running) killGroup(run.child!, 'SIGTERM');
  const deadline = Date.now() + 5_000;
  while (runs.some((r) => r.child) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  for (const run of runs) if (run.child) killGroup(run.child, 'SIGKILL');
  for (const run of runs) {
    if (run.state === 'waiting') {
      run.state = 'skipped';
      run.why = why;
    }
  }
  while (runs.some((r) => r.state === 'running')) await new Promise((r) => setTimeout(r, 50));
  report();
}

let reported = false;
function report(): void {
  if (reported) return;
  reported = true;
  const rows = runs.map((r) => [r.step.name + (r.step.prerequisite ? ' (prerequisite)' : ''), r.state, seconds(r), r.why ?? '']);
  const total = ((Date.now() - t0) / 1000).toFixed(1);
  const width = [0, 1, 2].map((i) => Math.max(...rows.map((row) => row[i]!.length), ['step', 'result', 'wall s'][i]!.length));
  const line = (row: string[]): string => `${row[0]!.padEnd(width[0]!)}  ${row[1]!.padEnd(width[1]!)}  ${row[2]!.padStart(width[2]!)}  ${row[3]}`.trimEnd();
  process.stdout.write(`\n${line(['step', 'result', 'wall s', ''])}\n${rows.map(line).join('\n')}\n${line(['total', '', total, `(UPNESS_TEST_JOBS=${jobs}, UPNESS_TEST_WAITING=${waiting}; logs in ${logDir})`])}\n`);
  const steps = runs.filter((r) => !r.step.prerequisite);
  const passed = steps.filter((r) => r.state === 'passed').length;
  // A step skipped (its prerequisite failed, or the run was stopped) did not pass: it counts as failed.
  const failed = steps.length - passed;
  process.stdout.write(`${passed} passed, ${failed} failed\n`);
  if (process.exitCode === undefined || process.exitCode === 0) process.exitCode = failed === 0 ? 0 : 1;
  if (stopping) process.exit(process.exitCode);
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    process.exitCode = 130;
    void stop(signal);
  });
}
// Last resort (an exception in here): no step outlives the runner.
process.on('exit', () => {
  for (const run of runs) if (run.child) killGroup(run.child, 'SIGKILL');
});

say(`${runs.length} steps and prerequisites; logs in ${logDir}; at once: ${jobs} CPU-bound (UPNESS_TEST_JOBS), ${waiting} server tiers (UPNESS_TEST_WAITING)`);
schedule();
