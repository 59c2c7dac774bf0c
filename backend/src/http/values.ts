// GET /api/v1/values/{what}: what Grafana's template variables list (frames/views.ts valuesView).

import { Router } from 'express';
import { z } from 'zod';
import { valuesView, type ValueKind } from '../frames/views.ts';
import type { ServedView } from '../runtime/served-view.ts';
import { VALUE_KINDS } from './openapi.ts';
import { HttpError, openRange, parseQueryString, repeated } from './params.ts';

const valuesQuerySchema = z.object({ namespace: repeated.optional(), key: z.string().optional(), from: z.string().optional(), to: z.string().optional() });

// Every kind the API documents has a view (a compile error otherwise).
const DOCUMENTED: readonly ValueKind[] = VALUE_KINDS;
const isValueKind = (what: string): what is ValueKind => (DOCUMENTED as readonly string[]).includes(what);

export function valuesRoutes(view: ServedView, now: () => number): Router {
  const router = Router();
  router.get('/values/:what', (req, res) => {
    const what = req.params.what;
    if (!isValueKind(what)) throw new HttpError(404, `unknown values "${what}" (one of ${VALUE_KINDS.join(', ')})`);
    const q = parseQueryString(valuesQuerySchema, req);
    const t = now();
    // With from and/or to: only the timelines that lived in that range; without: every timeline kept.
    let range: { horizon: number; from: number; to: number } | undefined;
    if (q.from !== undefined || q.to !== undefined) {
      const [from, to] = openRange(q, t);
      range = { horizon: view.horizon(t), from, to };
    }
    if (what === 'labelValues' && (q.key === undefined || q.key === '')) throw new HttpError(400, 'key: missing (the label key whose values to list)');
    // Node pools are timelines of their own layer (none when the source has no Nodes).
    const timelines = what === 'pools' ? (view.poolLayer?.(t)?.timelines ?? []) : view.timelines();
    res.json(valuesView(what, timelines, { namespaces: q.namespace, key: q.key, range }));
  });
  return router;
}
