// A worker thread of trace-workers.ts: chunks of trace lines in, their compact records out, in the order given.

import { parentPort, workerData } from 'node:worker_threads';
import { viewTraceChunk } from './trace-chunk.ts';

const port = parentPort!;
const { poolLabel } = workerData as { poolLabel: string | null };

port.on('message', ({ seq, chunk }: { seq: number; chunk: string | Uint8Array }) => {
  const result = viewTraceChunk(typeof chunk === 'string' ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength), poolLabel);
  // The chunk's memory goes back for a later chunk: its lines were decoded into strings of their own.
  const memory = typeof chunk === 'string' ? null : (chunk.buffer as ArrayBuffer);
  port.postMessage({ seq, result, memory }, memory === null ? [result.lineNumbers.buffer as ArrayBuffer] : [result.lineNumbers.buffer as ArrayBuffer, memory]);
});
port.postMessage({ ready: true });
