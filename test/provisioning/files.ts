// The provisioned Grafana files (provisioning/), read as Grafana reads them: what the static checks
// (provisioning.static.test.ts, unit tier) and the live ones (*.live.test.ts, service tier) share.

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse } from 'yaml';

export const ROOT = join(__dirname, '..', '..');
export const PROVISIONING = join(ROOT, 'provisioning');
export const NODE = join(ROOT, 'node_modules', '.bin', 'node');
export const UPNESS = join(ROOT, 'backend', 'bin', 'upness.js');
export const TOKEN = 'provisioning-test-token';
export const DS_TYPE = 'upness-jobset-datasource';
export const DS_UID = 'upness';
export const MINUTE = 60_000;
export const HOUR = 3_600_000;
export const DAY = 86_400_000;

// ---------------------------------------------------------------------------------------------
// The files

/* eslint-disable @typescript-eslint/no-explicit-any -- dashboards, rules and frames are JSON documents */
export type Json = any;

export function filesUnder(dir: string, extensions: string[]): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? filesUnder(path, extensions) : extensions.some((e) => name.endsWith(e)) ? [path] : [];
    })
    .sort();
}

export const readJson = (path: string): Json => JSON.parse(readFileSync(path, 'utf8'));
export const readYaml = (path: string): Json => parse(readFileSync(path, 'utf8'));
export const rel = (path: string): string => relative(ROOT, path);

/**
 * Grafana's expansion of the values in provisioning files (what its provisioning `values` types do
 * when they read a file): the text is cut at `$$` (a literal `$`); in each part `$__env{NAME}` is
 * replaced, then `$NAME` and `${NAME}` as Go's os.ExpandEnv does (an unset variable is empty, a
 * `$` followed by no name stays, `${` without its `}` is dropped); the parts are joined with `$`.
 */
export function grafanaExpand(text: string, env: Record<string, string | undefined>): string {
  return text
    .split('$$')
    .map((part) => goExpandEnv(part.replace(/\$__env\{([^}]*)\}/g, (_, name: string) => env[name] ?? ''), env))
    .join('$');
}

export function goExpandEnv(text: string, env: Record<string, string | undefined>): string {
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

export const composeGrafana = parse(readFileSync(join(ROOT, 'docker-compose.yaml'), 'utf8')).services.grafana;

/** A path in the Grafana container, as a path here, through docker-compose.yaml's bind mounts. */
export function hostPath(containerPath: string): string {
  for (const volume of composeGrafana.volumes as string[]) {
    const [source, target] = volume.split(':') as [string, string];
    if (!source.startsWith('./')) continue;
    if (containerPath === target || containerPath.startsWith(`${target}/`)) return join(ROOT, source, containerPath.slice(target.length));
  }
  throw new Error(`${containerPath} is not in a folder docker-compose.yaml mounts into Grafana`);
}

export const dashboardFiles = filesUnder(join(PROVISIONING, 'dashboards'), ['.json']);
export const ruleFiles = filesUnder(join(PROVISIONING, 'alerting'), ['.yaml', '.yml', '.json']);
export const datasourceFiles = filesUnder(join(PROVISIONING, 'datasources'), ['.yaml', '.yml']);
export const providerFiles = readdirSync(join(PROVISIONING, 'dashboards'))
  .filter((n) => n.endsWith('.yaml') || n.endsWith('.yml'))
  .map((n) => join(PROVISIONING, 'dashboards', n));

export const dashboards = dashboardFiles.map((path) => ({ path, json: readJson(path) }));
export const ruleDocs = ruleFiles.map((path) => ({ path, doc: path.endsWith('.json') ? readJson(path) : readYaml(path) }));
export const rules: { path: string; group: Json; rule: Json }[] = ruleDocs.flatMap(({ path, doc }) =>
  (doc.groups ?? []).flatMap((group: Json) => (group.rules ?? []).map((rule: Json) => ({ path, group, rule }))),
);

export function isUpness(ds: Json): boolean {
  return ds != null && typeof ds === 'object' && ds.uid === DS_UID;
}

/** Panels, including those inside collapsed rows. */
export function panelsOf(dashboard: Json): Json[] {
  return (dashboard.panels ?? []).flatMap((p: Json) => (p.type === 'row' ? (p.panels ?? []) : [p]));
}


export const GRAFANA_FIELDS = ['datasource', 'hide'];
export const QUERY_MODEL_FIELDS = ['refId', 'queryType', 'metric', 'layer', 'namespaces', 'name', 'labelSelector', 'states', 'groupBy', 'aggregate', 'window', 'rolling', 'figures'];
/** The fields of an `slo` query (issue 13). */
QUERY_MODEL_FIELDS.push('objective', 'period', 'sloAnswer', 'indicator', 'burnWindow', 'shortWindow', 'burnFactor', 'budgetThreshold');
/** The fields of a table query (summary, slo: issue 21 §2). */
QUERY_MODEL_FIELDS.push('sort', 'limit');
/** An `slo` query's answer as one table frame (issue 21 §4). */
QUERY_MODEL_FIELDS.push('format');
/** The buckets of `groupBy: size` (issue 20 §3). */
QUERY_MODEL_FIELDS.push('sizeBuckets');
