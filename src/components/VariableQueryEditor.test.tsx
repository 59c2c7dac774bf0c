// The variable editor against a real DataSource whose Grafana boundary is mocked: `getResource` (the
// Go backend's CallResource → the service's /api/v1/values) is a jest mock, the template service a
// documented stand-in (../test/fakeTemplateSrv.ts). The browser tier drives the same flows against a
// real service.

import React from 'react';
import { act, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { TemplateSrv } from '@grafana/runtime';

import { DataSource } from '../datasource';
import { fakeTemplateSrv } from '../test/fakeTemplateSrv';
import { instanceSettings } from '../test/settings';
import type { UpnessVariableQuery } from '../types';
import { VariableQueryEditor } from './VariableQueryEditor';

let mockTemplateSrv: TemplateSrv = fakeTemplateSrv({});
jest.mock('@grafana/runtime', () => ({
  ...jest.requireActual('@grafana/runtime'),
  getTemplateSrv: () => mockTemplateSrv,
}));

beforeAll(() => {
  // Combobox renders its options in a virtual list, which needs sizes that jsdom does not compute.
  Object.defineProperty(HTMLElement.prototype, 'clientHeight', { configurable: true, get: () => 400 });
  Object.defineProperty(HTMLElement.prototype, 'clientWidth', { configurable: true, get: () => 400 });
});

const VALUES: Record<string, string[]> = {
  namespaces: ['team-a', 'team-b'],
  labelKeys: ['app.kubernetes.io/name', 'ml.example.com/team'],
};

async function setup(query: UpnessVariableQuery | string, values = VALUES) {
  mockTemplateSrv = fakeTemplateSrv({ namespace: 'team-a' });
  const datasource = new DataSource(instanceSettings());
  jest.spyOn(datasource, 'getResource').mockImplementation(async (path: string) => {
    const list = values[path.replace(/^values\//, '')];
    if (list === undefined) {
      throw new Error('connection refused');
    }
    return { values: list };
  });
  const onChange = jest.fn();
  render(
    <VariableQueryEditor
      datasource={datasource}
      onChange={onChange}
      onRunQuery={jest.fn()}
      query={query as UpnessVariableQuery}
    />
  );
  await act(() => Promise.resolve());
  return { onChange, user: userEvent.setup() };
}

describe('VariableQueryEditor', () => {
  it('chooses what the variable lists; each kind says what it lists', async () => {
    const { onChange, user } = await setup({ refId: 'v', what: 'namespaces' });
    expect(screen.getByLabelText('Values')).toHaveValue('Namespaces');
    expect(screen.getByText('Every namespace that holds JobSets')).toBeInTheDocument();
    await user.click(screen.getByLabelText('Values'));
    expect((await screen.findAllByRole('option'))[1]).toHaveTextContent(
      /^JobSet namesJobSet names, in every namespace or in some/
    );
    await user.click(await screen.findByRole('option', { name: /^Label values/ }));
    expect(onChange).toHaveBeenCalledWith({ refId: 'v', what: 'labelValues' });
  });

  it('shows why a saved query cannot be read, and any pick replaces it, even the kind it looks like', async () => {
    const { onChange, user } = await setup('label_values(namespace)');
    expect(
      screen.getByText(/cannot read the variable query "label_values\(namespace\)".*Pick what to list/)
    ).toBeInTheDocument();
    expect(screen.getByLabelText('Values')).toHaveValue('');
    await user.click(screen.getByLabelText('Values'));
    await user.click(await screen.findByRole('option', { name: /^Namespaces/ }));
    expect(onChange).toHaveBeenCalledWith({ refId: 'UpnessVariableQuery', what: 'namespaces' });
  });

  it("label values: nothing red before a key is typed; the service's keys found by part of a key; Enter commits", async () => {
    const { onChange, user } = await setup({ refId: 'v', what: 'labelValues' });
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(screen.getByText('Pick or type the label key')).toBeInTheDocument();
    await user.click(screen.getByLabelText('Label key'));
    await user.keyboard('team');
    await waitFor(() => expect(screen.getAllByRole('option')[0]).toHaveTextContent(/^ml\.example\.com\/team/));
    await user.keyboard('{Enter}');
    expect(onChange).toHaveBeenLastCalledWith({ refId: 'v', what: 'labelValues', key: 'ml.example.com/team' });
  });

  it('label values: takes a typed key the service does not list', async () => {
    const { onChange, user } = await setup({ refId: 'v', what: 'labelValues' });
    await user.click(screen.getByLabelText('Label key'));
    await user.keyboard('example.org/tier');
    await waitFor(() =>
      expect(screen.getAllByRole('option')[0]).toHaveTextContent(/^example\.org\/tierNot listed by the service/)
    );
    await user.keyboard('{Enter}');
    expect(onChange).toHaveBeenLastCalledWith({ refId: 'v', what: 'labelValues', key: 'example.org/tier' });
  });

  it("jobsets: reads a saved text query and offers the dashboard's variables and the service's namespaces", async () => {
    const { onChange, user } = await setup('jobsets($namespace)');
    expect(screen.getByLabelText('Values')).toHaveValue('JobSet names');
    expect(screen.getByText('$namespace')).toBeInTheDocument();
    await user.click(screen.getByLabelText('Namespaces'));
    await waitFor(() =>
      expect(screen.getAllByRole('option').map((o) => o.textContent)).toEqual([
        '$namespaceDashboard variable',
        'team-a',
        'team-b',
      ])
    );
    await user.keyboard('{ArrowDown}{ArrowDown}{Enter}');
    expect(onChange).toHaveBeenLastCalledWith({
      refId: 'UpnessVariableQuery',
      what: 'jobsets',
      namespace: '$namespace,team-a',
    });
  });

  it('jobsets: refuses a glob as a namespace', async () => {
    const { onChange, user } = await setup({ refId: 'v', what: 'jobsets' });
    await user.click(screen.getByLabelText('Namespaces'));
    await user.keyboard('team-*');
    await waitFor(() => expect(screen.getByText(/Namespaces are exact names/)).toBeInTheDocument());
    await user.keyboard('{ArrowDown}{Enter}');
    expect(onChange).not.toHaveBeenCalled();
  });

  it('says in the field when the service cannot list label keys', async () => {
    await setup({ refId: 'v', what: 'labelValues' }, { namespaces: [] });
    expect(screen.getByText(/Could not list label keys: connection refused/)).toBeInTheDocument();
  });
});
