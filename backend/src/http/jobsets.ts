// GET /api/v1/jobsets (summaries of the selected JobSets) and GET /api/v1/jobsets/{ns}/{name} (every
// timeline of one name); the JSON views are frames/views.ts.

import { Router } from 'express';
import { z } from 'zod';
import { jobsetDetailView, jobsetListView } from '../frames/views.ts';
import { select } from '../query/select.ts';
import type { LayerView, ServedView } from '../runtime/served-view.ts';
import { LAYERS, type Layer } from '../query/types.ts';
import { asClientError, HttpError, parseQueryString, repeated, window } from './params.ts';

const DAY_MS = 86_400_000;

const listQuerySchema = z.object({
  cluster: repeated.optional(),
  from: z.string().optional(),
  to: z.string().optional(),
  namespace: repeated.optional(),
  name: z.string().optional(),
  labelSelector: z.string().optional(),
  state: repeated.optional(),
  layer: z.enum(LAYERS).optional(),
});
const detailQuerySchema = listQuerySchema.pick({ from: true, to: true, layer: true });

export function jobsetRoutes(view: ServedView, now: () => number): Router {
  /** The JobSet layer, or with `layer=nodes` the node layer, `layer=nodepools` the pools (404 when the source has none). */
  const layerOf = (layer: Layer | undefined, t: number): LayerView => {
    if (layer === 'nodepools') {
      const pools = view.poolLayer?.(t) ?? null;
      if (pools === null) throw new HttpError(404, 'layer=nodepools: this source has no node pools (it needs a Kubernetes cluster, or a trace recorded from one)');
      return pools;
    }
    if (layer !== 'nodes') return { timelines: view.timelines(), horizon: view.horizon(t) };
    const nodes = view.nodeLayer?.(t) ?? null;
    if (nodes === null) throw new HttpError(404, 'layer=nodes: this source has no node layer (it needs a Kubernetes cluster, or a trace recorded from one)');
    return nodes;
  };

  const router = Router();
  router.get('/jobsets', (req, res) => {
    const q = parseQueryString(listQuerySchema, req);
    const t = now();
    const { timelines, horizon } = layerOf(q.layer, t);
    // Without a range: the last day.
    const [from, to] = window(q, t, t - DAY_MS, t);
    const selection = { clusters: q.cluster, namespaces: q.namespace, name: q.name, labelSelector: q.labelSelector, states: q.state };
    const selected = asClientError(() => select(timelines, selection, horizon, from, to));
    res.json(jobsetListView(selected, horizon, from, to));
  });

  router.get('/jobsets/:namespace/:name', (req, res) => {
    const q = parseQueryString(detailQuerySchema, req);
    const t = now();
    const { namespace, name } = req.params;
    const layer = layerOf(q.layer, t);
    // The node layer finds one name's timelines without listing the whole layer.
    const timelines = layer.named?.(name) ?? layer.timelines;
    const horizon = layer.horizon;
    // Without a range: each timeline's whole life.
    const view = jobsetDetailView(timelines, horizon, namespace, name, (tl) => window(q, t, tl.createdAt, horizon));
    if (view === null) throw new HttpError(404, `no JobSet ${namespace}/${name} has been seen`);
    res.json(view);
  });

  // A node pool is cluster-scoped: every timeline of the pool (it ended and came back), as a JobSet's.
  router.get('/nodepools/:name', (req, res) => {
    const q = parseQueryString(detailQuerySchema.pick({ from: true, to: true }), req);
    const t = now();
    const { timelines, horizon } = layerOf('nodepools', t);
    const view = jobsetDetailView(timelines, horizon, '', req.params.name, (tl) => window(q, t, tl.createdAt, horizon));
    if (view === null) throw new HttpError(404, `no node pool ${req.params.name} has been seen`);
    res.json(view);
  });
  return router;
}
