// Every bare import of the repository's own files names a Node builtin or a package declared in
// the package.json that governs the file (see imports.ts), so nothing works only because some
// other package happened to pull it into node_modules.

import { join } from 'node:path';
import { governing, importsOf, packageNameOf, sourceFiles, undeclaredImports, type Manifest } from './imports.ts';

const ROOT = join(__dirname, '..', '..');

it('reads imports, exports, import() and require(), not comments or strings', () => {
  const text = [
    "import a from 'alpha';",
    "import type { B } from '@scope/beta/sub';",
    "export * from 'gamma';",
    "const d = require('delta');",
    "const e = await import('epsilon/x.js');",
    "import './local.ts';",
    "import fs from 'node:fs';",
    "// import z from 'commented';",
    "const s = \"import y from 'quoted'\";",
  ].join('\n');
  expect(importsOf(text)).toEqual(['alpha', '@scope/beta/sub', 'gamma', 'delta', 'epsilon/x.js', 'node:fs']);
  expect(['@scope/beta/sub', 'epsilon/x.js', 'alpha'].map(packageNameOf)).toEqual(['@scope/beta', 'epsilon', 'alpha']);
});

it('takes the manifests that govern a file: its own package, the root for tests and tools, the backend alone for what it ships', () => {
  const manifests: Record<string, Manifest> = {
    [join(ROOT, 'package.json')]: { path: 'root', name: 'root' },
    [join(ROOT, 'backend/package.json')]: { path: 'backend', name: 'upness' },
    [join(ROOT, 'test/support/package.json')]: { path: 'test/support' },
  };
  const read = (path: string): Manifest | null => manifests[path] ?? null;
  const paths = (file: string) => {
    const g = governing(ROOT, file, read);
    return [g.manifests.map((m) => m.path), g.productionOnly];
  };
  expect(paths('backend/src/http/app.ts')).toEqual([['backend'], true]);
  expect(paths('backend/src/http/app.service.test.ts')).toEqual([['backend', 'root'], false]);
  expect(paths('test/support/tiers.service.test.ts')).toEqual([['test/support', 'root'], false]);
  expect(paths('src/datasource.ts')).toEqual([['root'], false]);
});

it('checks every source file of the repository', () => {
  const files = sourceFiles(ROOT);
  expect(files).toEqual(expect.arrayContaining(['backend/src/cli/main.ts', 'src/module.ts', 'test/support/tiers.service.test.ts', 'test/support/scenario.ts', 'jest.config.js', 'eslint.config.mjs', 'test/support/environment.cjs']));
  expect(files.filter((f) => f.includes('node_modules/') || f.startsWith('dist/'))).toEqual([]);
});

it('finds every imported package declared', () => {
  expect(undeclaredImports(ROOT).map((u) => `${u.file}: ${u.specifier} (declared in none of ${u.manifests.join(', ')})`)).toEqual([]);
});
