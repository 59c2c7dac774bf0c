// The direct query route's body reader (json-body.ts) against the app's body-parser
// (`express.json(JSON_BODY_OPTIONS)`), over many generated requests: every request the reader takes
// must come out as body-parser makes it (the same value, or an error of the same status, type and
// message, which errors.ts words), and the requests it leaves are left to body-parser itself.

import { Readable } from 'node:stream';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import express from 'express';
import fc from 'fast-check';
import { JSON_BODY_LIMIT, JSON_BODY_OPTIONS, plainJsonLength, readJsonBody } from './json-body.ts';

type Outcome = { body: unknown } | { error: { status: unknown; type: unknown; message: string } };

/** A request as Node's server hands it over: its headers, and its body in the chunks given. */
function request(headers: IncomingHttpHeaders, chunks: Buffer[]): IncomingMessage {
  return Object.assign(Readable.from(chunks, { objectMode: false }), { headers, method: 'POST', url: '/api/v1/query' }) as unknown as IncomingMessage;
}

const outcome = (error: unknown, body?: unknown): Outcome => {
  if (error === undefined || error === null) return { body };
  const e = error as { status?: unknown; type?: unknown; message: string };
  return { error: { status: e.status, type: e.type, message: e.message } };
};

const bodyParser = express.json(JSON_BODY_OPTIONS) as unknown as (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;

function byBodyParser(headers: IncomingHttpHeaders, chunks: Buffer[]): Promise<Outcome> {
  const req = request(headers, chunks);
  return new Promise((resolve) => bodyParser(req, {} as ServerResponse, (error) => resolve(outcome(error, (req as { body?: unknown }).body))));
}

function byReader(headers: IncomingHttpHeaders, chunks: Buffer[], length: number): Promise<Outcome> {
  return new Promise((resolve) => readJsonBody(request(headers, chunks), length, (error, body) => resolve(outcome(error, body))));
}

/** Content types: JSON in UTF-8 spelt as content-type's grammar allows, and others (below) a reader must leave to body-parser. */
const JSON_TYPES = [
  'application/json',
  'APPLICATION/JSON',
  'Application/Json',
  'application/json; charset=utf-8',
  'application/json;charset=UTF-8',
  'application/json ; charset = "utf-8"',
  'application/json;  charset="UTF-8"  ',
];
const OTHER_TYPES = [
  'application/json;\tcharset=utf-8',
  'application/json; charset=utf8',
  'application/json; charset=latin1',
  'application/json; charset=utf-16le',
  'application/json; charset',
  'application/json; charset=utf-8; q=1',
  'application/json; foo=bar',
  'application/json;',
  'application/jsonx',
  'application/vnd.api+json',
  'text/plain',
  'text/json',
  '',
];

const jsonText = fc.jsonValue().map((v) => JSON.stringify(v));
/** Bodies: JSON (ASCII or not), near-JSON, any text, a byte order mark before either, and bytes that are not UTF-8. */
const bodyBytes = fc.oneof(
  jsonText.map((t) => Buffer.from(t, 'utf8')),
  fc.string({ unit: 'grapheme', maxLength: 40 }).map((t) => Buffer.from(t, 'utf8')),
  fc.constantFrom('{"queries": [', '[1, 2]', 'null', '"q"', ' {} ', '{"a":1}x', 'tru', '\u00a0{}', '{"é": "ü"}').map((t) => Buffer.from(t, 'utf8')),
  jsonText.map((t) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(t, 'utf8')])),
  fc.uint8Array({ maxLength: 24 }).map((b) => Buffer.from(b)),
  fc.tuple(jsonText, fc.uint8Array({ minLength: 1, maxLength: 4 })).map(([t, b]) => Buffer.concat([Buffer.from(`{"s":"${t.replace(/["\\]/g, '')}`, 'utf8'), Buffer.from(b), Buffer.from('"}')])),
);

describe('the direct route reads a JSON body as body-parser does', () => {
  it('over generated requests: the same value or the same error, for every request it takes', async () => {
    let taken = 0;
    let left = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof({ arbitrary: fc.constantFrom(...JSON_TYPES), weight: 3 }, { arbitrary: fc.constantFrom(...OTHER_TYPES), weight: 1 }),
        bodyBytes,
        fc.constantFrom(undefined, undefined, undefined, 'identity', 'gzip'),
        fc.integer({ min: 1, max: 4 }),
        async (type, bytes, encoding, pieces) => {
          const headers: IncomingHttpHeaders = { 'content-length': String(bytes.length), ...(type !== '' ? { 'content-type': type } : {}), ...(encoding !== undefined ? { 'content-encoding': encoding } : {}) };
          // The body as the socket may deliver it: in a few pieces.
          const step = Math.max(1, Math.ceil(bytes.length / pieces));
          const chunks: Buffer[] = [];
          for (let at = 0; at < bytes.length; at += step) chunks.push(bytes.subarray(at, at + step));
          const length = plainJsonLength(headers);
          if (length === null) {
            left++;
            return;
          }
          taken++;
          expect(length).toBe(bytes.length);
          expect(await byReader(headers, chunks, length)).toEqual(await byBodyParser(headers, chunks));
        },
      ),
      { numRuns: 1500 },
    );
    // Both kinds were seen.
    expect(taken).toBeGreaterThan(500);
    expect(left).toBeGreaterThan(100);
  });

  it('takes plain JSON of a known length, 1 byte to the limit, and leaves every other request to body-parser', () => {
    const json = { 'content-type': 'application/json' };
    expect(plainJsonLength({ ...json, 'content-length': '42' })).toBe(42);
    expect(plainJsonLength({ 'content-type': 'application/json; charset=UTF-8', 'content-length': String(JSON_BODY_LIMIT) })).toBe(JSON_BODY_LIMIT);
    // body-parser's own answers: an empty body is {}, a longer one a 413, a charset or encoding its 415 or inflation.
    expect(plainJsonLength({ ...json, 'content-length': '0' })).toBeNull();
    expect(plainJsonLength({ ...json, 'content-length': String(JSON_BODY_LIMIT + 1) })).toBeNull();
    expect(plainJsonLength({ ...json, 'content-length': '1e3' })).toBeNull();
    expect(plainJsonLength({ ...json, 'content-length': '12', 'content-encoding': 'gzip' })).toBeNull();
    expect(plainJsonLength({ ...json, 'transfer-encoding': 'chunked' })).toBeNull();
    expect(plainJsonLength({ ...json })).toBeNull();
    expect(plainJsonLength({ 'content-type': 'application/json; charset=latin1', 'content-length': '12' })).toBeNull();
    expect(plainJsonLength({ 'content-type': 'text/plain', 'content-length': '12' })).toBeNull();
    expect(plainJsonLength({ 'content-length': '12' })).toBeNull();
  });

  it('a request that ends short of its length is a 400, as body-parser says', async () => {
    const headers = { 'content-type': 'application/json', 'content-length': '10' };
    expect(await byReader(headers, [Buffer.from('{}')], 10)).toEqual({ error: { status: 400, type: 'request.size.invalid', message: 'request size did not match content length' } });
  });
});
