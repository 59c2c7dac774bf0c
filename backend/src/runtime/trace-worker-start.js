// The entry of a trace worker thread (trace-workers.ts), in plain JavaScript so that starting it needs no
// TypeScript stripper. It serves this thread's loader the worker's modules (trace-worker.ts and the
// TypeScript it imports) as JavaScript from a cache of files named by a hash of Node's version and
// the module's source: each is stripped once (Node's own stripTypeScriptTypes, the stripper that loads
// them otherwise, so the code is the same) by the first worker that needs it, and a worker that finds
// them all never loads the stripper (measured: ~0.1 s of CPU less to start each worker, a quarter of it).
// The cache is a directory of this user's alone under the temporary directory; when it cannot be
// used, the modules are stripped in memory as Node would.

import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { registerHooks, stripTypeScriptTypes } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { workerData } from 'node:worker_threads';

/** @type {{ module: string, strippedCache: string | null }} */
const { module, strippedCache } = workerData;

/** The cache's directory when it is this user's alone (nobody else could have put code there), else null. */
function ownDirectory(dir) {
  if (dir === null || typeof process.getuid !== 'function') return null;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const stat = statSync(dir);
    return stat.isDirectory() && stat.uid === process.getuid() && (stat.mode & 0o022) === 0 ? dir : null;
  } catch {
    return null;
  }
}

const cache = ownDirectory(strippedCache);

/** Strips as Node's loader does, without the warning that the function (not the stripping) is experimental. */
function strip(source) {
  const emit = process.emitWarning;
  process.emitWarning = (warning, ...rest) => {
    if (!String(warning).includes('stripTypeScriptTypes')) emit.call(process, warning, ...rest);
  };
  try {
    return stripTypeScriptTypes(source);
  } finally {
    process.emitWarning = emit;
  }
}

/** The module's JavaScript: from the cache, or stripped now (and kept there when it can be). */
function javascriptOf(source) {
  if (cache === null) return strip(source);
  const file = join(cache, `${createHash('sha256').update(process.version).update('\0').update(source).digest('base64url')}.js`);
  try {
    return readFileSync(file, 'utf8');
  } catch {
    const code = strip(source);
    try {
      // Written whole under another name first: another worker or process never reads half a module.
      const partial = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}`;
      writeFileSync(partial, code, { mode: 0o600 });
      renameSync(partial, file);
    } catch {
      // A full or read-only disk: this worker still has the code.
    }
    return code;
  }
}

registerHooks({
  load(url, context, nextLoad) {
    // What Node itself strips: TypeScript files outside node_modules.
    if (!url.startsWith('file:') || !url.endsWith('.ts') || url.includes('/node_modules/')) return nextLoad(url, context);
    return { format: 'module', source: javascriptOf(readFileSync(fileURLToPath(url), 'utf8')), shortCircuit: true };
  },
});

await import(module);
