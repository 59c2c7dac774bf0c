// An answer written in pieces (texts and byte stretches) is joined into one body, in a new buffer or
// in one AnswerBuffers lends: the same bytes as the pieces' UTF-8 one after the other, and a lent
// buffer is not lent again before it is given back.

import fc from 'fast-check';
import { AnswerBuffers, piecesBody } from './json-answer.ts';

/** The pieces' bytes as the naive join writes them. */
const joined = (pieces: readonly (string | Uint8Array)[]): Buffer => Buffer.concat(pieces.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : p)));

const arbPieces = fc.array(fc.oneof(fc.string({ unit: 'grapheme', maxLength: 40 }), fc.string({ maxLength: 40 }), fc.uint8Array({ maxLength: 40 })), { maxLength: 12 });

describe('piecesBody', () => {
  it('joins texts (ASCII or not) and byte stretches as their UTF-8 one after the other, in a new buffer or a lent one', () => {
    const buffers = new AnswerBuffers({ minBytes: 1, maxBytes: 4096 });
    fc.assert(
      fc.property(arbPieces, fc.boolean(), (pieces, lend) => {
        const body = lend ? piecesBody(pieces, buffers.take) : piecesBody(pieces);
        expect(body.equals(joined(pieces))).toBe(true);
        if (lend) {
          buffers.giveBack(body);
          // The next borrower writes over it.
          Buffer.from(body.buffer, 0, body.buffer.byteLength).fill(0x7b);
        }
      }),
      { numRuns: 1000 },
    );
  });
});

describe('AnswerBuffers', () => {
  it('lends its spare once until it is given back, then again; too short or too long an answer gets a buffer of its own (sizes past Node\'s pool of small buffers)', () => {
    const buffers = new AnswerBuffers({ minBytes: 10_000, maxBytes: 100_000 });
    const first = buffers.take(50_000);
    const second = buffers.take(40_000);
    expect(first.buffer).not.toBe(second.buffer);
    buffers.giveBack(first);
    const third = buffers.take(45_000);
    expect([third.length, third.buffer]).toEqual([45_000, first.buffer]);
    // Lent: not lent again before it is given back.
    expect(buffers.take(45_000).buffer).not.toBe(first.buffer);
    buffers.giveBack(third);
    // Too short, too long: their own, and never kept.
    expect(buffers.take(9_999).buffer).not.toBe(first.buffer);
    const long = buffers.take(100_001);
    buffers.giveBack(long);
    expect(buffers.take(50_000).buffer).toBe(first.buffer);
    expect(buffers.take(100_001).buffer).not.toBe(long.buffer);
  });

  it('keeps the longer of two given back, so the next long answer fits', () => {
    const buffers = new AnswerBuffers({ minBytes: 10, maxBytes: 1000 });
    const short = buffers.take(100);
    const long = buffers.take(800);
    buffers.giveBack(long);
    buffers.giveBack(short);
    expect(buffers.take(700).buffer).toBe(long.buffer);
  });
});
