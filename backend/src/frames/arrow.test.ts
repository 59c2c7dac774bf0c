// frameToArrow against frames drawn by hand, read back with Apache Arrow's own reader: the edges a
// real answer may not reach (nulls first or only, empty and non-ASCII strings, no rows, no fields).
// The Go SDK's reading of real answers is tested in pkg/plugin/arrow_test.go.

import { tableFromIPC, tableToIPC } from 'apache-arrow';
import fc from 'fast-check';
import { ArrowRangeError, arrowTable, frameToArrow } from './arrow.ts';
import { frame, numberField, stringField, timeField } from './frame.ts';

function readBack(bytes: Uint8Array): { meta: Map<string, string>; columns: Record<string, unknown[]>; nullable: Record<string, boolean> } {
  const table = tableFromIPC(bytes);
  const columns: Record<string, unknown[]> = {};
  const nullable: Record<string, boolean> = {};
  table.schema.fields.forEach((f, i) => {
    columns[f.name] = [...table.getChildAt(i)!].map((v) => (typeof v === 'bigint' ? Number(v / 1_000_000n) : v));
    nullable[f.name] = f.nullable;
  });
  return { meta: table.schema.metadata, columns, nullable };
}

describe('frameToArrow', () => {
  it('keeps every value, null and string as it is, times to the millisecond', () => {
    const strings = [null, '', 'é', '😀 ünïcødé', null, 'plain'];
    const f = frame(
      [
        timeField('time', [0, 1, 1_767_225_600_000, 9_223_372_036_854, -86_400_000, 2]),
        numberField('value', [null, 0.1, -0, 1e308, Number.NaN, 42]),
        stringField('state', strings),
        stringField('none', [null, null, null, null, null, null]),
      ],
      { name: 'n', refId: 'R', meta: { custom: { rows: 6 } } },
    );
    const { meta, columns, nullable } = readBack(frameToArrow(f));
    expect(meta.get('name')).toBe('n');
    expect(meta.get('refId')).toBe('R');
    expect(JSON.parse(meta.get('meta')!)).toEqual({ custom: { rows: 6 } });
    expect(columns.time).toEqual([0, 1, 1_767_225_600_000, 9_223_372_036_854, -86_400_000, 2]);
    expect(columns.value).toEqual([null, 0.1, -0, 1e308, null, 42]); // NaN is null in the frame already
    expect(columns.state).toEqual(strings);
    expect(columns.none).toEqual([null, null, null, null, null, null]);
    expect(nullable).toEqual({ time: false, value: true, state: true, none: true });
  });

  it('refuses a time nanoseconds in int64 cannot hold (after 2262-04-11), rather than wrap it', () => {
    for (const t of [9_223_372_036_855, 253_402_300_799_999, -9_223_372_036_855]) {
      expect(() => frameToArrow(frame([timeField('time', [0, t])]))).toThrow(ArrowRangeError);
    }
  });

  it('a frame without rows, and one without fields (a notice), are still frames', () => {
    const empty = readBack(frameToArrow(frame([numberField('v', [], { labels: { a: 'b' }, unit: 's' })], { refId: 'E' })));
    expect(empty.columns).toEqual({ v: [] });
    const bare = frameToArrow(frame([], { name: 'slo', refId: 'N', meta: { notices: [{ severity: 'info', text: 'nothing' }] } }));
    const table = tableFromIPC(bare);
    expect(table.schema.fields).toEqual([]);
    expect(JSON.parse(table.schema.metadata.get('meta')!)).toEqual({ notices: [{ severity: 'info', text: 'nothing' }] });
  });

  it("keeps a field's labels and config as JSON in its metadata", () => {
    const table = tableFromIPC(frameToArrow(frame([numberField('v', [1], { labels: { namespace: 'team-a' }, unit: 'percentunit', displayName: 'Uptime' })])));
    const field = table.schema.fields[0]!;
    expect(JSON.parse(field.metadata.get('labels')!)).toEqual({ namespace: 'team-a' });
    expect(JSON.parse(field.metadata.get('config')!)).toEqual({ unit: 'percentunit', displayNameFromDS: 'Uptime' });
  });

  it("writes, byte for byte, what the package's tableToIPC(table, 'file') writes (frameToArrow loads the writer's modules alone)", () => {
    const text = fc.option(fc.string({ unit: 'grapheme', maxLength: 12 }), { nil: null });
    const number = fc.option(fc.oneof(fc.double({ noNaN: true }), fc.integer()), { nil: null });
    const time = fc.option(fc.integer({ min: -9_223_372_036_854, max: 9_223_372_036_854 }), { nil: null });
    const options = fc.record({ labels: fc.option(fc.dictionary(fc.string({ maxLength: 6 }), fc.string({ maxLength: 6 }), { maxKeys: 3 }), { nil: undefined }), unit: fc.option(fc.constantFrom('s', 'percentunit'), { nil: undefined }) });
    const arbFrame = fc.integer({ min: 0, max: 9 }).chain((rows) =>
      fc.record({
        fields: fc.array(
          fc.oneof(
            fc.tuple(fc.constant('time' as const), fc.array(time, { minLength: rows, maxLength: rows }), options),
            fc.tuple(fc.constant('number' as const), fc.array(number, { minLength: rows, maxLength: rows }), options),
            fc.tuple(fc.constant('string' as const), fc.array(text, { minLength: rows, maxLength: rows }), options),
          ),
          { maxLength: 5 },
        ),
        name: fc.option(fc.string({ maxLength: 8 }), { nil: undefined }),
        refId: fc.option(fc.string({ maxLength: 3 }), { nil: undefined }),
        meta: fc.option(fc.record({ custom: fc.record({ rows: fc.integer() }) }), { nil: undefined }),
      }),
    );
    fc.assert(
      fc.property(arbFrame, ({ fields, ...rest }) => {
        const made = fields.map(([type, values, { labels, unit }], i) => {
          const fieldOptions = { ...(labels === undefined ? {} : { labels }), ...(unit === undefined ? {} : { unit }) };
          if (type === 'time') return timeField(`f${i}`, values as (number | null)[], fieldOptions);
          if (type === 'number') return numberField(`f${i}`, values as (number | null)[], fieldOptions);
          return stringField(`f${i}`, values as (string | null)[], fieldOptions);
        });
        const frameOptions = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined));
        const f = frame(made, frameOptions);
        expect(Buffer.from(frameToArrow(f)).equals(Buffer.from(tableToIPC(arrowTable(f), 'file')))).toBe(true);
      }),
      { numRuns: 400 },
    );
  });
});
