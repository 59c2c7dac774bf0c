// client-node-gen.ts stands in for client-node's generated API index where KubeConfig imports it
// (lean-client.ts): it must give every name that import asks for, and the very same ones.

import { readFileSync } from 'node:fs';
import * as full from '@kubernetes/client-node';
import * as lean from './client-node-gen.ts';

/** The names client-node's config.js imports from the generated API's index, read from its source. */
function namesImported(): string[] {
  const source = readFileSync(require.resolve('@kubernetes/client-node/dist/config.js'), 'utf8');
  const imports = [...source.matchAll(/import\s*\{([^}]*)\}\s*from\s*'\.\/gen\/index\.js'/g)];
  expect(imports).toHaveLength(1);
  expect(source).not.toMatch(/from\s*'\.\/gen\/index\.js'[\s\S]*from\s*'\.\/gen\/index\.js'/);
  return imports[0]![1]!.split(',').map((n) => n.trim()).filter((n) => n !== '');
}

it('gives every name KubeConfig imports from the generated API, the same as the package gives', () => {
  const names = namesImported();
  expect(names.length).toBeGreaterThan(0);
  for (const name of names) {
    expect([name, (lean as Record<string, unknown>)[name]]).toEqual([name, expect.anything()]);
    expect((lean as Record<string, unknown>)[name]).toBe((full as Record<string, unknown>)[name]);
  }
  expect(Object.keys(lean).sort()).toEqual([...names].sort());
});
