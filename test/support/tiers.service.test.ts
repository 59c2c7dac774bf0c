// Every test file belongs to exactly one test tier (a Jest project in jest.config.js): a file in
// none would never run, and one in two would run twice. Decided as Jest decides, from each
// project's testMatch globs and testPathIgnorePatterns. And the tier shows in the file's name or
// folder: jest.config.js has patterns only, no list of single test files a reader cannot see.

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
  // A tier's folder: everything in it.
  expect(tiersOf(join(ROOT, 'test/kube/watcher.test.ts'))).toEqual(['kube']);
  expect(tiersOf(join(ROOT, 'test/postgres/serve.test.ts'))).toEqual(['postgres']);
  // A tier's name, beside the code it tests.
  expect(tiersOf(join(ROOT, 'backend/src/store/postgres.postgres.test.ts'))).toEqual(['postgres']);
  expect(tiersOf(join(ROOT, 'backend/src/leader/lease.kube.test.ts'))).toEqual(['kube']);
  expect(tiersOf(join(ROOT, 'backend/src/store/embedded.service.test.ts'))).toEqual(['service']);
  expect(tiersOf(join(ROOT, 'backend/test/crash.service.test.ts'))).toEqual(['service']);
  expect(tiersOf(join(ROOT, 'test/support/tiers.service.test.ts'))).toEqual(['service']);
  // A plain name under backend/src: unit, wherever the stage.
  expect(tiersOf(join(ROOT, 'backend/src/series/range.test.ts'))).toEqual(['unit']);
  expect(tiersOf(join(ROOT, 'backend/src/cli/options.test.ts'))).toEqual(['unit']);
  expect(tiersOf(join(ROOT, 'src/datasource.test.ts'))).toEqual(['frontend']);
  // Static checks of files need no service, live ones start one.
  expect(tiersOf(join(ROOT, 'test/provisioning/provisioning.static.test.ts'))).toEqual(['unit']);
  expect(tiersOf(join(ROOT, 'test/provisioning/provisioning.live.test.ts'))).toEqual(['service']);
  expect(tiersOf(join(ROOT, 'test/provisioning/panels.live.test.ts'))).toEqual(['service']);
});

it('decides a new file by its name or folder alone', () => {
  // Files that do not exist: the patterns place them all the same.
  expect(tiersOf(join(ROOT, 'backend/src/http/new.test.ts'))).toEqual(['unit']);
  expect(tiersOf(join(ROOT, 'backend/src/http/new.service.test.ts'))).toEqual(['service']);
  expect(tiersOf(join(ROOT, 'backend/src/runtime/new.postgres.test.ts'))).toEqual(['postgres']);
  expect(tiersOf(join(ROOT, 'test/support/new.kube.test.ts'))).toEqual(['kube']);
  expect(tiersOf(join(ROOT, 'test/postgres/new.test.ts'))).toEqual(['postgres']);
  // A plain name outside backend/src and the tier folders says nothing: it is in no tier, and the
  // check above fails until it is named.
  expect(tiersOf(join(ROOT, 'test/support/new.test.ts'))).toEqual([]);
});

it('names no single test file in jest.config.js: the patterns are the rule', () => {
  const relative = files.map((file) => file.slice(ROOT.length + 1));
  for (const project of config.projects) {
    // A glob, not a path: every match pattern has a wildcard.
    for (const pattern of project.testMatch) expect(pattern).toContain('*');
    // An ignore pattern is a folder or an ending, never one of the test files.
    for (const pattern of project.testPathIgnorePatterns ?? []) {
      const plain = pattern.replace(/\\(.)/g, '$1');
      expect(relative.filter((file) => plain.includes(file))).toEqual([]);
    }
  }
});
