// What the service loads is what its options need (issue 21 §3, the empty service): no PostgreSQL
// client, Kubernetes client, Arrow, data dir store, other command or other source unless asked for,
// and never Node's type stripper (the sources are stripped ahead: backend/bin/stripped-sources.js).
// Each service runs with test/support/loaded-modules.mjs preloaded, which writes at exit every
// module URL its imports resolved to and Node's own modules it loaded.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ready, startServe } from '../../../test/support/serve.ts';

const ROOT = join(__dirname, '..', '..', '..');
const PRELOAD = join(ROOT, 'test', 'support', 'loaded-modules.mjs');
const STRIPPED_SOURCES = join(ROOT, 'backend', 'bin', 'stripped-sources.js');
const MAIN_TS = join(ROOT, 'backend', 'src', 'cli', 'main.ts');
/** Node's type stripper (amaro, SWC built to WebAssembly), as process.moduleLoadList names it. */
const TYPE_STRIPPER = 'NativeModule internal/deps/amaro/dist/index';

const dir = mkdtempSync(join(tmpdir(), 'upness-loaded-'));
const emptyTrace = join(dir, 'empty.jsonl');
writeFileSync(emptyTrace, '');

interface Loaded {
  resolved: string[];
  builtins: string[];
}

/** Runs `upness serve <args>` until ready (then `whileUp`), stops it with SIGTERM, and returns what it loaded. */
async function loadedBy(args: string[], options: { bin?: string; whileUp?: (url: string) => Promise<void> } = {}): Promise<Loaded> {
  const out = join(dir, `loaded-${Math.random().toString(36).slice(2)}.json`);
  const serve = await startServe(args, { nodeArgs: ['--import', PRELOAD], env: { ...process.env, LOADED_MODULES: out }, ...(options.bin ? { bin: options.bin } : {}) });
  const exited = new Promise((resolve) => serve.child.once('exit', (code, signal) => resolve(code ?? signal)));
  try {
    await ready(serve);
    await options.whileUp?.(serve.url);
  } finally {
    serve.child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }
  return JSON.parse(readFileSync(out, 'utf8')) as Loaded;
}

/** The loaded modules whose URL contains any of `parts`. */
const matching = (loaded: Loaded, parts: string[]): string[] => loaded.resolved.filter((url) => parts.some((part) => url.includes(part)));

const NOT_FOR_AN_EMPTY_SERVICE = [
  '/node_modules/pg/',
  '/node_modules/@kubernetes/client-node/',
  '/node_modules/apache-arrow/',
  '/backend/src/store/embedded.ts',
  '/backend/src/store/postgres.ts',
  '/backend/src/sources/cluster/config.ts',
  '/backend/src/runtime/live-cluster.ts',
  '/backend/src/cli/replay.ts',
  '/backend/src/cli/record.ts',
  '/backend/src/cli/demo.ts',
  '/backend/src/cli/simulate.ts',
];

describe('what the service loads', () => {
  it('serving a trace in memory: no store, no cluster, no simulator, no other command, no type stripper', async () => {
    const loaded = await loadedBy(['--memory', '--trace', emptyTrace]);
    expect(matching(loaded, [...NOT_FOR_AN_EMPTY_SERVICE, '/backend/src/sources/simulator/', '/backend/src/runtime/live-simulation.ts'])).toEqual([]);
    expect(loaded.builtins).not.toContain(TYPE_STRIPPER);
    // What it does need was seen: the recorder works.
    expect(matching(loaded, ['/backend/src/runtime/trace-workers.ts', '/node_modules/express/'])).not.toEqual([]);
  });

  it('the simulated cluster (`npm start` with --memory): no store, no cluster, no trace replay; it answers', async () => {
    const loaded = await loadedBy(['--memory', '--jobsets', '2', '--history-days', '1'], {
      whileUp: async (url) => {
        const namespaces = await fetch(`${url}/api/v1/values/namespaces`);
        expect(namespaces.status).toBe(200);
        expect(((await namespaces.json()) as { values: string[] }).values.length).toBeGreaterThan(0);
      },
    });
    expect(matching(loaded, [...NOT_FOR_AN_EMPTY_SERVICE, '/backend/src/runtime/trace-workers.ts'])).toEqual([]);
    expect(loaded.builtins).not.toContain(TYPE_STRIPPER);
    expect(matching(loaded, ['/backend/src/sources/simulator/'])).not.toEqual([]);
  });

  it('a data dir loads its store; run from main.ts, Node strips the types itself (what the checks above would see)', async () => {
    const loaded = await loadedBy(['--data-dir', join(dir, 'data'), '--trace', emptyTrace], { bin: MAIN_TS });
    expect(matching(loaded, ['/backend/src/store/embedded.ts'])).not.toEqual([]);
    expect(loaded.builtins).toContain(TYPE_STRIPPER);
  });
});

describe('the sources stripped ahead (backend/bin/stripped-sources.js)', () => {
  /** Runs a module in a fresh Node: `useStrippedSources(sources, cache)`, then imports `entry`; prints what it returns, the module's answer and whether Node's stripper loaded. */
  const run = (sources: string, cache: string, entry: string): { used: boolean; answer: unknown; stripper: boolean } => {
    const script = `
      const { useStrippedSources } = await import(${JSON.stringify(pathToFileURL(STRIPPED_SOURCES).href)});
      const used = useStrippedSources(${JSON.stringify(sources)}, ${JSON.stringify(cache)});
      const { answer } = await import(${JSON.stringify(pathToFileURL(entry).href)});
      process.stdout.write(JSON.stringify({ used, answer, stripper: process.moduleLoadList.includes(${JSON.stringify(TYPE_STRIPPER)}) }));`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(child.stderr).toBe('');
    return JSON.parse(child.stdout) as { used: boolean; answer: unknown; stripper: boolean };
  };

  it('fills the cache once, serves an edited source afresh (dropping the old one), and falls back to Node where it cannot write', () => {
    const sources = join(dir, 'sources');
    mkdirSync(join(sources, 'sub'), { recursive: true });
    writeFileSync(join(sources, 'package.json'), '{"type":"module"}');
    writeFileSync(join(sources, 'sub', 'two.ts'), 'export const two: number = 2;\n');
    writeFileSync(join(sources, 'sub', 'two.test.ts'), 'this is not even TypeScript');
    const entry = join(sources, 'entry.ts');
    writeFileSync(entry, "import { two } from './sub/two.ts';\ninterface Pair { a: number }\nexport const answer: Pair = { a: two + 40 };\n");
    const cache = join(dir, 'cache');

    expect(run(sources, cache, entry)).toEqual({ used: true, answer: { a: 42 }, stripper: false });
    // Two sources, named by their content (the test file is none of the service's).
    expect(readdirSync(cache)).toHaveLength(2);
    expect(run(sources, cache, entry)).toEqual({ used: true, answer: { a: 42 }, stripper: false });
    expect(readdirSync(cache)).toHaveLength(2);

    const before = readdirSync(cache).sort();
    writeFileSync(join(sources, 'sub', 'two.ts'), 'export const two: number = 3;\n');
    expect(run(sources, cache, entry)).toEqual({ used: true, answer: { a: 43 }, stripper: false });
    const after = readdirSync(cache).sort();
    expect(after).toHaveLength(2);
    expect(after.filter((name) => before.includes(name))).toHaveLength(1); // the entry's, unchanged

    // A cache under a file cannot be made: Node strips the types, the same answer.
    const blocked = join(dir, 'a-file');
    writeFileSync(blocked, '');
    expect(run(sources, join(blocked, 'cache'), entry)).toEqual({ used: false, answer: { a: 43 }, stripper: true });
    expect(existsSync(join(blocked, 'cache'))).toBe(false);
  });
});
