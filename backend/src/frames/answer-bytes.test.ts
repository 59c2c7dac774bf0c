// The answer's bytes are JSON.stringify({results})'s UTF-8, whichever columns are written by a
// writer of their own (answer-bytes.ts): generated answers of any shape (results that failed,
// frames without data, members left out, non-ASCII text, refIds that look like numbers or
// Object's own names), their columns marked at random by their frame's mark.

import fc from 'fast-check';
import { answerPieces, AnswerSink, withColumnWriters, type ColumnWriter } from './answer-bytes.ts';

/** The pieces' bytes in one buffer, as the HTTP stage joins them. */
const joined = (pieces: readonly (string | Uint8Array)[]): Buffer => Buffer.concat(pieces.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : p)));

/** A column's values as a table has them: strings (some not ASCII), numbers, nulls. */
const arbColumn = fc.array(fc.oneof(fc.string({ unit: 'grapheme' }), fc.double(), fc.integer(), fc.constant(null), fc.constant(undefined)), { maxLength: 12 });

const arbFrame = fc.record(
  {
    schema: fc.record({ name: fc.string(), refId: fc.string(), meta: fc.option(fc.dictionary(fc.string(), fc.jsonValue()), { nil: undefined }) }),
    // Each column: its values, whether it is marked, whether its writer writes it whole.
    data: fc.record({ values: fc.array(fc.tuple(arbColumn, fc.boolean(), fc.boolean()), { maxLength: 5 }) }),
  },
  { requiredKeys: ['schema'] },
);

const arbResults = fc.dictionary(
  fc.oneof(fc.string(), fc.constantFrom('0', '10', '2', '__proto__', 'constructor', 'toJSON')),
  fc.oneof(
    fc.record({ status: fc.constant(200), frames: fc.array(arbFrame, { maxLength: 3 }) }),
    fc.record({ status: fc.constant(400), error: fc.string() }),
    fc.record({ status: fc.constant(200), frames: fc.array(arbFrame, { maxLength: 2 }), error: fc.constant(undefined) }),
  ),
  { maxKeys: 4 },
);

/** A writer that writes a column as stretches of bytes and texts, split at random places (between code points), as row-cells.ts does. */
function splitWriter(values: readonly unknown[], splitEvery: number): (sink: AnswerSink) => void {
  return (sink) => {
    const points = Array.from(JSON.stringify(values));
    for (let i = 0, piece = 0; i < points.length; i += splitEvery, piece++) {
      const text = points.slice(i, i + splitEvery).join('');
      if (piece % 2 === 0) sink.text(text);
      else sink.bytes(Buffer.from(text, 'utf8'));
    }
  };
}

/** A frame's columns, copies of the generated ones (fast-check reuses its values), marked by the frame as their flags say (one writer per column, undefined for the others). */
function markedColumns(columns: readonly [unknown[], boolean, boolean][], splitEvery: number): unknown[][] {
  const frameWriters: (ColumnWriter | undefined)[] = [];
  const values = columns.map(([generated, marked, whole]) => {
    const copy = generated.slice();
    frameWriters.push(marked ? (whole ? (sink, v) => sink.text(JSON.stringify(v)) : splitWriter(copy, splitEvery)) : undefined);
    return copy;
  });
  if (frameWriters.some((w) => w !== undefined)) withColumnWriters(values, frameWriters);
  return values;
}

describe('answerPieces', () => {
  it('is the UTF-8 of JSON.stringify({results}), marked columns or not', () => {
    fc.assert(
      fc.property(arbResults, fc.integer({ min: 1, max: 7 }), (raw, splitEvery) => {
        // The results as the query route has them: no prototype, columns as arrays, some marked.
        const results: Record<string, { status: number; frames?: unknown[]; error?: string }> = Object.create(null);
        for (const [refId, result] of Object.entries(raw)) {
          if (!('frames' in result)) {
            results[refId] = result;
            continue;
          }
          const frames = result.frames.map((f) => ({
            schema: f.schema,
            ...(f.data !== undefined
              ? {
                  data: { values: markedColumns(f.data.values, splitEvery) },
                }
              : {}),
          }));
          results[refId] = { ...result, frames };
        }
        expect(joined(answerPieces(results)).equals(Buffer.from(JSON.stringify({ results }), 'utf8'))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('writes texts and bytes in order, a non-ASCII text as UTF-8', () => {
    const sink = new AnswerSink();
    sink.text('["é",');
    sink.bytes(Buffer.from('"ü",1,', 'utf8'));
    sink.text('2]');
    expect(joined(sink.pieces()).toString('utf8')).toBe('["é","ü",1,2]');
  });
});
