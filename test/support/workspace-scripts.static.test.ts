// `npm run` inside backend/ (the service's own package, an npm workspace of the root) ran nothing
// and listed nothing: the scripts live in the root package.json. backend/package.json forwards the
// usual ones to the root's, so `npm start`, `npm test`, `npm run typecheck` and `npm run lint` work
// from either folder, and `npm run` there lists where they go. Each forwarded script must name a
// script the root has, under the same name, with the arguments given passed on (`--`).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const read = (path: string): { scripts?: Record<string, string> } => JSON.parse(readFileSync(join(ROOT, path), 'utf8'));

/** What `npm <name>` runs for a script: `npm start` and `npm test` are their own commands, the others `npm run`. */
const npmCommand = (name: string): string => (name === 'start' || name === 'test' ? `npm ${name}` : `npm run ${name}`);

it("forwards backend/'s usual scripts to the root's, the arguments passed on", () => {
  const root = read('package.json').scripts ?? {};
  const backend = read('backend/package.json').scripts ?? {};
  expect(Object.keys(backend).sort()).toEqual(['lint', 'start', 'test', 'typecheck']);
  for (const [name, command] of Object.entries(backend)) {
    expect([name, command]).toEqual([name, `cd .. && ${npmCommand(name)} --`]);
    expect(root[name]).toBeDefined();
  }
});

it('adds no lifecycle script that npm would run on install in the workspace', () => {
  const lifecycle = ['preinstall', 'install', 'postinstall', 'prepare', 'prepublish', 'preprepare', 'postprepare', 'dependencies'];
  expect(Object.keys(read('backend/package.json').scripts ?? {}).filter((name) => lifecycle.includes(name))).toEqual([]);
});
