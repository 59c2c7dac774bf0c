// SLO: an objective over a period per JobSet name (across its recreations), namespace, label or the
// whole fleet; what the SLI measures (uptime or scheduling goodput); which answer (SLI, error budget, burn rate, budget consumed, alert), its windows; the
// groups' order and how many (the 50 burning fastest).

import React from 'react';
import { EditorField, EditorRow } from '@grafana/plugin-ui';
import { Combobox, MultiCombobox, RadioButtonGroup } from '@grafana/ui';

import {
  SLO_ANSWER_COLUMNS,
  SLO_ANSWERS,
  SLO_INDICATORS,
  type SloAnswer,
  type SloColumn,
  type SloIndicator,
} from '../../types';
import { SLO_ANSWER_LABELS, SLO_INDICATOR_LABELS } from '../labels';
import { GroupByField, SizeBucketsField, TextField, WIDTH } from './fields';
import { Filters } from './Filters';
import { columnsForAnswer, fractionError, objectiveError, sloDurationError } from './model';
import type { EditorProps } from './props';
import { label, TableRow } from './TableRow';

const HOUR = { ms: 3_600_000, text: '1h' };
/** The answers that use the burn window; `alert` also the short window and the threshold. */
const BURNS: SloAnswer[] = ['errorBudget', 'burnRate', 'budgetConsumed', 'alert'];

export function SloEditor(props: EditorProps) {
  const { q, id, update, lookups } = props;
  return (
    <>
      <EditorRow>
        <EditorField
          label="Answer"
          tooltip="What the query answers for each group"
          width={WIDTH.medium}
          htmlFor={id('sloAnswer')}
        >
          <Combobox<SloAnswer>
            id={id('sloAnswer')}
            width={WIDTH.medium}
            options={SLO_ANSWERS.map((value) => ({ value, ...SLO_ANSWER_LABELS[value] }))}
            value={q.sloAnswer}
            onChange={(o) => update({ sloAnswer: o.value, columns: columnsForAnswer(q.columns, o.value) })}
          />
        </EditorField>
        {SLO_ANSWER_COLUMNS[q.sloAnswer].length > 1 && (
          <EditorField
            label="Columns"
            tooltip="The answer's columns the table shows (none chosen: all of them); the rows may still be sorted by any"
            width={WIDTH.long}
            htmlFor={id('columns')}
          >
            <MultiCombobox<SloColumn>
              id={id('columns')}
              width="auto"
              minWidth={WIDTH.medium}
              maxWidth={WIDTH.long * 2}
              placeholder="Every column"
              options={SLO_ANSWER_COLUMNS[q.sloAnswer].map((value: SloColumn) => ({ value, label: label(value) }))}
              value={q.columns ?? []}
              onChange={(o) => update({ columns: o.length === 0 ? undefined : o.map((x) => x.value) })}
            />
          </EditorField>
        )}
        <EditorField
          label="Indicator"
          tooltip="What the SLI measures. Uptime: up ÷ (up + down), queued, suspended and unknown time left out. Scheduling goodput: up ÷ wall time, every second not up counting against the budget."
          htmlFor={id('indicator')}
        >
          <RadioButtonGroup<SloIndicator>
            id={id('indicator')}
            options={SLO_INDICATORS.map((value) => ({ value, ...SLO_INDICATOR_LABELS[value] }))}
            value={q.indicator}
            onChange={(indicator) => update({ indicator })}
          />
        </EditorField>
        <TextField
          id={id('objective')}
          label="Objective"
          tooltip="The objective, a ratio strictly between 0 and 1 (0.95 = 95%). Grouped by JobSet name, a JobSet's label upness.dev/objective overrides it."
          value={String(q.objective)}
          placeholder="0.95"
          width={WIDTH.short}
          validate={objectiveError}
          onCommit={(text) => update({ objective: Number(text) })}
        />
        <TextField
          id={id('period')}
          label="Period"
          tooltip="The compliance period each point looks back over: 28d, 30d, 7d… at least 1h, at most the service's retention."
          value={q.period}
          placeholder="28d"
          width={WIDTH.short}
          validate={(text) => sloDurationError(text, HOUR)}
          onCommit={(period) => update({ period })}
        />
        <EditorField
          label="Points"
          tooltip="One value at the end of the range (Stat, Gauge, Table), or one per step (Time series)"
          htmlFor={id('window')}
        >
          <RadioButtonGroup<'range' | 'step'>
            id={id('window')}
            options={[
              { value: 'range', label: 'At the end', description: 'One value at the end of the range' },
              {
                value: 'step',
                label: 'Over time',
                description: 'One value per step, each over the period ending at it',
              },
            ]}
            value={q.window === 'range' ? 'range' : 'step'}
            onChange={(window) => update({ window })}
          />
        </EditorField>
        <EditorField
          label="Format"
          tooltip="A frame per group (time series panels, alert rules), or every group as one table (Table panels: no transformations needed)"
          htmlFor={id('format')}
        >
          <RadioButtonGroup<'series' | 'table'>
            id={id('format')}
            options={[
              { value: 'series', label: 'Frame per group', description: 'One frame per group, labelled' },
              { value: 'table', label: 'Table', description: 'One table frame, a row per group and point' },
            ]}
            value={q.format === 'table' ? 'table' : 'series'}
            onChange={(format) => update({ format: format === 'table' ? 'table' : undefined })}
          />
        </EditorField>
      </EditorRow>
      {BURNS.includes(q.sloAnswer) && (
        <EditorRow>
          <TextField
            id={id('burnWindow')}
            label="Burn window"
            tooltip="The window of the burn rate, of the budget consumed lately, and of the current burn behind the time to exhaustion; at most the period."
            value={q.burnWindow}
            placeholder="1h"
            width={WIDTH.short}
            validate={(text) => sloDurationError(text)}
            onCommit={(burnWindow) => update({ burnWindow })}
          />
          {q.sloAnswer === 'alert' && (
            <>
              <TextField
                id={id('shortWindow')}
                label="Still burning in"
                tooltip="The alert fires only when there was down time in this short window too; at most the burn window."
                value={q.shortWindow}
                placeholder="5m"
                width={WIDTH.short}
                validate={(text) => sloDurationError(text)}
                onCommit={(shortWindow) => update({ shortWindow })}
              />
              <TextField
                id={id('budgetThreshold')}
                label="Budget consumed at least"
                tooltip="The share of the period's budget consumed in the burn window that fires (0.02 = 2%); held down to half the burn window at the budget, so that it can fire at any objective."
                value={String(q.budgetThreshold)}
                placeholder="0.02"
                width={WIDTH.short}
                validate={fractionError}
                onCommit={(text) => update({ budgetThreshold: Number(text) })}
              />
            </>
          )}
          {q.sloAnswer === 'burnRate' && (
            <TextField
              id={id('burnFactor')}
              label="Alert factor"
              tooltip="The burn-rate factor you mean to alert on (e.g. 14.4); when it can never fire at the objective, the panel says so. Empty or 0: none."
              value={q.burnFactor === 0 ? '' : String(q.burnFactor)}
              placeholder="none"
              width={WIDTH.short}
              validate={(text) =>
                text === '' || Number(text) >= 0 ? undefined : 'A factor of 0 or more, such as 14.4'
              }
              onCommit={(text) => update({ burnFactor: text === '' ? 0 : Number(text) })}
            />
          )}
        </EditorRow>
      )}
      <EditorRow>
        <GroupByField
          id={id('groupBy')}
          value={q.groupBy}
          fleet={false}
          labelKeys={lookups.labelKeys}
          clusters={lookups.clusters}
          onChange={(groupBy) => update({ groupBy })}
        />
        {q.groupBy === 'size' && (
          <SizeBucketsField
            id={id('sizeBuckets')}
            value={q.sizeBuckets}
            onCommit={(sizeBuckets) => update({ sizeBuckets })}
          />
        )}
      </EditorRow>
      <TableRow {...props} />
      <Filters {...props} />
    </>
  );
}
