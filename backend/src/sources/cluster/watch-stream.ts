// One watch request (GET <path>?watch=true) as the kubeconfig's user, over Node's own HTTP client:
// each event is parsed as soon as its line has arrived, and nothing more than the line being read is
// held. It behaves as client-node's Watch did here (which needed its generated API's request types):
// an inactivity timeout that also bounds the connect, the HTTP status of a refusal, a line that is
// not JSON skipped, and `done` called once, with null when the server closed the stream.

import { request as httpRequest, STATUS_CODES, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';

/** What `done` gets when nothing arrived for the inactivity timeout (classified as a timeout). */
export function watchTimeout(): DOMException {
  return new DOMException('The operation was aborted due to timeout', 'TimeoutError');
}

/**
 * Cuts a byte stream into lines and gives each complete line to `line`. Keeps only the unfinished
 * line's bytes between chunks.
 */
export class LineSplitter {
  #pending: Buffer[] = [];
  readonly #line: (text: string) => void;
  constructor(line: (text: string) => void) {
    this.#line = line;
  }

  push(chunk: Buffer): void {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, nl);
      start = nl + 1;
      if (this.#pending.length === 0) {
        this.#line(piece.toString('utf8'));
      } else {
        this.#pending.push(piece);
        const whole = Buffer.concat(this.#pending);
        this.#pending = [];
        this.#line(whole.toString('utf8'));
      }
    }
    // A copy: the rest must not pin the whole chunk it came in.
    if (start < chunk.length) this.#pending.push(Buffer.from(chunk.subarray(start)));
  }

  /** The last line, when the stream ended without a newline. */
  end(): void {
    if (this.#pending.length === 0) return;
    const whole = Buffer.concat(this.#pending);
    this.#pending = [];
    this.#line(whole.toString('utf8'));
  }
}

/**
 * Opens a watch of `path` with `query` (watch=true is added). `event` gets each event's type and
 * object; `done` is called once: null when the server closed the stream, otherwise the error (an
 * `Error` with `statusCode` for an HTTP refusal, a TimeoutError DOMException after `inactivityMs` with
 * nothing received, the request's error). Resolves once the apiserver has answered (or the request
 * failed) with a controller that ends the watch.
 */
export async function openWatch(
  config: KubeConfig,
  path: string,
  query: Record<string, string>,
  inactivityMs: number,
  event: (type: string, object: unknown) => void,
  done: (error: unknown) => void,
): Promise<AbortController> {
  const cluster = config.getCurrentCluster();
  if (cluster === null) throw new Error('the kubeconfig has no current cluster');
  const url = new URL(cluster.server.replace(/\/$/, '') + path);
  url.searchParams.set('watch', 'true');
  for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
  const options: RequestOptions & { headers: Record<string, string> } = { method: 'GET', headers: { accept: 'application/json' } };
  // The agent (CA, client certificate, proxy) and the Authorization header, refreshed for each watch (exec plugins, token files).
  await config.applyToHTTPSOptions(options);

  const controller = new AbortController();
  let finished = false;
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  const finish = (error: unknown): void => {
    if (finished) return;
    finished = true;
    clearTimeout(timer);
    controller.abort();
    done(error !== null && timedOut ? watchTimeout() : error);
  };
  const resetTimer = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      timedOut = true;
      finish(watchTimeout());
    }, inactivityMs);
    timer.unref();
  };
  const lines = new LineSplitter((line) => {
    if (finished || line === '') return;
    let parsed: { type?: unknown; object?: unknown };
    try {
      parsed = JSON.parse(line) as { type?: unknown; object?: unknown };
    } catch {
      return; // not an event: skipped, as client-node's Watch does
    }
    if (typeof parsed?.type === 'string') event(parsed.type, parsed.object);
  });

  const send = url.protocol === 'http:' ? httpRequest : httpsRequest;
  await new Promise<void>((answered) => {
    // Until the answer comes, the timeout bounds the connect.
    resetTimer();
    const req = send(url, { ...options, signal: controller.signal }, (res) => {
      const status = res.statusCode ?? 0;
      if (status !== 200) {
        res.resume();
        finish(Object.assign(new Error(res.statusMessage || STATUS_CODES[status] || 'Internal Server Error'), { statusCode: status }));
        answered();
        return;
      }
      resetTimer();
      res.on('data', (chunk: Buffer) => {
        if (finished) return;
        resetTimer();
        lines.push(chunk);
      });
      res.on('end', () => {
        if (!finished) lines.end();
        finish(null);
      });
      res.on('error', finish);
      res.on('close', () => finish(null));
      answered();
    });
    req.on('error', (error) => {
      finish(error);
      answered();
    });
    req.end();
  });
  return controller;
}
