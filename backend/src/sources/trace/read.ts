// Streams a trace into observations, line by line, refusing lines that go back in time.
// The work goes by chunk: a chunk's lines are split and parsed in one synchronous pass, so an
// async step (a promise and a turn of the microtask queue) is paid per chunk of ~64 KiB, not per
// line (it was a seventh of a replay's time).

import type { Observation } from '../../observation/types.ts';
import { parseTraceLine } from './parse.ts';
import { backInTime, endOfLines, lineText } from './lines.ts';

export { backInTime, lineText, linesOf } from './lines.ts';

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
