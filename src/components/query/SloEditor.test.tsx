// The SLO editor inside the query editor, against a real DataSource whose Grafana boundary is mocked
// as in QueryEditor.test.tsx (no Grafana server runs here): what a new SLO query is, its fields
// checked as the service checks them, and the fields each answer uses.

import React from 'react';
import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { TemplateSrv } from '@grafana/runtime';

import { DataSource } from '../../datasource';
import { fakeTemplateSrv } from '../../test/fakeTemplateSrv';
import { instanceSettings } from '../../test/settings';
import type { UpnessQuery } from '../../types';
import { QueryEditor } from '../QueryEditor';
import { newQuery, OBJECTIVE_ERROR } from './model';

let mockTemplateSrv: TemplateSrv = fakeTemplateSrv({});
jest.mock('@grafana/runtime', () => ({
  ...jest.requireActual('@grafana/runtime'),
  getTemplateSrv: () => mockTemplateSrv,
}));

async function setup(fields: Partial<UpnessQuery>) {
  mockTemplateSrv = fakeTemplateSrv({});
  const datasource = new DataSource(instanceSettings());
  jest.spyOn(datasource, 'getResource').mockImplementation(async () => ({ values: [] }));
  const onChange = jest.fn();
  const onRunQuery = jest.fn();
  const query: UpnessQuery = { refId: 'A', ...fields };
  const props = { datasource, query, onChange, onRunQuery };
  const view = render(<QueryEditor {...props} />);
  await act(() => Promise.resolve());
  const rerender = (next: UpnessQuery) => view.rerender(<QueryEditor {...props} query={next} />);
  return { onChange, onRunQuery, query, rerender, user: userEvent.setup() };
}

describe('SloEditor', () => {
  it('shows a new SLO query: the SLI at 95% over 28 days at the end of the range, per JobSet name', async () => {
    const { onChange } = await setup(newQuery('slo'));
    expect(screen.getByRole('radio', { name: 'SLO' })).toBeChecked();
    expect(screen.getByText(/An objective over a period per JobSet name/)).toBeInTheDocument();
    expect(screen.getByLabelText('Answer')).toHaveValue('SLI');
    expect(screen.getByLabelText('Objective')).toHaveValue('0.95');
    expect(screen.getByLabelText('Period')).toHaveValue('28d');
    expect(screen.getByRole('radio', { name: 'At the end' })).toBeChecked();
    expect(screen.getByRole('radio', { name: 'Uptime' })).toBeChecked();
    // The SLI needs no burn window.
    expect(screen.queryByLabelText('Burn window')).not.toBeInTheDocument();
    expect(onChange).not.toHaveBeenCalled();
  });

  it('takes an objective strictly between 0 and 1 and a period of at least 1h, as the service does', async () => {
    const { onChange, query, user } = await setup(newQuery('slo'));
    const objective = screen.getByLabelText('Objective');
    await user.clear(objective);
    await user.type(objective, '95{Enter}');
    expect(screen.getByText(OBJECTIVE_ERROR)).toBeInTheDocument();
    expect(onChange).not.toHaveBeenCalled();
    await user.clear(objective);
    await user.type(objective, '0.97{Enter}');
    expect(screen.queryByText(OBJECTIVE_ERROR)).not.toBeInTheDocument();
    expect(onChange).toHaveBeenLastCalledWith({ ...query, objective: 0.97 });

    const period = screen.getByLabelText('Period');
    await user.clear(period);
    await user.type(period, '30m{Enter}');
    expect(screen.getByText('At least 1h')).toBeInTheDocument();
    await user.clear(period);
    await user.type(period, '30d{Enter}');
    // Each change builds on the last one handed to Grafana.
    expect(onChange).toHaveBeenLastCalledWith({ ...query, objective: 0.97, period: '30d' });
  });

  it('shows the windows and threshold of an alert, and the factor of a burn rate', async () => {
    const { onChange, query, rerender, user } = await setup({ ...newQuery('slo'), sloAnswer: 'alert' });
    expect(screen.getByLabelText('Burn window')).toHaveValue('1h');
    expect(screen.getByLabelText('Still burning in')).toHaveValue('5m');
    expect(screen.getByLabelText('Budget consumed at least')).toHaveValue('0.02');
    expect(screen.queryByLabelText('Alert factor')).not.toBeInTheDocument();

    rerender({ ...query, sloAnswer: 'burnRate' });
    expect(screen.queryByLabelText('Still burning in')).not.toBeInTheDocument();
    const factor = screen.getByLabelText('Alert factor');
    await user.type(factor, '14.4{Enter}');
    expect(onChange).toHaveBeenLastCalledWith({ ...query, sloAnswer: 'burnRate', burnFactor: 14.4 });

    await user.click(screen.getByRole('radio', { name: 'Over time' }));
    expect(onChange).toHaveBeenLastCalledWith({ ...query, sloAnswer: 'burnRate', burnFactor: 14.4, window: 'step' });
  });

  it('measures the SLI by uptime or by scheduling goodput, and keeps the choice across answers', async () => {
    const { onChange, query, rerender, user } = await setup(newQuery('slo'));
    expect(screen.getByRole('radio', { name: 'Scheduling goodput' })).not.toBeChecked();
    await user.click(screen.getByRole('radio', { name: 'Scheduling goodput' }));
    expect(onChange).toHaveBeenLastCalledWith({ ...query, indicator: 'schedulingGoodput' });

    rerender({ ...query, indicator: 'schedulingGoodput', sloAnswer: 'alert' });
    expect(screen.getByRole('radio', { name: 'Scheduling goodput' })).toBeChecked();
    expect(screen.getByRole('radio', { name: 'Uptime' })).not.toBeChecked();
    await user.click(screen.getByRole('radio', { name: 'Uptime' }));
    expect(onChange).toHaveBeenLastCalledWith({ ...query, indicator: 'uptime', sloAnswer: 'alert' });
  });

  it('answers as a frame per group by default, or as one table, and stores no format for the default', async () => {
    const { onChange, query, rerender, user } = await setup(newQuery('slo'));
    expect(screen.getByRole('radio', { name: 'Frame per group' })).toBeChecked();
    await user.click(screen.getByRole('radio', { name: 'Table' }));
    expect(onChange).toHaveBeenLastCalledWith({ ...query, format: 'table' });
    rerender({ ...query, format: 'table' });
    expect(screen.getByRole('radio', { name: 'Table' })).toBeChecked();
    await user.click(screen.getByRole('radio', { name: 'Frame per group' }));
    expect(onChange).toHaveBeenLastCalledWith({ ...query, format: undefined });
  });
});
