// Loads @kubernetes/client-node's KubeConfig without its generated API. KubeConfig (kubeconfig files,
// in-cluster config, exec plugins, tokens, certificates) imports the generated API's index for two
// names, and that index loads every API group's client and model: ~90 MiB of RSS in a bare Node,
// against ~35 MiB with client-node-gen.ts in its place (measured in README "Performance"). The
// watch does its own HTTP (list.ts, watch-stream.ts) and needs nothing else of client-node.
//
// Imported for its effect by the CLI before anything loads client-node: a module resolution hook,
// for that one import of client-node's config.js only. Any other import of client-node (the
// leader's Lease API imports the package whole) resolves as always.

import { registerHooks } from 'node:module';

/** client-node's module that defines KubeConfig, and its import of the generated API's index. */
export const CLIENT_NODE_CONFIG = /\/node_modules\/@kubernetes\/client-node\/dist\/config\.js$/;
export const GENERATED_INDEX = './gen/index.js';

const LEAN_GENERATED = new URL('./client-node-gen.ts', import.meta.url).href;

registerHooks({
  resolve(specifier, context, nextResolve) {
    if (specifier === GENERATED_INDEX && context.parentURL !== undefined && CLIENT_NODE_CONFIG.test(context.parentURL)) {
      return { url: LEAN_GENERATED, shortCircuit: true };
    }
    return nextResolve(specifier, context);
  },
});
