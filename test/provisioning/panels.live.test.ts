// Every panel of every provisioned dashboard, on the fleet `npm start` serves: a real `upness serve`
// with the defaults `npm start` uses (no kubeconfig, no trace: the full simulated cluster, about
// 2,400 JobSets), asked as Grafana asks it. Each dashboard over its default range and over the last
// 24 hours, with All and with one value of each variable: every query must answer (no 400 from a
// limit, no error), and every panel must show something (data after the transformations that
// decide emptiness, a value mapping's text for a null stat, or a notice), unless its description
// says when it is empty ("Empty when …"); and no panel's answer is over 200 KB (issue 21 §2: tables
// send what a panel shows, the sorting and the limit decided in the service).

import { isUsageMetric } from '../../backend/src/query/types.ts';
import { dashboards, isUpness, panelsOf, rel, type Json } from './files.ts';
import {
  checkFieldReferences,
  checkShape,
  forwarded,
  loadPlugin,
  panelTime,
  startServe,
  stopServices,
  variableRequest,
  type Service,
  type Variables,
} from './grafana.ts';

let fleet: Service;

beforeAll(async () => {
  await loadPlugin();
  // `npm start` is `upness serve`: its defaults (--memory only keeps the data dir out of the clone).
  fleet = await startServe([]);
}, 180_000);

afterAll(async () => {
  await stopServices();
  if (largest.bytes > 0) console.log(`the largest panel answer: ${largest.bytes} bytes (${largest.where})`);
});

/** The most a panel's answer (its queries' results, as the service sends them) may weigh. */
const MAX_PANEL_ANSWER_BYTES = 200 * 1024;

/** The largest panel answer seen, for the log: what the limit holds and how close the panels come. */
let largest = { bytes: 0, where: '' };

/** How each variable is set: All (or, without All, the first value listed, as Grafana opens it), or one value picked from the list. */
type Choice = 'all' | 'one';

const SELECTIONS: Record<string, { namespace: Choice; jobset: Choice }> = {
  all: { namespace: 'all', jobset: 'all' },
  'one namespace': { namespace: 'one', jobset: 'all' },
  'one namespace and one JobSet': { namespace: 'one', jobset: 'one' },
};

/** One value of a list: the one in its middle (not the first, which the saved selection already takes). */
const middle = (values: string[]): string => values[Math.floor(values.length / 2)]!;

/** The dashboard's variables for a selection, each listed as the plugin lists it for the range and the variables before it. */
async function variables(dashboard: Json, choices: Record<string, Choice>): Promise<{ vars: Variables; chosen: string }> {
  const vars: Variables = {};
  const time = panelTime(dashboard, null, fleet.horizon);
  const chosen: string[] = [];
  for (const variable of dashboard.templating?.list ?? []) {
    const { path, params } = variableRequest(variable, vars, time);
    const values: string[] = (await fleet.get(path, params)).values;
    if (values.length === 0) throw new Error(`${dashboard.uid}: variable ${variable.name} lists nothing for ${dashboard.time.from}`);
    if (choices[variable.name] === 'all' && variable.includeAll) {
      vars[variable.name] = { value: '$__all', all: true, options: values, ...(variable.allValue ? { allValue: variable.allValue } : {}) };
      chosen.push(`${variable.name}=All`);
    } else {
      const value = choices[variable.name] === 'all' ? values[0]! : middle(values);
      vars[variable.name] = { value: variable.multi ? [value] : value, all: false, options: values };
      chosen.push(`${variable.name}=${value}`);
    }
  }
  return { vars, chosen: chosen.join(', ') };
}

/** A number or string that a panel would show. */
const shows = (v: unknown): boolean => v !== null && v !== undefined && !(typeof v === 'number' && Number.isNaN(v));

/** The frames as the panel's transformations leave them, as far as emptiness goes: fields kept or excluded, rows filtered by value. */
function transformed(panel: Json, frames: Json[]): { fields: Json[]; values: unknown[][] }[] {
  let out = frames.map((f) => ({ fields: f.schema.fields as Json[], values: f.data.values as unknown[][] }));
  for (const t of panel.transformations ?? []) {
    const o = t.options ?? {};
    const keep = (predicate: (field: Json) => boolean): void => {
      out = out.map((f) => {
        const kept = f.fields.map((field, i) => [field, f.values[i]!] as const).filter(([field]) => predicate(field));
        return { fields: kept.map(([field]) => field), values: kept.map(([, v]) => v) };
      });
    };
    if (t.id === 'filterFieldsByName' && o.include?.names) keep((field) => o.include.names.includes(field.name));
    if (t.id === 'organize' && o.excludeByName) keep((field) => o.excludeByName[field.name] !== true);
    if (t.id === 'filterByValue') {
      out = out.map((f) => {
        const rows = f.values[0]?.length ?? 0;
        const matches = (row: number): boolean[] =>
          o.filters.map((filter: Json) => {
            const column = f.values[f.fields.findIndex((field) => field.name === filter.fieldName)];
            const value = column?.[row];
            if (filter.config.id === 'isNull') return value === null || value === undefined;
            if (filter.config.id === 'isNotNull') return value !== null && value !== undefined;
            throw new Error(`panel "${panel.title}": filterByValue ${filter.config.id} is not emulated here`);
          });
        const kept: number[] = [];
        for (let row = 0; row < rows; row++) {
          const m = matches(row);
          const hit = o.match === 'all' ? m.every(Boolean) : m.some(Boolean);
          if (hit === (o.type === 'include')) kept.push(row);
        }
        return { fields: f.fields, values: f.values.map((column) => kept.map((row) => column[row])) };
      });
    }
  }
  return out;
}

/** What the panel shows with these frames; null when it shows nothing. */
function showing(panel: Json, frames: Json[]): string | null {
  const after = transformed(panel, frames);
  const valueColumns = after.flatMap((f) => f.fields.map((field, i) => [field, f.values[i]!] as const).filter(([field]) => field.type !== 'time'));
  if (panel.type === 'table' || panel.type === 'state-timeline') {
    if (valueColumns.some(([, column]) => column.length > 0)) return 'rows';
  } else if (valueColumns.some(([, column]) => column.some(shows))) {
    return 'data';
  }
  // A stat, gauge or bar gauge whose value is null shows the text a value mapping gives null.
  const mapsNull = (panel.fieldConfig?.defaults?.mappings ?? []).some((m: Json) => m.type === 'special' && /^null/.test(m.options?.match ?? '') && m.options?.result?.text);
  if (['stat', 'gauge', 'bargauge'].includes(panel.type) && mapsNull && valueColumns.some(([field, column]) => field.type === 'number' && column.length > 0)) return 'a null mapped to text';
  if (frames.some((f) => (f.schema.meta?.notices ?? []).length > 0)) return 'a notice';
  return null;
}

/** Every query of the dashboard for a range and selection, sent at once; the problems found. */
async function problemsOf(dashboard: Json, vars: Variables, what: string): Promise<string[]> {
  const queries: { panel: Json | null; query: Json }[] = [];
  for (const panel of panelsOf(dashboard)) {
    const time = panelTime(dashboard, panel, fleet.horizon);
    for (const target of panel.targets) queries.push({ panel, query: forwarded(target, `p${panel.id}-${target.refId}`, vars, time) });
  }
  for (const annotation of dashboard.annotations?.list ?? []) {
    if (!isUpness(annotation.datasource)) continue;
    const time = { ...panelTime(dashboard, null, fleet.horizon), maxDataPoints: 100 };
    queries.push({ panel: null, query: forwarded(annotation.target, `anno-${annotation.name}`, vars, time) });
  }
  const results = await fleet.runQueries(queries.map((q) => q.query));
  const problems: string[] = [];
  const framesOf = new Map<Json, Json[]>();
  const bytesOf = new Map<Json, number>();
  for (const { panel, query } of queries) {
    const result = results[query.refId]!;
    const where = `${what}: ${panel === null ? query.refId : `panel "${panel.title}" ${query.refId}`}`;
    if (result.status !== 200) {
      problems.push(`${where}: ${result.status} ${result.error}`);
      continue;
    }
    if (panel === null) continue;
    // The answer as the service sends it: one query's result in the results object.
    bytesOf.set(panel, (bytesOf.get(panel) ?? 0) + Buffer.byteLength(JSON.stringify({ [query.refId]: result })));
    framesOf.set(panel, [...(framesOf.get(panel) ?? []), ...result.frames!]);
    // The simulated cluster makes Pods and Nodes: the node layer answers with data, never with the
    // notice of a source that has none.
    if (query.layer === 'nodes' && result.frames!.some((f: Json) => (f.schema.meta?.notices ?? []).some((n: Json) => /^No node layer here/.test(n.text ?? '')))) {
      problems.push(`${where}: the node layer answers with the notice of a source without one: ${JSON.stringify(result.frames)}`);
    }
    // An answer with values has the shape its query type promises.
    if (result.frames!.some((f: Json) => f.data.values.slice(1).some((c: unknown[]) => c.some(shows)))) {
      try {
        checkShape(where, query, result.frames!);
      } catch (error) {
        problems.push((error as Error).message);
      }
    }
  }
  for (const [panel, bytes] of bytesOf) {
    if (bytes > largest.bytes) largest = { bytes, where: `${dashboard.uid}, ${what}: panel "${panel.title}"` };
    if (bytes > MAX_PANEL_ANSWER_BYTES) problems.push(`${what}: panel "${panel.title}" answers ${bytes} bytes, more than ${MAX_PANEL_ANSWER_BYTES}: give its table a sort and a limit`);
  }
  for (const panel of panelsOf(dashboard)) {
    const frames = framesOf.get(panel);
    if (frames === undefined) continue; // its query failed: reported above
    if (frames.length > 0) {
      try {
        checkFieldReferences(`${what}: panel "${panel.title}"`, panel, frames);
      } catch (error) {
        problems.push((error as Error).message);
      }
    }
    const shown = showing(panel, frames);
    if (shown === null && !/\bEmpty when\b/.test(panel.description ?? '')) {
      problems.push(`${what}: panel "${panel.title}" is empty, and its description does not say when it can be ("Empty when …")`);
    }
    // A node-layer panel shows the node layer itself: a notice in its place is a source without one.
    if (panel.targets.some((t: Json) => t.layer === 'nodes') && shown !== 'data' && shown !== 'rows') {
      problems.push(`${what}: panel "${panel.title}" (node layer) shows ${shown ?? 'nothing'}, not data`);
    }
    // A usage panel shows the simulated cluster's usage itself: it has usage, so a notice is a service that lost it.
    if (panel.targets.some((t: Json) => isUsageMetric(String(t.metric)) || (t.usageByState ?? []).length > 0) && shown !== 'data' && shown !== 'rows') {
      problems.push(`${what}: panel "${panel.title}" (resource usage) shows ${shown ?? 'nothing'}, not data`);
    }
  }
  return problems;
}

describe('every panel on the fleet `npm start` serves', () => {
  it('is the full simulated cluster', async () => {
    const ready = (await fetch(`${fleet.url}/readyz`).then((r) => r.json())) as Json;
    expect(ready).toMatchObject({ ready: true, source: 'simulator' });
    expect(ready.jobsets).toBeGreaterThan(2000);
  });

  it.each(dashboards.map((d) => [rel(d.path), d.json] as const))('%s: answers, with data or an explained empty state, over its range and the last 24 h, for All and for one value of each variable', async (_name, dashboard) => {
    const runs: Promise<string[]>[] = [];
    for (const from of [dashboard.time.from, 'now-24h']) {
      const ranged = { ...dashboard, time: { ...dashboard.time, from } };
      for (const [label, choices] of Object.entries(SELECTIONS)) {
        runs.push(variables(ranged, choices).then(({ vars, chosen }) => problemsOf(ranged, vars, `${from}, ${label} (${chosen})`)));
      }
    }
    expect((await Promise.all(runs)).flat()).toEqual([]);
  });

  it('tells a description that explains emptiness from one that does not', () => {
    // The rule above has teeth: a panel with nothing to show and no "Empty when" fails it.
    const panel = { type: 'stat', title: 't', description: 'A figure.', fieldConfig: { defaults: {} } };
    const nulls = [{ schema: { fields: [{ name: 'time', type: 'time' }, { name: 'x', type: 'number' }] }, data: { values: [[1], [null]] } }];
    expect(showing(panel, nulls)).toBeNull();
    expect(showing({ ...panel, fieldConfig: { defaults: { mappings: [{ type: 'special', options: { match: 'null', result: { text: 'none' } } }] } } }, nulls)).toBe('a null mapped to text');
    expect(showing({ ...panel, type: 'table' }, [{ ...nulls[0], data: { values: [[], []] } }])).toBeNull();
    expect(showing(panel, [{ schema: { fields: [], meta: { notices: [{ severity: 'info', text: 'why' }] } }, data: { values: [] } }])).toBe('a notice');
  });
});
