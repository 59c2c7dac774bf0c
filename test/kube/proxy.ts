// A TCP proxy between a client under test and the apiserver, to break the network in ways a test can
// time exactly: cut every connection (as a dead link or a killed peer would), refuse new ones, or
// hold what the client sends (new connections accepted but not forwarded, open ones still
// delivering what the server sends: a request made now waits until release()). TLS passes through
// untouched: the apiserver's certificate is for 127.0.0.1, where the proxy listens too.

import { connect, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export type ProxyMode = 'pass' | 'refuse' | 'hold';

interface Pair {
  client: Socket;
  upstream: Socket | null;
  /** The client's bytes are not being forwarded. */
  held: boolean;
}

export class FaultProxy {
  readonly port: number;
  readonly #server: Server;
  readonly #target: { host: string; port: number };
  readonly #pairs = new Set<Pair>();
  readonly #held: Pair[] = [];
  #mode: ProxyMode = 'pass';
  /** Connections accepted so far (held ones included). */
  accepted = 0;

  private constructor(server: Server, target: { host: string; port: number }) {
    this.#server = server;
    this.#target = target;
    this.port = (server.address() as AddressInfo).port;
  }

  /** Listens on 127.0.0.1 (a free port) and forwards to `target` (e.g. the apiserver's URL). */
  static async start(target: string): Promise<FaultProxy> {
    const url = new URL(target);
    let proxy: FaultProxy | null = null;
    const server = createServer((socket) => proxy!.#accept(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', resolve);
    });
    proxy = new FaultProxy(server, { host: url.hostname, port: Number(url.port) });
    return proxy;
  }

  get url(): string {
    return `https://127.0.0.1:${this.port}`;
  }

  get mode(): ProxyMode {
    return this.#mode;
  }

  /** Connections open now (held ones included). */
  get open(): number {
    return this.#pairs.size;
  }

  get heldCount(): number {
    return this.#held.length;
  }

  #accept(client: Socket): void {
    this.accepted++;
    if (this.#mode === 'refuse') {
      client.destroy();
      return;
    }
    const pair: Pair = { client, upstream: null, held: false };
    this.#pairs.add(pair);
    client.on('error', () => {});
    client.on('close', () => {
      pair.upstream?.destroy();
      this.#pairs.delete(pair);
    });
    if (this.#mode === 'hold') {
      client.pause();
      pair.held = true;
      this.#held.push(pair);
      return;
    }
    this.#connect(pair);
  }

  #connect(pair: Pair): void {
    const upstream = connect(this.#target.port, this.#target.host);
    pair.upstream = upstream;
    upstream.on('error', () => pair.client.destroy());
    upstream.on('close', () => pair.client.destroy());
    // Half-closes pass through: a server that ends the stream cleanly is seen ending it cleanly.
    pair.client.pipe(upstream);
    upstream.pipe(pair.client);
    pair.client.resume();
  }

  /** Forward everything again (releasing what was held). */
  pass(): void {
    this.#mode = 'pass';
    this.release();
  }

  /** Close new connections as soon as they are accepted. */
  refuse(): void {
    this.#mode = 'refuse';
  }

  /**
   * Stop forwarding what clients send, on open connections and new ones, until release() or pass().
   * What the server sends on open connections still arrives (a watch stream keeps flowing until the
   * server ends it; the next request on that connection waits).
   */
  hold(): void {
    this.#mode = 'hold';
    for (const pair of this.#pairs) {
      if (pair.held || pair.upstream === null) continue;
      pair.held = true;
      pair.client.unpipe(pair.upstream);
      pair.client.pause();
      this.#held.push(pair);
    }
  }

  /** Forward what was held (the mode stays as it is). */
  release(): void {
    for (const pair of this.#held.splice(0)) {
      pair.held = false;
      if (pair.client.destroyed) continue;
      if (pair.upstream === null) this.#connect(pair);
      else {
        pair.client.pipe(pair.upstream);
        pair.client.resume();
      }
    }
  }

  /** Close every open connection, both ways, mid-stream: the client sees the connection die.
   *  (destroy(), not resetAndDestroy(): the latter left paused sockets behind as live handles.) */
  cut(): void {
    for (const pair of this.#pairs) {
      pair.client.destroy();
      pair.upstream?.destroy();
    }
    this.#pairs.clear();
    this.#held.length = 0;
  }

  async stop(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
