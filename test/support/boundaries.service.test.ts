// The house's map is enforced by lint (eslint.stages.mjs: STAGE_IMPORTS, PURE, TYPES_ONLY): these deliberate
// violations must fail, with the rule that names them, and lawful imports must pass. It runs the
// project's real ESLint configuration in a child Node (ESLint's config is ESM), on text given with a
// path inside backend/src, so nothing is written to the tree.

import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

interface Case {
  path: string;
  code: string;
}
interface Result {
  path: string;
  messages: { ruleId: string | null; message: string }[];
}

const LINT = `
import { ESLint } from 'eslint';
const cases = JSON.parse(process.argv[1]);
const eslint = new ESLint({ cwd: process.cwd(), cache: false });
const out = [];
for (const { path, code } of cases) {
  const [result] = await eslint.lintText(code, { filePath: path });
  out.push({ path, messages: result.messages.map((m) => ({ ruleId: m.ruleId, message: m.message })) });
}
// On a line of its own: a plugin of the frontend's config prints a deprecation notice to stdout.
process.stdout.write('\\n' + JSON.stringify(out) + '\\n');
`;

function lint(cases: Case[]): Result[] {
  const node = join(ROOT, 'node_modules', '.bin', 'node');
  const run = spawnSync(node, ['--input-type=module', '-e', LINT, JSON.stringify(cases)], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  if (run.status !== 0) throw new Error(`eslint failed to run: ${run.stderr}`);
  return JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '') as Result[];
}

const violations: (Case & { rule: string; says: RegExp })[] = [
  // A stage importing one its entry in eslint.stages.mjs does not list (here: later in the flow).
  { path: 'backend/src/series/x.ts', code: "import { createApp } from '../http/app.ts';\nexport const a = createApp;\n", rule: '@typescript-eslint/no-restricted-imports', says: /series is pure and may not import backend\/src\/http/ },
  { path: 'backend/src/series/x.ts', code: "import type { UpnessQuery } from '../query/types.ts';\nexport type Q = UpnessQuery;\n", rule: '@typescript-eslint/no-restricted-imports', says: /series may not import backend\/src\/query: series may import only observation, timeline/ },
  { path: 'backend/src/timeline/x.ts', code: "import { summarize } from '../series/summary.ts';\nexport const s = summarize;\n", rule: '@typescript-eslint/no-restricted-imports', says: /timeline may not import backend\/src\/series/ },
  { path: 'backend/src/sources/cluster/x.ts', code: "import type { ClusterEngine } from '../../nodes/engine.ts';\nexport type E = ClusterEngine;\n", rule: '@typescript-eslint/no-restricted-imports', says: /sources\/cluster may not import backend\/src\/nodes/ },
  { path: 'backend/src/observation/x.ts', code: "import type { State } from '../timeline/types.ts';\nexport type S = State;\n", rule: '@typescript-eslint/no-restricted-imports', says: /observation may not import backend\/src\/timeline: observation is the leaf/ },
  { path: 'backend/src/store/x.ts', code: "import { FleetIndex } from '../series/fleet-index.ts';\nexport const f = FleetIndex;\n", rule: '@typescript-eslint/no-restricted-imports', says: /store may not import backend\/src\/series/ },
  // A pure stage importing an I/O stage, even one earlier in the flow: the map is a graph, not a line.
  { path: 'backend/src/series/x.ts', code: "import { EmbeddedStore } from '../store/embedded.ts';\nexport const s = EmbeddedStore;\n", rule: '@typescript-eslint/no-restricted-imports', says: /series is pure and may not import backend\/src\/store \(I\/O\): a pure stage imports only pure stages/ },
  { path: 'backend/src/timeline/x.ts', code: "import { ClusterWatcher } from '../sources/cluster/watcher.ts';\nexport const w = ClusterWatcher;\n", rule: '@typescript-eslint/no-restricted-imports', says: /timeline is pure and may not import backend\/src\/sources\/cluster \(I\/O\)/ },
  { path: 'backend/src/frames/x.ts', code: "import type { PostgresStore } from '../store/postgres.ts';\nexport type P = PostgresStore;\n", rule: '@typescript-eslint/no-restricted-imports', says: /frames is pure and may not import backend\/src\/store \(I\/O\)/ },
  { path: 'backend/src/query/x.ts', code: "import { readTrace } from '../sources/trace/read.ts';\nexport const r = readTrace;\n", rule: '@typescript-eslint/no-restricted-imports', says: /query is pure and may not import backend\/src\/sources\/trace \(I\/O\)/ },
  // The sources are sub-stages: one does not reach into another.
  { path: 'backend/src/sources/cluster/x.ts', code: "import { readTrace } from '../trace/read.ts';\nexport const r = readTrace;\n", rule: '@typescript-eslint/no-restricted-imports', says: /sources\/cluster may not import backend\/src\/sources\/trace/ },
  // An I/O stage importing one its entry does not list.
  { path: 'backend/src/leader/x.ts', code: "import { createApp } from '../http/app.ts';\nexport const a = createApp;\n", rule: '@typescript-eslint/no-restricted-imports', says: /leader may not import backend\/src\/http: leader may import only observation, store, runtime/ },
  // The runtime serves a view; the API reads it: the runtime does not reach back into the API or the commands.
  { path: 'backend/src/runtime/x.ts', code: "import { createApp } from '../http/app.ts';\nexport const a = createApp;\n", rule: '@typescript-eslint/no-restricted-imports', says: /runtime may not import backend\/src\/http/ },
  { path: 'backend/src/runtime/x.ts', code: "import { UsageError } from '../cli/options.ts';\nexport const u = UsageError;\n", rule: '@typescript-eslint/no-restricted-imports', says: /runtime may not import backend\/src\/cli/ },
  // The simulator may take its truth's types from timeline/types.ts, nothing else.
  { path: 'backend/src/sources/simulator/x.ts', code: "import { TimelineEngine } from '../../timeline/engine.ts';\nexport const e = TimelineEngine;\n", rule: '@typescript-eslint/no-restricted-imports', says: /simulator takes only the types of timeline\/types\.ts/ },
  { path: 'backend/src/sources/simulator/x.ts', code: "import { TERMINAL_STATES } from '../../timeline/types.ts';\nexport const t = TERMINAL_STATES;\n", rule: '@typescript-eslint/no-restricted-imports', says: /import type/ },
  // The pure stages: no clock, timers, process, file system.
  { path: 'backend/src/timeline/x.ts', code: 'export const now = Date.now();\n', rule: 'no-restricted-properties', says: /Date\.now/ },
  { path: 'backend/src/nodes/x.ts', code: 'export const now = new Date();\n', rule: 'no-restricted-syntax', says: /new Date\(\)/ },
  { path: 'backend/src/series/x.ts', code: 'setTimeout(() => {}, 1);\n', rule: 'no-restricted-globals', says: /setTimeout/ },
  { path: 'backend/src/query/x.ts', code: 'export const env = process.env.HOME;\n', rule: 'no-restricted-globals', says: /process/ },
  { path: 'backend/src/frames/x.ts', code: "import { readFileSync } from 'node:fs';\nexport const r = readFileSync;\n", rule: '@typescript-eslint/no-restricted-imports', says: /frames is pure/ },
  { path: 'backend/src/timeline/x.ts', code: "import express from 'express';\nexport const e = express;\n", rule: '@typescript-eslint/no-restricted-imports', says: /timeline is pure/ },
  // backend/src ships: its production code never imports a test helper (test/support/, or backend/test/), pure stage or not.
  { path: 'backend/src/store/x.ts', code: "import { crashFleet } from '../../../test/support/store/scenes.ts';\nexport const c = crashFleet;\n", rule: '@typescript-eslint/no-restricted-imports', says: /backend\/src is shipped: production code never imports test code/ },
  { path: 'backend/src/series/x.ts', code: "import { T0 } from '../../../test/support/arbitraries.ts';\nexport const t = T0;\n", rule: '@typescript-eslint/no-restricted-imports', says: /backend\/src is shipped: production code never imports test code/ },
  { path: 'backend/src/sources/cluster/x.ts', code: "import { upness } from '../../../test/crash.service.test.ts';\nexport const u = upness;\n", rule: '@typescript-eslint/no-restricted-imports', says: /backend\/src is shipped: production code never imports test code/ },
];

const lawful: Case[] = [
  { path: 'backend/src/series/x.ts', code: "import type { Timeline } from '../timeline/types.ts';\nexport type T = Timeline;\n" },
  { path: 'backend/src/query/x.ts', code: "import { FIGURES } from '../series/figure-definitions.ts';\nexport const f = FIGURES;\n" },
  { path: 'backend/src/sources/simulator/x.ts', code: "import type { Timeline } from '../../timeline/types.ts';\nexport type T = Timeline;\n" },
  { path: 'backend/src/sources/trace/x.ts', code: "import type { Observation } from '../../observation/types.ts';\nexport type O = Observation;\n" },
  { path: 'backend/src/timeline/x.ts', code: "export const at = Date.parse('2026-01-01T00:00:00Z');\n" },
  { path: 'backend/src/cli/x.ts', code: "import { createApp } from '../http/app.ts';\nexport const now = Date.now() + Number(createApp);\n" },
  { path: 'backend/src/frames/x.ts', code: "import { interruptionCategory } from '../nodes/causes.ts';\nexport const c = interruptionCategory;\n" },
  { path: 'backend/src/runtime/x.ts', code: "import { ClusterWatcher } from '../sources/cluster/watcher.ts';\nexport const w = ClusterWatcher;\n" },
  { path: 'backend/src/store/migrations/x.ts', code: "import type { Transition } from '../../timeline/types.ts';\nexport type T = Transition;\n" },
  // A test beside the code takes its helpers from test/support/.
  { path: 'backend/src/store/x.test.ts', code: "import { crashFleet } from '../../../test/support/store/scenes.ts';\nexport const c = crashFleet;\n" },
];

let results: Result[] = [];

beforeAll(() => {
  results = lint([...violations, ...lawful]);
}, 180_000);

test.each(violations.map((v, i) => [`${v.path}: ${v.code.split('\n')[0]}`, i] as const))('refused: %s', (_name, i) => {
  const { rule, says } = violations[i]!;
  const messages = results[i]!.messages.filter((m) => m.ruleId === rule);
  expect(messages.map((m) => m.message).join('\n')).toMatch(says);
});

test.each(lawful.map((c, i) => [`${c.path}: ${c.code.split('\n')[0]}`, i] as const))('allowed: %s', (_name, i) => {
  expect(results[violations.length + i]!.messages).toEqual([]);
});
