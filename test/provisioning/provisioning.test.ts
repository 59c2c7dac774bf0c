// The provisioned Grafana files (provisioning/), checked against a live Upness service.
//
// Every query the dashboards and alert rules send to the Upness data source is extracted, its
// template variables are replaced by the plugin's own code (src/interpolate.ts) over a stand-in
// for Grafana's template service, and it is sent to a real `upness serve` replaying a simulated
// trace (2026-01-01 → 2026-01-04) the way the Go plugin backend forwards it; the answer must have
// the shape its panel or rule needs. The alert rules are also evaluated (reduce and threshold, as
// Grafana's server-side expressions do) and the instances that fire are compared with the truth:
// the JobSets' own intervals, and their figures from GET /api/v1/jobsets. docker-compose.yaml and
// backend/Dockerfile cannot run here (no Docker engine): they are checked statically.

import { spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parse } from 'yaml';
import { LIMITS } from '../../backend/src/query/step.ts';
import { AGGREGATES, FIGURES, GROUP_DIMENSIONS, LAYERS, METRICS, parseDuration, QUERY_TYPES, STATES, WINDOWS } from '../../backend/src/query/types.ts';
import { spawnOwned } from '../support/processes.ts';
import { templateRenderer } from '../support/prerequisites.ts';

const ROOT = join(__dirname, '..', '..');
const PROVISIONING = join(ROOT, 'provisioning');
const NODE = join(ROOT, 'node_modules', '.bin', 'node');
const UPNESS = join(ROOT, 'backend', 'bin', 'upness.js');
const TOKEN = 'provisioning-test-token';
const DS_TYPE = 'upness-jobset-datasource';
const DS_UID = 'upness';
const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

// ---------------------------------------------------------------------------------------------
// The files

/* eslint-disable @typescript-eslint/no-explicit-any -- dashboards, rules and frames are JSON documents */
type Json = any;

function filesUnder(dir: string, extensions: string[]): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? filesUnder(path, extensions) : extensions.some((e) => name.endsWith(e)) ? [path] : [];
    })
    .sort();
}

const readJson = (path: string): Json => JSON.parse(readFileSync(path, 'utf8'));
const readYaml = (path: string): Json => parse(readFileSync(path, 'utf8'));
const rel = (path: string): string => relative(ROOT, path);

/**
 * Grafana's expansion of the values in provisioning files (what its provisioning `values` types do
 * when they read a file): the text is cut at `$$` (a literal `$`); in each part `$__env{NAME}` is
 * replaced, then `$NAME` and `${NAME}` as Go's os.ExpandEnv does (an unset variable is empty, a
 * `$` followed by no name stays, `${` without its `}` is dropped); the parts are joined with `$`.
 */
function grafanaExpand(text: string, env: Record<string, string | undefined>): string {
  return text
    .split('$$')
    .map((part) => goExpandEnv(part.replace(/\$__env\{([^}]*)\}/g, (_, name: string) => env[name] ?? ''), env))
    .join('$');
}

function goExpandEnv(text: string, env: Record<string, string | undefined>): string {
  const special = (c: string | undefined): boolean => c !== undefined && ('*#$@!?-'.includes(c) || (c >= '0' && c <= '9'));
  /** The name after a `$` and how many characters it takes; '' and > 0: bad syntax (dropped). */
  const shellName = (s: string): [string, number] => {
    if (s[0] === '{') {
      if (s.length > 2 && special(s[1]) && s[2] === '}') return [s[1]!, 3];
      for (let i = 1; i < s.length; i++) if (s[i] === '}') return i === 1 ? ['', 2] : [s.slice(1, i), i + 1];
      return ['', 1];
    }
    if (special(s[0])) return [s[0]!, 1];
    let i = 0;
    while (i < s.length && /[A-Za-z0-9_]/.test(s[i]!)) i++;
    return [s.slice(0, i), i];
  };
  let out = '';
  let start = 0;
  for (let j = 0; j < text.length; j++) {
    if (text[j] !== '$' || j + 1 >= text.length) continue;
    out += text.slice(start, j);
    const [name, width] = shellName(text.slice(j + 1));
    if (name !== '') out += env[name] ?? '';
    else if (width === 0) out += '$';
    j += width;
    start = j + 1;
  }
  return out + text.slice(start);
}

const composeGrafana = parse(readFileSync(join(ROOT, 'docker-compose.yaml'), 'utf8')).services.grafana;

/** A path in the Grafana container, as a path here, through docker-compose.yaml's bind mounts. */
function hostPath(containerPath: string): string {
  for (const volume of composeGrafana.volumes as string[]) {
    const [source, target] = volume.split(':') as [string, string];
    if (!source.startsWith('./')) continue;
    if (containerPath === target || containerPath.startsWith(`${target}/`)) return join(ROOT, source, containerPath.slice(target.length));
  }
  throw new Error(`${containerPath} is not in a folder docker-compose.yaml mounts into Grafana`);
}

const dashboardFiles = filesUnder(join(PROVISIONING, 'dashboards'), ['.json']);
const ruleFiles = filesUnder(join(PROVISIONING, 'alerting'), ['.yaml', '.yml', '.json']);
const datasourceFiles = filesUnder(join(PROVISIONING, 'datasources'), ['.yaml', '.yml']);
const providerFiles = readdirSync(join(PROVISIONING, 'dashboards'))
  .filter((n) => n.endsWith('.yaml') || n.endsWith('.yml'))
  .map((n) => join(PROVISIONING, 'dashboards', n));

const dashboards = dashboardFiles.map((path) => ({ path, json: readJson(path) }));
const ruleDocs = ruleFiles.map((path) => ({ path, doc: path.endsWith('.json') ? readJson(path) : readYaml(path) }));
const rules: { path: string; group: Json; rule: Json }[] = ruleDocs.flatMap(({ path, doc }) =>
  (doc.groups ?? []).flatMap((group: Json) => (group.rules ?? []).map((rule: Json) => ({ path, group, rule }))),
);

function isUpness(ds: Json): boolean {
  return ds != null && typeof ds === 'object' && ds.uid === DS_UID;
}

/** Panels, including those inside collapsed rows. */
function panelsOf(dashboard: Json): Json[] {
  return (dashboard.panels ?? []).flatMap((p: Json) => (p.type === 'row' ? (p.panels ?? []) : [p]));
}

// ---------------------------------------------------------------------------------------------
// The live service

/** The plugin's DataSource.applyTemplateVariables, loaded from src/ (its imports are types only). */
type InterpolateQuery = (query: Json, templateSrv: unknown, scopedVars: unknown) => Json;
let interpolateQuery: InterpolateQuery | null = null;

let dir = '';
let traceStart = 0;

type Results = Record<string, { status: number; frames?: Json[]; error?: string }>;

/** A running `upness serve`, and the requests the plugin's backend and frontend make to it. */
interface Service {
  url: string;
  /** What "now" is for the dashboards: the end of the trace, or the live service's clock at start. */
  horizon: number;
  child: ChildProcess;
  get(path: string, params?: [string, string][]): Promise<Json>;
  /** POST /api/v1/query as the Go plugin backend sends it: one timeRange per query, no request range. */
  runQueries(queries: Json[]): Promise<Results>;
}

async function startServe(args: string[]): Promise<Service> {
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
  for (let i = 0; ; i++) {
    const res = await fetch(`${url}/readyz`);
    if (res.status === 200) {
      horizon = Date.parse(((await res.json()) as { horizon: string }).horizon);
      break;
    }
    if (i > 600) throw new Error(`not ready after 30 s: ${logs}`);
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

const children: ChildProcess[] = [];
/** The service replaying a simulated trace (2026-01-01 → 2026-01-04), which most tests below query. */
let liveTrace: Service;
let horizon = 0;
const get = (path: string, params: [string, string][] = []): Promise<Json> => liveTrace.get(path, params);
const runQueries = (queries: Json[]): Promise<Results> => liveTrace.runQueries(queries);

beforeAll(async () => {
  // A computed path: the plugin's sources are type-checked with the frontend, not here.
  const frontend = join(ROOT, 'src', 'interpolate.ts');
  interpolateQuery = ((await import(frontend)) as { interpolateQuery: InterpolateQuery }).interpolateQuery;
  dir = mkdtempSync(join(tmpdir(), 'upness-provisioning-'));
  const trace = join(dir, 'fleet.jsonl');
  const sim = spawnSync(NODE, [UPNESS, 'simulate', '--jobsets', '12', '--days', '3', '--seed', '5', '--out', trace], { encoding: 'utf8' });
  if (sim.status !== 0) throw new Error(`upness simulate failed: ${sim.stderr}`);
  liveTrace = await startServe(['--trace', trace]);
  horizon = liveTrace.horizon;
  traceStart = Date.parse('2026-01-01T00:00:00Z');
});

afterAll(async () => {
  for (const child of children) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------
// Grafana's side: time ranges, intervals, template variables

/** `now`, `now-7d`, `now-30m` with "now" at the end of the trace. */
function relativeTime(text: string, now: number): number {
  const match = /^now(?:-(\d+)([smhdw]))?$/.exec(text);
  if (!match) throw new Error(`cannot map the time "${text}" onto the trace`);
  if (match[1] === undefined) return now;
  return now - parseDuration(`${match[1]}${match[2]}`)!;
}

/** Grafana's interval rounding (rangeutil.roundInterval), as far as it matters here. */
function roundInterval(ms: number): number {
  const table: [number, number][] = [
    [1_500, 1_000],
    [3_500, 2_000],
    [7_500, 5_000],
    [12_500, 10_000],
    [17_500, 15_000],
    [25_000, 20_000],
    [45_000, 30_000],
    [90_000, MINUTE],
    [210_000, 2 * MINUTE],
    [450_000, 5 * MINUTE],
    [750_000, 10 * MINUTE],
    [1_050_000, 15 * MINUTE],
    [1_500_000, 20 * MINUTE],
    [2_700_000, 30 * MINUTE],
    [5_400_000, HOUR],
    [9_000_000, 2 * HOUR],
    [16_200_000, 3 * HOUR],
    [32_400_000, 6 * HOUR],
    [DAY, 12 * HOUR],
  ];
  for (const [upTo, value] of table) if (ms <= upTo) return value;
  return DAY;
}

interface TimeContext {
  from: number;
  to: number;
  intervalMs: number;
  maxDataPoints: number;
}

/** What Grafana computes for a panel: its range, its point budget (its width) and its interval. */
function panelTime(dashboard: Json, panel: Json | null, now: number = horizon): TimeContext {
  const to = relativeTime(dashboard.time.to, now);
  let from = relativeTime(dashboard.time.from, now);
  if (panel?.timeFrom) from = to - parseDuration(panel.timeFrom)!;
  const width = panel?.gridPos ? Math.round((panel.gridPos.w / 24) * 1900) : 1900;
  const maxDataPoints = panel?.maxDataPoints ?? width;
  const minInterval = panel?.interval ? parseDuration(panel.interval) : null;
  const intervalMs = Math.max(roundInterval((to - from) / maxDataPoints), minInterval ?? 0);
  return { from, to, intervalMs, maxDataPoints };
}

/** A variable's selection: one value, several, or All (Grafana's `$__all`). */
interface VariableValue {
  value: string | string[];
  all: boolean;
  allValue?: string;
  /** Every value the variable lists (what All stands for without a custom all value). */
  options: string[];
}
type Variables = Record<string, VariableValue>;

type FormatFunction = (value: string | string[], variable: unknown, fallback: unknown) => string;

const escapeRegex = (s: string): string => s.replace(/[\\^$*+?.()|[\]{}/]/g, '\\$&');

/** Grafana's formats, as far as these files and the plugin use them. */
function formatValue(value: string | string[], format: string | FormatFunction | undefined): string {
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
function templateService(vars: Variables, time: TimeContext): { replace: (text: string, scopedVars?: unknown, format?: string | FormatFunction) => string } {
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

const GRAFANA_FIELDS = ['datasource', 'hide'];
const QUERY_MODEL_FIELDS = ['refId', 'queryType', 'metric', 'layer', 'namespaces', 'name', 'labelSelector', 'states', 'groupBy', 'aggregate', 'window', 'rolling', 'figures'];
/** The fields of an `slo` query (issue 13). */
QUERY_MODEL_FIELDS.push('objective', 'period', 'sloAnswer', 'burnWindow', 'shortWindow', 'burnFactor', 'budgetThreshold');

/**
 * The query as the Go plugin backend forwards it: the panel's target after the plugin replaced
 * its variables, plus refId, interval, point budget and the query's own time range.
 */
function forwarded(target: Json, refId: string, vars: Variables | null, time: TimeContext): Json {
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
function variableRequest(variable: Json, vars: Variables, time: TimeContext): { path: string; params: [string, string][] } {
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
async function resolveVariables(dashboard: Json, choose: Record<string, string>, at: Service = liveTrace): Promise<{ vars: Variables; listed: Record<string, string[]> }> {
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

function fieldNames(frames: Json[]): Set<string> {
  const names = new Set<string>();
  for (const f of frames) for (const field of f.schema.fields) names.add(field.name);
  return names;
}

function rowCount(frame: Json): number {
  return frame.data.values[0]?.length ?? 0;
}

/** Throws, naming the query, when the frames are not what its query type promises. */
function checkShape(what: string, query: Json, frames: Json[]): void {
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
function checkFieldReferences(what: string, panel: Json, frames: Json[]): void {
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
// Server-side expressions, as Grafana evaluates an alert rule

interface Instance {
  labels: Record<string, string>;
  value: number | null;
}

function reduce(values: (number | null)[], reducer: string, settings: Json): number | null {
  const mode = settings?.mode ?? '';
  let xs = values;
  if (mode === 'dropNN') xs = values.filter((v) => typeof v === 'number' && Number.isFinite(v));
  else if (mode === 'replaceNN') xs = values.map((v) => (typeof v === 'number' && Number.isFinite(v) ? v : settings.replaceWithValue));
  else if (values.some((v) => v === null)) return null;
  const nums = xs as number[];
  if (reducer === 'count') return nums.length;
  if (nums.length === 0) return null;
  switch (reducer) {
    case 'last':
      return nums[nums.length - 1]!;
    case 'mean':
      return nums.reduce((a, b) => a + b, 0) / nums.length;
    case 'sum':
      return nums.reduce((a, b) => a + b, 0);
    case 'min':
      return Math.min(...nums);
    case 'max':
      return Math.max(...nums);
    default:
      throw new Error(`reducer ${reducer} is not emulated here`);
  }
}

function threshold(value: number | null, evaluator: Json): number | null {
  if (value === null) return null;
  const [a, b] = evaluator.params as number[];
  switch (evaluator.type) {
    case 'gt':
      return value > a! ? 1 : 0;
    case 'lt':
      return value < a! ? 1 : 0;
    case 'within_range':
      return value > a! && value < b! ? 1 : 0;
    case 'outside_range':
      return value < a! || value > b! ? 1 : 0;
    default:
      throw new Error(`threshold type ${evaluator.type} is not emulated here`);
  }
}

/** The rule's Upness queries, for an evaluation at `now`, with refIds made unique by `tag`. */
function ruleQueries(rule: Json, now: number, tag: string): Json[] {
  return rule.data
    .filter((d: Json) => d.datasourceUid === DS_UID)
    .map((d: Json) => {
      const from = now - (d.relativeTimeRange?.from ?? 0) * 1000;
      const to = now - (d.relativeTimeRange?.to ?? 0) * 1000;
      // Grafana's defaults when the model sets none: 1 s and 43,200 points.
      const time = { from, to, intervalMs: d.model.intervalMs ?? 1000, maxDataPoints: d.model.maxDataPoints ?? 43_200 };
      return forwarded(d.model, `${d.refId}@${tag}`, null, time);
    });
}

/** Evaluates the rule's expressions over the answers; returns the condition's firing instances. */
function evaluateRule(rule: Json, results: Record<string, { status: number; frames?: Json[]; error?: string }>, tag: string, thresholdOverride?: number): Instance[] {
  const outputs: Record<string, Instance[]> = {};
  for (const d of rule.data) {
    if (d.datasourceUid === DS_UID) {
      const result = results[`${d.refId}@${tag}`];
      if (result?.status !== 200) throw new Error(`rule ${rule.uid}, query ${d.refId}: ${result?.status} ${result?.error}`);
      outputs[d.refId] = (result.frames ?? []).map((frame: Json) => ({ labels: frame.schema.fields[1].labels ?? {}, value: null, values: frame.data.values[1] }) as Json);
    } else if (d.model.type === 'reduce') {
      outputs[d.refId] = outputs[d.model.expression]!.map((s: Json) => ({
        labels: s.labels,
        value: s.values ? reduce(s.values, d.model.reducer, d.model.settings) : s.value,
      }));
    } else if (d.model.type === 'threshold') {
      const evaluator = { ...d.model.conditions[0].evaluator };
      if (thresholdOverride !== undefined) evaluator.params = [thresholdOverride];
      outputs[d.refId] = outputs[d.model.expression]!.map((s) => ({ labels: s.labels, value: threshold(s.value, evaluator) }));
    } else {
      throw new Error(`expression type ${d.model.type} is not emulated here`);
    }
  }
  return outputs[rule.condition]!.filter((s) => s.value === 1);
}

// ---------------------------------------------------------------------------------------------
// Structure of the files

describe('provisioning files', () => {
  it('are all here and parse', () => {
    expect(dashboards.map((d) => rel(d.path))).toEqual(
      expect.arrayContaining(['provisioning/dashboards/upness/fleet-overview.json', 'provisioning/dashboards/upness/jobset-detail.json']),
    );
    expect(ruleDocs.length).toBeGreaterThan(0);
    expect(datasourceFiles.length).toBe(1);
    expect(providerFiles.length).toBe(1);
  });

  it('provision the Upness data source from the environment', () => {
    const doc = readYaml(datasourceFiles[0]!);
    expect(doc.apiVersion).toBe(1);
    const ds = doc.datasources.find((d: Json) => d.uid === DS_UID);
    expect(ds).toMatchObject({ name: 'Upness', type: DS_TYPE, isDefault: true, access: 'proxy' });
    expect(ds.jsonData.url).toBe('${UPNESS_URL}');
    expect(ds.secureJsonData.token).toBe('${UPNESS_TOKEN}');
    // The Go backend reads jsonData.timeoutSeconds as a positive number of seconds.
    expect(ds.jsonData.timeoutSeconds).toBeGreaterThan(0);
  });

  it('load the dashboards from the folder that holds them, with the path Grafana expands, in the container and outside it', () => {
    const doc = readYaml(providerFiles[0]!);
    expect(doc.apiVersion).toBe(1);
    const [provider] = doc.providers;
    expect(provider).toMatchObject({ type: 'file', folder: 'Upness' });
    // In the container: the environment docker-compose.yaml gives Grafana, then its volumes.
    const env = composeGrafana.environment;
    const inContainer = grafanaExpand(provider.options.path, env);
    expect(inContainer).toBe(`${env.GF_PATHS_PROVISIONING}/dashboards/upness`);
    expect(filesUnder(hostPath(inContainer), ['.json']).sort()).toEqual(dashboardFiles);
    // Outside a container: a Grafana started with GF_PATHS_PROVISIONING at this folder (a fixed
    // /etc/grafana/... path would name a folder that does not exist there).
    expect(filesUnder(grafanaExpand(provider.options.path, { GF_PATHS_PROVISIONING: PROVISIONING }), ['.json']).sort()).toEqual(dashboardFiles);
    // Grafana's home dashboard is one of them, through the same mount.
    expect(dashboardFiles).toContain(hostPath(env.GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH));
  });

  it('put the alert rules and the dashboards in one folder, "Upness"', () => {
    // As Grafana provisions (alerting first): a rule group's folder is found by title, or created
    // with that title and a new uid; a dashboard provider's folder is found by folderUid when it
    // gives one (created with that uid and title if there is none), else by title.
    const folders: { uid: string; title: string }[] = [];
    const byTitle = (title: string): { uid: string; title: string } => {
      const found = folders.find((f) => f.title === title);
      if (found) return found;
      const created = { uid: `generated-${folders.length}`, title };
      folders.push(created);
      return created;
    };
    const ruleFolders = rules.map(({ group }) => byTitle(grafanaExpand(group.folder, {})).uid);
    const dashboardFolders = providerFiles.flatMap((f) =>
      readYaml(f).providers.map((p: Json) => {
        const title = grafanaExpand(p.folder, {});
        if (p.folderUid === undefined) return byTitle(title).uid;
        const found = folders.find((x) => x.uid === p.folderUid);
        if (found) return found.uid;
        folders.push({ uid: p.folderUid, title });
        return p.folderUid;
      }),
    );
    expect(folders.map((f) => f.title)).toEqual(['Upness']);
    expect(new Set([...ruleFolders, ...dashboardFolders]).size).toBe(1);
    // Nothing refers to the folder by a uid it does not have (links, rules, providers).
    for (const { json } of dashboards) expect([json.uid, JSON.stringify(json)]).not.toEqual([json.uid, expect.stringMatching(/folderUid|\/dashboards\/f\//)]);
    for (const { rule } of rules) expect([rule.uid, rule.folderUID ?? rule.folderUid]).toEqual([rule.uid, undefined]);
  });

  it('have a plugins folder Grafana reads without complaint (no app plugins: nothing to provision)', () => {
    // Grafana reads the *.yaml and *.yml files of provisioning/plugins and logs an error when the
    // folder is missing; each file is `apiVersion` and a list of `apps`, each with a `type`.
    const folder = join(PROVISIONING, 'plugins');
    expect(statSync(folder).isDirectory()).toBe(true);
    for (const file of filesUnder(folder, ['.yaml', '.yml'])) {
      const doc = readYaml(file);
      expect([rel(file), doc?.apiVersion]).toEqual([rel(file), 1]);
      for (const app of doc.apps ?? []) expect([rel(file), typeof app.type]).toEqual([rel(file), 'string']);
    }
    expect(readdirSync(folder)).toContain('README.md'); // says why it is empty
  });

  describe.each(dashboards.map((d) => [rel(d.path), d.json] as const))('%s', (_name, dashboard) => {
    it('is a dashboard Grafana loads as it is', () => {
      expect(dashboard.uid).toMatch(/^[a-z0-9-]{1,40}$/);
      expect(typeof dashboard.title).toBe('string');
      expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(39);
      expect(dashboard.time).toEqual({ from: 'now-7d', to: 'now' });
      expect(dashboard.id ?? null).toBeNull(); // provisioned dashboards get their id from Grafana
      const ids = panelsOf(dashboard).map((p) => p.id);
      expect(new Set(ids).size).toBe(ids.length);
    });

    it('lays its panels out on the grid without overlaps', () => {
      const cells = new Set<string>();
      for (const p of dashboard.panels) {
        const { x, y, w, h } = p.gridPos;
        expect(x + w).toBeLessThanOrEqual(24);
        for (let i = x; i < x + w; i++)
          for (let j = y; j < y + h; j++) {
            expect(cells.has(`${i},${j}`) ? `panel ${p.id} overlaps at ${i},${j}` : 'ok').toBe('ok');
            cells.add(`${i},${j}`);
          }
      }
    });

    it('queries the Upness data source by uid, with the fields of the query model only', () => {
      const variables = new Set((dashboard.templating?.list ?? []).map((v: Json) => v.name));
      for (const panel of panelsOf(dashboard)) {
        expect([panel.id, typeof panel.type, panel.title?.length > 0, typeof panel.description]).toEqual([panel.id, 'string', true, 'string']);
        expect([panel.id, panel.datasource]).toEqual([panel.id, { type: DS_TYPE, uid: DS_UID }]);
        expect(panel.targets.length).toBeGreaterThan(0);
        const refIds = panel.targets.map((t: Json) => t.refId);
        expect(new Set(refIds).size).toBe(refIds.length);
      }
      const targets = [...panelsOf(dashboard).flatMap((p) => p.targets), ...(dashboard.annotations?.list ?? []).filter((a: Json) => isUpness(a.datasource)).map((a: Json) => a.target)];
      for (const target of targets) {
        expect(Object.keys(target).filter((k) => !QUERY_MODEL_FIELDS.includes(k) && !GRAFANA_FIELDS.includes(k))).toEqual([]);
        if (target.datasource !== undefined) expect(target.datasource).toEqual({ type: DS_TYPE, uid: DS_UID });
        if (target.queryType !== undefined) expect(QUERY_TYPES).toContain(target.queryType);
        if (target.metric !== undefined) expect(METRICS).toContain(target.metric);
        if (target.layer !== undefined) expect(LAYERS).toContain(target.layer);
        if (target.aggregate !== undefined) expect(AGGREGATES).toContain(target.aggregate);
        if (target.window !== undefined) expect(WINDOWS).toContain(target.window);
        if (target.rolling !== undefined) expect(parseDuration(target.rolling)).not.toBeNull();
        if (target.groupBy !== undefined) expect([...GROUP_DIMENSIONS, 'label:']).toContain(target.groupBy.startsWith('label:') ? 'label:' : target.groupBy);
        for (const [, name] of JSON.stringify(target).matchAll(/\$\{?(\w+)/g)) expect(variables).toContain(name);
      }
    });

    it('takes its variables from the data source', () => {
      for (const variable of dashboard.templating?.list ?? []) {
        expect(variable).toMatchObject({ type: 'query', datasource: { type: DS_TYPE, uid: DS_UID } });
        expect(typeof variable.definition).toBe('string');
      }
    });
  });

  it('define alert rules with everything Grafana requires', () => {
    const uids = rules.map((r) => r.rule.uid);
    expect(uids).toEqual(expect.arrayContaining(['upness-jobset-down-10m', 'upness-jobset-uptime-ratio-24h', 'upness-jobset-mttr-24h']));
    expect(new Set(uids).size).toBe(uids.length);
    for (const { doc } of ruleDocs) expect(doc.apiVersion).toBe(1);
    for (const { group, rule } of rules) {
      expect(group).toMatchObject({ name: expect.any(String), folder: expect.any(String), interval: expect.stringMatching(/^\d+[smh]$/) });
      expect(rule).toMatchObject({ uid: expect.stringMatching(/^[a-zA-Z0-9-_]{1,40}$/), title: expect.any(String), condition: expect.any(String), for: expect.stringMatching(/^\d+[smh]$/) });
      expect(['NoData', 'Alerting', 'OK', 'KeepLast']).toContain(rule.noDataState);
      expect(['Error', 'Alerting', 'OK', 'KeepLast']).toContain(rule.execErrState);
      // Titles and labels go through environment-variable expansion when Grafana loads the file.
      expect(JSON.stringify([rule.title, rule.labels])).not.toContain('$');
      expect(rule.labels.severity).toMatch(/^(critical|warning|info)$/);
      expect(rule.annotations.summary).toContain('{{ $labels.jobset }}');
      const refIds = rule.data.map((d: Json) => d.refId);
      expect(new Set(refIds).size).toBe(refIds.length);
      expect(refIds).toContain(rule.condition);
      for (const d of rule.data) {
        expect(d.model.refId).toBe(d.refId);
        if (d.datasourceUid === '__expr__') {
          expect(['reduce', 'threshold', 'math']).toContain(d.model.type);
          expect(refIds.slice(0, refIds.indexOf(d.refId))).toContain(d.model.expression);
        } else {
          expect(d.datasourceUid).toBe(DS_UID);
          expect(d.relativeTimeRange.from).toBeGreaterThan(d.relativeTimeRange.to);
          // Grafana's default of 43,200 points is over the service's limit.
          expect(d.model.maxDataPoints).toBeLessThanOrEqual(LIMITS.maxPointsPerSeries);
          expect(d.model.groupBy).toBe('none'); // one instance per JobSet
          expect(Object.keys(d.model).filter((k) => !QUERY_MODEL_FIELDS.includes(k) && !GRAFANA_FIELDS.includes(k) && k !== 'intervalMs' && k !== 'maxDataPoints')).toEqual([]);
        }
      }
    }
  });
});

describe("Grafana's environment-variable expansion of provisioning files, as emulated here", () => {
  // Go's os.ExpandEnv, with A=/p; Grafana adds $$ (a literal $) and $__env{NAME}.
  it.each([
    ['${A}/x', '/p/x'],
    ['$A/x', '/p/x'],
    ['x$A-y', 'x/p-y'],
    ['$A.b', '/p.b'],
    ['${A}${A}', '/p/p'],
    ['${UNSET}', ''],
    ['${A:-default}', ''], // no shell defaults: the whole of "A:-default" is the name
    ['${}', ''],
    ['${A', 'A'],
    ['$1', ''],
    ['a$', 'a$'],
    ['$ x', '$ x'],
    ['$$A', '$A'],
    ['cost: $$5 for $A', 'cost: $5 for /p'],
    ['$__env{A}/x', '/p/x'],
    ['no variables', 'no variables'],
  ])('%j → %j', (text, expanded) => {
    expect(grafanaExpand(text, { A: '/p' })).toBe(expanded);
  });
});

// ---------------------------------------------------------------------------------------------
// Alert rule templates, rendered as Grafana renders them

/** One template to render: Grafana's template data (labels, captured values by refId). */
interface RenderCase {
  id: string;
  template: string;
  labels: Record<string, string>;
  /** refId → value; null stands for NaN (a refId without a value). */
  values: Record<string, { labels: Record<string, string>; value: number | null }>;
}

/**
 * Renders with Go's text/template as Grafana does (test/provisioning/render: the same data, the
 * same option missingkey=invalid, functions of the same names and behaviour).
 */
function renderTemplates(binary: string, cases: RenderCase[]): Map<string, { text?: string; error?: string }> {
  const run = spawnSync(binary, [], { input: JSON.stringify(cases), encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`the template renderer failed: ${run.stderr}`);
  return new Map((JSON.parse(run.stdout) as { id: string; text?: string; error?: string }[]).map((o) => [o.id, o]));
}

describe('alert rule annotations and labels, rendered with Go text/template as Grafana does', () => {
  // Built before any test by the service tier's globalSetup (test/support/prerequisites.ts).
  const binary = templateRenderer();

  it('the renderer behaves as Grafana: a missing label prints [no value], a missing value fails humanizeDuration', () => {
    const out = renderTemplates(binary, [
      { id: 'label', template: 'JobSet {{ $labels.jobset }}', labels: {}, values: {} },
      { id: 'value', template: '{{ humanizeDuration $values.B.Value }}', labels: {}, values: {} },
      { id: 'nan', template: '{{ humanizePercentage $values.B.Value }}', labels: {}, values: { B: { labels: {}, value: null } } },
      { id: 'ok', template: '{{ $labels.jobset }} {{ humanizeDuration $values.B.Value }} {{ humanizePercentage 0.8512 }} {{ $values.B }}', labels: { jobset: 'train' }, values: { B: { labels: {}, value: 3725 } } },
      { id: 'syntax', template: '{{ if $labels.jobset }}no end', labels: {}, values: {} },
    ]);
    expect(out.get('label')).toEqual({ id: 'label', text: 'JobSet [no value]' });
    expect(out.get('value')!.error).toMatch(/error calling humanizeDuration: can't convert <nil> to float/);
    expect(out.get('nan')).toEqual({ id: 'nan', text: 'NaN%' });
    expect(out.get('ok')).toEqual({ id: 'ok', text: 'train 1h 2m 5s 85.12% 3725' });
    expect(out.get('syntax')!.error).toMatch(/unexpected EOF/);
  });

  it('read right for a firing JobSet, for a JobSet without a value, and for the service down', async () => {
    const cases: RenderCase[] = [];
    const expectations: { id: string; rule: Json; kind: 'firing' | 'no value' | 'service down'; instance?: Record<string, string>; value?: number }[] = [];
    for (const { rule: r } of rules) {
      // A real instance: the labels and values of a series of the rule, at the first hour of the
      // trace when it has one with a value.
      const times: number[] = [];
      for (let t = traceStart + DAY; t <= horizon; t += HOUR) times.push(t);
      const results = await runQueries(times.flatMap((t, i) => ruleQueries(r, t, `t${i}`)));
      const frame = times
        .flatMap((_, i) => results[`A@t${i}`]!.frames!)
        .find((f: Json) => f.data.values[1].some((v: unknown) => typeof v === 'number'));
      expect([r.uid, frame === undefined]).toEqual([r.uid, false]);
      const instance: Record<string, string> = frame.schema.fields[1].labels;
      const reduceB = r.data.find((d: Json) => d.refId === 'B');
      const value = reduce(frame.data.values[1], reduceB.model.reducer, reduceB.model.settings)!;
      const threshold_ = threshold(value, r.data.find((d: Json) => d.refId === 'C').model.conditions[0].evaluator)!;
      // Grafana's DatasourceError alert: the rule's labels and these, no JobSet labels, no values.
      const serviceDown = { ...r.labels, alertname: 'DatasourceError', datasource_uid: DS_UID, ref_id: 'A', rulename: r.title };
      const templates: [string, string][] = [
        ...Object.entries<string>(r.annotations ?? {}),
        ...Object.entries<string>(r.labels ?? {}).map(([k, v]): [string, string] => [`label:${k}`, v]),
      ];
      for (const [name, template] of templates) {
        const id = (kind: string): string => `${r.uid}/${name}/${kind}`;
        cases.push(
          { id: id('firing'), template, labels: { ...r.labels, ...instance }, values: { B: { labels: instance, value }, C: { labels: instance, value: threshold_ } } },
          { id: id('no value'), template, labels: { ...r.labels, ...instance }, values: {} },
          { id: id('service down'), template, labels: serviceDown, values: {} },
        );
        expectations.push({ id: id('firing'), rule: r, kind: 'firing', instance, value }, { id: id('no value'), rule: r, kind: 'no value', instance }, { id: id('service down'), rule: r, kind: 'service down' });
      }
    }
    const out = renderTemplates(binary, cases);
    for (const e of expectations) {
      const { text, error } = out.get(e.id)!;
      // Never an error (Grafana would log it and show the raw template), a missing value or raw template text.
      expect([e.id, error]).toEqual([e.id, undefined]);
      expect([e.id, text]).not.toEqual([e.id, expect.stringMatching(/no value|\{\{|\}\}|NaN|<nil>/)]);
      const name = e.id.split('/')[1]!;
      if (name === 'summary' || name === 'description') {
        if (e.kind === 'service down') {
          // A service outage reads as one, and claims nothing about any JobSet.
          expect([e.id, text]).toEqual([e.id, expect.stringMatching(/Upness (service|data source)/)]);
          expect([e.id, text]).not.toEqual([e.id, expect.stringMatching(/JobSet \S+\/\S+|has been down|was up \d|takes \d/)]);
          if (name === 'description') expect([e.id, text]).toEqual([e.id, expect.stringMatching(/^This is not a JobSet outage/)]);
        } else {
          expect([e.id, text]).toEqual([e.id, expect.stringContaining(`${e.instance!.namespace}/${e.instance!.jobset}`)]);
          expect([e.id, text]).not.toEqual([e.id, expect.stringMatching(/Upness service/)]);
        }
      }
      if (name === 'dashboard_url') {
        if (e.kind === 'service down') expect(text).toBe('/connections/datasources/edit/upness');
        else expect(text).toBe(`/d/upness-jobset-detail/jobset-detail?var-namespace=${e.instance!.namespace}&var-jobset=${e.instance!.jobset}`);
      }
    }
    // The figure itself, humanized, is in each firing summary that shows one.
    const firing = (uid: string): string => out.get(`${uid}/summary/firing`)!.text!;
    const ratio = expectations.find((e) => e.id === 'upness-jobset-uptime-ratio-24h/summary/firing')!.value!;
    expect(firing('upness-jobset-uptime-ratio-24h')).toContain(`was up ${Number((ratio * 100).toPrecision(4))}%`);
    expect(firing('upness-jobset-mttr-24h')).toMatch(/takes (\d+d )?(\d+h )?(\d+m )?[\d.]+m?s on average to recover$/);
  });

  it('are annotations Grafana does not expand environment variables in (nothing in ${...} or $$)', () => {
    for (const { rule: r } of rules) for (const [name, text] of Object.entries(r.annotations ?? {})) expect([r.uid, name, text]).not.toEqual([r.uid, name, expect.stringMatching(/\$\{|\$\$/)]);
  });
});

// ---------------------------------------------------------------------------------------------
// Every query, against the live service

/**
 * Sends every panel target and annotation query of the dashboard as Grafana would, with these
 * variables, and checks each answer: status 200, the shape its query type promises, and the field
 * names its panel refers to. Node-layer answers go to `nodeLayer` instead of the shape check.
 */
async function runDashboard(
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
    checkShape(what, query, result!.frames!);
    if (panel !== null) framesByPanel.set(panel, [...(framesByPanel.get(panel) ?? []), ...result!.frames!]);
  }
  for (const [panel, frames] of framesByPanel) checkFieldReferences(`panel "${panel.title}"`, panel, frames);
}

describe('every dashboard query, against a live service', () => {
  /** The JobSet a user would open the detail dashboard for: the most interrupted one in the range. */
  async function mostInterrupted(dashboard: Json): Promise<{ namespace: string; name: string }> {
    const time = panelTime(dashboard, null);
    const { jobsets } = await get('/api/v1/jobsets', [
      ['from', String(time.from)],
      ['to', String(time.to)],
    ]);
    const counts = new Map<string, number>();
    for (const j of jobsets) counts.set(`${j.namespace}/${j.name}`, (counts.get(`${j.namespace}/${j.name}`) ?? 0) + j.interruptions);
    const [best] = [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    const [namespace, name] = best![0].split('/') as [string, string];
    return { namespace, name };
  }

  it.each(dashboards.map((d) => [rel(d.path), d.json] as const))('%s', async (_name, dashboard) => {
    const choice = await mostInterrupted(dashboard);
    const { vars, listed } = await resolveVariables(dashboard, { namespace: choice.namespace, jobset: choice.name });
    for (const [name, v] of Object.entries(vars)) if (!v.all) expect(listed[name]).toContain(v.value); // the chosen JobSet is listed
    await runDashboard(dashboard, vars, listed, liveTrace, (what, query, frames) => {
      // A simulated trace holds no Pods or Nodes, so the node layer answers with no series; what
      // it returns for a real cluster is tested against the real apiserver (test/kube).
      for (const frame of frames) checkShape(what, query, [frame]);
    });
  });

  it('expands All and multi-value selections into queries the service answers in full', async () => {
    const fleet = dashboards.find((d) => d.json.uid === 'upness-fleet-overview')!.json;
    const { vars, listed } = await resolveVariables(fleet, {});
    const time = panelTime(fleet, null);
    const target = { refId: 'A', queryType: 'summary', namespaces: ['$namespace'], name: '$jobset' };
    // All is the custom all value `*`: no namespace filter and every name, so the query stays short
    // however many JobSets there are, and takes in those created after the variables were loaded.
    const all = forwarded(target, 'all', vars, time);
    expect([all.namespaces, all.name]).toEqual([[], '*']);
    // The same rows as the explicit list of every namespace and name would give.
    const listedAll = { ...vars, namespace: { ...vars.namespace!, all: false, value: listed.namespace! }, jobset: { ...vars.jobset!, all: false, value: listed.jobset! } };
    const explicit = forwarded(target, 'explicit', listedAll, time);
    expect(explicit.namespaces).toEqual(listed.namespace);
    // Two JobSets of one namespace: the plugin turns the names into one regular expression.
    const namespace = listed.namespace![0]!;
    const two = (await get('/api/v1/values/jobsets', [['namespace', namespace]])).values.slice(0, 2);
    const some = forwarded(target, 'some', { ...vars, namespace: { ...vars.namespace!, all: false, value: [namespace] }, jobset: { ...vars.jobset!, all: false, value: two } }, time);
    const results = await runQueries([all, some]);
    const rows = (refId: string): string[] => {
      const frame = results[refId]!.frames![0];
      const column = (name: string): string[] => frame.data.values[frame.schema.fields.findIndex((f: Json) => f.name === name)];
      return column('uid').map((uid, i) => `${column('namespace')[i]}/${column('name')[i]}/${uid}`).sort();
    };
    expect(rows('all').length).toBeGreaterThan(0);
    expect(new Set(rows('some').map((r) => r.split('/').slice(0, 2).join('/')))).toEqual(new Set(two.map((n: string) => `${namespace}/${n}`)));
    // Listing every name instead would make a pattern longer than the service takes (1,000
    // characters): that is why $jobset has a custom all value.
    expect(explicit.name.length).toBeGreaterThan(1000);
  });
});

describe('every dashboard on the service `npm start` runs (the simulated cluster), as Grafana opens it', () => {
  let simulated: Service;
  beforeAll(async () => {
    // `upness serve` with no kubeconfig and no trace: the simulated cluster, smaller than the
    // default but with more history than the dashboards' 7 days, so that names which did not live
    // in their range are kept too (the first of them alphabetically has nothing to show).
    simulated = await startServe(['--jobsets', '6', '--history-days', '10', '--seed', '3']);
  });

  it.each(dashboards.map((d) => [rel(d.path), d.json] as const))('%s: every panel answers, with data or an explained empty state', async (_name, dashboard) => {
    // The saved selection: All where the variable offers it, else the first value listed for the
    // dashboard's range (what Grafana picks for a variable with no current value); the detail
    // dashboard therefore opens on a JobSet that lived in its range, and every panel has data.
    const { vars, listed } = await resolveVariables(dashboard, {}, simulated);
    let nodePanels = 0;
    await runDashboard(dashboard, vars, listed, simulated, (what, query, frames) => {
      // This source has no node layer: one empty frame whose notice says why, never an error.
      nodePanels++;
      expect([what, frames]).toEqual([
        what,
        [{ schema: { name: 'node layer', refId: query.refId, meta: { notices: [{ severity: 'info', text: expect.stringMatching(/simulated cluster, has JobSets only/) }] }, fields: [] }, data: { values: [] } }],
      ]);
    });
    expect(nodePanels).toBe(panelsOf(dashboard).filter((p) => p.targets.some((t: Json) => t.layer === 'nodes')).length);
  });
});

describe('template variables over the dashboard\'s time range', () => {
  it('list exactly the names of the JobSets that lived in the range, not every name kept', async () => {
    const detail = dashboards.find((d) => d.json.uid === 'upness-jobset-detail')!.json;
    for (const [from, to] of [
      [traceStart, traceStart + 6 * HOUR],
      [horizon - 2 * HOUR, horizon],
      [traceStart, horizon],
    ] as const) {
      const time = { from, to, intervalMs: MINUTE, maxDataPoints: 1000 };
      const { jobsets } = await get('/api/v1/jobsets', [
        ['from', String(from)],
        ['to', String(to)],
      ]);
      const truth = [...new Set<string>(jobsets.map((j: Json) => j.namespace))].sort();
      const namespaceVar = detail.templating.list.find((v: Json) => v.name === 'namespace');
      const { path, params } = variableRequest(namespaceVar, {}, time);
      expect((await get(path, params)).values).toEqual(truth);
      for (const namespace of truth) {
        const jobsetVar = detail.templating.list.find((v: Json) => v.name === 'jobset');
        const request = variableRequest(jobsetVar, { namespace: { value: namespace, all: false, options: truth } }, time);
        const names = [...new Set<string>(jobsets.filter((j: Json) => j.namespace === namespace).map((j: Json) => j.name))].sort();
        expect([namespace, (await get(request.path, request.params)).values]).toEqual([namespace, names]);
      }
    }
    // The first six hours list fewer names than the whole trace keeps.
    const all: string[] = (await get('/api/v1/values/jobsets')).values;
    const early: string[] = (await get('/api/v1/values/jobsets', [['from', String(traceStart)], ['to', String(traceStart + 6 * HOUR)]])).values;
    expect(early.length).toBeGreaterThan(0);
    expect(early.length).toBeLessThan(all.length);
  });

  it('are refreshed when the time range changes (refresh: 2), so they follow it', () => {
    for (const { json } of dashboards) for (const variable of json.templating?.list ?? []) expect([json.uid, variable.name, variable.refresh]).toEqual([json.uid, variable.name, 2]);
  });
});

// ---------------------------------------------------------------------------------------------
// The alert rules, evaluated

describe('alert rules, evaluated against a live service', () => {
  const rule = (uid: string): Json => rules.find((r) => r.rule.uid === uid)!.rule;

  it('answer at the end of the trace with one labelled series per JobSet', async () => {
    for (const { rule: r } of rules) {
      const results = await runQueries(ruleQueries(r, horizon, 'now'));
      for (const [refId, result] of Object.entries(results)) {
        expect([r.uid, refId, result.status, result.error]).toEqual([r.uid, refId, 200, undefined]);
        for (const frame of result.frames!) {
          expect(frame.schema.fields.map((f: Json) => f.type)).toEqual(['time', 'number']);
          // The SLO rules: one instance per JobSet name, across its recreations (no uid).
          expect(Object.keys(frame.schema.fields[1].labels).sort()).toEqual(r.labels.slo === 'true' ? ['jobset', 'namespace'] : ['jobset', 'namespace', 'uid']);
        }
      }
      evaluateRule(r, results, 'now'); // every expression can be evaluated
    }
    // Twelve JobSets run at the end of the trace: the ratio rule has a series for each that is up or down.
    const ratio = await runQueries(ruleQueries(rule('upness-jobset-uptime-ratio-24h'), horizon, 'now'));
    expect(ratio['A@now']!.frames!.length).toBeGreaterThan(0);
  });

  it('fire "down for more than 10 minutes" exactly when a JobSet has been down (not provisioning) for 10 minutes', async () => {
    const r = rule('upness-jobset-down-10m');
    // Every timeline's intervals, the truth the rule must match.
    const { jobsets } = await get('/api/v1/jobsets', [
      ['from', String(traceStart)],
      ['to', String(horizon)],
    ]);
    const names = [...new Set<string>(jobsets.map((j: Json) => `${j.namespace}/${j.name}`))];
    const timelines: { uid: string; intervals: { state: string; from: number; to: number }[] }[] = [];
    for (const name of names) {
      for (const tl of (await get(`/api/v1/jobsets/${name}`)).timelines) {
        timelines.push({
          uid: tl.uid,
          intervals: tl.intervals.map((iv: Json) => ({ state: iv.state, from: Date.parse(iv.from), to: iv.to === null ? Infinity : Date.parse(iv.to) })),
        });
      }
    }
    const downs = timelines.flatMap((tl) => tl.intervals.filter((iv) => iv.state === 'down'));
    const provisioning = timelines.flatMap((tl) => tl.intervals.filter((iv) => iv.state === 'provisioning' && iv.to - iv.from > 11 * MINUTE));
    expect(downs.filter((iv) => iv.to - iv.from > 11 * MINUTE).length).toBeGreaterThan(0); // the trace has long outages
    expect(provisioning.length).toBeGreaterThan(0); // and long provisioning, which must not fire

    // Evaluate 9 and 10.5 minutes into every down period, and 10.5 minutes into long provisioning.
    const times = [
      ...downs.flatMap((iv) => [iv.from + 9 * MINUTE, iv.from + 10.5 * MINUTE]),
      ...provisioning.map((iv) => iv.from + 10.5 * MINUTE),
    ].filter((t) => t < horizon);
    const expected = (t: number): string[] =>
      timelines
        .filter((tl) => {
          const now = tl.intervals.find((iv) => iv.from <= t && t < iv.to);
          if (now?.state !== 'down') return false;
          const up = tl.intervals.filter((iv) => iv.state === 'up').reduce((sum, iv) => sum + Math.max(0, Math.min(iv.to, t) - Math.max(iv.from, t - 10 * MINUTE)), 0);
          return up < 1000;
        })
        .map((tl) => tl.uid)
        .sort();

    const results = await runQueries(times.flatMap((t, i) => ruleQueries(r, t, `t${i}`)));
    let fired = 0;
    times.forEach((t, i) => {
      const firing = evaluateRule(r, results, `t${i}`).map((s) => s.labels.uid!).sort();
      expect([new Date(t).toISOString(), firing]).toEqual([new Date(t).toISOString(), expected(t)]);
      fired += firing.length;
    });
    expect(fired).toBeGreaterThan(0);
  });

  // The SLO pair, against the truth of the intervals: per JobSet name (every UID of the name),
  // written down independently of the service's SLO code. At objective o over period P, a burn
  // window w and a short window s, the rule fires when
  //   down(t − w, t] ÷ ((1 − o) × (up + down)(t − P, t]) ≥ min(threshold, w ÷ 2 ÷ ((1 − o) × P))
  // and down(t − s, t] > 0, where down is provisioning and down time (suspended, unknown and
  // terminal time count for neither).
  it.each([
    ['upness-jobset-slo-fast-burn', { objective: 0.95, period: 28 * DAY, window: HOUR, short: 5 * MINUTE, threshold: 0.02 }],
    ['upness-jobset-slo-slow-burn', { objective: 0.95, period: 28 * DAY, window: 3 * DAY, short: 6 * HOUR, threshold: 0.1 }],
  ] as const)('%s fires for the JobSet names the truth says, every 3 hours of the trace', async (uid, intended) => {
    const r = rule(uid);
    const { jobsets } = await get('/api/v1/jobsets', [
      ['from', String(traceStart)],
      ['to', String(horizon)],
    ]);
    const names = [...new Set<string>(jobsets.map((j: Json) => `${j.namespace}/${j.name}`))].sort();
    const byName = new Map<string, { state: string; from: number; to: number }[]>();
    for (const name of names) {
      const { timelines } = await get(`/api/v1/jobsets/${name}`);
      byName.set(
        name,
        timelines.flatMap((tl: Json) => tl.intervals.map((iv: Json) => ({ state: iv.state, from: Date.parse(iv.from), to: iv.to === null ? Infinity : Date.parse(iv.to) }))),
      );
    }
    const within = (ivs: { state: string; from: number; to: number }[], states: string[], a: number, b: number): number =>
      ivs.filter((iv) => states.includes(iv.state)).reduce((sum, iv) => sum + Math.max(0, Math.min(iv.to, b) - Math.max(iv.from, a)), 0);
    const DOWN = ['provisioning', 'down'];
    const held = Math.min(intended.threshold, intended.window / 2 / ((1 - intended.objective) * intended.period));
    const expected = (t: number): string[] =>
      names.filter((name) => {
        const ivs = byName.get(name)!;
        const counted = within(ivs, ['up', ...DOWN], t - intended.period, t);
        if (counted === 0) return false;
        const consumed = within(ivs, DOWN, t - intended.window, t) / ((1 - intended.objective) * counted);
        return consumed >= held && within(ivs, DOWN, t - intended.short, t) > 0;
      });
    const times: number[] = [];
    for (let t = traceStart + 3 * HOUR; t < horizon; t += 3 * HOUR) times.push(t);
    times.push(horizon);
    const results = await runQueries(times.flatMap((t, i) => ruleQueries(r, t, `t${i}`)));
    let fired = 0;
    let quiet = 0;
    times.forEach((t, i) => {
      const firing = evaluateRule(r, results, `t${i}`).map((x) => `${x.labels.namespace}/${x.labels.jobset}`).sort();
      expect([new Date(t).toISOString(), firing]).toEqual([new Date(t).toISOString(), expected(t)]);
      fired += firing.length;
      quiet += names.length - firing.length;
    });
    // It has teeth both ways: it fires on this trace, and stays quiet for most names most of the time.
    expect(fired).toBeGreaterThan(0);
    expect(quiet).toBeGreaterThan(fired);
  });

  /** What each rule is meant to do, written down independently of the rule file. */
  const INTENDED: Record<string, { metric: string; states: string[]; seconds: number; type: 'lt' | 'gt'; limit: number }> = {
    // Down now (not provisioning) and up for less than a second in the last 10 minutes.
    'upness-jobset-down-10m': { metric: 'upSeconds', states: ['down'], seconds: 600, type: 'lt', limit: 1 },
    // Up or down now (not provisioning, suspended or ended), uptime ratio over 24 h below 0.9.
    'upness-jobset-uptime-ratio-24h': { metric: 'uptimeRatio', states: ['up', 'down'], seconds: 86_400, type: 'lt', limit: 0.9 },
    // Still there (not completed, failed or deleted), MTTR over 24 h above 30 minutes.
    'upness-jobset-mttr-24h': { metric: 'mttrSeconds', states: ['provisioning', 'up', 'down', 'suspended', 'unknown'], seconds: 86_400, type: 'gt', limit: 1800 },
  };

  it.each(Object.keys(INTENDED).map((uid) => [uid]))('%s fires for the JobSets it is meant for, every 6 hours of the trace', async (uid) => {
    // The truth from GET /api/v1/jobsets: every JobSet's figures over the rule's range, in the
    // states the rule is about. When the threshold is never crossed in this trace, the check is
    // repeated with a threshold some JobSets cross, so that it has teeth.
    const r = rule(uid);
    const intended = INTENDED[uid]!;
    const times: number[] = [];
    for (let t = traceStart + DAY; t < horizon; t += 6 * HOUR) times.push(t);
    times.push(horizon);
    const truths: { uid: string; value: number | null }[][] = await Promise.all(
      times.map(async (t) => {
        const { jobsets } = await get('/api/v1/jobsets', [
          ['from', String(t - intended.seconds * 1000)],
          ['to', String(t)],
          ...intended.states.map((state) => ['state', state] as [string, string]),
        ]);
        return jobsets.map((j: Json) => ({ uid: j.uid as string, value: j[intended.metric] as number | null }));
      }),
    );
    const results = await runQueries(times.flatMap((t, i) => ruleQueries(r, t, `t${i}`)));

    const check = (limit: number, override?: number): number => {
      let fired = 0;
      times.forEach((t, i) => {
        const firing = evaluateRule(r, results, `t${i}`, override).map((s) => s.labels.uid!).sort();
        const want = truths[i]!.filter((j) => threshold(j.value, { type: intended.type, params: [limit] }) === 1).map((j) => j.uid).sort();
        expect([new Date(t).toISOString(), firing]).toEqual([new Date(t).toISOString(), want]);
        fired += firing.length;
      });
      return fired;
    };
    if (check(intended.limit) === 0) {
      const values = truths.flat().map((j) => j.value).filter((v): v is number => v !== null).sort((a, b) => a - b);
      expect(values.length).toBeGreaterThan(0);
      const median = values[Math.floor(values.length / 2)]!;
      expect(check(median, median)).toBeGreaterThan(0);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// What cannot run here: the compose file and the image

describe('docker-compose.yaml and backend/Dockerfile (not runnable here: checked statically)', () => {
  const compose = readYaml(join(ROOT, 'docker-compose.yaml'));
  const dockerfile = readFileSync(join(ROOT, 'backend', 'Dockerfile'), 'utf8');
  const dockerignore = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));

  it('runs a pinned Grafana with the plugin, the provisioning and the service', () => {
    const { grafana, upness } = compose.services;
    expect(grafana.image).toMatch(/^grafana\/grafana:(\$\{GRAFANA_VERSION:-)?12\.\d+\.\d+\}?$/);
    // The whole of provisioning/ (datasources, dashboards, alerting, plugins), where Grafana reads it.
    expect(grafana.volumes).toEqual(expect.arrayContaining(['./dist:/var/lib/grafana/plugins/upness-jobset-datasource', './provisioning:/etc/grafana/provisioning:ro']));
    expect(hostPath(grafana.environment.GF_PATHS_PROVISIONING)).toBe(PROVISIONING);
    expect(grafana.environment.GF_PLUGINS_ALLOW_LOADING_UNSIGNED_PLUGINS).toBe(DS_TYPE);
    expect(grafana.environment.GF_AUTH_ANONYMOUS_ENABLED).toBe('true');
    expect(grafana.environment.GF_AUTH_ANONYMOUS_ORG_ROLE).toBe('Admin');
    expect(grafana.ports).toContain('3000:3000');
    // The data source provisioning reads these two; the token is the service's own.
    expect(grafana.environment.UPNESS_URL).toMatch(/^(\$\{UPNESS_URL:-)?http:\/\/upness:8080\}?$/);
    expect(grafana.environment.UPNESS_TOKEN).toBe(upness.environment.UPNESS_TOKEN);
    expect(upness.build).toEqual({ context: '.', dockerfile: 'backend/Dockerfile' });
    expect(upness.ports).toContain('8080:8080');
    expect(grafana.depends_on.upness.condition).toBe('service_healthy');
  });

  it('builds the service image from the workspace, without dev dependencies, as a non-root user', () => {
    expect(dockerfile).toMatch(/^FROM node:22-slim AS \w+$/m);
    expect(dockerfile).toMatch(/npm ci --omit=dev -w backend/);
    expect(dockerfile).toMatch(/^USER (?!root)\w+$/m);
    expect(dockerfile).toMatch(/^ENTRYPOINT \["node", "backend\/bin\/upness\.js"\]$/m);
    expect(dockerfile).toMatch(/^CMD \["serve"\]$/m);
    expect(dockerfile).toMatch(/^EXPOSE 8080$/m);
    expect(dockerfile).toMatch(/^HEALTHCHECK [\s\S]*?\/healthz/m);
    expect(dockerfile).toMatch(/^VOLUME \/var\/lib\/upness$/m);
    expect(dockerignore).toEqual(expect.arrayContaining(['node_modules', 'dist', '.git']));
    // Every file the image copies from the build context exists and is not ignored.
    for (const [, sources] of dockerfile.matchAll(/^COPY (?!--from)(?:--\S+ )*(.+) \S+$/gm)) {
      for (const source of sources!.split(/\s+/)) {
        expect([source, existsSync(join(ROOT, source))]).toEqual([source, true]);
        expect(dockerignore).not.toContain(source.replace(/\/$/, ''));
      }
    }
  });

  it('has every package the service imports among the backend dependencies that npm ci installs', () => {
    const dependencies = Object.keys(readJson(join(ROOT, 'backend', 'package.json')).dependencies ?? {});
    const sources = filesUnder(join(ROOT, 'backend', 'src'), ['.ts']).filter((f) => !f.endsWith('.test.ts'));
    const imported = new Set<string>();
    for (const file of sources) {
      for (const [, spec] of readFileSync(file, 'utf8').matchAll(/^\s*(?:import|export)\s[^'"]*?from\s+'([^']+)'/gm)) {
        if (spec!.startsWith('.')) {
          // The image holds backend/ only: the service must not import from elsewhere.
          expect([rel(file), spec, join(file, '..', spec!).startsWith(join(ROOT, 'backend'))]).toEqual([rel(file), spec, true]);
        } else if (!spec!.startsWith('node:')) {
          imported.add(spec!.startsWith('@') ? spec!.split('/').slice(0, 2).join('/') : spec!.split('/')[0]!);
        }
      }
    }
    expect([...imported].filter((p) => !dependencies.includes(p))).toEqual([]);
  });
});
