// `upness` gives zod its English locale alone (backend/bin/zod-english.js): `z.locales` is `{ en }`,
// and every message zod writes is the one it writes with all its locales loaded.

import { spawnSync } from 'node:child_process';
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
