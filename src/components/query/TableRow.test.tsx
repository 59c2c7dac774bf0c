// A table query's sort and limit in the query editor (summary and slo: issue 21 §2), against a real
// DataSource whose Grafana boundary is mocked as in QueryEditor.test.tsx (no Grafana server runs
// here): the columns offered are those the service sorts by, the limit is checked as the service
// checks it, and clearing either stores the query without it.

import React from 'react';
import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { TemplateSrv } from '@grafana/runtime';

import { DataSource } from '../../datasource';
import { fakeTemplateSrv } from '../../test/fakeTemplateSrv';
import { instanceSettings } from '../../test/settings';
import type { UpnessQuery } from '../../types';
import { QueryEditor } from '../QueryEditor';
import { LIMIT_ERROR, limitError, newQuery } from './model';

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
  return { onChange, query, rerender, user: userEvent.setup() };
}

async function optionsOf(user: ReturnType<typeof userEvent.setup>, label: string): Promise<string[]> {
  await user.click(screen.getByLabelText(label));
  const options = await screen.findAllByRole('option');
  await user.keyboard('{Escape}');
  return options.map((o) => o.textContent ?? '');
}

describe('a table query sorted and limited in the service', () => {
  it('offers the columns of a summary: its chosen figures, and the JobSet count once grouped', async () => {
    const { rerender, query, user } = await setup({ ...newQuery('summary'), figures: ['uptimeRatio', 'upSeconds'] });
    expect(screen.getByLabelText('Sort by')).toHaveValue('Table order');
    // The figures in the table's order (upSeconds before uptimeRatio), each with its editor label.
    const offered = (await optionsOf(user, 'Sort by')).map((o) => o.replace(/By namespace.*$/, ''));
    expect(offered.slice(0, 3)).toEqual(['Table order', 'Time up', 'Uptime ratio']);
    // Then the other figures (the list renders those in view), which the service sorts by too: the table need not show them.
    expect(offered.slice(3)).toEqual(expect.arrayContaining(['Time down', 'Interruptions']));
    expect(offered.slice(3)).not.toContain('Time up');
    rerender({ ...query, groupBy: 'namespace' });
    expect(await optionsOf(user, 'Sort by')).toContain('JobSets');
  });

  it("chooses a summary's usage by state, and offers its five columns to sort by, in words", async () => {
    const { onChange, query, rerender, user } = await setup({ ...newQuery('summary'), figures: ['upSeconds'] });
    expect(screen.getByLabelText('Usage by state')).toHaveAttribute('placeholder', 'No usage columns');
    await user.click(screen.getByLabelText('Usage by state'));
    await user.click(await screen.findByRole('option', { name: /^CPU cores/ }));
    await user.keyboard('{Escape}');
    const withUsage: UpnessQuery = { ...query, usageByState: ['cpuCores'] };
    expect(onChange).toHaveBeenLastCalledWith(withUsage);
    rerender(withUsage);
    expect((await optionsOf(user, 'Sort by')).map((o) => o.replace(/By namespace.*$/, '')).slice(0, 7)).toEqual([
      'Table order',
      'Time up',
      'CPU cores, while up',
      'CPU cores, while not up',
      'CPU cores, while provisioning',
      'CPU cores, while down',
      'CPU cores, while suspended',
    ]);
    // Sorted by a usage column, then the usage removed: the sort is said to be stale, as the service would refuse it.
    rerender({ ...withUsage, sort: { by: 'cpuCoresWhileDown', direction: 'desc' } });
    expect(screen.queryByText(/Not a column of this table/)).not.toBeInTheDocument();
    rerender({ ...query, usageByState: [], sort: { by: 'cpuCoresWhileDown', direction: 'desc' } });
    expect(screen.getByText('Not a column of this table any more: cpuCoresWhileDown')).toBeInTheDocument();
  });

  it('stores a sort by a column, largest first, then smallest first, and the table order as no sort', async () => {
    const { onChange, query, rerender, user } = await setup({ ...newQuery('slo'), sloAnswer: 'errorBudget' });
    // No order to choose before there is a sort.
    expect(screen.queryByRole('radio', { name: 'Largest first' })).not.toBeInTheDocument();
    await user.click(screen.getByLabelText('Sort by'));
    await user.click(await screen.findByRole('option', { name: 'Burn rate' }));
    const sorted: UpnessQuery = { ...query, sort: { by: 'burnRate', direction: 'desc' } };
    expect(onChange).toHaveBeenLastCalledWith(sorted);
    rerender(sorted);
    expect(screen.getByRole('radio', { name: 'Largest first' })).toBeChecked();
    await user.click(screen.getByRole('radio', { name: 'Smallest first' }));
    expect(onChange).toHaveBeenLastCalledWith({ ...query, sort: { by: 'burnRate', direction: 'asc' } });
    rerender({ ...query, sort: { by: 'burnRate', direction: 'asc' } });
    await user.click(screen.getByLabelText('Sort by'));
    await user.click(await screen.findByRole('option', { name: /^Table order/ }));
    expect(onChange).toHaveBeenLastCalledWith({ ...query, sort: undefined });
  });

  it('sorts a summary by a figure it does not show, as the service does, without calling it stale', async () => {
    const { onChange, query, rerender, user } = await setup({ ...newQuery('summary'), figures: ['upSeconds'] });
    await user.click(screen.getByLabelText('Sort by'));
    await user.click(await screen.findByRole('option', { name: 'Interruptions' }));
    const sorted: UpnessQuery = { ...query, sort: { by: 'interruptions', direction: 'desc' } };
    expect(onChange).toHaveBeenLastCalledWith(sorted);
    rerender(sorted);
    expect(screen.getByLabelText('Sort by')).toHaveValue('Interruptions');
    expect(screen.queryByText(/Not a column of this table/)).not.toBeInTheDocument();
  });

  it("chooses an slo answer's columns, offers the shown ones first to sort by, and keeps only the new answer's on a change of answer", async () => {
    const { onChange, query, rerender, user } = await setup({ ...newQuery('slo'), sloAnswer: 'errorBudget' });
    expect(screen.getByLabelText('Columns')).toHaveAttribute('placeholder', 'Every column');
    await user.click(screen.getByLabelText('Columns'));
    expect((await screen.findAllByRole('option')).map((o) => o.textContent)).toEqual(
      expect.arrayContaining(['Budget allowed', 'Budget left (share)', 'Burn rate', 'Time to exhaustion'])
    );
    await user.click(await screen.findByRole('option', { name: 'Budget left (share)' }));
    await user.keyboard('{Escape}');
    const narrowed: UpnessQuery = { ...query, columns: ['remainingFraction'] };
    expect(onChange).toHaveBeenLastCalledWith(narrowed);
    rerender(narrowed);
    const offered = await optionsOf(user, 'Sort by');
    expect(offered[1]).toBe('Budget left (share)');
    expect(offered.slice(2)).toEqual(expect.arrayContaining(['Burn rate', 'Budget allowed']));
    // Another answer: the columns it has are kept, none left means all (the service refuses another answer's).
    rerender({ ...query, columns: ['remainingFraction', 'burnRate'] });
    await user.click(screen.getByLabelText('Answer'));
    await user.click(await screen.findByRole('option', { name: /^Burn rate/ }));
    expect(onChange).toHaveBeenLastCalledWith(
      expect.objectContaining({ sloAnswer: 'burnRate', columns: ['burnRate'] })
    );
    rerender({ ...query, columns: ['remainingFraction'] });
    await user.click(screen.getByLabelText('Answer'));
    await user.click(await screen.findByRole('option', { name: /^SLI/ }));
    const last = onChange.mock.calls.at(-1)![0] as UpnessQuery;
    expect(last.sloAnswer).toBe('sli');
    expect(last.columns).toBeUndefined();
    // An answer of one column has nothing to narrow.
    rerender({ ...query, sloAnswer: 'burnRate' });
    expect(screen.queryByLabelText('Columns')).not.toBeInTheDocument();
  });

  it('says when the sort column is no longer one of the table (another answer), as the service would refuse it', async () => {
    const { rerender, query } = await setup({
      ...newQuery('slo'),
      sloAnswer: 'errorBudget',
      sort: { by: 'burnRate', direction: 'desc' },
    });
    expect(screen.queryByText(/Not a column of this table/)).not.toBeInTheDocument();
    rerender({ ...query, sloAnswer: 'sli' });
    expect(screen.getByText('Not a column of this table any more: burnRate')).toBeInTheDocument();
  });

  it('takes a limit of a whole number from 1 (empty: every row), as the service does', async () => {
    const { onChange, query, rerender, user } = await setup(newQuery('summary'));
    const limit = screen.getByLabelText('Limit');
    expect(limit).toHaveValue('');
    for (const bad of ['0', '-5', '2.5', 'ten']) {
      await user.clear(limit);
      await user.type(limit, `${bad}{Enter}`);
      expect(screen.getByText(LIMIT_ERROR)).toBeInTheDocument();
    }
    expect(onChange).not.toHaveBeenCalled();
    await user.clear(limit);
    await user.type(limit, '50{Enter}');
    expect(screen.queryByText(LIMIT_ERROR)).not.toBeInTheDocument();
    expect(onChange).toHaveBeenLastCalledWith({ ...query, limit: 50 });
    rerender({ ...query, limit: 50 });
    await user.clear(screen.getByLabelText('Limit'));
    await user.type(screen.getByLabelText('Limit'), '{Enter}');
    expect(onChange).toHaveBeenLastCalledWith({ ...query, limit: undefined });
  });

  it('is not offered on a query type that is not a table', async () => {
    await setup(newQuery('series'));
    expect(screen.queryByLabelText('Sort by')).not.toBeInTheDocument();
    expect(screen.queryByLabelText('Limit')).not.toBeInTheDocument();
  });
});

describe('limitError', () => {
  it.each([
    ['', undefined],
    ['1', undefined],
    ['1000000', undefined],
    ['1000001', LIMIT_ERROR],
    ['0', LIMIT_ERROR],
    ['01', undefined],
    ['1e3', LIMIT_ERROR],
    [' 5', LIMIT_ERROR],
  ])('%j → %s', (text, expected) => {
    expect(limitError(text)).toBe(expected);
  });
});
