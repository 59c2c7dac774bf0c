// docs/slo-tools.md: the example specs for Sloth, Pyrra and Grafana SLO parse, carry the fields each
// tool requires, their PromQL parses with Prometheus's own grammar (lezer-promql, the parser of
// Prometheus's UI), and every metric they read is one a running service exports on /metrics.
// What this cannot check: that the tools accept them (none of them runs here).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parser } from '@prometheus-io/lezer-promql';
import { parse } from 'yaml';
import { merge, min, Scenario } from '../support/scenario.ts';
import { startService, type TestService } from '../support/service.ts';

const page = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'slo-tools.md'), 'utf8');

/** The fenced block after `<!-- spec: name -->`. */
function spec(name: string): string {
  const m = new RegExp(`<!-- spec: ${name} -->\\n\`\`\`(?:yaml|json)\\n([\\s\\S]*?)\\n\`\`\``).exec(page);
  if (!m) throw new Error(`docs/slo-tools.md has no spec ${name}`);
  return m[1]!;
}

/** Parses a PromQL expression; throws naming the first place the grammar could not read. */
function promql(expr: string): string[] {
  const tree = parser.parse(expr);
  const metrics: string[] = [];
  let error: number | null = null;
  tree.iterate({
    enter(node) {
      if (node.type.isError && error === null) error = node.from;
      if (node.name === 'Identifier' && node.node.parent?.name === 'VectorSelector') metrics.push(expr.slice(node.from, node.to));
    },
  });
  if (error !== null) throw new Error(`PromQL does not parse at ${error}: ${expr}`);
  return metrics;
}

const exported = new Set<string>();
let service: TestService;
beforeAll(async () => {
  const s = new Scenario({ uid: 'u', name: 'llama-70b', namespace: 'team-a' }, min(0)).created().up(min(10));
  service = await startService(merge(s));
  const text = (await service.get('/metrics')).body as string;
  for (const line of text.split('\n')) if (line.startsWith('# TYPE ')) exported.add(line.split(' ')[2]!);
});
afterAll(() => service.close());

describe('docs/slo-tools.md', () => {
  it('the parser rejects what is not PromQL (the check can fail)', () => {
    expect(() => promql('sum(rate(upness_jobset_up_seconds_total[5m])')).toThrow(/does not parse/);
    expect(() => promql('sum by (a (x)')).toThrow(/does not parse/);
  });

  it.each(['sloth', 'sloth-goodput'])('Sloth (%s): a prometheus/v1 spec with an event SLI whose queries parse once {{.window}} is filled', (name) => {
    const doc = parse(spec(name));
    expect(doc.version).toBe('prometheus/v1');
    expect(typeof doc.service).toBe('string');
    expect(doc.slos).toHaveLength(1);
    const slo = doc.slos[0];
    expect(slo.name).toMatch(/^[a-z0-9-]+$/);
    expect(slo.objective).toBeGreaterThan(0);
    expect(slo.objective).toBeLessThan(100);
    for (const q of [slo.sli.events.error_query, slo.sli.events.total_query]) {
      expect(q).toContain('[{{.window}}]');
      const metrics = promql(q.replaceAll('{{.window}}', '5m'));
      expect(metrics.length).toBeGreaterThan(0);
      for (const m of metrics) expect(exported).toContain(m);
    }
    expect(typeof slo.alerting.name).toBe('string');
    // Each alert Sloth makes can fire at this objective: the smaller factor of its pair (page 14.4×
    // and 6×, ticket 3× and 1×) is at most the largest burn rate, 1 / (1 − objective).
    const maxBurn = 1 / (1 - slo.objective / 100);
    if (slo.alerting.page_alert?.disable !== true) expect(6).toBeLessThanOrEqual(maxBurn);
    if (slo.alerting.ticket_alert?.disable !== true) expect(1).toBeLessThanOrEqual(maxBurn);
  });

  it('the goodput counters: wall seconds are exported beside up seconds', () => {
    expect(exported).toContain('upness_jobset_wall_seconds_total');
    expect(exported).toContain('upness_jobset_up_seconds_total');
  });

  it('Pyrra: a ServiceLevelObjective with a ratio indicator over exported counters', () => {
    const doc = parse(spec('pyrra'));
    expect(doc.apiVersion).toBe('pyrra.dev/v1alpha1');
    expect(doc.kind).toBe('ServiceLevelObjective');
    expect(doc.metadata.name).toMatch(/^[a-z0-9-]+$/);
    expect(Number(doc.spec.target)).toBe(95);
    expect(doc.spec.window).toMatch(/^\d+[dwh]$/);
    for (const side of ['errors', 'total']) {
      const [metric] = promql(doc.spec.indicator.ratio[side].metric);
      expect(metric).toMatch(/_total$/);
      expect(exported).toContain(metric);
    }
  });

  it('Grafana: a provisioning file of recording rules over the exported counters, and an SLO reading what they record', () => {
    const doc = parse(spec('grafana-recording'));
    expect(doc.apiVersion).toBe(1);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a parsed YAML document
    const rules = doc.groups.flatMap((g: any) => {
      expect(g.interval).toMatch(/^\d+[smh]$/);
      expect(typeof g.folder).toBe('string');
      return g.rules;
    });
    const recorded = new Set<string>();
    for (const rule of rules) {
      expect(rule.uid).toMatch(/^[a-zA-Z0-9-_]{1,40}$/);
      expect(rule.record.from).toBe(rule.data[0].refId);
      expect(rule.record.metric).toMatch(/^[a-zA-Z_:][a-zA-Z0-9_:]*$/);
      expect(typeof rule.record.target_datasource_uid).toBe('string');
      recorded.add(rule.record.metric);
      for (const m of promql(rule.data[0].model.expr)) expect(exported).toContain(m);
    }
    const slo = JSON.parse(spec('grafana-slo'));
    expect(slo.query.type).toBe('ratio');
    expect(recorded).toContain(slo.query.ratio.successMetric.prometheusMetric);
    expect(recorded).toContain(slo.query.ratio.totalMetric.prometheusMetric);
    for (const m of [slo.query.ratio.successMetric.prometheusMetric, slo.query.ratio.totalMetric.prometheusMetric]) expect(promql(m)).toEqual([m]);
    expect(slo.objectives[0].value).toBe(0.95);
    expect(slo.objectives[0].window).toBe('28d');
    expect(slo.destinationDatasource.uid).toBe(doc.groups[0].rules[0].record.target_datasource_uid);
  });
});
