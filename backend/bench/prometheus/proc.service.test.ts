// The benchmark's HTTP client (proc.ts timedRequest, and the lean client of client.ts that sends
// the timed requests from a process of its own): what it sends and what it reads back, against a
// node:http server on loopback that records each request.

import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { gzipSync } from 'node:zlib';
import { LeanClient } from './client.ts';
import { timedRequest } from './proc.ts';

interface Seen {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingHttpHeaders;
  body: string;
  remotePort: number | undefined;
}

let server: Server;
let base: string;
const seen: Seen[] = [];
/** An answer with a quote, a non-ASCII name and enough repetition that gzip is smaller. */
const ANSWER = JSON.stringify({ data: Array.from({ length: 200 }, (_, i) => ({ name: `naïve "job" ${i}`, up: i % 3 === 0 })) });

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), remotePort: req.socket.remotePort });
      const resets = seen.filter((s) => s.url === req.url).length;
      // A connection closed under the request: the first time only, or every time.
      if ((req.url === '/reset-once' && resets === 1) || req.url === '/reset-always') {
        req.socket.destroy();
        return;
      }
      if (req.url === '/gzip' && /\bgzip\b/.test(req.headers['accept-encoding'] ?? '')) {
        const zipped = gzipSync(ANSWER);
        res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip', 'Content-Length': zipped.length }).end(zipped);
      } else if (req.url === '/missing') {
        res.writeHead(404, { 'Content-Type': 'text/plain' }).end('no such thing');
      } else {
        res.writeHead(200, { 'Content-Type': 'application/json' }).end(ANSWER);
      }
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  base = `http://127.0.0.1:${address.port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  seen.length = 0;
});

describe('timedRequest', () => {
  it('accepts gzip, as fetch and Go clients do, and reads a gzip answer inflated', async () => {
    const res = await timedRequest(`${base}/gzip`);
    expect(res.status).toBe(200);
    expect(res.body).toBe(ANSWER);
    expect(res.ms).toBeGreaterThan(0);
    expect(seen[0]!.headers['accept-encoding']).toBe('gzip');
    expect(seen[0]!.method).toBe('GET');
  });

  it('reads a plain answer as UTF-8, and says a status other than 200 with its body', async () => {
    expect((await timedRequest(`${base}/plain`)).body).toBe(ANSWER);
    const missing = await timedRequest(`${base}/missing`);
    expect(missing.status).toBe(404);
    expect(missing.body).toBe('no such thing');
  });

  it('sends a POST body with its length in bytes and the headers given', async () => {
    const body = JSON.stringify({ queries: [{ refId: 'A', name: 'ünïcode' }] });
    const res = await timedRequest(`${base}/api/v1/query?frames=json`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(res.status).toBe(200);
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/api/v1/query?frames=json', body });
    expect(seen[0]!.headers['content-type']).toBe('application/json');
    expect(seen[0]!.headers['content-length']).toBe(String(Buffer.byteLength(body)));
  });

  it('asks one request after another on one kept-alive connection', async () => {
    for (let i = 0; i < 5; i++) await timedRequest(`${base}/plain`);
    expect(new Set(seen.map((s) => s.remotePort)).size).toBe(1);
  });

  // The server closes the kept-alive connection under the request (what a server's idle timeout does
  // when it races a request): really closed here, not simulated.
  it('asks once more on a new connection when a kept-alive one is reset', async () => {
    await timedRequest(`${base}/plain`);
    const answer = await timedRequest(`${base}/reset-once`);
    expect(answer).toMatchObject({ status: 200, body: ANSWER });
    const asked = seen.filter((s) => s.url === '/reset-once');
    expect(asked.length).toBe(2);
    expect(asked[0]!.remotePort).toBe(seen[0]!.remotePort);
    expect(asked[1]!.remotePort).not.toBe(asked[0]!.remotePort);
  });

  it('asks only once more: a reset on the new connection is an error', async () => {
    await timedRequest(`${base}/plain`);
    await expect(timedRequest(`${base}/reset-always`)).rejects.toMatchObject({ code: 'ECONNRESET' });
    expect(seen.filter((s) => s.url === '/reset-always').length).toBe(2);
  });
});

describe('the lean client (client.ts)', () => {
  let client: LeanClient;
  beforeAll(() => {
    client = LeanClient.start();
  });
  afterAll(async () => {
    await client.close();
  });

  it('warms up, times each run of its exchanges, and hands back the last run\'s answers whole (gzip inflated) with the server\'s CPU', async () => {
    const post = JSON.stringify({ queries: [{ refId: 'A', name: 'ünïcode' }] });
    const answer = await client.ask({
      label: 'a question',
      exchanges: [
        { url: `${base}/gzip`, init: {} },
        { url: `${base}/api/v1/query`, init: { method: 'POST', headers: { 'content-type': 'application/json' }, body: post } },
      ],
      runs: 3,
      warmups: 2,
      warmSeconds: 0,
      pid: process.pid,
    });
    expect(answer.times).toHaveLength(3);
    expect(answer.times.every((ms) => ms > 0)).toBe(true);
    expect(answer.bodies.map((b) => Buffer.from(b).toString('utf8'))).toEqual([ANSWER, ANSWER]);
    expect(answer.warmRuns).toBe(2);
    expect(answer.serverCpuSeconds).toBeGreaterThanOrEqual(0);
    expect(answer.clientCpuMs).toBeGreaterThan(0);
    // Every run asks both, in order: 2 warm-ups and 3 timed runs.
    expect(seen.map((s) => s.url)).toEqual(Array.from({ length: 5 }, () => ['/gzip', '/api/v1/query']).flat());
    expect(seen.filter((s) => s.method === 'POST').every((s) => s.body === post)).toBe(true);
  });

  it('warms up until the seconds asked have passed', async () => {
    const started = performance.now();
    const answer = await client.ask({ label: 'warm', exchanges: [{ url: `${base}/plain`, init: {} }], runs: 1, warmups: 1, warmSeconds: 0.2, pid: process.pid });
    expect(performance.now() - started).toBeGreaterThanOrEqual(200);
    expect(answer.warmRuns).toBeGreaterThan(1);
    expect(seen).toHaveLength(answer.warmRuns + 1);
  });

  it('fails a question answered with a status other than 200, naming it, and asks the next', async () => {
    await expect(client.ask({ label: 'upness missing', exchanges: [{ url: `${base}/missing`, init: {} }], runs: 2, warmups: 0, warmSeconds: 0, pid: process.pid })).rejects.toThrow(
      /upness missing: answered 404: no such thing/,
    );
    const next = await client.ask({ label: 'next', exchanges: [{ url: `${base}/plain`, init: {} }], runs: 1, warmups: 0, warmSeconds: 0, pid: process.pid });
    expect(Buffer.from(next.bodies[0]!).toString('utf8')).toBe(ANSWER);
  });
});
