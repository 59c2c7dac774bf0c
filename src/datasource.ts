// The Upness data source in the browser. Queries go to the Go plugin backend (QueryData), which
// forwards them to the Upness service; resource calls (`values/...`) go the same way (CallResource).
// Nothing is computed here: this class replaces template variables, skips hidden queries, and
// gives editors and variables the service's lists of values.

import type {
  CoreApp,
  DataSourceInstanceSettings,
  LegacyMetricFindQueryOptions,
  MetricFindValue,
  ScopedVars,
} from '@grafana/data';
import { DataSourceWithBackend, getTemplateSrv } from '@grafana/runtime';

import { newQuery } from './components/query/model';
import { interpolateQuery } from './interpolate';
import { type UpnessOptions, type UpnessQuery, type UpnessVariableQuery, type ValueKind } from './types';
import { toVariableQuery, UpnessVariableSupport } from './variables';

/** What `GET /api/v1/values/{what}` answers. */
interface ValuesResponse {
  values?: string[];
}

/** A new query: a step series of the uptime ratio per namespace, pooled (see newQuery). */
export function defaultQuery(): Omit<UpnessQuery, 'refId'> {
  return newQuery();
}

export class DataSource extends DataSourceWithBackend<UpnessQuery, UpnessOptions> {
  constructor(instanceSettings: DataSourceInstanceSettings<UpnessOptions>) {
    super(instanceSettings);
    // Standard annotation support: an annotation runs an `events` query through QueryData, and
    // Grafana maps the frame's time, timeEnd, title, text and tags fields to annotations.
    this.annotations = {
      getDefaultQuery: () => newQuery('events'),
    };
    this.variables = new UpnessVariableSupport(this);
  }

  getDefaultQuery(_app: CoreApp): Partial<UpnessQuery> {
    return defaultQuery();
  }

  filterQuery(query: UpnessQuery): boolean {
    return !query.hide;
  }

  applyTemplateVariables(query: UpnessQuery, scopedVars: ScopedVars): UpnessQuery {
    return interpolateQuery(query, getTemplateSrv(), scopedVars);
  }

  /** The service's sorted, unique values of one kind (`values/namespaces`, `values/jobsets?namespace=…`…). */
  async getValues(what: ValueKind, params?: Record<string, string | string[]>): Promise<string[]> {
    const response = await this.getResource<ValuesResponse>(`values/${what}`, params);
    return response?.values ?? [];
  }

  /** The dashboard's template variables as `$name`, for editors that accept them as values. */
  getVariableNames(): string[] {
    return getTemplateSrv()
      .getVariables()
      .map((v) => `$${v.name}`);
  }

  /**
   * Values for a template variable. The query is an UpnessVariableQuery or its text form:
   * `namespaces`, `jobsets`, `jobsets(namespace)` / `jobsets($namespace)` (a multi-value or a
   * comma-separated list gives several namespaces), `labelKeys`, `labelValues(key)`,
   * `accelerators`, `topologies`, `pools`. With `options.range` (the dashboard's time range, which
   * Grafana passes to variable queries), only the values of JobSets that lived in that range.
   */
  async metricFindQuery(
    query: string | UpnessVariableQuery,
    options?: LegacyMetricFindQueryOptions
  ): Promise<MetricFindValue[]> {
    const q = toVariableQuery(query);
    const scopedVars = options?.scopedVars ?? {};
    const templateSrv = getTemplateSrv();
    const params: Record<string, string | string[]> = {};
    if (q.what === 'jobsets' && q.namespace) {
      const namespaces = templateSrv
        .replace(q.namespace, scopedVars, 'csv')
        .split(',')
        .map((ns) => ns.trim())
        .filter((ns) => ns !== '' && ns !== '*');
      if (namespaces.length > 0) {
        params.namespace = namespaces;
      }
    }
    if (q.what === 'labelValues') {
      const key = templateSrv.replace(q.key ?? '', scopedVars).trim();
      if (key === '') {
        throw new Error('Upness: labelValues needs a label key, e.g. labelValues(team)');
      }
      params.key = key;
    }
    // The dashboard's time range (Grafana hands it to variable queries): only values of JobSets
    // that lived in it, so a variable offers what the panels can show.
    if (options?.range) {
      params.from = String(options.range.from.valueOf());
      params.to = String(options.range.to.valueOf());
    }
    const values = await this.getValues(q.what, Object.keys(params).length > 0 ? params : undefined);
    return values.map((value) => ({ text: value, value }));
  }
}
