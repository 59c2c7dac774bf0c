import React from 'react';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';

import { DataSource } from '../datasource';
import { instanceSettings } from '../test/settings';
import type { UpnessVariableQuery } from '../types';
import { VariableQueryEditor } from './VariableQueryEditor';

beforeAll(() => {
  // Combobox renders its options in a virtual list, which needs sizes that jsdom does not compute.
  Object.defineProperty(HTMLElement.prototype, 'clientHeight', { configurable: true, get: () => 400 });
  Object.defineProperty(HTMLElement.prototype, 'clientWidth', { configurable: true, get: () => 400 });
});

function setup(query: UpnessVariableQuery | string) {
  const onChange = jest.fn();
  const props = { datasource: new DataSource(instanceSettings()), onChange, onRunQuery: jest.fn() };
  render(<VariableQueryEditor {...props} query={query as UpnessVariableQuery} />);
  return { onChange, user: userEvent.setup() };
}

describe('VariableQueryEditor', () => {
  it('chooses what the variable lists', async () => {
    const { onChange, user } = setup({ refId: 'v', what: 'namespaces' });
    expect(screen.getByLabelText('Values')).toHaveValue('Namespaces');
    await user.click(screen.getByLabelText('Values'));
    await user.click(await screen.findByRole('option', { name: /^Label values/ }));
    expect(onChange).toHaveBeenCalledWith({ refId: 'v', what: 'labelValues' });
  });

  it('reads a variable saved as text, and edits its namespace argument', async () => {
    const { onChange, user } = setup('jobsets($namespace)');
    expect(screen.getByLabelText('Values')).toHaveValue('JobSet names');
    const namespace = screen.getByLabelText('Namespace');
    expect(namespace).toHaveValue('$namespace');
    await user.clear(namespace);
    await user.type(namespace, 'team-a,team-b');
    await user.tab();
    expect(onChange).toHaveBeenLastCalledWith({
      refId: 'UpnessVariableQuery',
      what: 'jobsets',
      namespace: 'team-a,team-b',
    });
  });

  it('asks for the label key of labelValues', async () => {
    const { onChange, user } = setup({ refId: 'v', what: 'labelValues' });
    expect(screen.getByText('Enter a label key')).toBeInTheDocument();
    await user.type(screen.getByLabelText('Label key'), 'team');
    await user.tab();
    expect(onChange).toHaveBeenLastCalledWith({ refId: 'v', what: 'labelValues', key: 'team' });
  });

  it('says why a text query cannot be read', () => {
    setup('pods(team-a)');
    expect(screen.getByText(/cannot read the variable query "pods\(team-a\)"/)).toBeInTheDocument();
  });
});
