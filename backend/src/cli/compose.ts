// The composition root of `upness serve`: options become parts of the runtime (runtime/: a Feed,
// a Sink, the session that runs them) and the HTTP app that serves the session's view.
//
//   serve.ts           options → a Feed and a Sink → openSession → serveApi → stopOnSignals
//   serve-postgres.ts  the same session inside a Replica's `lead` (PostgreSQL, leader election)

import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer, isQueryRequest, type AppOptions } from '../http/app.ts';
import { FeedSettingsError } from '../runtime/feeds.ts';
import { reduceMemory } from '../runtime/heap-after-load.ts';
import { QUIET_COLLECTION, QuietCollection } from '../runtime/quiet-collection.ts';
import type { Sink } from '../runtime/sinks.ts';
import { UsageError } from './options.ts';

/**
 * Serves the API; resolves with the server, the URL it listens on (the port may have been 0), and
 * `loaded`, to call once the feed's load is done. Once its queries (and the load) go quiet, V8's
 * pooled pages are given back (runtime/quiet-collection.ts).
 */
export async function serveApi(host: string, port: number, options: AppOptions): Promise<{ server: Server; url: string; loaded: () => void }> {
  const server = createServer(options).listen(port, host);
  const quiet = new QuietCollection({
    ...QUIET_COLLECTION,
    collect: () => {
      // Selections kept for a refresh's panels are not what the service holds between refreshes.
      options.view.keptSelections?.()?.clear();
      reduceMemory();
    },
  });
  // Only queries allocate much: health checks, variables' values and scrapes (every 15 s from a
  // Prometheus) are no reason to collect, nor should they put a collection off.
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (isQueryRequest(req)) res.once('finish', () => quiet.answered());
  });
  server.once('close', () => quiet.stop());
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const address = server.address();
  const url = address === null || typeof address === 'string' ? String(address) : `http://${address.address}:${address.port}`;
  return { server, url, loaded: () => quiet.loaded() };
}

/** What the API needs of a sink (absent for memory). */
export function sinkOptions(sink: Sink): Pick<AppOptions, 'beforeRead' | 'store'> {
  const { status } = sink;
  return status === undefined ? {} : { beforeRead: () => sink.flushed(), store: status };
}

/** Runs `open` (a session opening its feed): a feed's settings that cannot work are the command's usage error (exit 2). */
export async function withUsageErrors<T>(open: () => Promise<T>): Promise<T> {
  try {
    return await open();
  } catch (error) {
    if (error instanceof FeedSettingsError) throw new UsageError(error.message);
    throw error;
  }
}
