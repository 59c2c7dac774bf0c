// A served process's memory once it has settled: full garbage collections forced through its
// inspector (node --inspect on loopback: HeapProfiler.collectGarbage), then its RSS from /proc and
// V8's heap. Right after a load, RSS still holds garbage and a grown young generation that V8 would
// hand back on its own within about a minute; this reads what the process keeps.

import { readFileSync } from 'node:fs';

export interface SettledMemory {
  rss: number;
  heapUsed: number;
  /** V8's heap as committed (used or not), and memory outside it (Buffers): where RSS beyond heapUsed is. */
  heapTotal: number;
  external: number;
}

/** The inspector's WebSocket address of a process started with `--inspect=127.0.0.1:PORT`. */
export async function inspectorAt(port: number): Promise<string> {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as { webSocketDebuggerUrl?: string }[];
  const url = targets[0]?.webSocketDebuggerUrl;
  if (url === undefined) throw new Error(`no inspector target on port ${port}`);
  return url;
}

export async function settledMemory(inspector: string, pid: number): Promise<SettledMemory> {
  const ws = new WebSocket(inspector);
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = () => reject(new Error(`cannot reach the inspector at ${inspector}`));
  });
  let id = 0;
  const pending = new Map<number, (result: unknown) => void>();
  ws.onmessage = (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown };
    if (message.id !== undefined) pending.get(message.id)?.(message.result);
  };
  const call = (method: string, params: object = {}): Promise<unknown> =>
    new Promise((resolve) => {
      pending.set(++id, resolve);
      ws.send(JSON.stringify({ id, method, params }));
    });
  for (let i = 0; i < 3; i++) await call('HeapProfiler.collectGarbage');
  const heap = (await call('Runtime.getHeapUsage')) as { usedSize: number };
  const usage = (await call('Runtime.evaluate', { expression: 'JSON.stringify(process.memoryUsage())', returnByValue: true })) as { result: { value: string } };
  const { heapTotal, external } = JSON.parse(usage.result.value) as { heapTotal: number; external: number };
  ws.close();
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rss = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]) * 1024;
  return { rss, heapUsed: heap.usedSize, heapTotal, external };
}
