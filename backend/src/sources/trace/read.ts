// Streams a trace into observations, line by line, refusing lines that go back in time.
// The work goes by chunk: a chunk's lines are split and parsed in one synchronous pass, so an
// async step (a promise and a turn of the microtask queue) is paid per chunk of ~64 KiB, not per
// line (it was a seventh of a replay's time).

import type { Observation } from '../../observation/types.ts';
import { parseTraceLine, TraceError } from './parse.ts';

/** Splits a byte stream into lines, a chunk's whole lines at a time, holding no more than one chunk and a partial line. */
export async function* lineBatches(input: AsyncIterable<Buffer | string> | Iterable<Buffer | string>): AsyncGenerator<string[]> {
  let rest = '';
  for await (const chunk of input) {
    const text = rest + (typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
    const batch: string[] = [];
    let start = 0;
    for (let nl = text.indexOf('\n', start); nl !== -1; nl = text.indexOf('\n', start)) {
      batch.push(text.slice(start, nl));
      start = nl + 1;
    }
    rest = text.slice(start);
    if (batch.length > 0) yield batch;
  }
  if (rest !== '') yield [rest];
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
