// A watch's lines, cut out of the chunks they arrive in (watch-stream.ts).

import { LineSplitter } from './watch-stream.ts';

function split(chunks: Buffer[], end = true): string[] {
  const lines: string[] = [];
  const splitter = new LineSplitter((line) => lines.push(line));
  for (const chunk of chunks) splitter.push(chunk);
  if (end) splitter.end();
  return lines;
}

describe('a watch stream cut into lines', () => {
  it('gives every line of a chunk, without its newline', () => {
    expect(split([Buffer.from('{"a":1}\n{"b":2}\n')])).toEqual(['{"a":1}', '{"b":2}']);
  });

  it('joins a line that arrives over several chunks', () => {
    expect(split([Buffer.from('{"type":"ADD'), Buffer.from('ED","obj'), Buffer.from('ect":{}}\n{"x"'), Buffer.from(':1}\n')])).toEqual(['{"type":"ADDED","object":{}}', '{"x":1}']);
  });

  it('decodes a character whose bytes are split between chunks', () => {
    const bytes = Buffer.from('{"name":"nœud-é"}\n');
    const cut = bytes.indexOf(0xc5) + 1; // inside the two bytes of œ
    expect(split([bytes.subarray(0, cut), bytes.subarray(cut)])).toEqual(['{"name":"nœud-é"}']);
  });

  it('holds an unfinished line until the next chunk, and gives it at the end', () => {
    expect(split([Buffer.from('{"a":1}\n{"b"')], false)).toEqual(['{"a":1}']);
    expect(split([Buffer.from('{"a":1}\n{"b":2}')])).toEqual(['{"a":1}', '{"b":2}']);
  });

  it('gives empty lines as they are (the watch skips them)', () => {
    expect(split([Buffer.from('\n\n{"a":1}\n')])).toEqual(['', '', '{"a":1}']);
  });
});
