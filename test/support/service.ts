/* eslint-disable @typescript-eslint/no-explicit-any -- the bodies are the JSON answers of the API under test */
// A real HTTP server on loopback over timelines built from drawn scenarios, for API tests.

import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { createServer } from '../../backend/src/http/app.ts';
import { EngineView } from '../../backend/src/runtime/served-view.ts';
import { TimelineEngine } from '../../backend/src/timeline/engine.ts';
import { ClusterEngine } from '../../backend/src/nodes/engine.ts';
import type { Observation } from '../../backend/src/observation/types.ts';

export interface TestService {
  url: string;
  view: EngineView;
  close(): Promise<void>;
  /** fetch relative to the service, with the token when given. */
  get(path: string, token?: string): Promise<{ status: number; body: any }>;
  post(path: string, body: unknown, token?: string, raw?: boolean): Promise<{ status: number; body: any }>;
}

/** `nodes`: a cluster's engine (Pods and Nodes too: the node layer and the node pools), as a trace of a cluster is served. */
export async function startService(observations: Observation[], options: { token?: string; now?: number; ready?: boolean; cluster?: string; nodes?: boolean } = {}): Promise<TestService> {
  const engineOptions = options.cluster === undefined ? {} : { cluster: options.cluster };
  const engine = options.nodes === true ? new ClusterEngine(engineOptions) : new TimelineEngine(engineOptions);
  for (const o of observations) engine.observe(o);
  const source = new EngineView('trace', engine, false);
  if (options.ready !== false) source.setReadiness({ ready: true });
  else source.setReadiness({ ready: false, reason: 'replaying test.jsonl' });
  // The server `upness serve` runs: POST /api/v1/query on Node's own server, the rest the express app's.
  const app = createServer({
    view: source,
    token: options.token ?? null,
    logger: pino({ level: 'silent' }),
    now: () => options.now ?? engine.horizon ?? 0,
  });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const headers = (token?: string): Record<string, string> => (token ? { authorization: `Bearer ${token}` } : {});
  const read = async (res: Response): Promise<{ status: number; body: any }> => {
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON (e.g. /metrics): keep the text
    }
    return { status: res.status, body };
  };
  return {
    url,
    view: source,
    close: () => new Promise((resolve) => server.close(() => resolve())),
    get: async (path, token) => read(await fetch(url + path, { headers: headers(token) })),
    post: async (path, body, token, raw = false) =>
      read(
        await fetch(url + path, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers(token) },
          body: raw ? (body as string) : JSON.stringify(body),
        }),
      ),
  };
}

/** `server` listening on a free loopback port: its URL, and how to close it. */
export async function listening(server: Server): Promise<{ url: string; close: () => Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** An answer as it came over the wire, but its Date (which differs between two servers). */
export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request on a connection of its own (a body if given, with its length): the answer as it came, but its Date. */
export function askRaw(url: string, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const sent = body === undefined ? headers : { ...headers, 'Content-Length': String(Buffer.byteLength(body)) };
    const req = http.request(`${url}${path}`, { method, headers: sent, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        const { date: _date, ...rest } = res.headers;
        resolve({ status: res.statusCode!, headers: rest, body: text });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}
