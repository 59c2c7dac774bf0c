// The service's TypeScript, run without Node's type stripper in the service's process. Node strips
// types with a WebAssembly build of SWC (amaro) that it loads on the first `.ts` file and keeps:
// ~15 MiB of RSS in a bare Node, ~20 MiB in the empty service (README "Performance", "The empty
// service"). So the sources are stripped ahead, by the same function of the same Node
// (`module.stripTypeScriptTypes`, in a short-lived child process), into a cache named by each
// file's content, and a module loading hook hands the service those stripped files for its `.ts`
// URLs. The URLs stay the `.ts` files' (stack traces, `import.meta.url`), and stripping only
// blanks types out, so lines and columns are the same too.
//
// The cache is filled when a source is missing from it (a fresh clone's first start, an edited
// file): the child strips what is missing and exits. Where it cannot be written (a read-only
// install) the service runs as before, stripped by Node. The image fills it when it is built:
//   node backend/bin/stripped-sources.js

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { registerHooks, stripTypeScriptTypes } from 'node:module';
import { basename, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The service's sources. */
export const SOURCES = fileURLToPath(new URL('../src/', import.meta.url));

/** Where their stripped forms are kept: the repository's node_modules cache, one folder per Node (its stripper's output). */
export const CACHE = fileURLToPath(new URL(`../../node_modules/.cache/upness/stripped-${process.version}/`, import.meta.url));

/** The `.ts` files the service may load: every one under `sources` but tests and declarations. */
export function sourceFiles(sources) {
  return readdirSync(sources, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts') && !file.endsWith('.d.ts'))
    .map((file) => join(sources, file));
}

/** A source's stripped file in the cache: named by what it holds, so an edited source is simply another file. */
export function strippedPath(cache, source) {
  return join(cache, `${createHash('sha256').update(source).digest('hex')}.js`);
}

/**
 * Strips every source missing from the cache into it (each written whole, then renamed: services
 * starting side by side may share it), and drops what no source is any more (edited files); returns
 * how many it wrote.
 */
export function writeStripped(sources = SOURCES, cache = CACHE) {
  mkdirSync(cache, { recursive: true });
  const current = new Set();
  let written = 0;
  for (const file of sourceFiles(sources)) {
    const source = readFileSync(file, 'utf8');
    const target = strippedPath(cache, source);
    current.add(basename(target));
    if (existsSync(target)) continue;
    const partial = `${target}.${process.pid}.partial`;
    writeFileSync(partial, stripTypeScriptTypes(source, { mode: 'strip' }));
    renameSync(partial, target);
    written++;
  }
  for (const name of readdirSync(cache)) if (name.endsWith('.js') && !current.has(name)) rmSync(join(cache, name), { force: true });
  return written;
}

/**
 * Loads the sources from the cache from now on (filling it first in a child process if a source is
 * missing). Returns false, and changes nothing, where the cache cannot be filled: Node strips them then.
 */
export function useStrippedSources(sources = SOURCES, cache = CACHE) {
  const stripped = (files) => new Map(files.map((file) => [pathToFileURL(file).href, strippedPath(cache, readFileSync(file, 'utf8'))]));
  let byUrl = stripped(sourceFiles(sources));
  if (![...byUrl.values()].every((path) => existsSync(path))) {
    const child = spawnSync(process.execPath, ['--no-warnings', fileURLToPath(import.meta.url), sources, cache], { stdio: 'ignore' });
    if (child.status !== 0) return false;
    byUrl = stripped(sourceFiles(sources));
    if (![...byUrl.values()].every((path) => existsSync(path))) return false;
  }
  loadStrippedSources(byUrl);
  return true;
}

/** Where a thread that runs on the stripped sources keeps their map (source URL → stripped file), for the worker threads it starts. */
export const STRIPPED_SOURCES = Symbol.for('upness.strippedSources');

/**
 * This thread loads the sources of `byUrl` (source URL → stripped file) from their stripped files
 * from now on. A hook is its thread's own: a worker thread registers the map it is handed
 * (./stripped-worker.js), which is kept at STRIPPED_SOURCES for that.
 */
export function loadStrippedSources(byUrl) {
  registerHooks({
    load(url, context, nextLoad) {
      const path = byUrl.get(url);
      // Gone since (another start dropped it after an edit): Node strips this one.
      const source = path === undefined ? undefined : readIfThere(path);
      return source === undefined ? nextLoad(url, context) : { format: 'module', source, shortCircuit: true };
    },
  });
  globalThis[STRIPPED_SOURCES] = byUrl;
}

function readIfThere(path) {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

// Run as a command (the child above, the image's build): strip what is missing.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [sources, cache] = process.argv.slice(2);
  writeStripped(sources ?? SOURCES, cache ?? CACHE);
}
