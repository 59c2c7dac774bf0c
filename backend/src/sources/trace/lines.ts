// A trace's lines: chunks of bytes or text cut into lines, and the errors about their order. No zod
// here: a replay's worker threads import this module (read.ts's reader imports parse.ts).

import { TraceError } from './check.ts';

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
export function endOfLines(bytes: Buffer, start: number, into: string[]): number {
  for (let nl = bytes.indexOf(10, start); nl !== -1; nl = bytes.indexOf(10, start)) {
    into.push(bytes.toString('utf8', start, nl));
    start = nl + 1;
  }
  return start;
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

