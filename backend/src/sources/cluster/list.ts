// A paginated LIST of one resource, returning the objects exactly as the apiserver sent them (the
// typed clients would turn them into classes with Date fields and drop unknown fields).

import { Agent, request as httpRequest, type AgentOptions, type RequestOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import type { KubeObject } from '../../observation/types.ts';

export interface RawList {
  resourceVersion: string;
  items: KubeObject[];
}

/** A 200 answer that is not JSON (through a proxy: whatever the other end sent). */
export class NotJsonError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotJsonError';
  }
}

/** An error answer of the apiserver, with its status and the message of its Status object. */
export class ApiError extends Error {
  readonly statusCode: number;
  readonly reason: string | undefined;
  constructor(statusCode: number, message: string, reason?: string) {
    super(message);
    this.name = 'ApiError';
    this.statusCode = statusCode;
    this.reason = reason;
  }
}

/**
 * Requests that share one connection (the pages of a list). The kubeconfig's agent (one per cluster,
 * cached by client-node) keeps no connection alive: a TLS handshake, a secure context (the CA and the
 * client certificate parsed again) and a connection per page, which measured most of what a first
 * sync left in native memory. This is a copy of it that keeps its connection; `close()` ends it.
 */
export class SharedConnection {
  #agent: Agent | undefined;

  /** The agent for a request, given the kubeconfig's: its keep-alive copy (a proxy's agent is used as it is). */
  agent(given: Agent): Agent {
    if (given.constructor !== HttpsAgent && given.constructor !== Agent) return given;
    const options = (given as Agent & { options: AgentOptions }).options;
    this.#agent ??= new (given.constructor as typeof Agent)({ ...options, keepAlive: true });
    return this.#agent;
  }

  close(): void {
    this.#agent?.destroy();
    this.#agent = undefined;
  }
}

/** One GET as the kubeconfig's user; the answer's JSON, or an ApiError with the apiserver's status. */
export async function getJson(config: KubeConfig, path: string, signal: AbortSignal, connection?: SharedConnection): Promise<unknown> {
  const cluster = config.getCurrentCluster();
  if (cluster === null) throw new Error('the kubeconfig has no current cluster');
  const url = new URL(cluster.server.replace(/\/$/, '') + path);
  const options: RequestOptions & { headers: Record<string, string> } = { method: 'GET', headers: { accept: 'application/json' } };
  // Sets the agent (CA, client certificate, proxy) and the Authorization header, as client-node does:
  // the header anew for each request (tokens that expire, exec plugins).
  await config.applyToHTTPSOptions(options);
  if (connection !== undefined && options.agent instanceof Agent) options.agent = connection.agent(options.agent);
  const send = url.protocol === 'http:' ? httpRequest : httpsRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, { ...options, signal }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(body);
        } catch {
          json = undefined;
        }
        const status = res.statusCode ?? 0;
        if (status !== 200) {
          const s = (json ?? {}) as { message?: string; reason?: string };
          reject(new ApiError(status, `GET ${url.pathname}: HTTP ${status}${s.message ? `: ${s.message}` : ''}`, s.reason));
        } else if (json === undefined) {
          reject(new NotJsonError(`GET ${url.pathname}: the answer is not JSON`));
        } else {
          resolve(json);
        }
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * Lists every object under `path` (following `continue` tokens), a page at a time, over one
 * connection: `page` gets each page's objects as it arrives, so that no more than a page is held here. List items carry no
 * apiVersion or kind; they are set from `kind`/`apiVersion`, as a watch event's object has them.
 * Resolves with the list's resourceVersion.
 */
export async function listPages(
  config: KubeConfig,
  path: string,
  options: { apiVersion: string; kind: string; labelSelector?: string; pageSize?: number; signal: AbortSignal },
  page: (items: KubeObject[]) => void,
): Promise<string> {
  let resourceVersion = '';
  let token: string | undefined;
  const connection = new SharedConnection();
  try {
    do {
      const query = new URLSearchParams({ limit: String(options.pageSize ?? 500) });
      if (options.labelSelector !== undefined) query.set('labelSelector', options.labelSelector);
      if (token !== undefined) query.set('continue', token);
      const answer = (await getJson(config, `${path}?${query}`, options.signal, connection)) as {
        metadata?: { resourceVersion?: string; continue?: string };
        items?: KubeObject[];
      };
      page((answer.items ?? []).map((item) => ({ apiVersion: options.apiVersion, kind: options.kind, ...item })));
      resourceVersion = answer.metadata?.resourceVersion ?? resourceVersion;
      token = answer.metadata?.continue || undefined;
    } while (token !== undefined);
  } finally {
    connection.close();
  }
  return resourceVersion;
}

/** Every object under `path`, as listPages gives them, in one array. */
export async function listAll(
  config: KubeConfig,
  path: string,
  options: { apiVersion: string; kind: string; labelSelector?: string; pageSize?: number; signal: AbortSignal },
): Promise<RawList> {
  const items: KubeObject[] = [];
  const resourceVersion = await listPages(config, path, options, (page) => items.push(...page));
  return { resourceVersion, items };
}
