// The provisioned Grafana files (provisioning/), checked against a live Upness service (service tier;
// the files themselves are checked in provisioning.static.test.ts, every panel on the fleet `npm start`
// serves in panels.live.test.ts).
//
// Every query the dashboards and alert rules send to the Upness data source is extracted, its
// template variables are replaced by the plugin's own code (src/interpolate.ts) over a stand-in
// for Grafana's template service, and it is sent to a real `upness serve` replaying a simulated
// trace (2026-01-01 → 2026-01-04) the way the Go plugin backend forwards it; the answer must have
// the shape its panel or rule needs. The alert rules are also evaluated (reduce and threshold, as
// Grafana's server-side expressions do) and the instances that fire are compared with the truth:
// the JobSets' own intervals, and their figures from GET /api/v1/jobsets. docker-compose.yaml and
// backend/Dockerfile cannot run here (no Docker engine): they are checked statically.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { templateRenderer } from '../support/prerequisites.ts';
import { dashboards, DAY, DS_UID, HOUR, MINUTE, NODE, rel, rules, UPNESS, type Json } from './files.ts';
import { checkShape, forwarded, loadPlugin, panelTime, resolveVariables, runDashboard, startServe, stopServices, variableRequest, type Results, type Service } from './grafana.ts';

let dir = '';
let traceStart = 0;

/** The service replaying a simulated trace (2026-01-01 → 2026-01-04), which most tests below query. */
let liveTrace: Service;
let horizon = 0;
const get = (path: string, params: [string, string][] = []): Promise<Json> => liveTrace.get(path, params);
const runQueries = (queries: Json[]): Promise<Results> => liveTrace.runQueries(queries);

/** A node-pool rule (label layer: nodepools) asks about pools, not JobSets. */
const isPoolRule = (rule: Json): boolean => rule.labels?.layer === 'nodepools';

// The node pools' trace: Nodes alone, drawn by hand (minutes after 2026-01-01T00:00Z), and its truth.
//   gpu-a    (a1, a2)  up 1 ─ down 60 (a2 NotReady) ─ up 90 ─ down 200 (a1 NotReady) ─ up 205 ─ 300
//   slice-b  (b1, b2: a 2x2x2 TPU slice, 4 chips a host)  up 1 ─ down 120 (b1 deleted) ─ up 150 (b3 Ready) ─ 300
const POOL_T0 = Date.parse('2026-01-01T00:00:00Z');
const POOL_DOWNS: Record<string, [number, number][]> = { 'gpu-a': [[60, 90], [200, 205]], 'slice-b': [[120, 150]] };
function poolTraceLines(): string[] {
  const at = (m: number): number => POOL_T0 + m * MINUTE;
  const node = (name: string, pool: string, ready: string, since: number): Json => ({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      uid: `uid-${name}`,
      creationTimestamp: new Date(at(0)).toISOString(),
      labels: { 'cloud.google.com/gke-nodepool': pool, ...(pool === 'slice-b' ? { 'cloud.google.com/gke-tpu-topology': '2x2x2', 'cloud.google.com/gke-tpu-accelerator': 'tpu-v5p-slice' } : {}) },
    },
    status: { capacity: pool === 'slice-b' ? { 'google.com/tpu': '4' } : {}, conditions: [{ type: 'Ready', status: ready, lastTransitionTime: new Date(at(since)).toISOString() }] },
  });
  const events: [number, string, Json][] = [
    [0, 'ADDED', node('a1', 'gpu-a', 'False', 0)],
    [0, 'ADDED', node('a2', 'gpu-a', 'False', 0)],
    [0, 'ADDED', node('b1', 'slice-b', 'False', 0)],
    [0, 'ADDED', node('b2', 'slice-b', 'False', 0)],
    [1, 'MODIFIED', node('a1', 'gpu-a', 'True', 1)],
    [1, 'MODIFIED', node('a2', 'gpu-a', 'True', 1)],
    [1, 'MODIFIED', node('b1', 'slice-b', 'True', 1)],
    [1, 'MODIFIED', node('b2', 'slice-b', 'True', 1)],
    [60, 'MODIFIED', node('a2', 'gpu-a', 'Unknown', 60)],
    [90, 'MODIFIED', node('a2', 'gpu-a', 'True', 90)],
    [120, 'DELETED', node('b1', 'slice-b', 'True', 1)],
    [140, 'ADDED', node('b3', 'slice-b', 'False', 140)],
    [150, 'MODIFIED', node('b3', 'slice-b', 'True', 150)],
    [200, 'MODIFIED', node('a1', 'gpu-a', 'Unknown', 200)],
    [205, 'MODIFIED', node('a1', 'gpu-a', 'True', 205)],
    [300, 'MODIFIED', node('a1', 'gpu-a', 'True', 205)],
  ];
  return events.map(([m, type, object]) => JSON.stringify({ time: new Date(at(m)).toISOString(), type, object }));
}
let livePools: Service;

beforeAll(async () => {
  await loadPlugin();
  dir = mkdtempSync(join(tmpdir(), 'upness-provisioning-'));
  const trace = join(dir, 'fleet.jsonl');
  const sim = spawnSync(NODE, [UPNESS, 'simulate', '--jobsets', '12', '--days', '3', '--seed', '5', '--out', trace], { encoding: 'utf8' });
  if (sim.status !== 0) throw new Error(`upness simulate failed: ${sim.stderr}`);
  liveTrace = await startServe(['--trace', trace]);
  horizon = liveTrace.horizon;
  const poolTrace = join(dir, 'pools.jsonl');
  writeFileSync(poolTrace, poolTraceLines().join('\n') + '\n');
  livePools = await startServe(['--trace', poolTrace]);
  traceStart = Date.parse('2026-01-01T00:00:00Z');
});

afterAll(async () => {
  await stopServices();
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
});

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
      // trace when it has one with a value (a node-pool rule: every 5 minutes of the pools' trace).
      const times: number[] = [];
      if (isPoolRule(r)) for (let t = POOL_T0 + 5 * MINUTE; t <= livePools.horizon; t += 5 * MINUTE) times.push(t);
      else for (let t = traceStart + DAY; t <= horizon; t += HOUR) times.push(t);
      const results = await (isPoolRule(r) ? livePools : liveTrace).runQueries(times.flatMap((t, i) => ruleQueries(r, t, `t${i}`)));
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
          // A service outage reads as one, and claims nothing about any JobSet or pool.
          expect([e.id, text]).toEqual([e.id, expect.stringMatching(/Upness (service|data source)/)]);
          expect([e.id, text]).not.toEqual([e.id, expect.stringMatching(/JobSet \S+\/\S+|Node pool \S+|has been down|was up \d|takes \d/)]);
          if (name === 'description') expect([e.id, text]).toEqual([e.id, expect.stringMatching(isPoolRule(e.rule) ? /^This is not a node pool outage/ : /^This is not a JobSet outage/)]);
        } else if (isPoolRule(e.rule)) {
          expect([e.id, text]).toEqual([e.id, expect.stringContaining(`Node pool ${e.instance!.pool}`)]);
          expect([e.id, text]).not.toEqual([e.id, expect.stringMatching(/Upness service/)]);
        } else {
          expect([e.id, text]).toEqual([e.id, expect.stringContaining(`${e.instance!.namespace}/${e.instance!.jobset}`)]);
          expect([e.id, text]).not.toEqual([e.id, expect.stringMatching(/Upness service/)]);
        }
      }
      if (name === 'dashboard_url') {
        if (e.kind === 'service down') expect(text).toBe('/connections/datasources/edit/upness');
        else if (isPoolRule(e.rule)) expect(text).toBe('/d/upness-node-pools/node-pools');
        else expect(text).toBe(`/d/upness-jobset-detail/jobset-detail?var-namespace=${e.instance!.namespace}&var-jobset=${e.instance!.jobset}`);
      }
    }
    // The figure itself, humanized, is in each firing summary that shows one.
    const firing = (uid: string): string => out.get(`${uid}/summary/firing`)!.text!;
    const ratio = expectations.find((e) => e.id === 'upness-jobset-uptime-ratio-24h/summary/firing')!.value!;
    expect(firing('upness-jobset-uptime-ratio-24h')).toContain(`was up ${Number((ratio * 100).toPrecision(4))}%`);
    expect(firing('upness-jobset-mttr-24h')).toMatch(/takes (\d+d )?(\d+h )?(\d+m )?[\d.]+m?s on average to recover$/);
  });
});

describe('every dashboard query, against a live service', () => {
  /** The JobSet a user would open the detail dashboard for: the most interrupted one in the range. */
  async function mostInterrupted(dashboard: Json): Promise<{ namespace: string; name: string }> {
    const time = panelTime(dashboard, null, horizon);
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
    // The node pools' dashboard asks about pools: the pools' trace has them (the fleet's has no Nodes).
    const service = dashboard.uid === 'upness-node-pools' ? livePools : liveTrace;
    const choice = await mostInterrupted(dashboard);
    const { vars, listed } = await resolveVariables(dashboard, { namespace: choice.namespace, jobset: choice.name }, service);
    for (const [name, v] of Object.entries(vars)) if (!v.all) expect(listed[name]).toContain(v.value); // the chosen JobSet is listed
    await runDashboard(dashboard, vars, listed, service, (what, query, frames) => {
      // A simulated trace holds no Pods or Nodes, so the node layer answers with no series; what
      // it returns for a real cluster is tested against the real apiserver (test/kube).
      for (const frame of frames) checkShape(what, query, [frame]);
    });
  });

  it('expands All and multi-value selections into queries the service answers in full', async () => {
    const fleet = dashboards.find((d) => d.json.uid === 'upness-fleet-overview')!.json;
    const { vars, listed } = await resolveVariables(fleet, {}, liveTrace);
    const time = panelTime(fleet, null, horizon);
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
});

// ---------------------------------------------------------------------------------------------
// The alert rules, evaluated

describe('alert rules, evaluated against a live service', () => {
  const rule = (uid: string): Json => rules.find((r) => r.rule.uid === uid)!.rule;

  it('answer at the end of the trace with one labelled series per JobSet', async () => {
    for (const { rule: r } of rules) {
      // A node-pool rule: in the middle of gpu-a's long down period, on the pools' trace.
      const results = isPoolRule(r) ? await livePools.runQueries(ruleQueries(r, POOL_T0 + 80 * MINUTE, 'now')) : await runQueries(ruleQueries(r, horizon, 'now'));
      for (const [refId, result] of Object.entries(results)) {
        expect([r.uid, refId, result.status, result.error]).toEqual([r.uid, refId, 200, undefined]);
        if (isPoolRule(r)) expect(result.frames!.length).toBe(1);
        for (const frame of result.frames!) {
          expect(frame.schema.fields.map((f: Json) => f.type)).toEqual(['time', 'number']);
          // The SLO rules: one instance per JobSet name, across its recreations (no uid); a pool rule: per pool.
          expect(Object.keys(frame.schema.fields[1].labels).sort()).toEqual(isPoolRule(r) ? ['pool'] : r.labels.slo === 'true' ? ['jobset', 'namespace'] : ['jobset', 'namespace', 'uid']);
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

  it('fire "node pool down for more than 10 minutes" exactly when a pool has been down for 10 minutes', async () => {
    const r = rule('upness-nodepool-down-10m');
    // 9 and 10.5 minutes into every down period of the drawn truth, and 2 minutes after each ends.
    const times = Object.values(POOL_DOWNS).flatMap((downs) => downs.flatMap(([from, to]) => [from + 9, from + 10.5, to + 2])).map((m) => POOL_T0 + m * MINUTE);
    const expected = (t: number): string[] =>
      Object.entries(POOL_DOWNS)
        .filter(([, downs]) => downs.some(([from, to]) => POOL_T0 + from * MINUTE <= t - 10 * MINUTE && t < POOL_T0 + to * MINUTE))
        .map(([pool]) => pool)
        .sort();
    const results = await livePools.runQueries(times.flatMap((t, i) => ruleQueries(r, t, `t${i}`)));
    let fired = 0;
    times.forEach((t, i) => {
      const firing = evaluateRule(r, results, `t${i}`).map((s) => s.labels.pool!).sort();
      expect([new Date(t).toISOString(), firing]).toEqual([new Date(t).toISOString(), expected(t)]);
      fired += firing.length;
    });
    // gpu-a's 30 minutes and slice-b's 30 minutes fire; gpu-a's 5 minutes does not.
    expect(fired).toBe(2);
  });

  // The SLO pair, against the truth of the intervals: per JobSet name (every UID of the name),
  // written down independently of the service's SLO code. At objective o over period P, a burn
  // window w and a short window s, the rule fires when
  //   down(t − w, t] ÷ ((1 − o) × (up + down)(t − P, t]) ≥ min(threshold, w ÷ 2 ÷ ((1 − o) × P))
  // and down(t − s, t] > 0, where down is provisioning and down time (suspended, unknown and
  // terminal time count for neither). The goodput pair counts up against wall time: down is every
  // state but up and the terminal ones (queued and suspended time are the intervals' `suspended`).
  const UPTIME_DOWN = ['provisioning', 'down'];
  const GOODPUT_DOWN = ['provisioning', 'down', 'suspended', 'unknown'];
  it.each([
    ['upness-jobset-slo-fast-burn', { objective: 0.95, period: 28 * DAY, window: HOUR, short: 5 * MINUTE, threshold: 0.02, down: UPTIME_DOWN }],
    ['upness-jobset-slo-slow-burn', { objective: 0.95, period: 28 * DAY, window: 3 * DAY, short: 6 * HOUR, threshold: 0.1, down: UPTIME_DOWN }],
    ['upness-jobset-goodput-slo-fast-burn', { objective: 0.9, period: 28 * DAY, window: HOUR, short: 5 * MINUTE, threshold: 0.02, down: GOODPUT_DOWN }],
    ['upness-jobset-goodput-slo-slow-burn', { objective: 0.9, period: 28 * DAY, window: 3 * DAY, short: 6 * HOUR, threshold: 0.1, down: GOODPUT_DOWN }],
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
    const DOWN = intended.down;
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
