// Every bench command, asked as a user asks a command first: `--help` prints its usage (the header
// comment its file opens with) and exits 0; an option it does not know is said in one line, with
// the way to --help, and exit code 2: no stack trace, nothing run.

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { headerComment } from './args.ts';

const BENCH = import.meta.dirname;
const FILES = ['capacity', 'core', 'dashboards', 'fleet-index', 'heap-breakdown', 'memory', 'plugin', 'query-path', 'restart', 'rss', 'store', 'tables', 'usage', 'watch', 'prometheus/run'].map((f) => join(BENCH, `${f}.ts`));

function run(file: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file, ...args], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 50_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('the bench commands', () => {
  it('lists every bench command of package.json', () => {
    const scripts = Object.values((JSON.parse(readFileSync(join(BENCH, '../../package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts);
    const named = new Set(scripts.flatMap((s) => [...s.matchAll(/backend\/bench\/([\w/-]+)\.ts/g)].map((m) => join(BENCH, `${m[1]}.ts`))));
    for (const file of named) expect(FILES).toContain(file);
  });

  it('print their usage on --help, and refuse an unknown option in one line with exit code 2', async () => {
    const runs = await Promise.all(FILES.map(async (file) => ({ file, help: await run(file, ['--help']), bad: await run(file, ['--no-such-option']) })));
    for (const { file, help, bad } of runs) {
      const usage = headerComment(readFileSync(file, 'utf8'));
      expect(usage.length).toBeGreaterThan(80);
      expect({ file, code: help.code, stdout: help.stdout }).toEqual({ file, code: 0, stdout: usage });
      expect({ file, code: bad.code, stdout: bad.stdout, stderr: bad.stderr }).toEqual({
        file,
        code: 2,
        stdout: '',
        stderr: expect.stringMatching(/^[\w-]+\.ts: Unknown option '--no-such-option'.*\nRun it with --help for its options\.\n$/) as unknown as string,
      });
    }
  });
});

describe('headerComment', () => {
  it("is a file's leading // lines without their markers, up to the first other line", () => {
    expect(headerComment('// one\n//   two\n//\n// three\nimport x;\n// not this\n')).toBe('one\n  two\n\nthree\n');
    expect(headerComment('import x;\n// no header\n')).toBe('\n');
  });
});
