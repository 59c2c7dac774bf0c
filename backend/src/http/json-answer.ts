// A JSON answer written on a bare Node response, with the headers express's res.json sends (the
// health checks, the query route, its errors and 401s, which Node's server answers without express).

import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';

/**
 * A JSON text as the UTF-8 bytes sent. Most answers are ASCII (names, UIDs, numbers): their bytes
 * are the text's own characters, copied as Latin-1, which is a plain copy; a text with any other
 * character is encoded as UTF-8. Sent as a Buffer, the answer goes to the socket as it is: a string
 * body was first joined to the headers (a copy of the megabyte) and then encoded on the way out.
 */
export function jsonBody(text: string): Buffer {
  // As many bytes as characters: every character is ASCII (any other takes two bytes or more).
  return Buffer.from(text, Buffer.byteLength(text, 'utf8') === text.length ? 'latin1' : 'utf8');
}

/**
 * The body of an answer written in pieces (frames/answer-bytes.ts): its texts' UTF-8 and its byte
 * stretches, in one Buffer of `alloc` (a new one by default; AnswerBuffers lends one it reuses).
 * An ASCII text is copied as Latin-1 (its bytes are its characters), any other encoded as UTF-8.
 */
export function piecesBody(pieces: readonly (string | Uint8Array)[], alloc: (length: number) => Buffer = Buffer.allocUnsafe): Buffer {
  if (pieces.length === 1 && typeof pieces[0] === 'string' && alloc === Buffer.allocUnsafe) return jsonBody(pieces[0]);
  // Each text's length in UTF-8, once: the body's length, and whether the text is ASCII.
  const lengths = new Array<number>(pieces.length);
  let length = 0;
  for (let i = 0; i < pieces.length; i++) {
    const p = pieces[i]!;
    lengths[i] = typeof p === 'string' ? Buffer.byteLength(p, 'utf8') : p.length;
    length += lengths[i]!;
  }
  const body = alloc(length);
  let at = 0;
  for (let i = 0; i < pieces.length; i++) {
    const p = pieces[i]!;
    if (typeof p === 'string') at += body.write(p, at, lengths[i] === p.length ? 'latin1' : 'utf8');
    else {
      body.set(p, at);
      at += p.length;
    }
  }
  return body;
}

/**
 * Large answers' bodies in a buffer lent from one answer to the next. A whole per-JobSet table is
 * ~1 MB: in a new buffer each request, that megabyte outside V8's heap brought a full garbage
 * collection every few requests (issue 21 §4, 2026-11-27: ~29 in 300 requests of the interruptions
 * table, with the table's totals). One spare is kept (at most `maxBytes`); an answer takes it when
 * it is long enough and gives it back once its response has finished, its bytes handed to the
 * kernel (a response that ends otherwise keeps it, and the next answer makes a new one). Answers
 * under `minBytes` are made as before (Node pools small buffers).
 */
export class AnswerBuffers {
  readonly minBytes: number;
  readonly maxBytes: number;
  #spare: Buffer | null = null;

  constructor({ minBytes = 64 * 1024, maxBytes = 8 * 2 ** 20 }: { minBytes?: number; maxBytes?: number } = {}) {
    this.minBytes = minBytes;
    this.maxBytes = maxBytes;
  }

  /** A buffer of `length` bytes: the spare's start when it is long enough (lent until given back), else a new one. */
  readonly take = (length: number): Buffer => {
    if (length < this.minBytes || length > this.maxBytes) return Buffer.allocUnsafe(length);
    const spare = this.#spare;
    if (spare !== null && spare.length >= length) {
      this.#spare = null;
      return spare.subarray(0, length);
    }
    // Its own memory (not Node's shared pool), an eighth more than asked: the next answer may be a little longer.
    return Buffer.allocUnsafeSlow(Math.min(this.maxBytes, length + (length >> 3))).subarray(0, length);
  };

  /** Gives back a body `take` made, once nothing reads it any more: the next answer may write over it. */
  giveBack(body: Buffer): void {
    if (body.length < this.minBytes || body.length > this.maxBytes || body.byteOffset !== 0) return;
    const whole = Buffer.from(body.buffer, 0, body.buffer.byteLength);
    if (this.#spare === null || whole.length > this.#spare.length) this.#spare = whole;
  }
}

/** Sends an answer written in pieces, its body in a buffer of `buffers`, given back once the response has finished (a short text alone: as it is). */
export function sendPieces(res: ServerResponse, status: number, pieces: readonly (string | Uint8Array)[], buffers: AnswerBuffers): void {
  if (pieces.length === 1 && typeof pieces[0] === 'string' && pieces[0].length <= SHORT_TEXT) {
    sendJson(res, status, pieces[0]);
    return;
  }
  const body = piecesBody(pieces, buffers.take);
  // Not at once: until the response finishes, the socket may still be reading the buffer. (A
  // shorter body than the lent ones is Node's to pool: nothing to give back, no listener.)
  if (body.length >= buffers.minBytes) res.once('finish', () => buffers.giveBack(body));
  sendJson(res, status, body);
}

/**
 * A text this long or shorter (one JobSet's detail, ~6 KB; an error) is sent as it is: Node writes
 * the headers and the text in one write, encoded on the way, without a Buffer made for it (past
 * Node's pool of small buffers, each answer's bytes were an allocation of their own). A longer one
 * goes as its bytes (jsonBody says why).
 */
export const SHORT_TEXT = 16 * 1024;

/** Writes `json` (a JSON text, or its UTF-8 bytes) as the whole answer, with its type and length and any other `headers`. */
export function sendJson(res: ServerResponse, status: number, json: string | Buffer, headers: OutgoingHttpHeaders = {}): void {
  if (typeof json === 'string' && json.length <= SHORT_TEXT) {
    const length = Buffer.byteLength(json, 'utf8');
    // ASCII (as many bytes as characters) is its own Latin-1; any other text is encoded as UTF-8.
    res.writeHead(status, { ...headers, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': length }).end(json, length === json.length ? 'latin1' : 'utf8');
    return;
  }
  const bytes = typeof json === 'string' ? jsonBody(json) : json;
  res.writeHead(status, { ...headers, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': bytes.length }).end(bytes);
}
