// POST /api/v1/query: Grafana's query body in, data frames out (frames/run-request.ts and its query types do the work).
// `?frames=arrow` (what the plugin backend asks for) answers each frame as an Apache Arrow IPC file,
// base64 in `arrowFrames`, so the Go SDK takes it column by column; without it, the frame JSON. A
// result whose times Arrow cannot carry (after 2262) keeps its frame JSON either way.

import { Router } from 'express';
import { ArrowRangeError, frameToArrow } from '../frames/arrow.ts';
import { runQueries, type QueryResult } from '../frames/run-request.ts';
import type { ServedView } from '../runtime/served-view.ts';
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
  throw new HttpError(400, `frames: must be json (the frame JSON, the default) or arrow (Arrow IPC files, base64 in arrowFrames), once`);
}

/**
 * The answer with each result's frames as base64 Arrow IPC files, `arrowFrames`, in place of
 * `frames`. Written by hand around the base64 text, which needs no escaping: JSON.stringify would
 * scan megabytes of it for characters to escape.
 */
export function arrowAnswer(results: Record<string, QueryResult>): string {
  const parts: string[] = [];
  for (const [refId, { frames, ...rest }] of Object.entries(results)) {
    const head = JSON.stringify(rest).slice(0, -1); // {"status":200 … without its closing brace
    let arrow = '';
    if (frames !== undefined) {
      try {
        arrow = `"arrowFrames":[${frames.map((f) => `"${Buffer.from(frameToArrow(f)).toString('base64')}"`).join(',')}]`;
      } catch (error) {
        // A time beyond 2262 (a query may ask up to year 9999): that result keeps its frame JSON,
        // which the plugin reads too.
        if (!(error instanceof ArrowRangeError)) throw error;
        arrow = `"frames":${JSON.stringify(frames)}`;
      }
      if (head.length > 1) arrow = `,${arrow}`;
    }
    parts.push(`${JSON.stringify(refId)}:${head}${arrow}}`);
  }
  return `{"results":{${parts.join(',')}}}`;
}

export function queryRoutes({ view, now, retentionMs }: QueryRouteOptions): Router {
  const router = Router();
  router.post('/query', (req, res) => {
    const encoding = frameEncoding(req.query.frames);
    if (req.body === undefined) throw new HttpError(400, 'body: missing, or not sent as JSON (Content-Type: application/json)');
    const t = now();
    const { status, results } = runQueries(
      req.body,
      {
        timelines: view.timelines(),
        horizon: view.horizon(t),
        // Only a query of the node layer needs it.
        get nodes() {
          return view.nodeLayer?.(t) ?? null;
        },
        index: view.index?.() ?? null,
        selections: view.selections?.() ?? null,
        retentionMs,
      },
      t,
    );
    if (encoding === 'json') {
      res.status(status).json({ results });
      return;
    }
    res.status(status).type('application/json').send(arrowAnswer(results));
  });
  return router;
}
