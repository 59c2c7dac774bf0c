// The house's map is written three times: eslint.stages.mjs (what lint enforces), README.md's
// "Layout" table (what a reader is told) and the tree's own imports. This test reads all three and
// checks that they say the same thing, so none can drift: every stage's real imports are in its
// entry, every entry (besides observation, the leaf every stage may use) is used by the tree, and the
// README's "may import" column and "(pure)" marks are the map's.

import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const SRC = join(ROOT, 'backend', 'src');

interface StageMap {
  STAGE_IMPORTS: Record<string, string[]>;
  PURE: string[];
  TYPES_ONLY: Record<string, Record<string, string>>;
}

/** The map as lint loads it (an ES module: read in a child Node, as ESLint would). */
function lintMap(): StageMap {
  const node = join(ROOT, 'node_modules', '.bin', 'node');
  const code = "const m = await import('./eslint.stages.mjs'); process.stdout.write(JSON.stringify(m));";
  const run = spawnSync(node, ['--input-type=module', '-e', code], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  if (run.status !== 0) throw new Error(`eslint.stages.mjs failed to load: ${run.stderr}`);
  return JSON.parse(run.stdout) as StageMap;
}

interface Row {
  stage: string;
  pure: boolean;
  mayImport: string[];
}

/** README's "Layout" table: `| \`backend/src/<stage>\` | holds (pure) | a, b (note), c |`. */
function readmeRows(): Row[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.split(/^### Layout$/m)[1]?.split(/^#{2,3} /m)[0] ?? '';
  const rows = section.split('\n').filter((line) => line.startsWith('| `backend/src/'));
  return rows.map((line) => {
    const cells = line.split(' | ').map((cell) => cell.replace(/^\| |\s*\|$/g, '').trim());
    const [folder = '', holds = '', may = ''] = cells;
    const stage = folder.replace(/^`backend\/src\/|`$/g, '');
    const mayImport =
      may === 'nothing'
        ? []
        : may
            .replace(/\([^)]*\)/g, '')
            .split(',')
            .map((name) => name.replaceAll('`', '').trim());
    return { stage, pure: /\(pure\)$/.test(holds), mayImport };
  });
}

const stageOf = (path: string): string => {
  const [first = '', second = ''] = path.split('/');
  return first === 'sources' ? `sources/${second}` : first;
};

/** The stages each stage's code (not its tests) really imports, statically or dynamically. */
function treeImports(stages: string[]): Map<string, Set<string>> {
  const edges = new Map(stages.map((stage) => [stage, new Set<string>()]));
  const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
  for (const file of files) {
    const from = stageOf(file);
    const text = readFileSync(join(SRC, file), 'utf8');
    const specifiers = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+'([^']+)'|(?:^|\n)\s*import\s+'([^']+)'|\bimport\(\s*'([^']+)'\s*\)/g)].map((m) => m[1] ?? m[2] ?? m[3] ?? '');
    for (const specifier of specifiers.filter((s) => s.startsWith('.'))) {
      const to = stageOf(relative(SRC, join(SRC, dirname(file), specifier)));
      if (to !== from) edges.get(from)?.add(to);
    }
  }
  return edges;
}

const map = lintMap();
const stages = Object.keys(map.STAGE_IMPORTS);

test('README lists the stages of the map, in its order', () => {
  expect(readmeRows().map((row) => row.stage)).toEqual(stages);
});

test.each(stages)("README's Layout says what %s may import, and whether it is pure, as the map does", (stage) => {
  const row = readmeRows().find((r) => r.stage === stage);
  expect(row?.mayImport).toEqual(map.STAGE_IMPORTS[stage]);
  expect(row?.pure).toBe(map.PURE.includes(stage));
});

test('every stage of the tree is in the map', () => {
  const folders = readdirSync(SRC, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && f.includes('/'))
    .map(stageOf);
  expect([...new Set(folders)].filter((stage) => !stages.includes(stage))).toEqual([]);
});

describe('the tree imports what the map allows, and the map allows nothing the tree does not use', () => {
  const tree = treeImports(stages);
  test.each(stages)('%s', (stage) => {
    const used = [...(tree.get(stage) ?? [])].sort();
    const allowed = map.STAGE_IMPORTS[stage] ?? [];
    expect(used.filter((other) => !allowed.includes(other))).toEqual([]);
    expect(allowed.filter((other) => other !== 'observation' && !used.includes(other))).toEqual([]);
  });
});
