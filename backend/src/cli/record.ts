// `upness record`: watch a cluster and write what it delivers as a trace (JSON Lines of {time, type,
// object}, DESIGN.md), the same observations `upness serve` would feed its engine, managedFields
// dropped. `upness replay` (or `serve --trace`) turns the file into the same timelines.
//
// Logs go to standard error, so that the trace can go to standard output.

import { createWriteStream, type WriteStream } from 'node:fs';
import { pino } from 'pino';
import { formatTraceLine } from '../sources/trace/parse.ts';
import { UsageError } from './options.ts';
import { parseWatchOptions, type WatchOptionValues } from './watch-options.ts';

export interface RecordOptions extends WatchOptionValues {
  out?: string;
  logLevel: string;
}

export async function recordCommand(options: RecordOptions): Promise<void> {
  const settings = parseWatchOptions(options);
  const logger = pino({ level: options.logLevel, base: { service: 'upness', command: 'record' } }, pino.destination(2));
  // Loaded only now: @kubernetes/client-node is needed by this command alone (and serve's cluster source).
  const { loadKubeConfig, KubeConfigError } = await import('../sources/cluster/config.ts');
  const { ClusterWatcher } = await import('../sources/cluster/watcher.ts');
  let config;
  try {
    config = loadKubeConfig(settings).config;
  } catch (error) {
    if (error instanceof KubeConfigError) throw new UsageError(error.message);
    throw error;
  }

  const out: WriteStream | NodeJS.WriteStream = options.out === undefined || options.out === '-' ? process.stdout : createWriteStream(options.out, { flags: 'w' });
  let lines = 0;
  const watcher = new ClusterWatcher(
    { config, namespaces: settings.namespaces, timings: settings.timings, readyBrokenMs: settings.readyBrokenMs, logger: logger.child({ component: 'watch' }), workloads: settings.workloads },
    {
      observe: (observation) => {
        out.write(formatTraceLine(observation) + '\n');
        lines++;
      },
      // A trace has no place for gaps (DESIGN.md's format): they are logged, and what changed
      // during one arrives as the relist delivered it.
      gap: (change) => logger.warn({ ...change, at: new Date(change.at).toISOString() }, change.phase === 'begin' ? 'gap in the watch begins' : 'gap in the watch ends'),
      firstSync: () => logger.info({ out: options.out ?? 'stdout', lines }, 'recording'),
    },
  );
  watcher.start();

  await new Promise<void>((resolve) => {
    const stop = (signal: string): void => {
      logger.info({ signal, lines }, 'stopping');
      void watcher.stop().then(() => {
        if (out === process.stdout) resolve();
        else (out as WriteStream).end(() => resolve());
      });
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
  logger.info({ lines }, 'trace written');
}
