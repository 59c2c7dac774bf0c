// The query editor against a real DataSource whose Grafana boundary is mocked: no Grafana server
// can run here, so `getResource` (the Go backend's CallResource → the service's /api/v1/values)
// is a jest mock and the template service a documented stand-in (../test/fakeTemplateSrv.ts).

import React from 'react';
import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { TemplateSrv } from '@grafana/runtime';

import { DataSource } from '../datasource';
import { fakeTemplateSrv } from '../test/fakeTemplateSrv';
import { instanceSettings } from '../test/settings';
import { DEFAULT_QUERY, type UpnessQuery } from '../types';
import { QueryEditor, ROLLING_ERROR, rollingError } from './QueryEditor';

let mockTemplateSrv: TemplateSrv = fakeTemplateSrv({});
jest.mock('@grafana/runtime', () => ({
  ...jest.requireActual('@grafana/runtime'),
  getTemplateSrv: () => mockTemplateSrv,
}));

// Combobox renders its options in a virtual list, which needs sizes that jsdom does not compute.
beforeAll(() => {
  Object.defineProperty(Element.prototype, 'getBoundingClientRect', {
    configurable: true,
    value: () => ({
      width: 400,
      height: 400,
      top: 0,
      left: 0,
      bottom: 400,
      right: 400,
      x: 0,
      y: 0,
      toJSON: () => ({}),
    }),
  });
  Object.defineProperty(HTMLElement.prototype, 'clientHeight', { configurable: true, get: () => 400 });
  Object.defineProperty(HTMLElement.prototype, 'clientWidth', { configurable: true, get: () => 400 });
});

const VALUES: Record<string, string[]> = {
  namespaces: ['team-a', 'team-b'],
  labelKeys: ['team', 'kueue.x-k8s.io/queue-name'],
};

async function setup(fields: Partial<UpnessQuery> = DEFAULT_QUERY, values = VALUES) {
  mockTemplateSrv = fakeTemplateSrv({ namespace: 'team-a' });
  const datasource = new DataSource(instanceSettings());
  const getResource = jest.spyOn(datasource, 'getResource').mockImplementation(async (path: string) => {
    const list = values[path.replace(/^values\//, '')];
    if (list === undefined) {
      throw new Error('connection refused');
    }
    return { values: list };
  });
  const onChange = jest.fn();
  const onRunQuery = jest.fn();
  const query: UpnessQuery = { refId: 'A', ...fields };
  const props = { datasource, query, onChange, onRunQuery };
  const view = render(<QueryEditor {...props} />);
  // Let the lists of values the editor asks for on mount arrive.
  await act(() => Promise.resolve());
  const rerender = (next: UpnessQuery) => view.rerender(<QueryEditor {...props} query={next} />);
  return { getResource, onChange, onRunQuery, query, rerender, user: userEvent.setup() };
}

type User = ReturnType<typeof userEvent.setup>;

/** Opens a combobox by its label and picks the option with the given name. */
async function choose(user: User, label: string, option: string | RegExp) {
  await user.click(screen.getByLabelText(label));
  await user.click(await screen.findByRole('option', { name: option }));
}

async function optionsOf(user: User, label: string): Promise<string[]> {
  await user.click(screen.getByLabelText(label));
  const options = await screen.findAllByRole('option');
  await user.keyboard('{Escape}');
  return options.map((o) => o.textContent ?? '');
}

describe('QueryEditor', () => {
  it('shows the defaults for a new query: a series of uptime ratio per JobSet over the whole range', async () => {
    await setup({});
    expect(screen.getByRole('radio', { name: 'Series' })).toBeChecked();
    expect(screen.getByRole('radio', { name: 'JobSet' })).toBeChecked();
    expect(screen.getByLabelText('Metric')).toHaveValue('Uptime ratio');
    expect(screen.getByLabelText('Group by')).toHaveValue('JobSet');
    expect(screen.getByRole('radio', { name: 'Range' })).toBeChecked();
    expect(screen.getByLabelText('Name')).toHaveValue('');
    expect(screen.getByLabelText('Label selector')).toHaveValue('');
    // Only what matters: no aggregate for ungrouped series, no length for a range window.
    expect(screen.queryByLabelText('Aggregate')).not.toBeInTheDocument();
    expect(screen.queryByLabelText('Length')).not.toBeInTheDocument();
  });

  it('reads fields stored as undefined as their defaults', async () => {
    await setup({ name: undefined, window: undefined, metric: undefined });
    expect(screen.getByLabelText('Name')).toHaveValue('');
    expect(screen.getByLabelText('Metric')).toHaveValue('Uptime ratio');
    expect(screen.getByRole('radio', { name: 'Range' })).toBeChecked();
  });

  it('changes the query type, runs the query, and shows only the fields of the new type', async () => {
    const { onChange, onRunQuery, query, rerender, user } = await setup();
    await user.click(screen.getByRole('radio', { name: 'Summary' }));
    expect(onChange).toHaveBeenCalledWith({ ...query, queryType: 'summary' });
    expect(onRunQuery).toHaveBeenCalledTimes(1);

    rerender({ ...query, queryType: 'summary' });
    expect(screen.queryByLabelText('Metric')).not.toBeInTheDocument();
    expect(screen.queryByRole('radio', { name: 'Range' })).not.toBeInTheDocument();
    expect(screen.getByLabelText('Group by')).toBeInTheDocument();

    rerender({ ...query, queryType: 'events' });
    expect(screen.queryByLabelText('Metric')).not.toBeInTheDocument();
    expect(screen.queryByLabelText('Group by')).not.toBeInTheDocument();
    expect(screen.getByLabelText('Namespaces')).toBeInTheDocument();
    expect(screen.getByLabelText('State at end')).toBeInTheDocument();

    rerender({ ...query, queryType: 'states' });
    expect(screen.queryByLabelText('Group by')).not.toBeInTheDocument();
    expect(screen.getByLabelText('Name')).toBeInTheDocument();
  });

  it('changes the metric', async () => {
    const { onChange, onRunQuery, query, user } = await setup();
    await choose(user, 'Metric', /^MTTR/);
    expect(onChange).toHaveBeenCalledWith({ ...query, metric: 'mttrSeconds' });
    expect(onRunQuery).toHaveBeenCalled();
  });

  it('offers no state metric for fleet, and shows "per JobSet" as the whole fleet', async () => {
    const { user } = await setup({ ...DEFAULT_QUERY, queryType: 'fleet', metric: 'up' });
    expect(screen.getByLabelText('Metric')).toHaveValue('Uptime ratio');
    expect(screen.getByLabelText('Group by')).toHaveValue('Whole fleet');
    const metrics = await optionsOf(user, 'Metric');
    expect(metrics.some((m) => m.startsWith('Up (state)'))).toBe(false);
    expect(metrics.some((m) => m.startsWith('Uptime ratio'))).toBe(true);
  });

  it('groups by a dimension, then shows the aggregate', async () => {
    const { onChange, query, rerender, user } = await setup();
    await choose(user, 'Group by', /^Namespace/);
    expect(onChange).toHaveBeenLastCalledWith({ ...query, groupBy: 'namespace' });

    rerender({ ...query, groupBy: 'namespace' });
    expect(screen.getByLabelText('Aggregate')).toHaveValue('Mean');
    await choose(user, 'Aggregate', /^Pooled/);
    expect(onChange).toHaveBeenLastCalledWith({ ...query, groupBy: 'namespace', aggregate: 'pooled' });
  });

  it('groups by a label key the service knows', async () => {
    const { getResource, onChange, query, user } = await setup();
    expect(getResource).toHaveBeenCalledWith('values/labelKeys', undefined);
    await choose(user, 'Group by', /^label:team/);
    expect(onChange).toHaveBeenLastCalledWith({ ...query, groupBy: 'label:team' });
  });

  it('changes the window; a rolling window takes a length checked like the service checks it', async () => {
    const { onChange, query, rerender, user } = await setup();
    await user.click(screen.getByRole('radio', { name: 'Rolling' }));
    expect(onChange).toHaveBeenLastCalledWith({ ...query, window: 'rolling' });

    rerender({ ...query, window: 'rolling' });
    const length = screen.getByLabelText('Length');
    expect(length).toHaveValue('24h');

    onChange.mockClear();
    await user.clear(length);
    await user.type(length, '2 days');
    await user.tab();
    expect(screen.getByText(ROLLING_ERROR)).toBeInTheDocument();
    expect(onChange).not.toHaveBeenCalled();

    await user.clear(length);
    await user.type(length, '1h30m');
    await user.tab();
    expect(screen.queryByText(ROLLING_ERROR)).not.toBeInTheDocument();
    expect(onChange).toHaveBeenLastCalledWith({ ...query, window: 'rolling', rolling: '1h30m' });
  });

  it('validates rolling lengths as the shared model does, letting variables through', () => {
    expect(rollingError('30m')).toBeUndefined();
    expect(rollingError('7d')).toBeUndefined();
    expect(rollingError('1h30m')).toBeUndefined();
    expect(rollingError('$window')).toBeUndefined();
    expect(rollingError('${window}')).toBeUndefined();
    expect(rollingError('')).toBe(ROLLING_ERROR);
    expect(rollingError('0h')).toBe(ROLLING_ERROR);
    expect(rollingError('24')).toBe(ROLLING_ERROR);
    expect(rollingError('1y')).toBe(ROLLING_ERROR);
  });

  it('loads namespaces from the service and offers dashboard variables with them', async () => {
    const { getResource, onChange, query, user } = await setup();
    expect(getResource).toHaveBeenCalledWith('values/namespaces', undefined);
    expect(await optionsOf(user, 'Namespaces')).toEqual(['$namespace', 'team-a', 'team-b']);

    await choose(user, 'Namespaces', 'team-b');
    expect(onChange).toHaveBeenLastCalledWith({ ...query, namespaces: ['team-b'] });
  });

  it('offers a cluster filter only when several clusters write to the service', async () => {
    await setup();
    expect(screen.queryByText('Clusters')).not.toBeInTheDocument();
    const { onChange, query, user } = await setup(DEFAULT_QUERY, { ...VALUES, clusters: ['east', 'west'] });
    expect(await optionsOf(user, 'Clusters')).toEqual(['$namespace', 'east', 'west']);
    await choose(user, 'Clusters', 'west');
    expect(onChange).toHaveBeenLastCalledWith({ ...query, clusters: ['west'] });
  });

  it('adds a namespace to those chosen', async () => {
    const { onChange, query, user } = await setup({ ...DEFAULT_QUERY, namespaces: ['team-a'] });
    await choose(user, 'Namespaces', 'team-b');
    expect(onChange).toHaveBeenLastCalledWith({ ...query, namespaces: ['team-a', 'team-b'] });
  });

  it('says so when the service cannot list namespaces', async () => {
    await setup(DEFAULT_QUERY, { labelKeys: [] });
    expect(screen.getByText('Could not list namespaces: connection refused')).toBeInTheDocument();
  });

  it('commits the name pattern and label selector when they lose focus', async () => {
    const { onChange, onRunQuery, query, user } = await setup();
    await user.type(screen.getByLabelText('Name'), 'train-*');
    expect(onChange).not.toHaveBeenCalled();
    await user.tab();
    expect(onChange).toHaveBeenLastCalledWith({ ...query, name: 'train-*' });
    expect(onRunQuery).toHaveBeenCalledTimes(1);

    await user.type(screen.getByLabelText('Label selector'), 'team in ($team),!canary{Enter}');
    expect(onChange).toHaveBeenLastCalledWith({ ...query, labelSelector: 'team in ($team),!canary' });
  });

  it('filters by state', async () => {
    const { onChange, query, user } = await setup();
    await choose(user, 'State at end', 'down');
    expect(onChange).toHaveBeenLastCalledWith({ ...query, states: ['down'] });
  });

  it('chooses the columns of a summary table, and shows the choice only for summaries', async () => {
    const { onChange, query, user } = await setup({ ...DEFAULT_QUERY, queryType: 'summary' });
    await choose(user, 'Columns', /^MTTR/);
    expect(onChange).toHaveBeenLastCalledWith({ ...query, figures: ['mttrSeconds'] });
  });

  it('shows no column choice outside summaries', async () => {
    await setup();
    expect(screen.queryByLabelText('Columns')).not.toBeInTheDocument();
  });

  it('changes the layer', async () => {
    const { onChange, query, user } = await setup();
    await user.click(screen.getByRole('radio', { name: 'Nodes' }));
    expect(onChange).toHaveBeenLastCalledWith({ ...query, layer: 'nodes' });
  });
});
