// The simulator in a process of its own: it writes the fleet's trace to its standard output — the
// pipe the benchmark hands to `upness serve --trace -` as its standard input — from a writer thread
// with blocking writes, so the kernel paces it to the server while the simulator makes the next
// lines, and it sums the truth as the trace streams. Started by load.ts with fork(); told what to make by one message.

import { closeSync, writeFileSync, writeSync } from 'node:fs';
import { memory } from './proc.ts';
import { serialize } from 'node:v8';
import { Worker } from 'node:worker_threads';
import { simulateFleet, type ProfileName } from '../../src/sources/simulator/index.ts';
import { Truth, type TruthOptions } from './truth.ts';

export interface GenerateRequest {
  jobsets: number;
  days: number;
  seed: number;
  fleetProfile: ProfileName;
  truth: TruthOptions;
  /** Where to write the truth (v8.serialize of TruthData) once the trace is written. */
  truthFile: string;
  /** The server reading the trace: its RSS goes into the progress lines. */
  serverPid: number;
}

export interface GenerateDone {
  sent: number;
  bytes: number;
  cpuSeconds: number;
}

const CHUNK = 1 << 20;
/** How far the simulator may run ahead of the server, in KiB queued for the writer thread. */
const AHEAD_KIB = 32 * 1024;

// The writer thread: blocking writes to standard output (fd 1 is the process's), so the simulator
// goes on making lines while a write waits for the server to read.
const WRITER = `
const { parentPort, workerData } = require('node:worker_threads');
const { writeSync } = require('node:fs');
const queued = new Int32Array(workerData);
const pause = new Int32Array(new SharedArrayBuffer(4));
parentPort.on('message', (chunk) => {
  if (chunk === null) {
    parentPort.postMessage('written');
    return;
  }
  const buf = Buffer.from(chunk);
  let offset = 0;
  while (offset < buf.length) {
    try {
      offset += writeSync(1, buf, offset, buf.length - offset);
    } catch (error) {
      if (error.code !== 'EAGAIN') throw error;
      Atomics.wait(pause, 0, 0, 1);
    }
  }
  Atomics.sub(queued, 0, Math.ceil(buf.length / 1024));
  Atomics.notify(queued, 0);
});
`;

async function generate(request: GenerateRequest): Promise<void> {
  const shared = new SharedArrayBuffer(4);
  const queued = new Int32Array(shared);
  const writer = new Worker(WRITER, { eval: true, workerData: shared });
  const send = (buf: Buffer, length: number): void => {
    const chunk = new ArrayBuffer(length);
    buf.copy(Buffer.from(chunk), 0, 0, length);
    Atomics.add(queued, 0, Math.ceil(length / 1024));
    writer.postMessage(chunk, [chunk]);
    for (let q = Atomics.load(queued, 0); q > AHEAD_KIB; q = Atomics.load(queued, 0)) Atomics.wait(queued, 0, q, 100);
  };
  const truth = new Truth(request.truth);
  const fleet = simulateFleet({ jobsets: request.jobsets, days: request.days, seed: request.seed, profile: request.fleetProfile });
  const buf = Buffer.allocUnsafe(CHUNK * 2);
  let used = 0;
  let sent = 0;
  let bytes = 0;
  const started = performance.now();
  let nextProgress = started + 5000;
  for (const line of fleet.traceLines((tl) => truth.add(tl))) {
    const need = Buffer.byteLength(line) + 1;
    if (used + need > buf.length) {
      send(buf, used);
      bytes += used;
      used = 0;
    }
    if (need > buf.length) {
      const big = Buffer.from(line + '\n');
      send(big, big.length);
      bytes += big.length;
    } else {
      used += buf.write(line, used);
      buf[used++] = 0x0a;
    }
    sent++;
    if (used >= CHUNK) {
      send(buf, used);
      bytes += used;
      used = 0;
      const now = performance.now();
      if (now >= nextProgress) {
        // Written at once to standard error (this loop does not yield to the event loop).
        const seconds = (now - started) / 1000;
        const rss = Math.round(memory(request.serverPid).rssBytes / 2 ** 20);
        writeSync(2, `  upness: ${sent.toLocaleString('en-US')} observations sent in ${Math.round(seconds)} s (${Math.round(sent / seconds).toLocaleString('en-US')}/s), server RSS ${rss.toLocaleString('en-US')} MiB\n`);
        nextProgress = now + 5000;
      }
    }
  }
  if (used > 0) send(buf, used);
  bytes += used;
  // End of the trace: once the writer has written everything, standard output is closed and the
  // server finishes its replay (before the truth is written, which takes a while for a big fleet).
  const written = new Promise<void>((resolve) => writer.once('message', () => resolve()));
  writer.postMessage(null);
  await written;
  await writer.terminate();
  closeSync(1);
  writeFileSync(request.truthFile, serialize(truth.toData()));
  const cpu = process.cpuUsage();
  process.send!({ sent, bytes, cpuSeconds: (cpu.user + cpu.system) / 1e6 } satisfies GenerateDone, () => process.disconnect());
}

// Closing fd 1 ourselves is what ends the trace; Node warns about it, and nothing else here needs saying.
process.removeAllListeners('warning');
process.on('warning', (warning) => {
  if (!warning.message.startsWith('File descriptor 1 closed')) process.stderr.write(`${warning.name}: ${warning.message}\n`);
});
process.once('message', (request: GenerateRequest) => void generate(request));
