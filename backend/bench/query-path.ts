// `node backend/bench/query-path.ts --trace FILE --checkouts DIR_A,DIR_B`: the service's CPU per
// request of `npm run bench`'s questions over HTTP, two checkouts side by side (before and after a
// change of the request's path). Each checkout's `upness serve --memory --trace FILE` runs in a
// process of its own; a client (this process) asks them in turn, `--requests` requests at a time,
// one server then the other, the order swapped every pair, for `--pairs` pairs; each server's CPU
// (user + system from /proc/<pid>/stat, so other load on the machine counts little) over its
// requests, divided by them. The clock is shown too, but on a loaded machine it says little.
// Options: --requests N (default 2000: the detail; the tables, whose answers are larger,
// --table-requests, default 40), --pairs P (default 8), --questions id,… (default jobset-detail), --name ns/name (the detail's JobSet; default: the name with the most interruptions
// and recoveries in the window, a busy one as the bench's), --clients http,fetch (default http: node:http
// on a kept-alive connection, as `npm run bench` asks since issue 21 §4; fetch: undici's, as it asked
// before; both: each server asked by each client in turn, with the client's own CPU per request),
// --floor (beside the checkouts, a bare node:http server that answers every request with the first
// checkout's answer, the same bytes: what Node's server, the loopback and the client cost alone).

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { planSteps } from '../src/query/step.ts';
import { DEFAULT_START } from '../src/sources/simulator/index.ts';
import { cpuSeconds, listeningUrl, sleep, timedFetch, timedRequest, type Timed } from './prometheus/proc.ts';
import { QUESTIONS, type Detail, type Window } from './prometheus/questions.ts';
import { benchArgs } from './args.ts';

const { values: args } = benchArgs(import.meta.filename, {
  options: {
    trace: { type: 'string' },
    checkouts: { type: 'string' },
    requests: { type: 'string', default: '2000' },
    'table-requests': { type: 'string', default: '40' },
    pairs: { type: 'string', default: '8' },
    questions: { type: 'string', default: 'jobset-detail' },
    name: { type: 'string' },
    days: { type: 'string', default: '7' },
    clients: { type: 'string', default: 'http' },
    floor: { type: 'boolean', default: false },
  },
});
if (args.trace === undefined || args.checkouts === undefined) throw new Error('usage: query-path.ts --trace FILE --checkouts DIR_A,DIR_B [--requests N] [--pairs P] [--questions id,…] [--name ns/name]');
const REQUESTS = Number(args.requests);
const TABLE_REQUESTS = Number(args['table-requests']);
const PAIRS = Number(args.pairs);
const HOUR = 3_600_000;
const days = Number(args.days);

/** The window `npm run bench` asks over (run.ts): the simulated period less its last hour. */
function benchWindow(): Window {
  const from = DEFAULT_START;
  const to = from + Math.max(1, Math.floor(days * 24 - 1)) * HOUR;
  const maxDataPoints = Math.min(11_000, Math.ceil((to - from) / HOUR) + 1);
  const steps = planSteps(from, to, HOUR, maxDataPoints);
  return { from, to, first: steps.first, last: steps.last, stepMs: steps.stepMs, rollingMs: 24 * HOUR, maxDataPoints };
}

interface Server {
  checkout: string;
  url: string;
  child: ChildProcess;
}

/** `upness serve --memory --trace FILE` of a checkout, once it has replayed the whole trace. */
async function start(checkout: string): Promise<Server> {
  const env = { ...process.env };
  delete env.UPNESS_TOKEN;
  const child = spawn(process.execPath, [join(checkout, 'backend/bin/upness.js'), 'serve', '--memory', '--trace', args.trace!, '--host', '127.0.0.1', '--port', '0', '--log-level', 'info'], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env,
  });
  const url = await listeningUrl(child, `${checkout}: upness serve`);
  while ((await fetch(`${url}/readyz`)).status !== 200) await sleep(100);
  return { checkout, url, child };
}

/** The detail's JobSet: the one asked, or the name with the most interruptions and recoveries in the window. */
async function detailOf(server: Server, w: Window): Promise<Detail> {
  if (args.name !== undefined) {
    const [namespace, name] = args.name.split('/');
    return { namespace: namespace!, name: name!, uids: [], figures: new Map() };
  }
  const { jobsets } = (await (await fetch(`${server.url}/api/v1/jobsets?from=${w.from}&to=${w.to}`)).json()) as { jobsets: { namespace: string; name: string; interruptions: number; recoveries: number }[] };
  const busy = new Map<string, number>();
  for (const j of jobsets) busy.set(`${j.namespace}/${j.name}`, (busy.get(`${j.namespace}/${j.name}`) ?? 0) + j.interruptions + j.recoveries);
  const [key] = [...busy].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]!;
  const [namespace, name] = key.split('/');
  return { namespace: namespace!, name: name!, uids: [], figures: new Map() };
}

/** The clients a server can be asked with (`--clients`). */
const CLIENTS = {
  http: (url: string, body: string): Promise<Timed> => timedRequest(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body }),
  fetch: (url: string, body: string): Promise<Timed> => timedFetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body }),
};
type ClientName = keyof typeof CLIENTS;
const clients = args.clients.split(',').map((c) => c.trim()) as ClientName[];
for (const c of clients) if (!(c in CLIENTS)) throw new Error(`--clients: unknown ${c}; known: ${Object.keys(CLIENTS).join(', ')}`);

/** A bare node:http server in a process of its own that answers every request, once read, with the bytes of `file`. */
async function floorServer(file: string): Promise<Server> {
  const source = `import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
const answer = readFileSync(process.argv[1]);
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': answer.length }).end(answer));
});
server.keepAliveTimeout = 100_000;
server.listen(0, '127.0.0.1', () => process.stdout.write('http://127.0.0.1:' + server.address().port + '\\n'));`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', source, file], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolveUrl, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolveUrl);
    child.once('exit', (code) => reject(new Error(`the floor server exited (code ${code}) before listening`)));
  });
  return { checkout: 'floor (the same bytes from a bare node:http server)', url, child };
}

/** `requests` requests of one body, one after the other: the server's and the client's CPU ms and the clock's ms per request. */
async function ask(server: Server, client: ClientName, body: string, requests: number): Promise<{ cpu: number; clientCpu: number; clock: number }> {
  const cpu0 = cpuSeconds(server.child.pid!);
  const own0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < requests; i++) {
    const res = await CLIENTS[client](`${server.url}/api/v1/query`, body);
    if (res.status !== 200) throw new Error(`${server.checkout}: ${res.status}`);
  }
  const clock = (performance.now() - t0) / requests;
  const own = process.cpuUsage(own0);
  return { cpu: ((cpuSeconds(server.child.pid!) - cpu0) * 1000) / requests, clientCpu: (own.user + own.system) / 1000 / requests, clock };
}

const checkouts = args.checkouts.split(',').map((c) => resolve(c));
const servers: Server[] = [];
try {
  for (const c of checkouts) servers.push(await start(c));
  const w = benchWindow();
  const detail = await detailOf(servers[0]!, w);
  process.stdout.write(`detail ${detail.namespace}/${detail.name}; ${REQUESTS} requests (tables ${TABLE_REQUESTS}) × ${PAIRS} pairs; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}\n`);
  for (const q of QUESTIONS.filter((x) => args.questions.split(',').includes(x.id))) {
    const body = JSON.stringify(q.upness(w, detail));
    const requests = q.id === 'jobset-detail' ? REQUESTS : TABLE_REQUESTS;
    const answer = Buffer.from((await CLIENTS.http(`${servers[0]!.url}/api/v1/query`, body)).body, 'utf8');
    let floor: Server | null = null;
    const scratch = args.floor ? mkdtempSync(join(tmpdir(), 'upness-floor-')) : null;
    if (scratch !== null) {
      writeFileSync(join(scratch, 'answer.json'), answer);
      floor = await floorServer(join(scratch, 'answer.json'));
    }
    try {
      // Each server with each client: the order swapped every pair.
      const peers = [...servers, ...(floor !== null ? [floor] : [])].flatMap((server) => clients.map((client) => ({ server, client })));
      // One warm-up round each: the JIT, the caches.
      for (const p of peers) await ask(p.server, p.client, body, requests);
      const cpu: number[][] = peers.map(() => []);
      const clientCpu: number[][] = peers.map(() => []);
      const clock: number[][] = peers.map(() => []);
      for (let pair = 0; pair < PAIRS; pair++) {
        const order = peers.map((_, i) => (pair % 2 === 0 ? i : peers.length - 1 - i));
        for (const i of order) {
          const r = await ask(peers[i]!.server, peers[i]!.client, body, requests);
          cpu[i]!.push(r.cpu);
          clientCpu[i]!.push(r.clientCpu);
          clock[i]!.push(r.clock);
        }
      }
      const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
      const least = (xs: number[]): number => Math.min(...xs);
      process.stdout.write(`${q.id} (${requests} requests a round; the first checkout's answer ${(answer.length / 1024).toFixed(0)} KiB)\n`);
      peers.forEach((p, i) => {
        process.stdout.write(
          `  ${p.server.checkout} ← ${p.client}: service CPU per request ${cpu[i]!.map((x) => x.toFixed(3)).join(', ')} ms (mean ${mean(cpu[i]!).toFixed(3)}); ` +
            `client CPU mean ${mean(clientCpu[i]!).toFixed(3)} ms; clock least ${least(clock[i]!).toFixed(3)}, mean ${mean(clock[i]!).toFixed(3)} ms\n`,
        );
      });
      if (servers.length === 2 && clients.length === 1) {
        const less = cpu[1]!.filter((x, p) => x < cpu[0]![p]!).length;
        process.stdout.write(`  second ÷ first (means): ${(mean(cpu[1]!) / mean(cpu[0]!)).toFixed(3)}; the second less in ${less} pairs of ${PAIRS}\n`);
      }
    } finally {
      floor?.child.kill('SIGTERM');
      if (scratch !== null) rmSync(scratch, { recursive: true, force: true });
    }
  }
  process.stdout.write(`load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}\n`);
} finally {
  for (const s of servers) s.child.kill('SIGTERM');
}
