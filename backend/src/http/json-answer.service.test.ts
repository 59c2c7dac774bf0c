// A lent answer buffer (json-answer.ts AnswerBuffers) is lent again only once the response that
// used it has finished: over real loopback sockets, an answer larger than the kernel's buffers is
// read slowly while other answers are written, and arrives whole and as written.

import http, { type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AnswerBuffers, sendPieces } from './json-answer.ts';

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
