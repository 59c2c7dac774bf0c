// The query editor: what to ask the service, with only the fields that matter for the query type.
// A new query starts from the shared defaults (a series of uptime ratio per JobSet over the whole
// range), so a new panel shows something at once. Choices run the query at once; text fields run
// it when they lose focus.

import React, { useMemo, useState } from 'react';
import type { QueryEditorProps } from '@grafana/data';
import {
  Combobox,
  type ComboboxOption,
  InlineField,
  InlineFieldRow,
  Input,
  MultiCombobox,
  RadioButtonGroup,
  Stack,
} from '@grafana/ui';

import type { DataSource } from '../datasource';
import { hasVariable } from '../interpolate';
import {
  AGGREGATES,
  DEFAULT_QUERY,
  FIGURES,
  GROUP_DIMENSIONS,
  type GroupByName,
  LAYERS,
  type Metric,
  METRICS,
  parseDuration,
  QUERY_TYPES,
  STATES,
  type UpnessOptions,
  type UpnessQuery,
  WINDOWS,
} from '../types';
import {
  AGGREGATE_LABELS,
  type Described,
  GROUP_LABELS,
  LAYER_LABELS,
  METRIC_LABELS,
  QUERY_TYPE_LABELS,
  WINDOW_LABELS,
} from './labels';
import { useValues } from './useValues';

export type Props = QueryEditorProps<DataSource, UpnessQuery, UpnessOptions>;

const LABEL_WIDTH = 14;

function optionsOf<T extends string>(values: readonly T[], labels: Record<T, Described>): Array<ComboboxOption<T>> {
  return values.map((value) => ({ value, label: labels[value].label, description: labels[value].description }));
}

/** Values first, then any current values not among them (typed by hand, or gone from the service). */
function withCurrent(values: readonly string[], current: readonly string[]): Array<ComboboxOption<string>> {
  return [...new Set([...values, ...current])].map((value) => ({ value }));
}

/** The stored fields over the shared defaults (a field stored as undefined takes its default). */
function resolve(query: UpnessQuery): typeof DEFAULT_QUERY & UpnessQuery {
  const stored = Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined));
  return { ...DEFAULT_QUERY, ...stored, refId: query.refId };
}

export const ROLLING_ERROR = 'Enter a duration: a number and a unit (ms, s, m, h, d, w), e.g. 30m, 24h, 7d or 1h30m';

/** The message for a rolling window length, or undefined when it is fine (or holds a variable). */
export function rollingError(text: string): string | undefined {
  return hasVariable(text) || parseDuration(text) !== null ? undefined : ROLLING_ERROR;
}

interface TextFieldProps {
  id: string;
  label: string;
  tooltip: string;
  value: string;
  placeholder: string;
  width: number;
  validate?: (text: string) => string | undefined;
  onCommit: (text: string) => void;
}

/** A text input that keeps a draft while typing and commits it, if valid, when it loses focus. */
function TextField({ id, label, tooltip, value, placeholder, width, validate, onCommit }: TextFieldProps) {
  const [draft, setDraft] = useState(value);
  const [error, setError] = useState<string | undefined>(undefined);
  // A new value from outside (undo, another editor) replaces the draft.
  const [shown, setShown] = useState(value);
  if (value !== shown) {
    setShown(value);
    setDraft(value);
    setError(undefined);
  }
  const commit = () => {
    const text = draft.trim();
    const problem = validate?.(text);
    setError(problem);
    if (problem === undefined && text !== value) {
      onCommit(text);
    }
  };
  return (
    <InlineField label={label} labelWidth={LABEL_WIDTH} tooltip={tooltip} invalid={error !== undefined} error={error}>
      <Input
        id={id}
        value={draft}
        placeholder={placeholder}
        width={width}
        onChange={(e) => setDraft(e.currentTarget.value)}
        onBlur={commit}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            commit();
          }
        }}
      />
    </InlineField>
  );
}

export function QueryEditor({ query, onChange, onRunQuery, datasource }: Props) {
  // The query as the service will read it: the stored fields over the shared defaults.
  const q = resolve(query);
  const id = (field: string) => `upness-${query.refId}-${field}`;
  const update = (patch: Partial<UpnessQuery>) => {
    onChange({ ...query, ...patch });
    onRunQuery();
  };

  const clusters = useValues(datasource, 'clusters');
  const namespaces = useValues(datasource, 'namespaces');
  const labelKeys = useValues(datasource, 'labelKeys');
  const variables = useMemo(() => datasource.getVariableNames(), [datasource]);

  const isFleet = q.queryType === 'fleet';
  const showMetric = q.queryType === 'series' || isFleet;
  const showGroupBy = q.queryType === 'series' || q.queryType === 'summary' || isFleet;
  const showAggregate = (q.queryType === 'series' || q.queryType === 'summary') && q.groupBy !== 'none';
  const showWindow = q.queryType === 'series';

  // `fleet` spreads a figure across JobSets: `up` (a state) is read as the uptime ratio, and
  // "per JobSet" as the whole fleet, which is what the service does with them.
  const metricOptions = optionsOf(isFleet ? METRICS.filter((m) => m !== 'up') : METRICS, METRIC_LABELS);
  const metric: Metric = isFleet && q.metric === 'up' ? 'uptimeRatio' : q.metric;
  const groupBy: GroupByName = isFleet && q.groupBy === 'none' ? 'all' : q.groupBy;
  const groupOptions: Array<ComboboxOption<string>> = [
    ...GROUP_DIMENSIONS.filter((g) => !(isFleet && g === 'none')).map((value) => ({ value, ...GROUP_LABELS[value] })),
    ...withCurrent(
      labelKeys.values.map((key) => `label:${key}`),
      groupBy.startsWith('label:') ? [groupBy] : []
    ).map((o) => ({ ...o, label: o.value, description: 'One group per value of this label' })),
  ];

  return (
    <Stack direction="column" gap={0}>
      <InlineFieldRow>
        <InlineField label="Query type" labelWidth={LABEL_WIDTH} tooltip="What to ask the Upness service for">
          <RadioButtonGroup
            id={id('queryType')}
            options={optionsOf(QUERY_TYPES, QUERY_TYPE_LABELS)}
            value={q.queryType}
            onChange={(queryType) => update({ queryType })}
          />
        </InlineField>
        <InlineField label="Layer" labelWidth={8} tooltip="Whose up-ness: the JobSet's readiness, or its nodes'">
          <RadioButtonGroup
            id={id('layer')}
            options={optionsOf(LAYERS, LAYER_LABELS)}
            value={q.layer}
            onChange={(layer) => update({ layer })}
          />
        </InlineField>
      </InlineFieldRow>

      {showMetric && (
        <InlineFieldRow>
          <InlineField label="Metric" labelWidth={LABEL_WIDTH} tooltip="The figure to compute">
            <Combobox<Metric>
              id={id('metric')}
              width={36}
              options={metricOptions}
              value={metric}
              onChange={(option) => update({ metric: option.value })}
            />
          </InlineField>
        </InlineFieldRow>
      )}

      {(clusters.values.length > 0 || (q.clusters ?? []).length > 0) && (
        <InlineFieldRow>
          <InlineField
            label="Clusters"
            labelWidth={LABEL_WIDTH}
            tooltip="Only JobSets of these clusters (when several write to one store); none chosen means all."
          >
            <MultiCombobox<string>
              id={id('clusters')}
              width={36}
              placeholder="All clusters"
              createCustomValue
              options={withCurrent([...variables, ...clusters.values], q.clusters ?? [])}
              value={q.clusters ?? []}
              onChange={(options) => update({ clusters: options.map((o) => o.value) })}
            />
          </InlineField>
        </InlineFieldRow>
      )}

      <InlineFieldRow>
        <InlineField
          label="Namespaces"
          labelWidth={LABEL_WIDTH}
          tooltip="Only JobSets in these namespaces; none chosen means all. Dashboard variables are accepted."
          invalid={namespaces.error !== undefined}
          error={namespaces.error && `Could not list namespaces: ${namespaces.error}`}
        >
          <MultiCombobox<string>
            id={id('namespaces')}
            width={36}
            placeholder="All namespaces"
            loading={namespaces.loading}
            createCustomValue
            options={withCurrent([...variables, ...namespaces.values], q.namespaces)}
            value={q.namespaces}
            onChange={(options) => update({ namespaces: options.map((o) => o.value) })}
          />
        </InlineField>
        <TextField
          id={id('name')}
          label="Name"
          tooltip="JobSet name: a glob (train-*, ? for one character) or a regular expression between slashes (/^train-\d+$/). Empty: any."
          value={q.name}
          placeholder="train-* or /^train-\d+$/"
          width={28}
          onCommit={(name) => update({ name })}
        />
      </InlineFieldRow>

      <InlineFieldRow>
        <TextField
          id={id('labelSelector')}
          label="Label selector"
          tooltip="A Kubernetes label selector on the JobSets: team=ml,tier in (a,b),!canary. Use `key in ($var)` for a multi-value variable."
          value={q.labelSelector}
          placeholder="team=ml,tier in (a,b),!canary"
          width={36}
          onCommit={(labelSelector) => update({ labelSelector })}
        />
        <InlineField
          label="State at end"
          labelWidth={LABEL_WIDTH}
          tooltip="Only JobSets in one of these states at the end of the range; none chosen means any"
        >
          <MultiCombobox<string>
            id={id('states')}
            width={28}
            placeholder="Any state"
            options={STATES.map((value) => ({ value }))}
            value={q.states}
            onChange={(options) => update({ states: options.map((o) => o.value) })}
          />
        </InlineField>
      </InlineFieldRow>

      {showGroupBy && (
        <InlineFieldRow>
          <InlineField
            label="Group by"
            labelWidth={LABEL_WIDTH}
            tooltip="One series or row per JobSet, per group (namespace, accelerator, topology, label:<key>), or the whole fleet"
          >
            <Combobox<string>
              id={id('groupBy')}
              width={36}
              createCustomValue
              options={groupOptions}
              value={groupBy}
              onChange={(option) => update({ groupBy: option.value as GroupByName })}
            />
          </InlineField>
          {showAggregate && (
            <InlineField label="Aggregate" labelWidth={LABEL_WIDTH} tooltip="How a group's JobSets make one value">
              <Combobox
                id={id('aggregate')}
                width={28}
                options={optionsOf(AGGREGATES, AGGREGATE_LABELS)}
                value={q.aggregate}
                onChange={(option) => update({ aggregate: option.value })}
              />
            </InlineField>
          )}
        </InlineFieldRow>
      )}

      {q.queryType === 'summary' && (
        <InlineFieldRow>
          <InlineField label="Columns" labelWidth={LABEL_WIDTH} tooltip="The figures the table shows; none chosen means every figure">
            <MultiCombobox<string>
              id={id('figures')}
              width={64}
              placeholder="Every figure"
              options={FIGURES.map((value) => ({ value, label: METRIC_LABELS[value].label, description: METRIC_LABELS[value].description }))}
              value={q.figures}
              onChange={(options) => update({ figures: options.map((o) => o.value) })}
            />
          </InlineField>
        </InlineFieldRow>
      )}

      {showWindow && (
        <InlineFieldRow>
          <InlineField label="Window" labelWidth={LABEL_WIDTH} tooltip="What each point of the series covers">
            <RadioButtonGroup
              id={id('window')}
              options={optionsOf(WINDOWS, WINDOW_LABELS)}
              value={q.window}
              onChange={(window) => update({ window })}
            />
          </InlineField>
          {q.window === 'rolling' && (
            <TextField
              id={id('rolling')}
              label="Length"
              tooltip="Length of the rolling window: 30m, 24h, 7d, 1h30m (units ms, s, m, h, d, w)"
              value={q.rolling}
              placeholder="24h"
              width={12}
              validate={rollingError}
              onCommit={(rolling) => update({ rolling })}
            />
          )}
        </InlineFieldRow>
      )}
    </Stack>
  );
}
