// Every package a file of the repository imports must be declared where npm installs it from: a
// package that is only present because another one pulled it in (hoisted into node_modules) goes
// missing the day that other one drops it, and `npm ci --omit=dev -w backend` (the image) installs
// only what backend/package.json declares. Imports are read by TypeScript's own pre-processor
// (static imports, exports, import(), require()), so comments and strings are not taken for them.

import { readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { globSync } from 'glob';
import ts from 'typescript';

export interface Manifest {
  path: string;
  name?: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

export interface Undeclared {
  file: string;
  specifier: string;
  packageName: string;
  /** The package.json files that were asked. */
  manifests: string[];
}

/**
 * The files whose imports are checked: the repository's sources, not what npm, a build or a
 * benchmark wrote (the folders .gitignore names: a benchmark unpacks its Prometheus peer, with
 * JavaScript of its own, under backend/bench/results).
 */
export function sourceFiles(root: string): string[] {
  return globSync('**/*.{ts,tsx,js,cjs,mjs}', {
    cwd: root,
    dot: true,
    nodir: true,
    ignore: ['**/node_modules/**', '**/dist/**', '.git/**', '**/coverage/**', '**/results/**', '**/test-results/**', 'tmp/**', '**/upness-data/**'],
  }).sort();
}

/** The bare specifiers a source imports or requires (relative and absolute paths left out). */
export function importsOf(text: string): string[] {
  const { importedFiles } = ts.preProcessFile(text, true, true);
  return importedFiles.map((f) => f.fileName).filter((s) => !s.startsWith('.') && !s.startsWith('/'));
}

/** `@scope/name/sub` → `@scope/name`, `name/sub` → `name`. */
export function packageNameOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** In the backend's image (backend/Dockerfile copies bin/ and src/): only the backend's production dependencies are there. */
function shipped(file: string): boolean {
  return /^backend\/(bin|src)\//.test(file) && !/\.test\.ts$/.test(file);
}

/**
 * The manifests that govern a file: from its folder up, every package.json to the first that is a
 * package (has a name; test/*\/package.json only set the module type), and for a workspace's
 * tests and tools the root's too (npm installs the root's devDependencies for its workspaces).
 */
export function governing(root: string, file: string, read: (path: string) => Manifest | null): { manifests: Manifest[]; productionOnly: boolean } {
  const manifests: Manifest[] = [];
  let dir = dirname(join(root, file));
  for (;;) {
    const manifest = read(join(dir, 'package.json'));
    if (manifest !== null) {
      manifests.push(manifest);
      if (manifest.name !== undefined) break;
    }
    if (dir === root || dirname(dir) === dir) break;
    dir = dirname(dir);
  }
  const productionOnly = shipped(file.split(sep).join('/'));
  const rootManifest = read(join(root, 'package.json'));
  if (!productionOnly && rootManifest !== null && !manifests.some((m) => m.path === rootManifest.path)) manifests.push(rootManifest);
  return { manifests, productionOnly };
}

function declares(manifest: Manifest, packageName: string, productionOnly: boolean): boolean {
  if (manifest.name === packageName) return true;
  const fields = productionOnly ? [manifest.dependencies] : [manifest.dependencies, manifest.devDependencies, manifest.peerDependencies, manifest.optionalDependencies];
  return fields.some((deps) => deps !== undefined && Object.hasOwn(deps, packageName));
}

/** Every import of a package that neither Node has built in nor the governing package.json declares. */
export function undeclaredImports(root: string, files = sourceFiles(root)): Undeclared[] {
  const cache = new Map<string, Manifest | null>();
  const read = (path: string): Manifest | null => {
    if (!cache.has(path)) {
      let manifest: Manifest | null = null;
      try {
        manifest = { ...(JSON.parse(readFileSync(path, 'utf8')) as Omit<Manifest, 'path'>), path };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
      cache.set(path, manifest);
    }
    return cache.get(path)!;
  };
  const found: Undeclared[] = [];
  for (const file of files) {
    const { manifests, productionOnly } = governing(root, file, read);
    for (const specifier of importsOf(readFileSync(join(root, file), 'utf8'))) {
      if (isBuiltin(specifier)) continue;
      const packageName = packageNameOf(specifier);
      if (manifests.some((m) => declares(m, packageName, productionOnly))) continue;
      found.push({ file, specifier, packageName, manifests: manifests.map((m) => relative(root, m.path)) });
    }
  }
  return found;
}
