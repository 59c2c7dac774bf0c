// `upness` gives zod its English locale alone (backend/bin/zod-english.js): `z.locales` is `{ en }`,
// and every message zod writes is the one it writes with all its locales loaded.

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const HOOK = pathToFileURL(join(__dirname, '..', '..', 'bin', 'zod-english.js')).href;

/** zod's locales and its messages for a few wrong inputs, in a fresh Node (with the hook or without). */
function zodIn(english: boolean): { locales: string[]; en: string; messages: string[][] } {
  const script = `
    ${english ? `(await import(${JSON.stringify(HOOK)})).useZodInEnglish();` : ''}
    const { z } = await import('zod');
    const schema = z.object({
      a: z.string(), b: z.number().int().min(1).max(9), c: z.enum(['x', 'y']), d: z.array(z.string()).max(1),
      e: z.union([z.string(), z.array(z.string())]), f: z.string().regex(/^[a-z]+$/), g: z.literal(3), h: z.string().min(2), i: z.boolean(),
    }).strict();
    const inputs = [{}, { a: 1, b: 0.5, c: 'z', d: ['p', 'q'], e: 4, f: 'A', g: 4, h: 'x', i: 'no', j: 1 }, { b: 10, d: 'p' }, null, 'text'];
    const messages = inputs.map((input) => schema.safeParse(input).error.issues.map((issue) => issue.path.join('.') + ': ' + issue.message));
    process.stdout.write(JSON.stringify({ locales: Object.keys(z.locales), en: typeof z.locales.en, messages }));`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', cwd: join(__dirname, '..', '..', '..') });
  expect(child.stderr).toBe('');
  return JSON.parse(child.stdout) as { locales: string[]; en: string; messages: string[][] };
}

it("zod in English only: z.locales holds `en` alone, and zod's messages are the same", () => {
  const whole = zodIn(false);
  const english = zodIn(true);
  expect(whole.locales.length).toBeGreaterThan(40);
  expect(whole.locales).toContain('en');
  expect(english.locales).toEqual(['en']);
  expect(english.en).toBe('function');
  expect(whole.messages.flat().length).toBeGreaterThan(15);
  expect(english.messages).toEqual(whole.messages);
});

/** What `englishOnly` (the hook's reading of zod's locales' index) makes of each text, in a fresh Node: the stub, or the error's message. */
function englishOnlyOf(sources: string[]): string[] {
  const script = `
    const { englishOnly } = await import(${JSON.stringify(HOOK)});
    const out = ${JSON.stringify(sources)}.map((source) => { try { return englishOnly(source, 'index.js'); } catch (error) { return 'Error: ' + error.message; } });
    process.stdout.write(JSON.stringify(out));`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  expect(child.stderr).toBe('');
  return JSON.parse(child.stdout) as string[];
}

it("fails loudly, not with other exports, when zod's locales' index is no longer a list of locales with `en`", () => {
  const real = readFileSync(join(__dirname, '..', '..', '..', 'node_modules', 'zod', 'v4', 'locales', 'index.js'), 'utf8');
  const stub = 'export { default as en } from "./en.js";\n';
  const refused = /^Error: index\.js is no longer a list of zod's locales with "en" among them: backend\/bin\/zod-english\.js must follow zod's layout/;
  const [asShipped, ...changed] = englishOnlyOf([
    real,
    // The index exports something besides the locales (which the stub would leave out)...
    `${real}export const defaultLocale = "en";\n`,
    `${real}export * from "./helpers.js";\n`,
    // ... English is no longer `en` from ./en.js, or the locales are exported otherwise.
    real.replace('export { default as en } from "./en.js";', 'export { default as english } from "./english.js";'),
    real.replace('export { default as en } from "./en.js";', 'export { en } from "./en.js";'),
    '',
  ]);
  expect(asShipped).toBe(stub);
  for (const answer of changed) expect(answer).toMatch(refused);
});
