// A lent answer buffer (json-answer.ts AnswerBuffers) is lent again only once the response that
// used it has finished: over real loopback sockets, an answer larger than the kernel's buffers is
// read slowly while other answers are written, and arrives whole and as written. A short JSON text is
// sent as it is, with the same bytes on the wire as its Buffer.

import http, { type IncomingMessage } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import fc from 'fast-check';
import { AnswerBuffers, sendJson, sendPieces, SHORT_TEXT } from './json-answer.ts';

/** Answer n: 16 MiB of bytes that say which answer they are (more than a loopback socket holds unread). */
const SIZE = 16 * 2 ** 20;
const answerOf = (n: number): Buffer => Buffer.alloc(SIZE, `${n % 10}`);

/** The body of a response, read to the end. */
function body(res: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  return new Promise((resolve, reject) => {
    res.on('end', () => resolve(Buffer.concat(chunks)));
    res.on('error', reject);
  });
}

it('lends an answer buffer again only once the response that used it has finished', async () => {
  const buffers = new AnswerBuffers({ minBytes: 1, maxBytes: 2 * SIZE });
  let asked = 0;
  const server = http.createServer((req, res) => {
    const n = asked++;
    req.resume();
    req.on('end', () => sendPieces(res, 200, ['', answerOf(n), ''], buffers));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const get = (): Promise<IncomingMessage> => new Promise((resolve, reject) => http.get(url, { agent: false }, resolve).on('error', reject));
  try {
    // The first answer is not read while three more are written and read whole.
    const slow = await get();
    slow.pause();
    for (let k = 1; k <= 3; k++) expect((await body(await get())).equals(answerOf(k))).toBe(true);
    slow.resume();
    expect((await body(slow)).equals(answerOf(0))).toBe(true);
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

it('sends a short text as it is and a long one as its bytes: the same bytes on the wire as its UTF-8 Buffer sent (headers but Date, and body)', async () => {
  // Each request names its answer: a text, and whether to send it as a text or as its bytes.
  const texts = new Map<string, string>();
  const server = http.createServer((req, res) => {
    const [, kind, id] = (req.url ?? '').split('/');
    const text = texts.get(id!)!;
    req.resume();
    req.on('end', () => (kind === 'text' ? sendJson(res, 200, text) : sendJson(res, 200, Buffer.from(text, 'utf8'), { 'X-Kind': 'same' })));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  /** The whole response as it came on the socket, its Date line and the test's own header left out. */
  const raw = (path: string): Promise<string> =>
    new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.end(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`));
      const chunks: Buffer[] = [];
      socket.on('data', (c: Buffer) => chunks.push(c));
      socket.on('end', () => resolve(Buffer.concat(chunks).toString('latin1').replace(/\r\nDate: [^\r]*/, '').replace(/\r\nX-Kind: same/, '')));
      socket.on('error', reject);
    });
  try {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.string({ maxLength: 60 }), fc.string({ unit: 'grapheme', maxLength: 60 }), fc.integer({ min: SHORT_TEXT - 2, max: SHORT_TEXT + 2 }).map((n) => 'x'.repeat(n)), fc.integer({ min: SHORT_TEXT - 2, max: SHORT_TEXT + 2 }).map((n) => 'é'.repeat(n))),
        async (text) => {
          const id = String(texts.size);
          texts.set(id, JSON.stringify(text));
          expect(await raw(`/text/${id}`)).toEqual(await raw(`/bytes/${id}`));
        },
      ),
      { numRuns: 150 },
    );
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
