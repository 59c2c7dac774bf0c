// JSON.parse with the specs' parses reused (reuse.ts) gives what JSON.parse gives: the same value
// (the same keys in the same order) or the same error, for the lines of a simulated cluster and for
// lines made to mislead it: a kept spec's text in other places, strings that hold its key, quotes,
// escapes and brackets, and lines cut or changed anywhere.

import fc from 'fast-check';
import { simulateFleet } from '../simulator/index.ts';
import { SpecReuse } from './reuse.ts';

/** JSON.parse's outcome: the value as JSON (keys in order; -0 and the like kept apart by a replacer), or the error's message. */
function outcome(parse: (text: string) => unknown, text: string): string {
  try {
    return JSON.stringify(parse(text), (_key, v: unknown) => (Object.is(v, -0) ? '(-0)' : v === Infinity ? '(Infinity)' : v));
  } catch (error) {
    return `error: ${(error as Error).name}: ${(error as Error).message}`;
  }
}

function expectSame(reuse: SpecReuse, text: string): void {
  const expected = outcome(JSON.parse, text);
  expect(outcome((t) => reuse.parse(t), text)).toBe(expected);
  // And the value itself, strictly (no prototype or key that JSON would not show).
  if (!expected.startsWith('error')) expect(reuse.parse(text)).toStrictEqual(JSON.parse(text));
}

const lines = [...simulateFleet({ jobsets: 12, days: 1, seed: 3, nodes: true, workloads: true }).traceLines()];
const jobsetLines = lines.filter((l) => l.includes('"kind":"JobSet"'));

/** A reuse that has kept the specs of every JobSet line of the trace. */
function taught(): SpecReuse {
  const reuse = new SpecReuse();
  for (const l of jobsetLines) reuse.parse(l);
  return reuse;
}

/** A JobSet line split around its spec: what comes before the spec's text, the text, and what follows. */
function around(line: string): { head: string; spec: string; tail: string } {
  const object = (JSON.parse(line) as { object: { spec: unknown } }).object;
  const spec = JSON.stringify(object.spec);
  const at = line.indexOf(`"spec":${spec}`) + '"spec":'.length;
  return { head: line.slice(0, at), spec, tail: line.slice(at + spec.length) };
}

describe('JSON.parse with the specs reused', () => {
  it('gives every line of a simulated cluster as JSON.parse does, reusing most JobSets\' specs', () => {
    const reuse = new SpecReuse();
    for (const l of lines) expectSame(reuse, l);
    expect(jobsetLines.length).toBeGreaterThan(500);
    // Each line was parsed twice above (expectSame): the second always reuses, the first once the spec was seen.
    expect(reuse.reused).toBeGreaterThan(1.5 * jobsetLines.length);
  });

  it('keeps the parse of a spec from its first line, and gives that one parse to every line with its text', () => {
    const reuse = new SpecReuse();
    const line = jobsetLines[0]!;
    const first = reuse.parse(line) as { object: { spec: unknown } };
    const second = reuse.parse(line) as { object: { spec: unknown } };
    expect(reuse.reused).toBe(1);
    expect(reuse.keptChars).toBe(around(line).spec.length);
    expect(second.object.spec).toBe(first.object.spec);
    expect(first).toStrictEqual(JSON.parse(line));
    expect(second).toStrictEqual(JSON.parse(line));
  });

  it('gives a spec kept for one object to another whose spec has the same text (one template, many JobSets)', () => {
    const reuse = new SpecReuse();
    const line = jobsetLines[0]!;
    const uid = (JSON.parse(line) as { object: { metadata: { uid: string } } }).object.metadata.uid;
    const other = line.replaceAll(uid, 'another-uid');
    const first = reuse.parse(line) as { object: { spec: unknown } };
    const second = reuse.parse(other) as { object: { spec: unknown; metadata: { uid: string } } };
    expect(second).toStrictEqual(JSON.parse(other));
    expect(second.object.metadata.uid).toBe('another-uid');
    expect(second.object.spec).toBe(first.object.spec);
    // A text that differs anywhere is parsed on its own.
    const { head, spec, tail } = around(line);
    const changed = `${head.replaceAll(uid, 'a-third-uid')}${spec.replace('"replicas":', '"replicas": ')}${tail}`;
    expectSame(reuse, changed);
    expect((reuse.parse(changed) as { object: { spec: unknown } }).object.spec).not.toBe(first.object.spec);
  });

  it('keeps a spec written with spaces, escapes, -0 and 1e999 as the line writes it, not as JSON.stringify would', () => {
    const reuse = new SpecReuse();
    const { head, spec, tail } = around(jobsetLines[0]!);
    const odd = spec.replace('"replicas":', '"r": -0 , "big":1e999,"q":"a\\"}\\u00e9{","replicas" :');
    expect(odd).not.toBe(spec);
    for (let i = 0; i < 3; i++) expectSame(reuse, `${head}${odd}${tail}`);
    expect(reuse.keptChars).toBe(odd.length);
    expect(reuse.reused).toBeGreaterThanOrEqual(4);
  });

  it('is not misled by a kept spec\'s text elsewhere, by strings that hold its key, or by escapes', () => {
    const reuse = taught();
    const line = jobsetLines.find((l) => around(l).spec.length > 1000)!;
    const { head, spec, tail } = around(line);
    const meta = head.indexOf('"metadata":{') + '"metadata":{'.length;
    const cases = [
      // The spec's text under another key that comes first; the object's own spec something else.
      `${head.slice(0, meta)}"spec":${spec},${head.slice(meta)}0${tail}`,
      `${head.slice(0, meta)}"annotations":{"spec":${spec}},${head.slice(meta)}{}${tail}`,
      // A string holding the key and the text, before the object's spec.
      `${head.slice(0, meta)}"note":${JSON.stringify(`"spec":${spec}`)},${head.slice(meta)}${spec}${tail}`,
      `${head.slice(0, meta)}"note":"\\"spec\\":",${head.slice(meta)}${spec}${tail}`,
      // Two specs: JSON.parse keeps the last.
      `${head}${spec},"spec":{"replicatedJobs":[]}${tail}`,
      `${head}{},"spec":${spec}${tail}`,
      // The placeholder's own string elsewhere in the line, escaped and not.
      `${head}${spec}${tail.slice(0, -2)},"x":"\\u0000"}}`,
      `${head}${spec}${tail.slice(0, -2)},"x":"\\\\u0000"}}`,
      `${head.slice(0, meta)}"x":"\\u0000",${head.slice(meta)}${spec}${tail}`,
      // The placeholder's value as the object's own spec, the spec's text under another key first.
      `${head.slice(0, meta)}"annotations":{"spec":${spec}},${head.slice(meta)}"\\u0000"${tail}`,
      // The spec's text followed by what would make it another value, or not a value.
      `${head}${spec}.5${tail}`,
      `${head}${spec}e1${tail}`,
      `${head}${spec} ${tail}`,
      `${head}${spec}}${tail}`,
      `${head}${spec}${tail}x`,
      `${head}${spec}`,
      `${head}${spec.slice(0, -1)}`,
      `${head}${spec}"${tail}`,
      `${head.slice(0, -1)}${spec}${tail}`,
      `${head.slice(0, -7)}"spec" :${spec}${tail}`,
      // The spec inside a string or an array.
      `${head}"${spec}"${tail}`,
      `${head}[${spec}]${tail}`,
      `${head.replace('"spec":', '"spec":"x",')}${spec}${tail}`,
      // A spec at the top, not under "object".
      `{"spec":${spec},"object":{"spec":0}}`,
      `{"object":{"spec":${spec}},"object":{"spec":0}}`,
      `{"object":{"metadata":{"uid":"${(JSON.parse(line) as { object: { metadata: { uid: string } } }).object.metadata.uid}"},"spec":${spec}}}`,
      // -0 and 1e999 in a spec: their JSON.stringify does not read back the same.
      `${head}${spec.replace('"replicas":', '"replicas":-0,"r":1e999,"x":')}${tail}`,
      `${head}${spec.replace('"replicas":', '"__proto__":{"a":1},"replicas":')}${tail}`,
    ];
    for (const text of cases) expectSame(reuse, text);
    // The well-formed ones above were parsed with the kept spec only where it is the object's spec.
    expect(reuse.reused).toBeGreaterThan(0);
  });

  it('gives what JSON.parse gives for lines changed anywhere', () => {
    const reuse = taught();
    const changes = fc.constantFrom('', '"', '\\', '{', '}', '[', ']', ',', ':', ' ', '0', '-', 'e', '.', '\\u0000', '"\\u0000"', '"spec":', '\u0000', 'ü', '\ud800');
    fc.assert(
      fc.property(fc.nat(jobsetLines.length - 1), fc.array(fc.tuple(fc.nat(1 << 16), fc.nat(3), changes), { minLength: 1, maxLength: 3 }), (n, edits) => {
        let text = jobsetLines[n]!;
        for (const [where, cut, insert] of edits) {
          const at = where % (text.length + 1);
          text = text.slice(0, at) + insert + text.slice(at + cut);
        }
        expectSame(reuse, text);
        // And as the first line of its object: its spec cut by the scan, whatever the changes did to it.
        expectSame(new SpecReuse(), text);
      }),
      { numRuns: 3000 },
    );
  });

  it('keeps at most what its bound allows, the specs kept longest ago going first', () => {
    const reuse = new SpecReuse(10_000);
    for (const l of jobsetLines) expectSame(reuse, l);
    expect(reuse.keptChars).toBeLessThanOrEqual(10_000);
    // Still reused: the JobSets seen lately are kept (each line was parsed twice).
    expect(reuse.reused).toBeGreaterThanOrEqual(jobsetLines.length);
  });
});
