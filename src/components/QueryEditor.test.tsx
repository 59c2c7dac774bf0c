// The query editor against a real DataSource whose Grafana boundary is mocked: no Grafana server
// can run here, so `getResource` (the Go backend's CallResource → the service's /api/v1/values)
// is a jest mock and the template service a documented stand-in (../test/fakeTemplateSrv.ts).

import React from 'react';
import { act, cleanup, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { TemplateSrv } from '@grafana/runtime';

import { DataSource } from '../datasource';
import { fakeTemplateSrv } from '../test/fakeTemplateSrv';
import { instanceSettings } from '../test/settings';
import type { UpnessQuery } from '../types';
import { newQuery, ROLLING_ERROR } from './query/model';
import { QueryEditor } from './QueryEditor';

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
  labelKeys: ['ml.example.com/team', 'kueue.x-k8s.io/queue-name'],
  clusters: [],
};

const NEW = newQuery();

async function setup(fields: Partial<UpnessQuery> = NEW, values = VALUES) {
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

/** Opens a combobox by its label, types to find the option (lists show a few at a time), and picks it. */
async function choose(user: User, label: string, option: string | RegExp, search = '') {
  await user.click(screen.getByLabelText(label));
  if (search !== '') {
    await user.keyboard(search);
  }
  await user.click(await screen.findByRole('option', { name: option }));
}

async function optionsOf(user: User, label: string): Promise<string[]> {
  await user.click(screen.getByLabelText(label));
  const options = await screen.findAllByRole('option');
  await user.keyboard('{Escape}');
  return options.map((o) => o.textContent ?? '');
}

/**
 * Types into a list whose options follow the text (they load after a 200 ms pause) and returns them
 * once the first option (and `last`, when given) shows: on a loaded machine the list can still show
 * what an earlier keystroke found ("te" for "team"), so the wait names what the whole text finds,
 * with room for a slow machine.
 */
async function typed(user: User, label: string, text: string, first: RegExp, last?: RegExp): Promise<string[]> {
  await user.click(screen.getByLabelText(label));
  await user.keyboard(text);
  await waitFor(
    () => {
      const options = screen.getAllByRole('option');
      expect(options[0]).toHaveTextContent(first);
      if (last) {
        expect(options[options.length - 1]).toHaveTextContent(last);
      }
    },
    { timeout: 10_000 }
  );
  return screen.getAllByRole('option').map((o) => o.textContent ?? '');
}

describe('QueryEditor', () => {
  it('shows a new query: a step series of the pooled uptime ratio per namespace, and what a series is for', async () => {
    const { onChange } = await setup();
    expect(screen.getByRole('radio', { name: 'Series' })).toBeChecked();
    expect(screen.getByText(/A metric over time: one line per JobSet or per group\./)).toBeInTheDocument();
    expect(screen.getByText(/Panel: Time series, Stat, alert rules/)).toBeInTheDocument();
    expect(screen.getByLabelText('Metric')).toHaveValue('Uptime ratio');
    expect(screen.getByRole('radio', { name: 'Step' })).toBeChecked();
    expect(screen.getByLabelText('Group by')).toHaveValue('Namespace');
    expect(screen.getByLabelText('Aggregate')).toHaveValue('Pooled');
    expect(screen.getByRole('radio', { name: 'JobSet' })).toBeChecked();
    expect(screen.queryByLabelText('Length')).not.toBeInTheDocument();
    expect(onChange).not.toHaveBeenCalled();
  });

  it('reads a saved query with missing fields as the service does: per JobSet over the range, no aggregate', async () => {
    await setup({ name: undefined, window: undefined, metric: undefined });
    expect(screen.getByLabelText('Metric')).toHaveValue('Uptime ratio');
    expect(screen.getByRole('radio', { name: 'Range' })).toBeChecked();
    expect(screen.getByLabelText('Group by')).toHaveValue('Each JobSet');
    expect(screen.queryByLabelText('Aggregate')).not.toBeInTheDocument();
  });

  it('changes the query type once, runs once, and shows what the new type is for and only its fields', async () => {
    const { onChange, onRunQuery, query, rerender, user } = await setup();
    await user.click(screen.getByRole('radio', { name: 'Summary' }));
    expect(onChange).toHaveBeenCalledTimes(1);
    expect(onChange).toHaveBeenCalledWith({ ...query, queryType: 'summary' });
    expect(onRunQuery).toHaveBeenCalledTimes(1);

    rerender({ ...query, queryType: 'summary' });
    expect(screen.getByText(/Panel: Table\./)).toBeInTheDocument();
    expect(screen.queryByLabelText('Metric')).not.toBeInTheDocument();
    expect(screen.getByLabelText('Columns')).toBeInTheDocument();

    rerender({ ...query, queryType: 'states' });
    expect(screen.getByText(/Panel: State timeline/)).toBeInTheDocument();
    expect(screen.queryByLabelText('Group by')).not.toBeInTheDocument();
    expect(screen.getByLabelText('Name')).toBeInTheDocument();

    rerender({ ...query, queryType: 'events' });
    expect(screen.getByText(/Each interruption as a region/)).toBeInTheDocument();
    expect(screen.getByText(/Panel: Annotations/)).toBeInTheDocument();
    expect(screen.getByLabelText('State at end')).toBeInTheDocument();
  });

  it('events: shows regions, or counts the interruptions by cause (groupBy: cause), and runs once', async () => {
    const { onChange, onRunQuery, query, rerender, user } = await setup(newQuery('events'));
    expect(screen.getByRole('radio', { name: 'Regions' })).toBeChecked();
    expect(screen.getByText(/each suspension until its resume with its reason/)).toBeInTheDocument();
    await user.click(screen.getByRole('radio', { name: 'Count by cause' }));
    expect(onChange).toHaveBeenCalledTimes(1);
    expect(onChange).toHaveBeenCalledWith({ ...query, groupBy: 'cause' });
    expect(onRunQuery).toHaveBeenCalledTimes(1);
    rerender({ ...query, groupBy: 'cause' });
    expect(screen.getByRole('radio', { name: 'Count by cause' })).toBeChecked();
    await user.click(screen.getByRole('radio', { name: 'Regions' }));
    expect(onChange).toHaveBeenLastCalledWith({ ...query, groupBy: 'none' });
  });

  it('offers the metrics in groups; picking one moves an aggregate left at its default along, and runs once', async () => {
    const { onChange, onRunQuery, query, user } = await setup();
    const shown = await optionsOf(user, 'Metric');
    expect(shown[0]).toMatch(/^Uptime ratio/);
    expect(screen.queryByText('Up time')).not.toBeInTheDocument();
    await choose(user, 'Metric', /^MTTR/, 'MTTR');
    expect(onChange).toHaveBeenCalledTimes(1);
    expect(onChange).toHaveBeenCalledWith({ ...query, metric: 'mttrSeconds', aggregate: 'p50' });
    expect(onRunQuery).toHaveBeenCalledTimes(1);
  });

  it('keeps an aggregate the user chose when the metric changes', async () => {
    const { onChange, query, user } = await setup({ ...NEW, aggregate: 'max' });
    await choose(user, 'Metric', /^Time up/);
    expect(onChange).toHaveBeenCalledWith({ ...query, metric: 'upSeconds' });
  });

  it('lists the aggregate that suits the metric first', async () => {
    const { user } = await setup({ ...NEW, metric: 'interruptions', aggregate: 'sum' });
    const shown = await optionsOf(user, 'Aggregate');
    expect(shown[0]).toMatch(/^SumSuits Interruptions/);
  });

  it('stores a saved fleet query "per JobSet" as the whole fleet it shows, once, without running it', async () => {
    const { onChange, onRunQuery, query } = await setup({ ...NEW, queryType: 'fleet', groupBy: 'none', metric: 'up' });
    expect(screen.getByLabelText('Group by')).toHaveValue('Whole fleet');
    expect(screen.getByLabelText('Metric')).toHaveValue('Uptime ratio');
    expect(onChange).toHaveBeenCalledTimes(1);
    expect(onChange).toHaveBeenCalledWith({ ...query, groupBy: 'all', metric: 'uptimeRatio' });
    expect(onRunQuery).not.toHaveBeenCalled();
  });

  it('groups by a typed label key as label:<key>, after the keys the service knows that match it', async () => {
    const { onChange, query, user } = await setup();
    const shown = await typed(
      user,
      'Group by',
      'team',
      /ml\.example\.com\/team/,
      /^Label team.*not listed by the service/
    );
    expect(shown[0]).toMatch(/^Label ml\.example\.com\/team/);
    expect(shown[shown.length - 1]).toMatch(/^Label team.*not listed by the service/);
    await user.keyboard('{Enter}');
    expect(onChange).toHaveBeenLastCalledWith({ ...query, groupBy: 'label:ml.example.com/team' });
  });

  it('groups by job size, and takes size buckets as the service checks them (ascending whole numbers from 1)', async () => {
    const { onChange, query, rerender, user } = await setup();
    expect(screen.queryByLabelText('Size buckets')).not.toBeInTheDocument();
    await choose(user, 'Group by', /^Job size/, 'size');
    expect(onChange).toHaveBeenLastCalledWith({ ...query, groupBy: 'size' });
    rerender({ ...query, groupBy: 'size' });
    const buckets = screen.getByLabelText('Size buckets');
    // The service's default buckets until set.
    expect(buckets).toHaveValue('1, 8, 64, 512');
    onChange.mockClear();
    await user.clear(buckets);
    await user.type(buckets, '8, 4{Enter}');
    expect(screen.getByText('Size buckets must be strictly ascending ([1] is 4, after 8)')).toBeInTheDocument();
    await user.clear(buckets);
    await user.type(buckets, '0, 4{Enter}');
    expect(screen.getByText('Size buckets [0] must be a whole number from 1')).toBeInTheDocument();
    await user.clear(buckets);
    await user.type(buckets, '8 or so{Enter}');
    expect(screen.getByText(/whole numbers separated by commas/)).toBeInTheDocument();
    expect(onChange).not.toHaveBeenCalled();
    await user.clear(buckets);
    await user.type(buckets, '8, 512{Enter}');
    expect(screen.queryByText(/Size buckets must|whole numbers separated/)).not.toBeInTheDocument();
    expect(onChange).toHaveBeenCalledTimes(1);
    expect(onChange).toHaveBeenLastCalledWith({ ...query, groupBy: 'size', sizeBuckets: [8, 512] });
  });

  it('offers size buckets in a fleet query grouped by job size', async () => {
    await setup({ ...NEW, queryType: 'fleet', groupBy: 'size', metric: 'timeToFirstUpSeconds', sizeBuckets: [4, 256] });
    expect(screen.getByLabelText('Group by')).toHaveValue('Job size');
    expect(screen.getByLabelText('Size buckets')).toHaveValue('4, 256');
  });

  it('refuses a Group by the service would refuse', async () => {
    const { onChange, user } = await setup();
    await typed(user, 'Group by', 'not a key!', /not a key!/);
    expect(screen.getByText(/Not a dimension or a label key: not a key!/)).toBeInTheDocument();
    await user.keyboard('{Enter}');
    expect(onChange).not.toHaveBeenCalled();
  });

  it('offers Cluster, and a cluster filter, only when several clusters write to the service', async () => {
    const { user } = await setup();
    expect(screen.queryByLabelText('Clusters')).not.toBeInTheDocument();
    expect((await optionsOf(user, 'Group by')).some((o) => o.startsWith('Cluster'))).toBe(false);
    cleanup();
    const several = await setup(NEW, { ...VALUES, clusters: ['east', 'west'] });
    expect((await optionsOf(several.user, 'Group by')).some((o) => o.startsWith('Cluster'))).toBe(true);
    await choose(several.user, 'Clusters', 'west');
    expect(several.onChange).toHaveBeenLastCalledWith({ ...several.query, clusters: ['west'] });
  });

  it('loads namespaces from the service, offers dashboard variables with them, and runs a pick once', async () => {
    const { getResource, onChange, onRunQuery, query, user } = await setup();
    expect(getResource).toHaveBeenCalledWith('values/namespaces', undefined);
    await user.click(screen.getByLabelText('Namespaces'));
    await waitFor(() =>
      expect(screen.getAllByRole('option').map((o) => o.textContent)).toEqual([
        '$namespaceDashboard variable',
        'team-a',
        'team-b',
      ])
    );
    await user.keyboard('{ArrowDown}{ArrowDown}{ArrowDown}{Enter}');
    expect(onChange).toHaveBeenCalledTimes(1);
    expect(onChange).toHaveBeenCalledWith({ ...query, namespaces: ['team-b'] });
    expect(onRunQuery).toHaveBeenCalledTimes(1);
  });

  it('refuses a glob in Namespaces with a hint to use Name; takes a typed name', async () => {
    const { onChange, query, user } = await setup();
    await typed(user, 'Namespaces', 'team-*', /team-\*/);
    expect(screen.getByText(/Namespaces are exact names: for a pattern use Name/)).toBeInTheDocument();
    await user.keyboard('{Enter}');
    expect(onChange).not.toHaveBeenCalled();
    await user.clear(screen.getByLabelText('Namespaces'));
    await typed(user, 'Namespaces', 'batch', /batch/);
    await user.keyboard('{ArrowDown}{Enter}');
    expect(onChange).toHaveBeenCalledWith({ ...query, namespaces: ['batch'] });
  });

  it('says in the fields that needed them when the service cannot list namespaces or label keys', async () => {
    await setup(NEW, { clusters: [] });
    expect(
      screen.getByText(/Could not list namespaces: connection refused\. Type names instead\./)
    ).toBeInTheDocument();
    expect(
      screen.getByText(/Could not list label keys: connection refused\. Type a key to group by it\./)
    ).toBeInTheDocument();
  });

  it('commits the name pattern and label selector on Enter or when they lose focus; refuses what the service cannot read', async () => {
    const { onChange, onRunQuery, query, user } = await setup();
    await user.type(screen.getByLabelText('Name'), 'train-*');
    expect(onChange).not.toHaveBeenCalled();
    await user.tab();
    expect(onChange).toHaveBeenLastCalledWith({ ...query, name: 'train-*' });
    expect(onRunQuery).toHaveBeenCalledTimes(1);

    await user.type(screen.getByLabelText('Label selector'), 'team in (a{Enter}');
    expect(screen.getByText('unbalanced parentheses')).toBeInTheDocument();
    expect(onChange).toHaveBeenCalledTimes(1);
    await user.type(screen.getByLabelText('Label selector'), '),!canary{Enter}');
    expect(screen.queryByText('unbalanced parentheses')).not.toBeInTheDocument();
    expect(onChange).toHaveBeenLastCalledWith({ ...query, name: 'train-*', labelSelector: 'team in (a),!canary' });
  });

  it('takes a rolling window length checked as the service checks it', async () => {
    const { onChange, query, rerender, user } = await setup();
    await user.click(screen.getByRole('radio', { name: 'Rolling' }));
    expect(onChange).toHaveBeenLastCalledWith({ ...query, window: 'rolling' });

    rerender({ ...query, window: 'rolling' });
    const length = screen.getByLabelText('Length');
    expect(length).toHaveValue('24h');
    onChange.mockClear();
    await user.clear(length);
    await user.type(length, '2 days{Enter}');
    expect(screen.getByText(ROLLING_ERROR)).toBeInTheDocument();
    expect(onChange).not.toHaveBeenCalled();
    await user.clear(length);
    await user.type(length, '1h30m');
    await user.tab();
    expect(screen.queryByText(ROLLING_ERROR)).not.toBeInTheDocument();
    expect(onChange).toHaveBeenLastCalledWith({ ...query, window: 'rolling', rolling: '1h30m' });
  });

  it('filters by state, with the states named and described', async () => {
    const { onChange, query, user } = await setup();
    const shown = await optionsOf(user, 'State at end');
    expect(shown).toContain('DownNot up, after having been up');
    await choose(user, 'State at end', /^Down/);
    expect(onChange).toHaveBeenLastCalledWith({ ...query, states: ['down'] });
  });

  it('chooses the columns of a summary table', async () => {
    const { onChange, query, user } = await setup({ ...NEW, queryType: 'summary' });
    await choose(user, 'Columns', /^MTTR/, 'MTTR');
    expect(onChange).toHaveBeenLastCalledWith({ ...query, figures: ['mttrSeconds'] });
  });

  it('changes the layer', async () => {
    const { onChange, query, user } = await setup();
    await user.click(screen.getByRole('radio', { name: 'Nodes' }));
    expect(onChange).toHaveBeenLastCalledWith({ ...query, layer: 'nodes' });
  });

  it('does not store or run a change that changes nothing', async () => {
    const { onChange, onRunQuery, user } = await setup({ ...NEW, name: 'train-*' });
    await user.clear(screen.getByLabelText('Name'));
    await user.type(screen.getByLabelText('Name'), 'train-*{Enter}');
    await choose(user, 'Metric', /^Uptime ratio/);
    expect(onChange).not.toHaveBeenCalled();
    expect(onRunQuery).not.toHaveBeenCalled();
  });
});
