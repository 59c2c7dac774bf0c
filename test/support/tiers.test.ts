// Every test file belongs to exactly one test tier (a Jest project in jest.config.js): a file in
// none would never run, and one in two would run twice. Decided as Jest decides, from each
// project's testMatch globs and testPathIgnorePatterns.

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
  expect(tiersOf(join(ROOT, 'backend/src/store/postgres.test.ts'))).toEqual(['postgres']);
  expect(tiersOf(join(ROOT, 'backend/src/store/embedded.test.ts'))).toEqual(['service']);
  expect(tiersOf(join(ROOT, 'backend/src/series/range.test.ts'))).toEqual(['unit']);
  expect(tiersOf(join(ROOT, 'src/datasource.test.ts'))).toEqual(['frontend']);
  // A test's tier shows in its name: static checks of files need no service, live ones start one.
  expect(tiersOf(join(ROOT, 'test/provisioning/provisioning.static.test.ts'))).toEqual(['unit']);
  expect(tiersOf(join(ROOT, 'test/provisioning/provisioning.live.test.ts'))).toEqual(['service']);
  expect(tiersOf(join(ROOT, 'test/provisioning/panels.live.test.ts'))).toEqual(['service']);
});
