// zod with its English messages only, in the service's process. zod's main entry imports all of
// its locales (`z.locales`, 63 modules of translated messages) although it speaks English unless
// `z.config(z.locales.xx())` says otherwise, which the service never does: a load hook gives
// `zod/v4/locales/index.js` the English one alone. What that saves once a first request has loaded
// zod: 0.75 MiB of V8 heap (most of the locales' sources are kept as two-byte strings), 1.6 MiB of
// the empty service's RSS once asked (79.4 against 81.0 MiB, the goal's 80 between them; README
// "Performance", "House"). Every message stays zod's own (its English locale, loaded by its schemas
// either way); a zod whose locales' index is laid out otherwise is refused, loudly (englishOnly).
// Plain JavaScript, registered by upness.js before the service's modules load.
import { registerHooks } from 'node:module';

/** The module zod's entry imports as `z.locales`. */
export const ZOD_LOCALES = /\/node_modules\/zod\/v4\/locales\/index\.js$/;

/** A line of that module as zod writes it: one locale re-exported from its own file. */
const LOCALE_LINE = /^export \{ default as [A-Za-z]+ \} from "\.\/[A-Za-z-]+\.js";$/;

/**
 * The source that stands for zod's locales' index `source`: its English locale alone. Throws when
 * `source` is not a list of locales with `en` among them (a zod whose layout changed), so that the
 * service fails at its first request that loads zod rather than serve another module's exports.
 */
export function englishOnly(source, url) {
  const lines = source.split('\n').filter((line) => line !== '');
  if (!lines.every((line) => LOCALE_LINE.test(line)) || !lines.includes('export { default as en } from "./en.js";')) {
    throw new Error(`${url} is no longer a list of zod's locales with "en" among them: backend/bin/zod-english.js must follow zod's layout (or be removed)`);
  }
  return 'export { default as en } from "./en.js";\n';
}

/** From now on, this thread's zod has `z.locales.en` alone. */
export function useZodInEnglish() {
  registerHooks({
    load(url, context, nextLoad) {
      const loaded = nextLoad(url, context);
      if (!ZOD_LOCALES.test(url)) return loaded;
      // Its text is read (3 KB), not evaluated: the 63 modules it names are never loaded.
      const { source } = loaded;
      return { format: 'module', source: englishOnly(typeof source === 'string' ? source : Buffer.from(source).toString('utf8'), url), shortCircuit: true };
    },
  });
}
