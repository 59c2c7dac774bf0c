// A trace worker thread loads no zod (loading it cost each worker ~0.1 s of CPU): the modules that
// trace-worker.ts imports, and theirs, import none. Type-only imports are erased and do not count.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The modules a module loads when it runs: its imports and re-exports that are not type-only. */
function runtimeImports(text: string): string[] {
  const specifiers: string[] = [];
  for (const m of text.matchAll(/^(?:import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?'([^']+)';/gms)) if (m[1] === undefined) specifiers.push(m[2]!);
  return specifiers;
}

/** Every module that `entry` loads, by path for the repository's own and by name for packages. */
function loaded(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const specifier of runtimeImports(readFileSync(file, 'utf8'))) {
      if (specifier.startsWith('.')) visit(join(dirname(file), specifier));
      else seen.add(specifier);
    }
  };
  visit(entry);
  return seen;
}

it('reads the imports that load a module, not those of types', () => {
  const text = ["import { a } from './a.ts';", "import type { B } from 'b';", "import {\n  type C,\n  d,\n} from './d.ts';", "export { e } from './e.ts';", "export type { F } from './f.ts';", "import 'g';"].join('\n');
  expect(runtimeImports(text)).toEqual(['./a.ts', './d.ts', './e.ts', 'g']);
});

it('a trace worker thread loads no zod', () => {
  const modules = loaded(join(__dirname, 'trace-worker.ts'));
  expect([...modules].filter((m) => m.endsWith('check.ts') || m.endsWith('reuse.ts') || m.endsWith('viewed.ts'))).toHaveLength(4);
  expect([...modules].filter((m) => !m.startsWith('/'))).toEqual(['node:worker_threads']);
});
