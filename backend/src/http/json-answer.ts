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

/** Writes `text` (JSON) as the whole answer, with its type and length and any other `headers`. */
export function sendJson(res: ServerResponse, status: number, text: string, headers: OutgoingHttpHeaders = {}): void {
  const bytes = jsonBody(text);
  res.writeHead(status, { ...headers, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': bytes.length }).end(bytes);
}
