// GET /api/v1/values/{what}: what Grafana's template variables list (frames/views.ts valuesView).
// What "Save & test" asks after /readyz (pkg/plugin/health.go), and every variable of a dashboard
// after it: the server answers it on Node's own server (`valuesRoute`, loaded on the first such
// request, without express: issue 21 §3, the empty service once asked), in every spelling.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { valuesView, type ValueKind } from '../frames/views.ts';
import type { ServedView } from '../runtime/served-view.ts';
import { VALUES_PATH, type ResolvedAppOptions } from './app.ts';
import { directGetRoute } from './direct-get.ts';
import type { RequestTimer } from './metrics.ts';
import { HttpError, openRange, parseQueryString, repeated } from './params.ts';

/** What GET /api/v1/values/{what} lists (the OpenAPI document's enum too). */
export const VALUE_KINDS = ['clusters', 'namespaces', 'jobsets', 'labelKeys', 'labelValues', 'accelerators', 'topologies', 'pools'] as const;

/** The route's pattern, as the app names its requests' durations (direct-get.ts). */
const VALUES_ROUTE = { answered: '/api/v1/values/:what', stopped: 'unmatched' };

const valuesQuerySchema = z.object({ namespace: repeated.optional(), key: z.string().optional(), from: z.string().optional(), to: z.string().optional() });

// Every kind the API documents has a view (a compile error otherwise).
const DOCUMENTED: readonly ValueKind[] = VALUE_KINDS;
const isValueKind = (what: string): what is ValueKind => (DOCUMENTED as readonly string[]).includes(what);

/** The answer of GET /api/v1/values/`what` with the parsed query string `query`; a client's mistake is an HttpError. */
export function valuesAnswer(what: string, query: unknown, view: ServedView, now: () => number): unknown {
  if (!isValueKind(what)) throw new HttpError(404, `unknown values "${what}" (one of ${VALUE_KINDS.join(', ')})`);
  const q = parseQueryString(valuesQuerySchema, { query });
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
  return valuesView(what, timelines, { namespaces: q.namespace, key: q.key, range });
}

/** GET /api/v1/values/{what} on Node's own server, for the requests app.ts's `isValuesRequest` takes. */
export function valuesRoute(options: ResolvedAppOptions, time: RequestTimer): (req: IncomingMessage, res: ServerResponse) => void {
  const { view, now } = options;
  // A segment that is not valid percent-encoding is a URIError: a 400 naming the path (errors.ts).
  return directGetRoute(options, time, VALUES_ROUTE, (path, query) => valuesAnswer(decodeURIComponent(VALUES_PATH.exec(path)![1]!), query, view, now));
}
