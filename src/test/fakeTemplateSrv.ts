// A stand-in for Grafana's template service, which lives in the Grafana server's frontend (not in
// an npm package) and so cannot run here. It follows the documented behaviour the plugin relies on:
// `$name`, `${name}`, `${name:format}` and `[[name]]` references; scoped variables first; formats
// `csv` (a,b), `regex` (escaped, a multi-value as (a|b)), the default (a multi-value as {a,b}),
// and a format function called with the value (a string, or a list for a multi-value).

import type { ScopedVars } from '@grafana/data';
import type { TemplateSrv } from '@grafana/runtime';

export type FakeVariables = Record<string, string | string[]>;

type Format = string | ((value: string | string[], variable?: unknown) => string);

function escapeRegex(value: string): string {
  return value.replace(/[\\^$*+?.()|[\]{}/]/g, '\\$&');
}

function format(value: string | string[], how: Format | undefined): string {
  if (typeof how === 'function') {
    return how(value, undefined);
  }
  const values = Array.isArray(value) ? value : [value];
  switch (how) {
    case 'csv':
      return values.join(',');
    case 'regex':
      return values.length === 1 ? escapeRegex(values[0]!) : `(${values.map(escapeRegex).join('|')})`;
    default:
      return values.length === 1 ? values[0]! : `{${values.join(',')}}`;
  }
}

export function fakeTemplateSrv(variables: FakeVariables): TemplateSrv {
  const lookup = (name: string, scopedVars?: ScopedVars): string | string[] | undefined =>
    scopedVars?.[name] !== undefined ? (scopedVars[name]!.value as string | string[]) : variables[name];
  return {
    getVariables: () =>
      Object.keys(variables).map((name) => ({ name }) as ReturnType<TemplateSrv['getVariables']>[number]),
    replace(target?: string, scopedVars?: ScopedVars, how?: Format): string {
      return (target ?? '').replace(
        /\$(\w+)|\$\{(\w+)(?::([\w]+))?\}|\[\[(\w+)\]\]/g,
        (match, plain?: string, braced?: string, fmt?: string, bracketed?: string) => {
          const value = lookup((plain ?? braced ?? bracketed)!, scopedVars);
          return value === undefined ? match : format(value, fmt ?? how);
        }
      );
    },
    containsTemplate: (target?: string) => /\$\w+|\$\{\w+|\[\[\w+\]\]/.test(target ?? ''),
    updateTimeRange: () => {},
  };
}
