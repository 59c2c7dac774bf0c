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
const STRIPPED_WORKER = join(ROOT, 'backend', 'bin', 'stripped-worker.js');
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

/** What a service loads only once it is asked something other than its health checks (http/app.ts); express only for a route other than the query, the values and /metrics. */
const NOT_UNTIL_ASKED = ['/node_modules/express/', '/node_modules/body-parser/', '/node_modules/zod/', '/backend/src/http/api.ts', '/backend/src/http/query.ts', '/backend/src/http/json-body.ts', '/backend/src/http/values.ts', '/backend/src/http/direct-get.ts', '/backend/src/frames/run-request.ts', '/backend/src/sources/trace/parse.ts'];

describe('what the service loads', () => {
  it('serving a trace in memory: no store, no cluster, no simulator, no other command, no type stripper', async () => {
    const loaded = await loadedBy(['--memory', '--trace', emptyTrace]);
    expect(matching(loaded, [...NOT_FOR_AN_EMPTY_SERVICE, '/backend/src/sources/simulator/', '/backend/src/runtime/live-simulation.ts'])).toEqual([]);
    expect(loaded.builtins).not.toContain(TYPE_STRIPPER);
    // What it does need was seen: the recorder works.
    expect(matching(loaded, ['/backend/src/runtime/trace-workers.ts'])).not.toEqual([]);
  });

  it('answers its health checks without the API, and what Grafana and Prometheus ask without express: zod and the query engine load on the first request that needs them', async () => {
    const loaded = await loadedBy(['--memory', '--trace', emptyTrace], {
      whileUp: async (url) => {
        // `ready` has asked /readyz already; /healthz too, as a kubelet does.
        expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ status: 'ok' });
        // Every spelling, HEAD and a conditional request too, and OPTIONS of any route: the server's own answers.
        expect(await (await fetch(`${url}/READYZ/`)).json()).toMatchObject({ ready: true });
        expect((await fetch(`${url}/healthz`, { method: 'HEAD' })).status).toBe(200);
        // (fetch adds `Cache-Control: no-cache` to a conditional request unless it has a Cache-Control.)
        expect((await fetch(`${url}/healthz`, { headers: { 'If-None-Match': '*', 'Cache-Control': 'max-age=0' } })).status).toBe(304);
        expect((await fetch(`${url}/api/v1/jobsets`, { method: 'OPTIONS' })).headers.get('allow')).toBe('GET, HEAD');
      },
    });
    expect(matching(loaded, NOT_UNTIL_ASKED)).toEqual([]);
    // The counts of what it did answer are on /metrics' registry, made at start.
    expect(matching(loaded, ['/node_modules/prom-client/'])).not.toEqual([]);

    const asked = await loadedBy(['--memory', '--trace', emptyTrace], {
      whileUp: async (url) => {
        // What Grafana's "Save & test" asks after /readyz (pkg/plugin/health.go), then a panel's query.
        expect(await (await fetch(`${url}/api/v1/values/namespaces`)).json()).toEqual({ values: [] });
        const query = await fetch(`${url}/api/v1/query`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ from: 'now-7d', to: 'now', queries: [{ refId: 'A' }] }) });
        expect(query.status).toBe(200);
        const metrics = await (await fetch(`${url}/metrics`)).text();
        // Every request is counted, the health checks answered before the API was loaded too.
        expect(metrics).toMatch(/upness_http_request_duration_seconds_count\{method="GET",route="\/readyz",status="200"\} [1-9]/);
        expect(metrics).toMatch(/upness_http_request_duration_seconds_count\{method="POST",route="\/api\/v1\/query",status="200"\} 1\n/);
      },
    });
    // "Save & test", a panel's query and a scrape are all answered on Node's own server: no express.
    expect(matching(asked, ['/node_modules/express/', '/node_modules/body-parser/', '/node_modules/router/', '/backend/src/http/api.ts', '/backend/src/http/jobsets.ts'])).toEqual([]);
    for (const part of ['/node_modules/zod/', '/backend/src/http/values.ts', '/backend/src/http/direct-get.ts', '/backend/src/frames/run-request.ts']) expect(matching(asked, [part])).not.toEqual([]);
    // zod in English only (backend/bin/zod-english.js): its locales' index, given `en` alone, and `en`.
    expect(matching(asked, ['/node_modules/zod/v4/locales/']).map((url) => url.replace(/.*\/locales\//, '')).sort()).toEqual(['en.js', 'index.js']);

    // "Save & test" and a scrape alone load no query engine (its error type is the query model's: http/errors.ts).
    const saveAndTest = await loadedBy(['--memory', '--trace', emptyTrace], {
      whileUp: async (url) => {
        expect(await (await fetch(`${url}/api/v1/values/namespaces`)).json()).toEqual({ values: [] });
        expect(await (await fetch(`${url}/api/v1/values/nope`)).json()).toEqual({ error: expect.stringMatching(/^unknown values "nope"/) });
        expect((await fetch(`${url}/metrics`)).status).toBe(200);
      },
    });
    expect(matching(saveAndTest, ['/backend/src/frames/run-request.ts', '/backend/src/frames/query-types/', '/backend/src/http/query.ts'])).toEqual([]);

    // Any other route loads the express app.
    const other = await loadedBy(['--memory', '--trace', emptyTrace], {
      whileUp: async (url) => {
        expect((await fetch(`${url}/api/v1/jobsets`)).status).toBe(200);
      },
    });
    for (const part of ['/node_modules/express/', '/backend/src/http/api.ts']) expect(matching(other, [part])).not.toEqual([]);
  });

  it('answers a panel\'s query without express: POST /api/v1/query is served on Node\'s own server, plain JSON read without body-parser', async () => {
    const queried = await loadedBy(['--memory', '--trace', emptyTrace], {
      whileUp: async (url) => {
        const query = await fetch(`${url}/api/v1/query`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ from: 'now-7d', to: 'now', queries: [{ refId: 'A' }] }) });
        expect(query.status).toBe(200);
        expect(Object.keys(((await query.json()) as { results: object }).results)).toEqual(['A']);
        // In any spelling express's router took: the same route, the only one.
        const spelled = await fetch(`${url}/API/v1/Query/`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ from: 'now-7d', to: 'now', queries: [{ refId: 'B' }] }) });
        expect(Object.keys(((await spelled.json()) as { results: object }).results)).toEqual(['B']);
      },
    });
    expect(matching(queried, ['/node_modules/express/', '/node_modules/body-parser/', '/backend/src/http/api.ts', '/backend/src/http/jobsets.ts', '/backend/src/http/values.ts'])).toEqual([]);
    for (const part of ['/node_modules/zod/', '/backend/src/http/query.ts', '/backend/src/frames/run-request.ts']) expect(matching(queried, [part])).not.toEqual([]);
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

  /** Runs a module script in a fresh Node (Node 22: this test's), from a file (a worker would inherit `--input-type`); returns what it printed as JSON. */
  const script = (text: string): unknown => {
    const file = join(dir, `script-${Math.random().toString(36).slice(2)}.mjs`);
    writeFileSync(file, text);
    const child = spawnSync(process.execPath, [file], { encoding: 'utf8', cwd: ROOT });
    expect(child.stderr).toBe('');
    return JSON.parse(child.stdout);
  };
  const url = (path: string): string => JSON.stringify(pathToFileURL(path).href);

  it('starts a worker thread on the same stripped files, so the worker loads no type stripper either (started from its TypeScript, it does)', () => {
    const sources = join(dir, 'worker-sources');
    mkdirSync(sources, { recursive: true });
    writeFileSync(join(sources, 'package.json'), '{"type":"module"}');
    writeFileSync(join(sources, 'half.ts'), 'export const half = (n: number): number => n / 2;\n');
    const entry = join(sources, 'entry.ts');
    writeFileSync(
      entry,
      `import { parentPort } from 'node:worker_threads';\nimport { half } from './half.ts';\nconst answer: number = half(84);\nparentPort!.postMessage({ answer, stripper: process.moduleLoadList.includes(${JSON.stringify(TYPE_STRIPPER)}) });\n`,
    );
    const cache = join(dir, 'worker-cache');
    const started = (how: 'stripped' | 'typescript'): unknown =>
      script(`
        const { useStrippedSources, STRIPPED_SOURCES } = await import(${url(STRIPPED_SOURCES)});
        const { Worker } = await import('node:worker_threads');
        const used = useStrippedSources(${JSON.stringify(sources)}, ${JSON.stringify(cache)});
        const worker = ${how === 'stripped'}
          ? new Worker(${JSON.stringify(STRIPPED_WORKER)}, { workerData: { strippedSources: { byUrl: globalThis[STRIPPED_SOURCES], entry: ${url(entry)} } } })
          : new Worker(${JSON.stringify(entry)});
        const message = await new Promise((resolve, reject) => { worker.once('message', resolve); worker.once('error', reject); });
        await worker.terminate();
        process.stdout.write(JSON.stringify({ used, ...message, here: process.moduleLoadList.includes(${JSON.stringify(TYPE_STRIPPER)}) }));`);
    expect(started('stripped')).toEqual({ used: true, answer: 42, stripper: false, here: false });
    expect(started('typescript')).toEqual({ used: true, answer: 42, stripper: true, here: false });
  });

  it("the replay's worker threads start on the stripped sources when the service runs on them, with the same timelines as in one thread", () => {
    const cache = join(dir, 'replay-cache');
    const replayed = (stripped: boolean): { start: string; inThread: string; inWorkers: string } =>
      script(`
        const { useStrippedSources } = await import(${url(STRIPPED_SOURCES)});
        const used = ${stripped} ? useStrippedSources(${JSON.stringify(join(ROOT, 'backend', 'src'))}, ${JSON.stringify(cache)}) : false;
        if (used !== ${stripped}) throw new Error('the stripped sources were not used');
        const { replayTraceInWorkers, workerStart } = await import(${url(join(ROOT, 'backend', 'src', 'runtime', 'trace-workers.ts'))});
        const { ClusterEngine } = await import(${url(join(ROOT, 'backend', 'src', 'nodes', 'engine.ts'))});
        const { simulateFleet } = await import(${url(join(ROOT, 'backend', 'src', 'sources', 'simulator', 'index.ts'))});
        const { timelineFields, transitionsOf } = await import(${url(join(ROOT, 'backend', 'src', 'timeline', 'types.ts'))});
        const text = [...simulateFleet({ jobsets: 6, days: 1, seed: 5, nodes: true }).traceLines()].map((l) => l + '\\n').join('');
        const held = async (options) => {
          const engine = new ClusterEngine();
          await replayTraceInWorkers([text], engine, { inThreadBytes: 0, chunkBytes: 16 << 10, ...options });
          // Every field (a spread leaves out what the engine's timeline shares or holds apart: its UID), transitions as objects: a closed run's are held as a record of the process's arena, whose number differs between the two replays.
          const read = (list) => list.map((tl) => ({ ...timelineFields(tl), transitions: transitionsOf(tl) }));
          return JSON.stringify({ timelines: read(engine.timelines()), nodes: read(engine.nodeTimelines()), counts: engine.counts });
        };
        const inThread = await held({ workers: 0 });
        const inWorkers = await held({ workers: 1, mainThreadParses: false, waitForWorkers: true });
        process.stdout.write(JSON.stringify({ start: workerStart(null).file, inThread, inWorkers }));`) as { start: string; inThread: string; inWorkers: string };
    const stripped = replayed(true);
    expect(stripped.start).toBe(STRIPPED_WORKER);
    expect(stripped.inWorkers).toBe(stripped.inThread);
    expect(JSON.parse(stripped.inThread).counts.observations).toBeGreaterThan(100);
    const plain = replayed(false);
    expect(plain.start).toBe(join(ROOT, 'backend', 'src', 'runtime', 'trace-worker.ts'));
    expect(plain.inWorkers).toBe(stripped.inThread);
  });

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
