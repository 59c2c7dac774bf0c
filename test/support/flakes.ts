// Checks a test tier for flakes: runs its npm script N times in a row while every core is kept busy
// (one busy-loop process per core), as on a loaded CI machine, and says how each run ended.
//
//   npm run test:flakes -- browser 20
//
// Each run's output goes to test-results/flakes/<tier>-<n>.log; a line per run and a final
// "N passed, M failed" line go to the terminal. Exits 1 if any run failed. The busy loops and the
// run under way die with this process however it ends (spawnOwned: a process group under
// `setpriv --pdeathsig KILL`, and killed on exit, Ctrl-C and SIGTERM).

import { createWriteStream, mkdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { killOwned, spawnOwned } from './processes.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const LOGS = join(ROOT, 'test-results/flakes');
const TIERS = ['unit', 'service', 'kube', 'postgres', 'browser', 'plugin'] as const;
type Tier = (typeof TIERS)[number];

function usage(problem: string): never {
  console.error(`${problem}\nusage: npm run test:flakes -- <${TIERS.join('|')}> [runs, default 10]`);
  process.exit(2);
}

const [tierArg, runsArg = '10'] = process.argv.slice(2);
if (!TIERS.includes(tierArg as Tier)) {
  usage(tierArg === undefined ? 'which tier?' : `no tier "${tierArg}"`);
}
const tier = tierArg as Tier;
const runs = Number(runsArg);
if (!Number.isInteger(runs) || runs < 1) {
  usage(`runs must be a whole number of at least 1, not "${runsArg}"`);
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    const killed = killOwned();
    console.log(`\n${signal}: stopped (${killed} processes killed)`);
    process.exit(130);
  });
}

// One busy loop per core: the tier competes for every core, as on a shared CI runner.
const cores = availableParallelism();
for (let i = 0; i < cores; i++) {
  spawnOwned(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
}
console.log(`${tier} tier, ${runs} runs, ${cores} busy-loop processes keeping every core busy; logs in ${LOGS}/`);

/** Runs the tier's npm script once, its output to `log`; resolves with its exit code. */
function runTier(log: string): Promise<number> {
  return new Promise((done) => {
    const out = createWriteStream(log);
    const child = spawnOwned('npm', ['run', `test:${tier}`], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.pipe(out, { end: false });
    child.stderr!.pipe(out, { end: false });
    child.once('error', (error) => {
      out.end(`\n${String(error)}\n`);
      done(127);
    });
    child.once('close', (code, signal) => {
      out.end();
      done(code ?? (signal ? 128 : 1));
    });
  });
}

mkdirSync(LOGS, { recursive: true });
let passed = 0;
let failed = 0;
try {
  for (let n = 1; n <= runs; n++) {
    const log = join(LOGS, `${tier}-${n}.log`);
    const started = performance.now();
    const code = await runTier(log);
    const seconds = Math.round((performance.now() - started) / 1000);
    if (code === 0) {
      passed++;
      console.log(`run ${n}/${runs}: pass (${seconds} s)`);
    } else {
      failed++;
      console.log(`run ${n}/${runs}: FAIL, exit ${code} (${seconds} s): ${log}`);
    }
  }
} finally {
  killOwned();
}
console.log(`${passed} passed, ${failed} failed`);
process.exitCode = failed === 0 ? 0 : 1;
