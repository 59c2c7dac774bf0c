// A worker thread of trace-workers.ts: chunks of trace lines in, their views encoded in numbers out
// (trace-views.ts), in the order given.

import { parentPort, workerData } from 'node:worker_threads';
import { SpecReuse } from '../sources/trace/reuse.ts';
import { viewTraceChunk } from './trace-chunk.ts';
import { SpareMemory } from './spare-memory.ts';
import { ViewEncoder } from './trace-views.ts';

const port = parentPort!;
const { poolLabel } = workerData as { poolLabel: string | null };
// One string table for all of this worker's chunks: the replay keeps its copy of it.
const encoder = new ViewEncoder();
// The specs of this worker's lines, parsed once per JobSet (sources/trace/reuse.ts).
const specs = new SpecReuse();
// The memory of the chunks' numbers, handed back by the replay once it has applied them; 128 KiB at
// least, so that glibc maps even the first ones on their own (spare-memory.ts).
const numbers = new SpareMemory({ least: 128 << 10 });

port.on('message', ({ seq, chunk, returned }: { seq: number; chunk: string | Uint8Array; returned: ArrayBuffer[] }) => {
  for (const memory of returned) numbers.give(memory);
  const { lines, observations, lineNumbers, error } = viewTraceChunk(typeof chunk === 'string' ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength), poolLabel, specs);
  const views = encoder.encode(observations, lineNumbers, (bytes) => numbers.take(bytes));
  // The chunk's memory goes back for a later chunk: its lines were decoded into strings of their own.
  const memory = typeof chunk === 'string' ? null : (chunk.buffer as ArrayBuffer);
  const transfer = [views.numbers.buffer as ArrayBuffer];
  if (memory !== null) transfer.push(memory);
  port.postMessage({ seq, lines, error, views, memory, numbersMade: numbers.made }, transfer);
});
port.postMessage({ ready: true });
