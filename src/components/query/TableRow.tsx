// A table query's order and size (summary, slo: issue 21 §2): sorted by a number column and limited
// to the first N, in the service, so a panel receives only the rows it shows. The service sorts by
// any figure of a summary or any column of an slo answer, shown or not (a panel may show one figure
// and order by another): the columns the table shows come first, the others after them.

import React from 'react';
import { EditorField, EditorRow } from '@grafana/plugin-ui';
import { Combobox, type ComboboxOption, RadioButtonGroup } from '@grafana/ui';

import {
  type FigureName,
  FIGURES,
  type SortDirection,
  sortableColumns,
  USAGE_METRICS,
  USAGE_SPLITS,
  usageColumn,
} from '../../types';
import { METRIC_LABELS } from '../labels';
import { TextField, WIDTH } from './fields';
import { limitError, shownColumns, staleSortColumn } from './model';
import type { EditorProps } from './props';

/** The columns that are not figures: a grouped summary's JobSet count, an slo answer's own. */
export const COLUMN_LABELS: Record<string, string> = {
  jobsets: 'JobSets',
  sli: 'SLI',
  objective: 'Objective',
  allowedSeconds: 'Budget allowed',
  consumedSeconds: 'Budget consumed (s)',
  remainingSeconds: 'Budget left (s)',
  remainingFraction: 'Budget left (share)',
  burnRate: 'Burn rate',
  timeToExhaustionSeconds: 'Time to exhaustion',
  budgetConsumed: 'Budget consumed (share)',
  alert: 'Alert firing',
};

/** A usage split's words: "CPU in use, while not up". */
const SPLIT_WORDS: Record<(typeof USAGE_SPLITS)[number], string> = {
  up: 'while up',
  notUp: 'while not up',
  provisioning: 'while provisioning',
  down: 'while down',
  suspended: 'while suspended',
};

const USAGE_COLUMN_LABELS: Record<string, string> = Object.fromEntries(
  USAGE_METRICS.flatMap((m) =>
    USAGE_SPLITS.map((split) => [usageColumn(m, split), `${METRIC_LABELS[m].label}, ${SPLIT_WORDS[split]}`])
  )
);

export const label = (column: string): string =>
  (FIGURES as readonly string[]).includes(column)
    ? METRIC_LABELS[column as FigureName].label
    : (COLUMN_LABELS[column] ?? USAGE_COLUMN_LABELS[column] ?? column);

/** The value of the Sort by list that stands for no sort: the table's own order. */
const TABLE_ORDER = '';

/** The group of the sort columns the table does not show. */
export const NOT_SHOWN = 'Not shown in the table';

export function TableRow({ q, id, update }: Pick<EditorProps, 'q' | 'id' | 'update'>) {
  const shown = shownColumns(q);
  const options: Array<ComboboxOption<string>> = [
    { value: TABLE_ORDER, label: 'Table order', description: 'By namespace and name, or by group' },
    ...shown.map((value) => ({ value, label: label(value) })),
    ...sortableColumns(q)
      .filter((value) => !shown.includes(value))
      .map((value) => ({ value, label: label(value), group: NOT_SHOWN })),
  ];
  const stale = staleSortColumn(q);
  const direction = q.sort?.direction ?? 'desc';
  return (
    <EditorRow>
      <EditorField
        label="Sort by"
        tooltip="The rows' order, decided in the service: a number column of the table, or a figure it does not show (rows without a value last)"
        width={WIDTH.medium}
        htmlFor={id('sort')}
        invalid={stale !== undefined}
        error={stale !== undefined ? `Not a column of this table any more: ${stale}` : undefined}
      >
        <Combobox<string>
          id={id('sort')}
          width={WIDTH.medium}
          options={options}
          value={q.sort?.by ?? TABLE_ORDER}
          onChange={(o) => update({ sort: o.value === TABLE_ORDER ? undefined : { by: o.value, direction } })}
        />
      </EditorField>
      {q.sort !== undefined && (
        <EditorField label="Order" tooltip="Largest or smallest first" htmlFor={id('direction')}>
          <RadioButtonGroup<SortDirection>
            id={id('direction')}
            options={[
              { value: 'desc', label: 'Largest first' },
              { value: 'asc', label: 'Smallest first' },
            ]}
            value={direction}
            onChange={(d) => update({ sort: { by: q.sort!.by, direction: d } })}
          />
        </EditorField>
      )}
      <TextField
        id={id('limit')}
        label="Limit"
        tooltip="At most this many rows, after the sort, decided in the service (the panel then says how many there were); empty: every row."
        value={q.limit === undefined ? '' : String(q.limit)}
        placeholder="every row"
        width={WIDTH.short}
        validate={limitError}
        onCommit={(text) => update({ limit: text === '' ? undefined : Number(text) })}
      />
    </EditorRow>
  );
}
