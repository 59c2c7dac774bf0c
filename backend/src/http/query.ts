// POST /api/v1/query: Grafana's query body in, data frames out (frames/run-request.ts and its query types do the work).
// `?frames=arrow` (what the plugin backend asks for) answers each frame as an Apache Arrow IPC file,
// which the Go SDK takes column by column, in one binary body (ARROW_ANSWER_TYPE, laid out below);
// without it, the frame JSON. A result whose times Arrow cannot carry (after 2262) keeps its frame
// JSON either way.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQueryString } from 'node:querystring';
import { answerPieces } from '../frames/answer-bytes.ts';
import { runQueries, type QueryResult } from '../frames/run-request.ts';
import type * as ArrowModule from '../frames/arrow.ts';
import type { ServedView } from '../runtime/served-view.ts';
import { QUERY_PATH, type ResolvedAppOptions } from './app.ts';
import { tokenCheck, writeUnauthorized } from './auth.ts';
import { errorAnswer } from './errors.ts';
import { JSON_BODY_OPTIONS, plainJsonLength, readJsonBody } from './json-body.ts';
import type { RequestTimer } from './metrics.ts';
import { AnswerBuffers, sendJson, sendPieces } from './json-answer.ts';
import { HttpError } from './params.ts';

export interface QueryRouteOptions {
  view: ServedView;
  now: () => number;
  /** How long the service keeps history, ms: an `slo` period may not be longer; null: no limit. */
  retentionMs: number | null;
}

export const FRAME_ENCODINGS = ['json', 'arrow'] as const;
type FrameEncoding = (typeof FRAME_ENCODINGS)[number];

function frameEncoding(value: unknown): FrameEncoding {
  if (value === undefined) return 'json';
  if (typeof value === 'string' && (FRAME_ENCODINGS as readonly string[]).includes(value)) return value as FrameEncoding;
  throw new HttpError(400, `frames: must be json (the frame JSON, the default) or arrow (Arrow IPC files, in ${ARROW_ANSWER_TYPE}), once`);
}

/** The media type of an answer with its frames as Arrow IPC files. */
export const ARROW_ANSWER_TYPE = 'application/vnd.upness.query-results.arrow';

/** frames/arrow.ts, loaded on the first request for Arrow: apache-arrow costs the service ~10 MiB of RSS at start, and only the plugin asks for it. */
type ArrowEncoder = typeof ArrowModule;
let arrowEncoder: Promise<ArrowEncoder> | null = null;

/** Arrow's buffers are 8-byte aligned; so is each file in the answer. */
const ALIGN = 8;

/**
 * The answer with each result's frames as Arrow IPC files, in one binary body:
 *   4 bytes   the length H of the head, unsigned, big-endian
 *   H bytes   the head: {"results": {refId: {status, error?, arrowFrames: [[offset, length], ...]}}}
 *             (JSON, UTF-8), or `frames` (the frame JSON) in place of `arrowFrames` for a result
 *             whose times Arrow cannot carry
 *   the rest  the Arrow IPC files, each at its offset (from the end of the head, a multiple of 8)
 * No base64 and no JSON around megabytes of columns: each side copies the files as they are.
 */
export function arrowAnswer(results: Record<string, QueryResult>, { ArrowRangeError, frameToArrow }: ArrowEncoder): Buffer {
  const files: Uint8Array[] = [];
  let size = 0;
  const head: Record<string, unknown> = Object.create(null);
  for (const [refId, result] of Object.entries(results)) {
    const { frames, ...rest } = result;
    if (frames === undefined) {
      head[refId] = rest;
      continue;
    }
    let encoded: Uint8Array[];
    try {
      encoded = frames.map(frameToArrow);
    } catch (error) {
      // A time beyond 2262 (a query may ask up to year 9999): that result keeps its frame JSON,
      // which the plugin reads too.
      if (!(error instanceof ArrowRangeError)) throw error;
      head[refId] = result;
      continue;
    }
    const places: [number, number][] = [];
    for (const file of encoded) {
      places.push([size, file.length]);
      files.push(file);
      size += Math.ceil(file.length / ALIGN) * ALIGN;
    }
    head[refId] = { ...rest, arrowFrames: places };
  }
  const headBytes = Buffer.from(JSON.stringify({ results: head }), 'utf8');
  const body = Buffer.alloc(4 + headBytes.length + size);
  body.writeUInt32BE(headBytes.length, 0);
  headBytes.copy(body, 4);
  const start = 4 + headBytes.length;
  let at = 0;
  for (const file of files) {
    body.set(file, start + at);
    at += Math.ceil(file.length / ALIGN) * ALIGN;
  }
  return body;
}

/** Reads an answer of arrowAnswer: the head, and each result's Arrow files (for tests and tools). */
export function readArrowAnswer(body: Uint8Array): { results: Record<string, QueryResult & { arrowFiles?: Uint8Array[] }> } {
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  const headLength = view.getUint32(0);
  const head = JSON.parse(new TextDecoder().decode(body.subarray(4, 4 + headLength))) as { results: Record<string, QueryResult & { arrowFrames?: [number, number][] }> };
  const payload = body.subarray(4 + headLength);
  const results: Record<string, QueryResult & { arrowFiles?: Uint8Array[] }> = {};
  for (const [refId, { arrowFrames, ...rest }] of Object.entries(head.results)) {
    results[refId] = arrowFrames === undefined ? rest : { ...rest, arrowFiles: arrowFrames.map(([offset, length]) => payload.subarray(offset, offset + length)) };
  }
  return { results };
}

/** The query answers' body buffers: one spare for the process. */
const answerBuffers = new AnswerBuffers();

/** Answers a request's parsed body on `res`: the route's one step after its body is read. */
export type QueryAnswerer = (body: unknown, frames: unknown, res: ServerResponse) => Promise<void>;

/**
 * POST /api/v1/query's answer: the frame JSON as its UTF-8 bytes (sendJson; the bytes and headers
 * res.json would send, its length among them, without its generic steps), or the Arrow answer with its media type. `frames` is the query string's.
 */
export function queryAnswerer({ view, now, retentionMs }: QueryRouteOptions): QueryAnswerer {
  return async (body, frames, res) => {
    const encoding = frameEncoding(frames);
    if (body === undefined) throw new HttpError(400, 'body: missing, or not sent as JSON (Content-Type: application/json)');
    const t = now();
    const { status, results } = runQueries(
      body,
      {
        timelines: view.timelines(),
        horizon: view.horizon(t),
        // Only a query of the node layer needs it.
        get nodes() {
          return view.nodeLayer?.(t) ?? null;
        },
        get pools() {
          return view.poolLayer?.(t) ?? null;
        },
        index: view.index?.() ?? null,
        selections: view.selections?.() ?? null,
        kept: view.keptSelections?.() ?? null,
        retentionMs,
        usage: view.usage?.()?.book ?? null,
      },
      t,
      // Read by JSON.parse (json-body.ts, or express's body-parser): its queries' checks may be kept.
      { fromJsonText: true },
    );
    if (encoding === 'json') {
      sendPieces(res, status, answerPieces(results), answerBuffers);
      return;
    }
    const encoder = await (arrowEncoder ??= import('../frames/arrow.ts'));
    const answer = arrowAnswer(results, encoder);
    res.writeHead(status, { 'Content-Type': ARROW_ANSWER_TYPE, 'Content-Length': answer.length }).end(answer);
  };
}

export interface DirectQueryOptions {
  answer: QueryAnswerer;
  /** Whether the Authorization header carries the service's token (auth.ts). */
  authorized: (header: string | undefined) => boolean;
  /** Reads the request's JSON body (`done` gets the value, or the error the app's body-parser would give). */
  readBody: (req: IncomingMessage, res: ServerResponse, done: (error: unknown, body?: unknown) => void) => void;
  /** The store's group commit, awaited before answering. */
  beforeRead?: () => Promise<void>;
  time: RequestTimer;
  /** Writes an error's answer, as the app's error handler does (errors.ts). */
  fail: (error: unknown, req: IncomingMessage, res: ServerResponse) => void;
}

/**
 * POST /api/v1/query on Node's own server, without express (issue 21 §4): what every panel of every
 * dashboard asks, so a small answer's time is mostly the request's path. The route's only
 * implementation: the request timed as `/api/v1/query`, the token, the body, the store's commit
 * awaited, the answer; every error answered as errors.ts answers it. The server (app.ts) sends it
 * the POSTs of its path in every spelling (`isQueryRequest`).
 */
export function directQueryRoute({ answer, authorized, readBody, beforeRead, time, fail }: DirectQueryOptions): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    time(req, res, () => QUERY_PATH);
    if (!authorized(req.headers.authorization)) {
      writeUnauthorized(res);
      return;
    }
    readBody(req, res, (error, body) => {
      if (error !== undefined && error !== null) {
        fail(error, req, res);
        return;
      }
      // The app's query parser ('simple': node:querystring): a parameter given twice is an array.
      const url = req.url ?? '';
      const q = url.indexOf('?');
      const frames = q < 0 ? undefined : parseQueryString(url.slice(q + 1)).frames;
      (beforeRead === undefined ? answer(body, frames, res) : beforeRead().then(() => answer(body, frames, res))).catch((e: unknown) => fail(e, req, res));
    });
  };
}

/** body-parser's JSON parser as the app runs it, on a bare request: `done` gets what it set as the body. */
type BodyParser = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;

/**
 * The service's direct query route (what app.ts loads on the first query, without express): its
 * token, its store's commit, its timer; bodies read by json-body.ts, or, for any other request
 * than plain JSON of a known length, by the app's own body-parser (express loaded then), so that
 * every such request is answered as before.
 */
export function serviceQueryRoute(options: ResolvedAppOptions, time: RequestTimer): (req: IncomingMessage, res: ServerResponse) => void {
  const { logger } = options;
  let bodyParser: Promise<BodyParser> | null = null;
  return directQueryRoute({
    answer: queryAnswerer({ view: options.view, now: options.now, retentionMs: options.retentionMs }),
    authorized: tokenCheck(options.token),
    readBody: (req, res, done) => {
      const length = plainJsonLength(req.headers);
      if (length !== null) {
        readJsonBody(req, length, done);
        return;
      }
      bodyParser ??= import('express').then(({ default: express }) => express.json(JSON_BODY_OPTIONS) as unknown as BodyParser);
      bodyParser.then(
        (parse) => parse(req, res, (error) => done(error, (req as IncomingMessage & { body?: unknown }).body)),
        (error: unknown) => done(error),
      );
    },
    ...(options.beforeRead !== undefined ? { beforeRead: options.beforeRead } : {}),
    time,
    fail: (error, req, res) => {
      const { status, body } = errorAnswer(error, { method: req.method, path: QUERY_PATH }, logger);
      // Failed while writing its answer: nothing more can be said on this response.
      if (res.headersSent) {
        res.destroy();
        return;
      }
      sendJson(res, status, JSON.stringify(body));
    },
  });
}
