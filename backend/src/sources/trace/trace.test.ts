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

  it('counts line numbers across blank lines', async () => {
    await expect(collect(`${line({})}\n\n\nnot json\n`)).rejects.toThrow(/^line 4: not valid JSON/);
  });
});
