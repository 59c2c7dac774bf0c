// The version written beside the format is the package's: a release that bumps one bumps the other.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { UPNESS_VERSION } from './version.ts';

it('is the version in package.json', () => {
  const pkg = JSON.parse(readFileSync(join(process.cwd(), 'package.json'), 'utf8')) as { version: string };
  expect(UPNESS_VERSION).toBe(pkg.version);
});
