#!/usr/bin/env node
// The `upness` command. The CLI runs its TypeScript sources directly, which needs Node 22.18 or
// newer (type stripping; done ahead and kept, see stripped-sources.js). This file itself is plain JavaScript so that any node can start it: under
// an older one (e.g. a system Node 20 first on PATH, which is what `node_modules/.bin/upness` gets
// outside npm scripts) it runs itself again with the project's own Node 22, which `npm install`
// puts in node_modules (the npm registry's `node` package).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { execWithServiceMalloc, missingMallocEnv } from './malloc.js';

execWithServiceMalloc();

const [major, minor] = process.versions.node.split('.').map(Number);
const canStripTypes = major > 22 || (major === 22 && minor >= 18);

if (canStripTypes) {
  // The sources stripped ahead, so that the service's process never loads the type stripper
  // (stripped-sources.js says why). Imported here: an older Node lacks what it imports.
  const { useStrippedSources } = await import('./stripped-sources.js');
  useStrippedSources();
  const { useZodInEnglish } = await import('./zod-english.js');
  useZodInEnglish();
  await import('../src/cli/main.ts');
} else {
  const node = projectNode();
  if (node === null) {
    process.stderr.write(
      `upness: needs Node.js 22.18 or newer to run (this is ${process.version}), and the project's own Node 22 ` +
        `was not found in node_modules. Run \`npm install\` in the repository (it installs Node 22 as ` +
        `node_modules/.bin/node), or install Node.js 22.18+.\n`,
    );
    process.exit(1);
  }
  const env = { ...process.env, ...missingMallocEnv(process.env) };
  const child = spawn(node, [...process.execArgv, process.argv[1], ...process.argv.slice(2)], { stdio: 'inherit', env });
  // The child is the real process: pass on what would have stopped us, and end as it ends.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('error', (err) => {
    process.stderr.write(`upness: cannot start ${node}: ${err.message}\n`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => {
    if (signal !== null) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    } else process.exit(code ?? 1);
  });
}

/** The `node` package's binary, resolved the way Node resolves packages from this file. */
function projectNode() {
  try {
    const pkg = createRequire(import.meta.url).resolve('node/package.json');
    const bin = join(dirname(pkg), 'bin', 'node');
    return existsSync(bin) ? bin : null;
  } catch {
    return null;
  }
}
