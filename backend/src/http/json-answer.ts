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

/** The body of an answer written in pieces (frames/answer-bytes.ts): its texts' UTF-8 and its byte stretches, in one Buffer. */
export function piecesBody(pieces: readonly (string | Uint8Array)[]): Buffer {
  if (pieces.length === 1 && typeof pieces[0] === 'string') return jsonBody(pieces[0]);
  let length = 0;
  for (const p of pieces) length += typeof p === 'string' ? Buffer.byteLength(p, 'utf8') : p.length;
  const body = Buffer.allocUnsafe(length);
  let at = 0;
  for (const p of pieces) {
    if (typeof p === 'string') at += body.write(p, at, 'utf8');
    else {
      body.set(p, at);
      at += p.length;
    }
  }
  return body;
}

/** Writes `json` (a JSON text, or its UTF-8 bytes) as the whole answer, with its type and length and any other `headers`. */
export function sendJson(res: ServerResponse, status: number, json: string | Buffer, headers: OutgoingHttpHeaders = {}): void {
  const bytes = typeof json === 'string' ? jsonBody(json) : json;
  res.writeHead(status, { ...headers, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': bytes.length }).end(bytes);
}
