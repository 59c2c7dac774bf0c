// The data source's own logic, with Grafana's runtime mocked at its boundary: no Grafana server can
// run here, so the template service is a documented stand-in (test/fakeTemplateSrv.ts) and the
// resource call to the Go backend (getResource) is a jest mock.

import { CoreApp, type DataQueryRequest, dateTime, type ScopedVars } from '@grafana/data';
import type { TemplateSrv } from '@grafana/runtime';
import { firstValueFrom } from 'rxjs';

import { DataSource } from './datasource';
import { fakeTemplateSrv } from './test/fakeTemplateSrv';
import { instanceSettings } from './test/settings';
import { DEFAULT_QUERY, type UpnessQuery, type UpnessVariableQuery } from './types';
import type { UpnessVariableSupport } from './variables';

let mockTemplateSrv: TemplateSrv = fakeTemplateSrv({});
jest.mock('@grafana/runtime', () => ({
  ...jest.requireActual('@grafana/runtime'),
  getTemplateSrv: () => mockTemplateSrv,
}));

function dataSource(values: Record<string, string[]> = {}) {
  const ds = new DataSource(instanceSettings());
  const getResource = jest
    .spyOn(ds, 'getResource')
    .mockImplementation(async (path: string) => ({ values: values[path.replace(/^values\//, '')] ?? [] }));
  return { ds, getResource };
}

const query = (fields: Partial<UpnessQuery>): UpnessQuery => ({ refId: 'A', ...fields });

describe('DataSource.applyTemplateVariables', () => {
  beforeEach(() => {
    mockTemplateSrv = fakeTemplateSrv({
      namespace: 'team-a',
      namespaces: ['team-a', 'team-b'],
      all: '*',
      model: ['llama', 'gemma'],
      one: ['llama'],
      team: ['ml', 'infra'],
      window: '6h',
    });
  });

  it('replaces a single-value variable in every text field', () => {
    const { ds } = dataSource();
    const out = ds.applyTemplateVariables(
      query({
        namespaces: ['$namespace'],
        name: 'train-$namespace',
        labelSelector: 'team=$namespace',
        rolling: '$window',
      }),
      {}
    );
    expect(out).toEqual(
      query({ namespaces: ['team-a'], name: 'train-team-a', labelSelector: 'team=team-a', rolling: '6h' })
    );
  });

  it('expands a multi-value variable into several namespaces, without duplicates', () => {
    const { ds } = dataSource();
    const out = ds.applyTemplateVariables(query({ namespaces: ['$namespaces', 'team-c', '${namespace}'] }), {});
    expect(out.namespaces).toEqual(['team-a', 'team-b', 'team-c']);
  });

  it('reads a `*` (a custom All value) in namespaces as no namespace filter', () => {
    const { ds } = dataSource();
    expect(ds.applyTemplateVariables(query({ namespaces: ['team-c', '$all'] }), {}).namespaces).toEqual([]);
  });

  it('turns a glob with a multi-value variable into the regular expression of its alternatives', () => {
    const { ds } = dataSource();
    expect(ds.applyTemplateVariables(query({ name: '$model' }), {}).name).toBe('/^(?:llama|gemma)$/');
    expect(ds.applyTemplateVariables(query({ name: 'train-$model-*' }), {}).name).toBe(
      '/^(?:train-llama-.*|train-gemma-.*)$/'
    );
    // A multi-value with one value selected stays a plain glob.
    expect(ds.applyTemplateVariables(query({ name: 'train-$one' }), {}).name).toBe('train-llama');
  });

  it('uses the regex format inside a /regular expression/', () => {
    const { ds } = dataSource();
    expect(ds.applyTemplateVariables(query({ name: '/^$model-\\d+$/' }), {}).name).toBe('/^(llama|gemma)-\\d+$/');
  });

  it('writes a multi-value as a,b in the label selector, for `key in ($var)`', () => {
    const { ds } = dataSource();
    expect(ds.applyTemplateVariables(query({ labelSelector: 'team in ($team),!canary' }), {}).labelSelector).toBe(
      'team in (ml,infra),!canary'
    );
  });

  it('prefers scoped variables (repeated panels) and leaves other fields alone', () => {
    const { ds } = dataSource();
    const scopedVars: ScopedVars = { namespace: { text: 'team-z', value: 'team-z' } };
    const q = query({ ...DEFAULT_QUERY, namespaces: ['$namespace'], metric: 'mttrSeconds', groupBy: 'label:team' });
    expect(ds.applyTemplateVariables(q, scopedVars)).toEqual({ ...q, namespaces: ['team-z'] });
  });

  it('leaves fields the query does not have absent', () => {
    const { ds } = dataSource();
    expect(ds.applyTemplateVariables(query({ metric: 'up' }), {})).toEqual(query({ metric: 'up' }));
  });
});

describe('DataSource defaults and filtering', () => {
  it('starts a new query as a line per namespace: the step series of the pooled uptime ratio', () => {
    const { ds } = dataSource();
    const q = ds.getDefaultQuery(CoreApp.PanelEditor);
    expect(q).toEqual({
      ...DEFAULT_QUERY,
      queryType: 'series',
      metric: 'uptimeRatio',
      window: 'step',
      groupBy: 'namespace',
      aggregate: 'pooled',
    });
    expect(q.namespaces).not.toBe(DEFAULT_QUERY.namespaces);
  });

  it('does not run hidden queries', () => {
    const { ds } = dataSource();
    expect(ds.filterQuery(query({ hide: true }))).toBe(false);
    expect(ds.filterQuery(query({ hide: false }))).toBe(true);
    expect(ds.filterQuery(query({}))).toBe(true);
  });

  it('defaults annotation queries to events', () => {
    const { ds } = dataSource();
    expect(ds.annotations?.getDefaultQuery?.()).toEqual({ ...DEFAULT_QUERY, queryType: 'events' });
  });
});

describe('DataSource.metricFindQuery', () => {
  beforeEach(() => {
    mockTemplateSrv = fakeTemplateSrv({ namespace: 'team-a', namespaces: ['team-a', 'team-b'], key: 'team' });
  });

  it.each([
    ['namespaces', 'values/namespaces', undefined],
    ['  Namespaces ', 'values/namespaces', undefined],
    ['labelKeys', 'values/labelKeys', undefined],
    ['accelerators()', 'values/accelerators', undefined],
    ['topologies', 'values/topologies', undefined],
    ['pools', 'values/pools', undefined],
    ['jobsets', 'values/jobsets', undefined],
    ['jobsets()', 'values/jobsets', undefined],
    ['jobsets(team-a)', 'values/jobsets', { namespace: ['team-a'] }],
    ['jobsets($namespace)', 'values/jobsets', { namespace: ['team-a'] }],
    ['jobsets($namespaces)', 'values/jobsets', { namespace: ['team-a', 'team-b'] }],
    ['jobsets(team-a, team-c)', 'values/jobsets', { namespace: ['team-a', 'team-c'] }],
    ['labelValues(team)', 'values/labelValues', { key: 'team' }],
    ['labelvalues( $key )', 'values/labelValues', { key: 'team' }],
  ])('%s asks for %s with %j', async (text, path, params) => {
    const { ds, getResource } = dataSource({ [path.slice('values/'.length)]: ['x', 'y'] });
    await expect(ds.metricFindQuery(text)).resolves.toEqual([
      { text: 'x', value: 'x' },
      { text: 'y', value: 'y' },
    ]);
    expect(getResource).toHaveBeenCalledWith(path, params);
  });

  it('takes the structured query the variable editor saves, with scoped variables', async () => {
    const { ds, getResource } = dataSource({ jobsets: ['train-1'] });
    const scopedVars: ScopedVars = { namespace: { text: 'team-z', value: 'team-z' } };
    await expect(
      ds.metricFindQuery({ refId: 'v', what: 'jobsets', namespace: '$namespace' }, { scopedVars })
    ).resolves.toEqual([{ text: 'train-1', value: 'train-1' }]);
    expect(getResource).toHaveBeenCalledWith('values/jobsets', { namespace: ['team-z'] });
  });

  it("asks for the values of the dashboard's time range when Grafana gives one (the variable query path)", async () => {
    const { ds, getResource } = dataSource({ jobsets: ['train-1'] });
    const from = Date.UTC(2026, 0, 1);
    const to = Date.UTC(2026, 0, 8);
    const range = { from: dateTime(from), to: dateTime(to), raw: { from: 'now-7d', to: 'now' } };
    await ds.metricFindQuery('jobsets($namespace)', { range });
    expect(getResource).toHaveBeenCalledWith('values/jobsets', {
      namespace: ['team-a'],
      from: String(from),
      to: String(to),
    });
    // Through the variable support, as a dashboard variable runs (refresh on time range change).
    const variables = ds.variables as UpnessVariableSupport;
    const request = {
      targets: [{ refId: 'v', what: 'namespaces' }],
      scopedVars: {},
      range,
    } as unknown as DataQueryRequest<UpnessVariableQuery>;
    await firstValueFrom(variables.query(request));
    expect(getResource).toHaveBeenLastCalledWith('values/namespaces', { from: String(from), to: String(to) });
  });

  it.each([
    ['', /cannot read the variable query ""/],
    ['pods', /cannot read the variable query "pods".*namespaces, jobsets, jobsets\(namespace\)/],
    ['labelValues', /labelValues needs a label key/],
    ['labelValues()', /labelValues needs a label key/],
    ['namespaces(team-a)', /namespaces takes no argument/],
    ['jobsets(a', /cannot read/],
  ])('refuses %j', async (text, message) => {
    const { ds, getResource } = dataSource();
    await expect(ds.metricFindQuery(text)).rejects.toThrow(message);
    expect(getResource).not.toHaveBeenCalled();
  });

  it('serves the variable support of the variable editor', async () => {
    const { ds, getResource } = dataSource({ namespaces: ['team-a'] });
    const variables = ds.variables as UpnessVariableSupport;
    const request = {
      targets: [{ refId: 'v', what: 'namespaces' }],
      scopedVars: {},
    } as unknown as DataQueryRequest<UpnessVariableQuery>;
    await expect(firstValueFrom(variables.query(request))).resolves.toEqual({
      data: [{ text: 'team-a', value: 'team-a' }],
    });
    expect(getResource).toHaveBeenCalledWith('values/namespaces', undefined);
  });
});
