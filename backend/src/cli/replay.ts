// `upness replay <trace>`: figures for every JobSet of a recorded trace.

import { earliestCreation, summarize } from '../series/summary.ts';
import { TimelineEngine } from '../timeline/engine.ts';
import { replayTraceInWorkers, traceInput } from '../runtime/trace-workers.ts';
import { formatTable } from './table.ts';
import { parseTime, UsageError } from './options.ts';

export interface ReplayOptions {
  from?: string;
  to?: string;
  namespace?: string[];
  format: 'json' | 'table';
  /** Worker threads that parse the trace beside the main thread, which parses a share too (default: one fewer than the available cores; 0: none). */
  parseThreads?: number;
}

export async function replayCommand(path: string, options: ReplayOptions): Promise<string> {
  // Check the options before the work, so a typo does not cost a long replay.
  const from = options.from === undefined ? null : parseTime(options.from, '--from');
  const to = options.to === undefined ? null : parseTime(options.to, '--to');
  if (from !== null && to !== null && to < from) throw new UsageError('--to must not be before --from');

  const input = traceInput(path);
  const engine = new TimelineEngine();
  const started = Date.now();
  let lastReport = started;
  const onProgress = (counts: TimelineEngine['counts']): void => {
    const now = Date.now();
    if (now - lastReport < 2000) return;
    lastReport = now;
    process.stderr.write(`replayed ${counts.observations} observations, ${counts.jobsets} JobSets (${Math.round(counts.observations / ((now - started) / 1000))}/s)\n`);
  };
  await replayTraceInWorkers(input, engine, { ...(options.parseThreads !== undefined ? { workers: options.parseThreads } : {}), onProgress });

  const timelines = engine.timelines();
  const horizon = engine.horizon;
  if (horizon === null) return options.format === 'json' ? '{"jobsets":[]}\n' : 'the trace holds no observations\n';
  const windowTo = to ?? horizon;
  const windowFrom = from ?? earliestCreation(timelines) ?? windowTo;
  if (windowTo < windowFrom) throw new UsageError('--to must not be before the window start (--from, or the earliest creation)');
  const namespaces = options.namespace === undefined || options.namespace.length === 0 ? null : new Set(options.namespace);
  const rows = summarize(timelines, horizon, windowFrom, windowTo).filter((r) => namespaces === null || namespaces.has(r.namespace));
  return options.format === 'json' ? `${JSON.stringify({ jobsets: rows }, null, 2)}\n` : formatTable(rows);
}
