import { Readable } from 'node:stream';
import { formatTraceLine, parseTraceLine, TraceError } from './parse.ts';
import { readTrace } from './read.ts';

const jobset = { apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', metadata: { uid: 'u', name: 'n', namespace: 'ns' } };
const line = (fields: Record<string, unknown>): string => JSON.stringify({ time: '2026-01-01T00:00:00Z', type: 'ADDED', object: jobset, ...fields });

async function collect(text: string | string[]): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const o of readTrace(Readable.from(Array.isArray(text) ? text : [text]))) out.push(o);
  return out;
}

describe('trace lines', () => {
  it('parses a line into an observation', () => {
    expect(parseTraceLine(line({ time: '2026-01-01T00:00:01.5Z' }), 1)).toEqual({ receivedAt: Date.parse('2026-01-01T00:00:01.5Z'), type: 'ADDED', object: jobset });
  });

  it('round-trips through formatTraceLine', () => {
    const o = parseTraceLine(line({ type: 'MODIFIED' }), 1);
    expect(parseTraceLine(formatTraceLine(o), 1)).toEqual(o);
  });

  it.each([
    ['{"time": "2026-01-01T00:00:00Z"', /^line 7: not valid JSON \(/],
    [line({ time: undefined }), /^line 7: missing field "time"$/],
    [line({ time: 'yesterday' }), /^line 7: field "time" must be an RFC 3339 time/],
    [line({ type: 'UPDATED' }), /^line 7: unknown type "UPDATED" \(expected ADDED, MODIFIED, DELETED\)$/],
    [line({ object: undefined }), /^line 7: missing field "object"$/],
    [line({ object: { kind: 'JobSet', metadata: { name: 'n' } } }), /^line 7: missing field "object.metadata.uid"$/],
    [line({ object: { kind: 'JobSet', metadata: { name: 'n', uid: '' } } }), /^line 7: field "object.metadata.uid" must not be empty$/],
    [line({ object: 'JobSet' }), /^line 7: field "object" expected object, received string$/],
    ['[]', /^line 7: the line must be a JSON object \(expected object, received array\)$/],
  ])('names the line and the problem: %s', (text, message) => {
    expect(() => parseTraceLine(text, 7)).toThrow(TraceError);
    expect(() => parseTraceLine(text, 7)).toThrow(message);
  });
});

describe('reading a trace', () => {
  it('reads lines split across chunks, skips blank lines and accepts CRLF', async () => {
    const text = `${line({})}\r\n\n${line({ type: 'MODIFIED', time: '2026-01-01T00:00:02Z' })}\n`;
    const observations = await collect([text.slice(0, 17), text.slice(17, 200), text.slice(200)]);
    expect(observations).toHaveLength(2);
  });

  it('stops at a line that goes back in time, naming it', async () => {
    const text = [line({ time: '2026-01-01T00:00:05Z' }), line({ time: '2026-01-01T00:00:06Z' }), line({ time: '2026-01-01T00:00:04Z' })].join('\n');
    await expect(collect(text)).rejects.toThrow(/^line 3: goes back in time \(2026-01-01T00:00:04.000Z is before the previous line's 2026-01-01T00:00:06.000Z\)$/);
  });

  it('reads Buffers cut anywhere, a character cut in two between reads included, as the whole text', async () => {
    const named = { ...jobset, metadata: { ...jobset.metadata, annotations: { note: 'für die Wartung — 2 × 8 GPUs' } } };
    const text = `${line({ object: named })}\r\n\n${line({ type: 'MODIFIED', object: named, time: '2026-01-01T00:00:02Z' })}\n${line({ type: 'DELETED', object: named, time: '2026-01-01T00:00:03Z' })}`;
    const bytes = Buffer.from(text, 'utf8');
    const whole = await collect(text);
    expect(whole).toHaveLength(3);
    expect((whole[2] as { object: typeof named }).object.metadata.annotations.note).toBe('für die Wartung — 2 × 8 GPUs');
    // Every cut into two reads, and reads of 1 to 9 bytes: each cuts the multi-byte characters somewhere.
    for (let cut = 0; cut <= bytes.length; cut++) {
      const out: unknown[] = [];
      for await (const o of readTrace([bytes.subarray(0, cut), bytes.subarray(cut)])) out.push(o);
      expect(out).toEqual(whole);
    }
    for (let size = 1; size < 10; size++) {
      const reads: Buffer[] = [];
      for (let at = 0; at < bytes.length; at += size) reads.push(bytes.subarray(at, at + size));
      const out: unknown[] = [];
      for await (const o of readTrace(reads)) out.push(o);
      expect(out).toEqual(whole);
    }
  });

  it('reads a stream of Buffers and text mixed', async () => {
    const text = `${line({})}\n${line({ type: 'MODIFIED', time: '2026-01-01T00:00:02Z' })}\n`;
    const out: unknown[] = [];
    for await (const o of readTrace([Buffer.from(text.slice(0, 30)), text.slice(30, 150), Buffer.from(text.slice(150, 160)), Buffer.from(text.slice(160))])) out.push(o);
    expect(out).toEqual(await collect(text));
  });

  it('counts line numbers across blank lines', async () => {
    await expect(collect(`${line({})}\n\n\nnot json\n`)).rejects.toThrow(/^line 4: not valid JSON/);
  });
});
