// Grafana's side of the provisioning tests, as far as they need it: a running `upness serve` asked as
// the plugin asks it, time ranges and intervals, template variables (replaced by the plugin's own
// code, src/interpolate.ts, over a stand-in for Grafana's template service), and the shape each
// query type must answer with.

import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { STATES, FIGURES, isUsageMetric } from '../../backend/src/query/types.ts';
import { NO_USAGE_NOTICE } from '../../backend/src/frames/usage.ts';
import { spawnOwned } from '../support/processes.ts';
import { isUpness, NODE, panelsOf, ROOT, TOKEN, UPNESS, type Json } from './files.ts';

/** The plugin's DataSource.applyTemplateVariables, loaded from src/ (its imports are types only). */
type InterpolateQuery = (query: Json, templateSrv: unknown, scopedVars: unknown) => Json;
let interpolateQuery: InterpolateQuery | null = null;

/** Loads the plugin's interpolation (before any query is forwarded). */
export async function loadPlugin(): Promise<void> {
  // A computed path: the plugin's sources are type-checked with the frontend, not here.
  const frontend = join(ROOT, 'src', 'interpolate.ts');
  interpolateQuery = ((await import(frontend)) as { interpolateQuery: InterpolateQuery }).interpolateQuery;
}

const children: ChildProcess[] = [];

/** Stops every service started here, and waits for each to exit. */
export async function stopServices(): Promise<void> {
  for (const child of children) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
}

// ---------------------------------------------------------------------------------------------
// The live service

export type Results = Record<string, { status: number; frames?: Json[]; error?: string }>;

/** A running `upness serve`, and the requests the plugin's backend and frontend make to it. */
export interface Service {
  url: string;
  /** What "now" is for the dashboards: the end of the trace, or the live service's clock at start. */
  horizon: number;
  child: ChildProcess;
  get(path: string, params?: [string, string][]): Promise<Json>;
  /** POST /api/v1/query as the Go plugin backend sends it: one timeRange per query, no request range. */
  runQueries(queries: Json[]): Promise<Results>;
}

export async function startServe(args: string[]): Promise<Service> {
  const proc = spawnOwned(NODE, [UPNESS, 'serve', '--memory', '--host', '127.0.0.1', '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, UPNESS_TOKEN: TOKEN },
  });
  children.push(proc);
  let logs = '';
  const url = await new Promise<string>((resolve, reject) => {
    proc.stdout!.on('data', (chunk) => {
      logs += chunk;
      const match = /"url":"(http:\/\/[^"]+)"/.exec(logs);
      if (match) resolve(match[1]!);
    });
    proc.stderr!.on('data', (chunk) => (logs += chunk));
    proc.once('exit', (code) => reject(new Error(`upness serve exited with ${code}: ${logs}`)));
  });
  let horizon = 0;
  // The full simulated cluster replays 7 days of JobSets, Pods and Nodes (about half a million
  // observations) before it is ready: tens of seconds on a loaded machine.
  const deadline = Date.now() + 90_000;
  for (;;) {
    const res = await fetch(`${url}/readyz`);
    if (res.status === 200) {
      horizon = Date.parse(((await res.json()) as { horizon: string }).horizon);
      break;
    }
    if (Date.now() > deadline) throw new Error(`not ready after 90 s: ${logs}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const api = async (path: string, init: RequestInit = {}): Promise<{ status: number; body: Json }> => {
    const res = await fetch(url + path, {
      ...init,
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...(init.headers ?? {}) },
    });
    return { status: res.status, body: await res.json() };
  };
  return {
    url,
    horizon,
    child: proc,
    async get(path, params = []) {
      const query = params.length > 0 ? `?${new URLSearchParams(params).toString()}` : '';
      const { status, body } = await api(path + query);
      if (status !== 200) throw new Error(`GET ${path}${query}: ${status} ${JSON.stringify(body)}`);
      return body;
    },
    async runQueries(queries) {
      const results: Results = {};
      for (let i = 0; i < queries.length; i += 100) {
        const { status, body } = await api('/api/v1/query', { method: 'POST', body: JSON.stringify({ queries: queries.slice(i, i + 100) }) });
        if (body.results === undefined) throw new Error(`POST /api/v1/query: ${status} ${JSON.stringify(body)}`);
        Object.assign(results, body.results);
      }
      return results;
    },
  };
}


// ---------------------------------------------------------------------------------------------
// Grafana's side: time ranges, intervals, template variables

export { panelTime, relativeTime, roundInterval, type TimeContext } from './panel-time.ts';
import { panelTime, type TimeContext } from './panel-time.ts';

/** A variable's selection: one value, several, or All (Grafana's `$__all`). */
export interface VariableValue {
  value: string | string[];
  all: boolean;
  allValue?: string;
  /** Every value the variable lists (what All stands for without a custom all value). */
  options: string[];
}
export type Variables = Record<string, VariableValue>;

export type FormatFunction = (value: string | string[], variable: unknown, fallback: unknown) => string;

export const escapeRegex = (s: string): string => s.replace(/[\\^$*+?.()|[\]{}/]/g, '\\$&');

/** Grafana's formats, as far as these files and the plugin use them. */
export function formatValue(value: string | string[], format: string | FormatFunction | undefined): string {
  if (typeof format === 'function') return format(value, null, formatValue);
  const values = Array.isArray(value) ? value : [value];
  switch (format ?? 'glob') {
    case 'regex':
      return values.length === 1 ? escapeRegex(values[0]!) : `(${values.map(escapeRegex).join('|')})`;
    case 'csv':
    case 'raw':
      return values.join(',');
    case 'pipe':
      return values.join('|');
    case 'json':
      return JSON.stringify(value);
    case 'glob':
      return values.length === 1 ? values[0]! : `{${values.join(',')}}`;
    default:
      throw new Error(`format ${String(format)} is not emulated here`);
  }
}

/**
 * Grafana's template service, `replace(text, scopedVars, format)`: $var, ${var}, ${var:format} and
 * [[var]]; a format written in the text wins over the caller's; All is the variable's custom all
 * value, unformatted, when it has one, else every value it lists.
 */
export function templateService(vars: Variables, time: TimeContext): { replace: (text: string, scopedVars?: unknown, format?: string | FormatFunction) => string } {
  const builtins: Record<string, string> = {
    __interval: `${Math.round(time.intervalMs / 1000)}s`,
    __interval_ms: String(time.intervalMs),
    __range: `${Math.round((time.to - time.from) / 1000)}s`,
    __range_s: String(Math.round((time.to - time.from) / 1000)),
    __range_ms: String(time.to - time.from),
    __from: String(time.from),
    __to: String(time.to),
  };
  return {
    replace: (text, _scopedVars, format) =>
      (text ?? '').replace(/\$(\w+)|\$\{(\w+)(?::(\w+))?\}|\[\[(\w+)(?::(\w+))?\]\]/g, (whole, a, b, bFormat, c, cFormat) => {
        const name: string = a ?? b ?? c;
        if (builtins[name] !== undefined) return builtins[name]!;
        const variable = vars[name];
        if (variable === undefined) return whole; // Grafana leaves unknown variables as they are
        if (variable.all && variable.allValue !== undefined) return variable.allValue;
        return formatValue(variable.all ? variable.options : variable.value, bFormat ?? cFormat ?? format);
      }),
  };
}



/**
 * The query as the Go plugin backend forwards it: the panel's target after the plugin replaced
 * its variables, plus refId, interval, point budget and the query's own time range.
 */
export function forwarded(target: Json, refId: string, vars: Variables | null, time: TimeContext): Json {
  // Alert rules run on the Grafana server: their models reach the plugin backend as they are.
  const query = vars === null ? target : interpolateQuery!(target, templateService(vars, time), {});
  return {
    ...query,
    refId,
    intervalMs: target.intervalMs ?? time.intervalMs,
    maxDataPoints: target.maxDataPoints ?? time.maxDataPoints,
    timeRange: { from: String(time.from), to: String(time.to) },
  };
}

/** A template variable's query, as an object ({what, namespace, key}) or as text (`jobsets($namespace)`). */
export function variableRequest(variable: Json, vars: Variables, time: TimeContext): { path: string; params: [string, string][] } {
  let what: string;
  let argument: string | undefined;
  if (typeof variable.query === 'string') {
    const match = /^\s*(\w+)\s*(?:\((.*)\))?\s*$/.exec(variable.query);
    if (!match) throw new Error(`variable ${variable.name}: cannot read "${variable.query}"`);
    what = match[1]!;
    argument = match[2];
  } else {
    what = variable.query.what;
    argument = variable.query.namespace ?? variable.query.key;
  }
  // As the plugin's metricFindQuery: namespaces as a list (`*`, an All value, is no filter), a key as it is.
  const params: [string, string][] = [];
  const replaced = templateService(vars, time).replace((argument ?? '').trim(), {}, what === 'labelValues' ? undefined : 'csv');
  if (what === 'labelValues') params.push(['key', replaced]);
  else for (const ns of replaced.split(',').map((v) => v.trim())) if (ns !== '' && ns !== '*') params.push(['namespace', ns]);
  // Grafana hands the variable query the dashboard's range (refresh: 2 re-runs it when the range
  // changes), and the plugin passes it on: only values of JobSets that lived in the range.
  params.push(['from', String(time.from)], ['to', String(time.to)]);
  return { path: `/api/v1/values/${what}`, params };
}

/** Runs the dashboard's variable queries in order; All where the variable offers it, else `choose`. */
export async function resolveVariables(dashboard: Json, choose: Record<string, string>, at: Service): Promise<{ vars: Variables; listed: Record<string, string[]> }> {
  const vars: Variables = {};
  const listed: Record<string, string[]> = {};
  const time = panelTime(dashboard, null, at.horizon);
  for (const variable of dashboard.templating?.list ?? []) {
    if (variable.type !== 'query') continue;
    const { path, params } = variableRequest(variable, vars, time);
    const values: string[] = (await at.get(path, params)).values;
    listed[variable.name] = values;
    if (variable.includeAll) {
      vars[variable.name] = { value: '$__all', all: true, options: values, ...(variable.allValue ? { allValue: variable.allValue } : {}) };
    } else {
      const chosen = choose[variable.name] ?? values[0] ?? '';
      vars[variable.name] = { value: variable.multi ? [chosen] : chosen, all: false, options: values };
    }
  }
  return { vars, listed };
}


// ---------------------------------------------------------------------------------------------
// The shapes each query type must answer with

export function fieldNames(frames: Json[]): Set<string> {
  const names = new Set<string>();
  for (const f of frames) for (const field of f.schema.fields) names.add(field.name);
  return names;
}

export function rowCount(frame: Json): number {
  return frame.data.values[0]?.length ?? 0;
}

/** Throws, naming the query, when the frames are not what its query type promises. */
export function checkShape(what: string, query: Json, frames: Json[]): void {
  const fail = (message: string): never => {
    throw new Error(`${what}: ${message}`);
  };
  const type = query.queryType ?? 'series';
  if (frames.length === 0) fail('no frames');
  for (const frame of frames) {
    const fields: Json[] = frame.schema.fields;
    const columns: unknown[][] = frame.data.values;
    if (columns.length !== fields.length) fail(`frame ${frame.schema.name}: ${fields.length} fields but ${columns.length} columns`);
    if (new Set(columns.map((c) => c.length)).size > 1) fail(`frame ${frame.schema.name}: columns of different lengths`);
  }
  const byName = (frame: Json, name: string): Json => frame.schema.fields.find((f: Json) => f.name === name);
  switch (type) {
    case 'series': {
      const metric = query.metric ?? 'uptimeRatio';
      let numbers = 0;
      for (const frame of frames) {
        if (frame.schema.meta?.type !== 'timeseries-multi') fail(`frame ${frame.schema.name}: meta.type is not timeseries-multi`);
        const [time, value] = frame.schema.fields;
        if (frame.schema.fields.length !== 2 || time.type !== 'time' || value.type !== 'number' || value.name !== metric)
          fail(`frame ${frame.schema.name}: expected fields time and ${metric} (number)`);
        if (rowCount(frame) === 0) fail(`frame ${frame.schema.name}: no points`);
        const groupBy = query.groupBy ?? 'none';
        const wanted = groupBy === 'none' ? ['namespace', 'jobset', 'uid'] : groupBy === 'all' ? [] : [groupBy.replace(/^label:/, '')];
        for (const label of wanted) if (typeof value.labels?.[label] !== 'string') fail(`frame ${frame.schema.name}: no label "${label}"`);
        numbers += frame.data.values[1].filter((v: unknown) => typeof v === 'number').length;
      }
      if (numbers === 0) fail('every value is null');
      break;
    }
    case 'summary':
    case 'fleet': {
      if (frames.length !== 1) fail(`expected one table frame, got ${frames.length}`);
      const frame = frames[0];
      if (rowCount(frame) === 0) fail('the table has no rows');
      const grouped = (query.groupBy ?? 'none') !== 'none';
      // A summary with `figures` has those figure columns only, in that order.
      const figures: readonly string[] = query.figures?.length > 0 ? query.figures : FIGURES;
      const expected =
        type === 'fleet'
          ? ['jobsets', 'min', 'mean', 'p50', 'p90', 'p99', 'max']
          : grouped
            ? ['jobsets', ...figures]
            : ['namespace', 'name', 'uid', 'state', ...figures];
      for (const name of expected) if (!byName(frame, name)) fail(`the table has no "${name}" column`);
      for (const name of type === 'fleet' ? expected : figures) if (byName(frame, name).type !== 'number') fail(`"${name}" is not a number field`);
      break;
    }
    case 'states': {
      for (const frame of frames) {
        const [time, state] = frame.schema.fields;
        if (frame.schema.fields.length !== 2 || time.type !== 'time' || state.type !== 'string' || state.name !== 'state')
          fail(`frame ${frame.schema.name}: expected fields time and state (string)`);
        if (rowCount(frame) < 2) fail(`frame ${frame.schema.name}: fewer than two rows`);
        for (const v of frame.data.values[1]) if (v !== null && !(STATES as readonly string[]).includes(v)) fail(`unknown state "${v}"`);
      }
      break;
    }
    case 'events': {
      if (frames.length !== 1) fail(`expected one annotation frame, got ${frames.length}`);
      const frame = frames[0];
      const types = Object.fromEntries(frame.schema.fields.map((f: Json) => [f.name, f.type]));
      expect(types).toEqual({ time: 'time', timeEnd: 'time', title: 'string', text: 'string', tags: 'string', kind: 'string', reason: 'string', message: 'string' });
      if (rowCount(frame) === 0) fail('no events');
      break;
    }
    case 'slo': {
      // One frame per group: time, then the answer's numbers, each labelled with the group.
      const answer = query.sloAnswer ?? 'sli';
      const wanted: Record<string, string[]> = {
        sli: ['sli', 'objective'],
        errorBudget: ['allowedSeconds', 'consumedSeconds', 'remainingSeconds', 'remainingFraction', 'burnRate', 'timeToExhaustionSeconds'],
        burnRate: ['burnRate'],
        budgetConsumed: ['budgetConsumed'],
        alert: ['alert'],
      };
      const groupBy = query.groupBy ?? 'none';
      const labels = groupBy === 'none' ? ['namespace', 'jobset'] : groupBy === 'all' ? [] : [groupBy.replace(/^label:/, '')];
      let numbers = 0;
      if (query.format === 'table') {
        // One table frame: the group's columns (strings), time, then the answer's numbers.
        if (frames.length !== 1) fail(`expected one table frame, got ${frames.length}`);
        const frame = frames[0];
        const expected = [...labels.map((l) => `${l}:string`), 'time:time', ...wanted[answer]!.map((n) => `${n}:number`)];
        if (JSON.stringify(frame.schema.fields.map((f: Json) => `${f.name}:${f.type}`)) !== JSON.stringify(expected)) fail(`the table's fields are not ${expected.join(', ')}`);
        if (rowCount(frame) === 0) fail('the table has no rows');
        for (const column of frame.data.values.slice(labels.length + 1)) numbers += column.filter((v: unknown) => typeof v === 'number').length;
        if (numbers === 0) fail('every value is null');
        break;
      }
      for (const frame of frames) {
        const [time, ...rest] = frame.schema.fields;
        if (time.type !== 'time' || JSON.stringify(rest.map((f: Json) => `${f.name}:${f.type}`)) !== JSON.stringify(wanted[answer]!.map((n) => `${n}:number`)))
          fail(`frame ${frame.schema.name}: expected fields time, ${wanted[answer]!.join(', ')}`);
        if (rowCount(frame) === 0) fail(`frame ${frame.schema.name}: no points`);
        for (const field of rest) for (const label of labels) if (typeof field.labels?.[label] !== 'string') fail(`frame ${frame.schema.name}: no label "${label}"`);
        for (const column of frame.data.values.slice(1)) numbers += column.filter((v: unknown) => typeof v === 'number').length;
      }
      if (numbers === 0) fail('every value is null');
      break;
    }
    default:
      fail(`unknown query type ${type}`);
  }
}

/** Field names a panel's transformations and overrides refer to must exist in its data. */
export function checkFieldReferences(what: string, panel: Json, frames: Json[]): void {
  const names = fieldNames(frames);
  const referenced: string[] = [];
  const renamed = new Set<string>();
  for (const t of panel.transformations ?? []) {
    const o = t.options ?? {};
    if (t.id === 'filterFieldsByName') referenced.push(...(o.include?.names ?? []));
    if (t.id === 'organize') {
      referenced.push(...Object.keys(o.excludeByName ?? {}), ...Object.keys(o.indexByName ?? {}), ...Object.keys(o.renameByName ?? {}));
      for (const to of Object.values(o.renameByName ?? {})) renamed.add(to as string);
    }
    if (t.id === 'sortBy') referenced.push(...(o.sort ?? []).map((s: Json) => s.field));
    if (t.id === 'filterByValue') referenced.push(...(o.filters ?? []).map((f: Json) => f.fieldName));
  }
  for (const name of referenced) if (!names.has(name)) throw new Error(`${what}: a transformation refers to "${name}", which no frame has`);
  const displayNames = new Set<string>([...names, ...renamed]);
  for (const f of frames) for (const field of f.schema.fields) if (field.config?.displayNameFromDS) displayNames.add(field.config.displayNameFromDS);
  for (const override of panel.fieldConfig?.overrides ?? []) {
    if (override.matcher?.id === 'byName' && !displayNames.has(override.matcher.options))
      throw new Error(`${what}: an override matches the field "${override.matcher.options}", which the panel does not show`);
  }
}


// ---------------------------------------------------------------------------------------------
// Every query, against the live service

/**
 * Sends every panel target and annotation query of the dashboard as Grafana would, with these
 * variables, and checks each answer: status 200, the shape its query type promises, and the field
 * names its panel refers to. Node-layer answers go to `nodeLayer` instead of the shape check; a
 * usage series of a source without usage must be its explained empty answer.
 */
export async function runDashboard(
  dashboard: Json,
  vars: Variables,
  listed: Record<string, string[]>,
  at: Service,
  nodeLayer: (what: string, query: Json, frames: Json[]) => void,
): Promise<void> {
  for (const [name, values] of Object.entries(listed)) expect([name, values.length > 0]).toEqual([name, true]);
  const queries: { what: string; panel: Json | null; target: Json; query: Json }[] = [];
  for (const panel of panelsOf(dashboard)) {
    const time = panelTime(dashboard, panel, at.horizon);
    for (const target of panel.targets) {
      const refId = `p${panel.id}-${target.refId}`;
      queries.push({ what: `panel "${panel.title}" query ${target.refId}`, panel, target, query: forwarded(target, refId, vars, time) });
    }
  }
  for (const annotation of dashboard.annotations?.list ?? []) {
    if (!isUpness(annotation.datasource)) continue;
    const time = { ...panelTime(dashboard, null, at.horizon), maxDataPoints: 100 };
    queries.push({ what: `annotation "${annotation.name}"`, panel: null, target: annotation.target, query: forwarded(annotation.target, `anno-${annotation.name}`, vars, time) });
  }
  expect(queries.length).toBeGreaterThan(0);

  const results = await at.runQueries(queries.map((q) => q.query));
  const framesByPanel = new Map<Json, Json[]>();
  for (const { what, panel, query } of queries) {
    const result = results[query.refId];
    expect([what, result?.status, result?.error]).toEqual([what, 200, undefined]);
    if (query.layer === 'nodes') {
      nodeLayer(what, query, result!.frames!);
      continue;
    }
    // A source without resource usage (a trace holds none) answers a usage series with one frame
    // whose notice says why; a source with usage (the simulated cluster) must show data
    // (panels.live.test.ts), and its answer takes the shape check.
    if ((query.queryType ?? 'series') === 'series' && isUsageMetric(String(query.metric)) && (result!.frames![0]?.schema.fields.length ?? 0) === 0) {
      expect([what, result!.frames!.map((f: Json) => f.schema.meta?.notices)]).toEqual([what, [[NO_USAGE_NOTICE]]]);
      continue;
    }
    checkShape(what, query, result!.frames!);
    if (panel !== null) framesByPanel.set(panel, [...(framesByPanel.get(panel) ?? []), ...result!.frames!]);
  }
  for (const [panel, frames] of framesByPanel) checkFieldReferences(`panel "${panel.title}"`, panel, frames);
}
