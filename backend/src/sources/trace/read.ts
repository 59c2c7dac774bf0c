// Streams a trace into observations, line by line, refusing lines that go back in time.

import type { Observation } from '../../observation/types.ts';
import { parseTraceLine, TraceError } from './parse.ts';

/** Splits a byte stream into lines without holding more than one chunk and a partial line. */
export async function* lines(input: AsyncIterable<Buffer | string> | Iterable<Buffer | string>): AsyncGenerator<string> {
  let rest = '';
  for await (const chunk of input) {
    const text = rest + (typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
    let start = 0;
    for (let nl = text.indexOf('\n', start); nl !== -1; nl = text.indexOf('\n', start)) {
      yield text.slice(start, nl);
      start = nl + 1;
    }
    rest = text.slice(start);
  }
  if (rest !== '') yield rest;
}

/** Observations of a trace, in order; throws TraceError naming the first bad line. */
export async function* readTrace(input: AsyncIterable<Buffer | string> | Iterable<Buffer | string>): AsyncGenerator<Observation> {
  let number = 0;
  let last = -Infinity;
  for await (const raw of lines(input)) {
    number++;
    const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (text.trim() === '') continue;
    const observation = parseTraceLine(text, number);
    if (observation.receivedAt < last) {
      throw new TraceError(
        number,
        `goes back in time (${new Date(observation.receivedAt).toISOString()} is before the previous line's ${new Date(last).toISOString()})`,
      );
    }
    last = observation.receivedAt;
    yield observation;
  }
}
