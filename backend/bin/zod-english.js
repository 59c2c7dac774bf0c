// zod with its English messages only, in the service's process. zod's main entry imports all of
// its locales (`z.locales`, 63 modules of translated messages) although it speaks English unless
// `z.config(z.locales.xx())` says otherwise, which the service never does: a load hook gives
// `zod/v4/locales/index.js` the English one alone. What that saves once a first request has loaded
// zod: ~0.8 MiB of V8 heap (most of the locales' sources are kept as two-byte strings), ~2.5 MiB of
// RSS in a bare Node (README "The empty service once asked: Grafana's and Prometheus's requests
// without express"). Every message stays zod's own
// (its English locale, loaded by its schemas either way). Plain JavaScript, registered by upness.js
// before the service's modules load.
import { registerHooks } from 'node:module';

/** The module zod's entry imports as `z.locales`. */
export const ZOD_LOCALES = /\/node_modules\/zod\/v4\/locales\/index\.js$/;

/** From now on, this thread's zod has `z.locales.en` alone. */
export function useZodInEnglish() {
  registerHooks({
    load(url, context, nextLoad) {
      if (!ZOD_LOCALES.test(url)) return nextLoad(url, context);
      return { format: 'module', source: 'export { default as en } from "./en.js";\n', shortCircuit: true };
    },
  });
}
