// Template variables in a query's text fields, replaced by Grafana's template service before the
// query leaves the browser. The service never sees a `$variable`.

import type { ScopedVars } from '@grafana/data';
import type { TemplateSrv } from '@grafana/runtime';

import type { UpnessQuery } from './types';

/** What Grafana's template service hands a format function: one value, or a multi-value's list. */
type VariableValue = string | string[];

/**
 * Namespaces: every entry may hold variables; a multi-value variable expands into one namespace per
 * value. A `*` (e.g. a variable's custom "All" value) means no namespace filter at all, so that
 * namespaces created after the variable was refreshed are not left out. Namespaces are DNS labels:
 * a comma never occurs in one, so `a,b` typed as one entry is two namespaces.
 */
export function interpolateNamespaces(
  namespaces: readonly string[],
  templateSrv: TemplateSrv,
  scopedVars: ScopedVars
): string[] {
  const out: string[] = [];
  for (const entry of namespaces) {
    const text = templateSrv.replace(entry, scopedVars, 'csv');
    for (const namespace of text.split(',')) {
      const trimmed = namespace.trim();
      if (trimmed === '*') {
        return [];
      }
      if (trimmed !== '' && !out.includes(trimmed)) {
        out.push(trimmed);
      }
    }
  }
  return out;
}

/** A glob (`*` any run, `?` one character) as the body of a regular expression. */
function globToRegex(glob: string): string {
  return glob
    .replace(/[.+^${}()|[\]\\/]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
}

const MARK = '\u0000';

/**
 * The name pattern. A `/regex/` gets Grafana's `regex` format (values escaped, a multi-value as
 * `(a|b)`). A glob takes single values as they are (so a custom "All" value `*` matches every
 * name); a multi-value turns the
 * pattern into the regular expression matching any of the globs it stands for:
 * `train-$model` with model = a, b → `/^(?:train-a|train-b)$/`.
 */
export function interpolateName(name: string, templateSrv: TemplateSrv, scopedVars: ScopedVars): string {
  if (name.startsWith('/')) {
    return templateSrv.replace(name, scopedVars, 'regex');
  }
  const lists: string[][] = [];
  const marked = templateSrv.replace(name, scopedVars, (value: VariableValue) => {
    if (!Array.isArray(value)) {
      return value;
    }
    if (value.length === 1) {
      return value[0] ?? '';
    }
    lists.push(value);
    return `${MARK}${lists.length - 1}${MARK}`;
  });
  if (lists.length === 0) {
    return marked;
  }
  // Between the marks are literal pieces (even indices) and list numbers (odd indices).
  let alternatives = [''];
  marked.split(MARK).forEach((part, i) => {
    alternatives =
      i % 2 === 0
        ? alternatives.map((a) => a + globToRegex(part))
        : alternatives.flatMap((a) => (lists[Number(part)] ?? []).map((v) => a + globToRegex(v)));
  });
  return `/^(?:${alternatives.join('|')})$/`;
}

/**
 * Replaces the variables in every text field of a query: namespaces, name, labelSelector (a
 * multi-value as `a,b`, so write `team in ($team)`), rolling. Other fields are left as they are.
 */
export function interpolateQuery(query: UpnessQuery, templateSrv: TemplateSrv, scopedVars: ScopedVars): UpnessQuery {
  const out: UpnessQuery = { ...query };
  if (query.clusters !== undefined) {
    out.clusters = interpolateNamespaces(query.clusters, templateSrv, scopedVars);
  }
  if (query.namespaces !== undefined) {
    out.namespaces = interpolateNamespaces(query.namespaces, templateSrv, scopedVars);
  }
  if (query.name !== undefined) {
    out.name = interpolateName(query.name, templateSrv, scopedVars);
  }
  if (query.labelSelector !== undefined) {
    out.labelSelector = templateSrv.replace(query.labelSelector, scopedVars, 'csv');
  }
  if (query.rolling !== undefined) {
    out.rolling = templateSrv.replace(query.rolling, scopedVars);
  }
  return out;
}

/** `$var`, `${var}`, `${var:format}` or `[[var]]`: text that holds a template variable. */
export function hasVariable(text: string): boolean {
  return /\$\w+|\$\{[^}]+\}|\[\[[^\]]+\]\]/.test(text);
}
