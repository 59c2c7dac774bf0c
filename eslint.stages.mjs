// The house's map as a graph (README.md "Layout"; ../shared/DESIGN.md draws the flow): each stage
// of the backend (a folder under backend/src; the sources are three sub-stages) and the stages it
// may import. eslint.config.mjs turns it into lint rules; test/support/layout.service.test.ts checks that
// README's "may import" column says the same. Derived from the tree's real imports: widen an entry
// only for an import the stage really needs, and keep the graph one-way.

/** Stage → the stages it may import (besides itself), in the order data flows. */
export const STAGE_IMPORTS = {
  observation: [], // leaf: what every source delivers
  'sources/cluster': ['observation'], // the Kubernetes list/watch
  'sources/trace': ['observation'], // trace files in and out
  'sources/simulator': ['observation', 'timeline'], // the simulated fleet; its truth: timeline/types.ts, types only
  timeline: ['observation'], // object → view, per-UID state machine → transitions
  nodes: ['observation', 'timeline'], // node layer and causes, from views
  usage: ['observation', 'timeline', 'nodes'], // resource usage: kubelet summaries → per-JobSet sums, history, split by state
  store: ['observation', 'timeline'], // the embedded log, PostgreSQL, the followers' tail
  series: ['observation', 'timeline'], // interval algebra
  query: ['observation', 'timeline', 'series', 'usage'], // a request's model: selection, windows, limits
  frames: ['observation', 'timeline', 'nodes', 'usage', 'series', 'query'], // Grafana data frames and JSON views
  runtime: [
    'observation',
    'sources/cluster',
    'sources/trace',
    'sources/simulator',
    'timeline',
    'nodes',
    'usage',
    'store',
    'series',
  ], // runs sources, stores and sessions: feeds, sinks, the served view, followers, retention
  leader: ['observation', 'store', 'runtime'], // Lease election, replicas
  http: ['observation', 'store', 'query', 'frames', 'runtime'], // the API
  cli: [
    'observation',
    'sources/cluster',
    'sources/trace',
    'sources/simulator',
    'timeline',
    'store',
    'series',
    'query',
    'frames',
    'runtime',
    'leader',
    'http',
  ], // the composition root
};

/** Pure stages: values in, values out; no clock, timers, process, file system or network. They import only pure stages. */
export const PURE = ['observation', 'timeline', 'nodes', 'usage', 'series', 'query', 'frames'];

/** Stages whose imports of another are limited to some of its files: the simulator's truth is timelines, as types. */
export const TYPES_ONLY = { 'sources/simulator': { timeline: 'types.ts' } };

/** The map's own rules, checked when lint loads it: known names, pure imports pure, no cycle. */
export function checkMap(map = STAGE_IMPORTS, pure = PURE) {
  const stages = Object.keys(map);
  for (const [stage, allowed] of Object.entries(map)) {
    for (const other of allowed) {
      if (!stages.includes(other))
        throw new Error(`eslint.stages.mjs: ${stage} may import "${other}", which is not a stage`);
      if (other === stage) throw new Error(`eslint.stages.mjs: ${stage} lists itself`);
      if (pure.includes(stage) && !pure.includes(other))
        throw new Error(`eslint.stages.mjs: ${stage} is pure, so it may import only pure stages, not ${other}`);
    }
  }
  const visiting = new Set();
  const done = new Set();
  const visit = (stage, path) => {
    if (done.has(stage)) return;
    if (visiting.has(stage)) throw new Error(`eslint.stages.mjs: the map has a cycle: ${[...path, stage].join(' → ')}`);
    visiting.add(stage);
    for (const other of map[stage]) visit(other, [...path, stage]);
    visiting.delete(stage);
    done.add(stage);
  };
  for (const stage of stages) visit(stage, []);
}
