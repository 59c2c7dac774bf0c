// Template variables: a variable lists values the service knows (namespaces, JobSet names, label
// keys and values, accelerators, topologies, node pools) from `GET /api/v1/values/{what}`.
//
// Grafana 12 offers three ways; this is CustomVariableSupport, with its own small editor, because
// the values are a plain list from a resource call rather than a data frame from QueryData
// (DataSourceVariableSupport would send them through the query path and its panel-sized editor),
// and because a structured variable query is what the platform recommends over the legacy
// metricFindQuery text box. The text form (`jobsets($namespace)`) still works: metricFindQuery
// takes it, and a variable saved as text (provisioned dashboards) is read as one.

import { CustomVariableSupport, type DataQueryRequest, type DataQueryResponse } from '@grafana/data';
import { from, type Observable } from 'rxjs';

import { VariableQueryEditor } from './components/VariableQueryEditor';
import type { DataSource } from './datasource';
import { type UpnessVariableQuery, VALUE_KINDS, type ValueKind } from './types';

export const VARIABLE_REF_ID = 'UpnessVariableQuery';

export const VARIABLE_QUERY_FORMS =
  'namespaces, jobsets, jobsets(namespace), labelKeys, labelValues(key), accelerators, topologies, pools';

/**
 * Reads the text form of a variable query: `namespaces`, `jobsets`, `jobsets(team-a)`,
 * `jobsets($namespace)`, `labelKeys`, `labelValues(team)`, `accelerators`, `topologies`, `pools`. Names are
 * matched without regard to case. Throws an Error naming the valid forms otherwise.
 */
export function parseVariableQuery(text: string): UpnessVariableQuery {
  const match = /^\s*([A-Za-z]+)\s*(?:\(([^()]*)\))?\s*$/.exec(text);
  const what = match ? VALUE_KINDS.find((k) => k.toLowerCase() === match[1]!.toLowerCase()) : undefined;
  if (!match || what === undefined) {
    throw new Error(`Upness: cannot read the variable query "${text}"; write one of ${VARIABLE_QUERY_FORMS}`);
  }
  const arg = (match[2] ?? '').trim();
  switch (what) {
    case 'jobsets':
      return { refId: VARIABLE_REF_ID, what, namespace: arg };
    case 'labelValues':
      if (arg === '') {
        throw new Error('Upness: labelValues needs a label key, e.g. labelValues(team)');
      }
      return { refId: VARIABLE_REF_ID, what, key: arg };
    default:
      if (arg !== '') {
        throw new Error(`Upness: ${what} takes no argument (got "${arg}")`);
      }
      return { refId: VARIABLE_REF_ID, what };
  }
}

/** The text form of a variable query: the inverse of parseVariableQuery. */
export function formatVariableQuery(query: UpnessVariableQuery): string {
  if (query.what === 'jobsets' && query.namespace) {
    return `jobsets(${query.namespace})`;
  }
  if (query.what === 'labelValues') {
    return `labelValues(${query.key ?? ''})`;
  }
  return query.what;
}

/** A stored variable query, in either form (text from old or provisioned dashboards, or an object). */
export function toVariableQuery(query: string | Partial<UpnessVariableQuery> | undefined): UpnessVariableQuery {
  if (typeof query === 'string') {
    return parseVariableQuery(query);
  }
  const what: ValueKind = query?.what !== undefined && VALUE_KINDS.includes(query.what) ? query.what : 'namespaces';
  return { ...query, refId: query?.refId || VARIABLE_REF_ID, what };
}

export class UpnessVariableSupport extends CustomVariableSupport<DataSource, UpnessVariableQuery> {
  editor = VariableQueryEditor;

  constructor(private readonly datasource: DataSource) {
    super();
  }

  query(request: DataQueryRequest<UpnessVariableQuery>): Observable<DataQueryResponse> {
    const [target] = request.targets;
    return from(
      this.datasource
        .metricFindQuery(target ?? 'namespaces', { scopedVars: request.scopedVars, range: request.range })
        .then((data) => ({ data }))
    );
  }
}
