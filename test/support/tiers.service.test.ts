// Every test file belongs to exactly one test tier (a Jest project in jest.config.js): a file in
// none would never run, and one in two would run twice. Decided as Jest decides, from each
// project's testMatch globs and testPathIgnorePatterns. The tier shows in the file's name or
// folder: jest.config.js holds patterns, not a list of files a reader of a test cannot see.

import { createRequire } from 'node:module';
import { join } from 'node:path';
import { globSync } from 'glob';
import micromatch from 'micromatch';

const ROOT = join(__dirname, '..', '..');
const require_ = createRequire(join(ROOT, 'package.json'));

interface Project {
  displayName: string;
  testMatch: string[];
  testPathIgnorePatterns?: string[];
}

const config = require_('./jest.config.js') as { projects: Project[] };
const withRoot = (pattern: string): string => pattern.split('<rootDir>').join(ROOT);

function tiersOf(file: string): string[] {
  return config.projects
    .filter((project) => micromatch.isMatch(file, project.testMatch.map(withRoot)))
    .filter((project) => !(project.testPathIgnorePatterns ?? []).some((pattern) => new RegExp(withRoot(pattern)).test(file)))
    .map((project) => project.displayName);
}

const files = globSync('{backend,test,src}/**/*.{test,spec}.{ts,tsx,js}', { cwd: ROOT, ignore: '**/node_modules/**', absolute: true }).sort();

it('finds the test files', () => {
  expect(files.length).toBeGreaterThan(30);
});

it.each(files.map((file) => [file.slice(ROOT.length + 1), file]))('%s is in exactly one tier', (_name, file) => {
  expect(tiersOf(file)).toHaveLength(1);
});

it('puts the servers where their prerequisites are prepared', () => {
  expect(tiersOf(join(ROOT, 'test/kube/watcher.test.ts'))).toEqual(['kube']);
  expect(tiersOf(join(ROOT, 'backend/src/store/postgres.postgres.test.ts'))).toEqual(['postgres']);
  expect(tiersOf(join(ROOT, 'backend/src/store/embedded.service.test.ts'))).toEqual(['service']);
  expect(tiersOf(join(ROOT, 'backend/src/series/range.test.ts'))).toEqual(['unit']);
  expect(tiersOf(join(ROOT, 'src/datasource.test.ts'))).toEqual(['frontend']);
  // A test's tier shows in its name: static checks of files need no service, live ones start one.
  expect(tiersOf(join(ROOT, 'test/provisioning/provisioning.static.test.ts'))).toEqual(['unit']);
  expect(tiersOf(join(ROOT, 'test/provisioning/provisioning.live.test.ts'))).toEqual(['service']);
  expect(tiersOf(join(ROOT, 'test/provisioning/panels.live.test.ts'))).toEqual(['service']);
});

it('decides a file by its name or folder alone, even a new one', () => {
  expect(tiersOf(join(ROOT, 'backend/src/leader/lease.kube.test.ts'))).toEqual(['kube']);
  expect(tiersOf(join(ROOT, 'backend/src/cli/options.test.ts'))).toEqual(['unit']);
  expect(tiersOf(join(ROOT, 'backend/src/http/new.test.ts'))).toEqual(['unit']);
  expect(tiersOf(join(ROOT, 'backend/src/http/new.service.test.ts'))).toEqual(['service']);
  expect(tiersOf(join(ROOT, 'backend/src/runtime/new.postgres.test.ts'))).toEqual(['postgres']);
  expect(tiersOf(join(ROOT, 'test/support/new.kube.test.ts'))).toEqual(['kube']);
  expect(tiersOf(join(ROOT, 'test/postgres/new.test.ts'))).toEqual(['postgres']);
  // A plain name outside backend/src and the tier folders says nothing: in no tier, so the check
  // above fails until it is named.
  expect(tiersOf(join(ROOT, 'test/support/new.test.ts'))).toEqual([]);
});

it('names no single test file in jest.config.js: the patterns are the rule', () => {
  const relative = files.map((file) => file.slice(ROOT.length + 1));
  for (const project of config.projects) {
    for (const pattern of project.testMatch) expect(pattern).toContain('*');
    // An ignore pattern is a folder or an ending, never a test file.
    for (const pattern of project.testPathIgnorePatterns ?? []) {
      const plain = pattern.replace(/\\(.)/g, '$1');
      expect(relative.filter((file) => plain.includes(file))).toEqual([]);
    }
  }
});
