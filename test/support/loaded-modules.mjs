// Preloaded into a process under test (`node --import ./loaded-modules.mjs ...`, with $LOADED_MODULES
// naming a file): what the process loaded, written as JSON when it exits. `resolved`: every module URL
// an import resolved to (a resolve hook: it sees each import even where a later load hook answers it);
// `builtins`: Node's own modules, internal ones too (process.moduleLoadList), e.g. the type stripper's.
// Plain JavaScript, so that preloading it strips no types itself.

import { writeFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const out = process.env.LOADED_MODULES;
if (out === undefined) throw new Error('loaded-modules.mjs: set $LOADED_MODULES to the file to write');
const resolved = new Set();
registerHooks({
  resolve(specifier, context, nextResolve) {
    const result = nextResolve(specifier, context);
    resolved.add(result.url);
    return result;
  },
});
process.on('exit', () => {
  writeFileSync(out, JSON.stringify({ resolved: [...resolved], builtins: process.moduleLoadList }));
});
