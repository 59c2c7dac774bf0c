// Streams a trace into observations, line by line, refusing lines that go back in time.
// The work goes by chunk: a chunk's lines are split and parsed in one synchronous pass, so an
// async step (a promise and a turn of the microtask queue) is paid per chunk of ~64 KiB, not per
// line (it was a seventh of a replay's time).

import type { Observation } from '../../observation/types.ts';
import { parseTraceLine, TraceError } from './parse.ts';

/**
 * The lines of `chunk` (whole lines, the last one with or without its newline). Bytes are decoded
 * line by line: decoding a chunk of 1 MiB at once makes a string too large for V8's young generation,
 * which costs ~20 times as much to make as its lines do (it was a third of a replay's time), and a
 * character cut in two by a read is never split (a newline byte never occurs inside one).
 */
export function linesOf(chunk: Buffer | string): string[] {
  if (typeof chunk === 'string') {
    const lines = chunk.split('\n');
    // A newline ends a line; it does not begin an empty one.
    if (lines[lines.length - 1] === '') lines.pop();
    return lines;
  }
  const lines: string[] = [];
  const end = endOfLines(chunk, 0, lines);
  if (end < chunk.length) lines.push(chunk.toString('utf8', end));
  return lines;
}

/** Appends the lines of `bytes` from `start` that a newline ends to `into`; returns where the rest (an unended line) begins. */
function endOfLines(bytes: Buffer, start: number, into: string[]): number {
  for (let nl = bytes.indexOf(10, start); nl !== -1; nl = bytes.indexOf(10, start)) {
    into.push(bytes.toString('utf8', start, nl));
    start = nl + 1;
  }
  return start;
}

/** Splits a byte or text stream into lines, a chunk's whole lines at a time, holding no more than one chunk and a partial line. */
export async function* lineBatches(input: AsyncIterable<Buffer | string> | Iterable<Buffer | string>): AsyncGenerator<string[]> {
  // The unended line so far, in the form of the chunk it came from.
  let rest: Buffer | string = '';
  for await (const chunk of input) {
    const batch: string[] = [];
    if (typeof chunk === 'string') {
      // The rest joins the first line only: joined to the whole chunk, it would make a copy of it.
      let start = 0;
      if (rest.length > 0) {
        const head: string = typeof rest === 'string' ? rest : rest.toString('utf8');
        const nl = chunk.indexOf('\n');
        if (nl === -1) {
          rest = head + chunk;
          continue;
        }
        batch.push(head + chunk.slice(0, nl));
        start = nl + 1;
      }
      for (let nl = chunk.indexOf('\n', start); nl !== -1; nl = chunk.indexOf('\n', start)) {
        batch.push(chunk.slice(start, nl));
        start = nl + 1;
      }
      rest = chunk.slice(start);
    } else {
      let start = 0;
      if (rest.length > 0) {
        const head: Buffer = typeof rest === 'string' ? Buffer.from(rest, 'utf8') : rest;
        const nl = chunk.indexOf(10);
        if (nl === -1) {
          rest = Buffer.concat([head, chunk]);
          continue;
        }
        batch.push(Buffer.concat([head, chunk.subarray(0, nl)]).toString('utf8'));
        start = nl + 1;
      }
      start = endOfLines(chunk, start, batch);
      // A copy: the reader may reuse the chunk's memory.
      rest = Buffer.from(chunk.subarray(start));
    }
    if (batch.length > 0) yield batch;
  }
  if (rest.length > 0) yield [typeof rest === 'string' ? rest : rest.toString('utf8')];
}

/** A line without its CR (CRLF traces); null for a blank line, which is skipped (and counted). */
export function lineText(raw: string): string | null {
  const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
  return text.trim() === '' ? null : text;
}

/** The error of line `line`, observed at `at`, after a line observed at `last`. */
export function backInTime(line: number, at: number, last: number): TraceError {
  return new TraceError(line, `goes back in time (${new Date(at).toISOString()} is before the previous line's ${new Date(last).toISOString()})`);
}

/** Observations of a trace, in order, a chunk's at a time; throws TraceError naming the first bad line. */
export async function* readTraceBatches(input: AsyncIterable<Buffer | string> | Iterable<Buffer | string>): AsyncGenerator<Observation[]> {
  let number = 0;
  let last = -Infinity;
  for await (const batch of lineBatches(input)) {
    const observations: Observation[] = [];
    for (const raw of batch) {
      number++;
      const text = lineText(raw);
      if (text === null) continue;
      const observation = parseTraceLine(text, number);
      if (observation.receivedAt < last) throw backInTime(number, observation.receivedAt, last);
      last = observation.receivedAt;
      observations.push(observation);
    }
    if (observations.length > 0) yield observations;
  }
}

/** Observations of a trace, in order, one at a time (readTraceBatches, flattened). */
export async function* readTrace(input: AsyncIterable<Buffer | string> | Iterable<Buffer | string>): AsyncGenerator<Observation> {
  for await (const batch of readTraceBatches(input)) yield* batch;
}
