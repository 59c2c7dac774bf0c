// The fields the query editors share, in Grafana's editor idiom (EditorField: the label above the
// input, its problem below it, a failed look-up said in the field that needed it).

import React, { type ReactNode, useCallback, useRef, useState } from 'react';
import { EditorField } from '@grafana/plugin-ui';
import { Combobox, type ComboboxOption, Input, MultiCombobox, RadioButtonGroup, Text } from '@grafana/ui';

import {
  AGGREGATES,
  type AggregateName,
  FIGURES,
  GROUP_DIMENSIONS,
  type GroupByName,
  isUsageMetric,
  LAYERS,
  type Layer,
  type Metric,
  METRICS,
  STATES,
  type UsageMetric,
  USAGE_METRICS,
  type WindowName,
  WINDOWS,
} from '../../types';
import {
  AGGREGATE_LABELS,
  type Described,
  GROUP_LABELS,
  LAYER_LABELS,
  METRIC_LABELS,
  STATE_LABELS,
  WINDOW_LABELS,
} from '../labels';
import type { Values } from '../useValues';
import {
  defaultAggregate,
  formatSizeBuckets,
  METRIC_GROUP,
  METRIC_GROUPS,
  namespaceProblem,
  parseSizeBuckets,
  rollingError,
  sizeBucketsShown,
  toGroupBy,
} from './model';

/** Field widths, in Grafana's spacing units (8 px). */
export const WIDTH = { short: 12, medium: 26, long: 36 } as const;

/** A look-up that failed, said in the field that needed it (above the input, where a menu cannot cover it). */
function lookupNote(what: string, lookup: Values | undefined, fallback: string, width: number): ReactNode {
  if (lookup?.error === undefined) {
    return undefined;
  }
  return (
    <span style={{ display: 'block', maxWidth: width * 8 }}>
      <Text color="warning" variant="bodySmall">
        Could not list {what}: {lookup.error}. {fallback}
      </Text>
    </span>
  );
}

/** A problem under a field, kept to the field's width so that it never pushes the row apart. */
function problemOf(error: string | undefined, width: number): { invalid: boolean; error?: ReactNode } {
  return error === undefined
    ? { invalid: false }
    : {
        invalid: true,
        error: <span style={{ display: 'block', maxWidth: Math.max(width * 8 - 16, 200) }}>{error}</span>,
      };
}

function described<T extends string>(values: readonly T[], labels: Record<T, Described>): Array<ComboboxOption<T>> {
  return values.map((value) => ({ value, label: labels[value].label, description: labels[value].description }));
}

/** Records' keys in their written order: the order the editors offer the choices in. */
function inLabelOrder<T extends string>(values: readonly T[], labels: Record<T, Described>): T[] {
  const order = Object.keys(labels);
  return [...values].sort((a, b) => order.indexOf(a) - order.indexOf(b));
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

/** A text input that keeps a draft while typing and commits it, if valid, on Enter or when it loses focus. */
export function TextField({ id, label, tooltip, value, placeholder, width, validate, onCommit }: TextFieldProps) {
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
    <EditorField label={label} tooltip={tooltip} width={width} htmlFor={id} {...problemOf(error, width)}>
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
    </EditorField>
  );
}

export function MetricField({
  id,
  value,
  withState,
  onChange,
}: {
  id: string;
  value: Metric;
  withState: boolean;
  onChange: (metric: Metric) => void;
}) {
  // The state and resource usage are series only.
  const metrics = METRICS.filter((m) => withState || (m !== 'up' && !isUsageMetric(m)));
  // The chosen metric's group first, so that the list opens with the chosen metric in view (the
  // list does not scroll to it by itself); the other groups follow in their usual order.
  const groups = [METRIC_GROUP[value], ...METRIC_GROUPS.filter((g) => g !== METRIC_GROUP[value])];
  const options = groups.flatMap((group) =>
    metrics
      .filter((m) => METRIC_GROUP[m] === group)
      .map((m) => ({ value: m, label: METRIC_LABELS[m].label, description: METRIC_LABELS[m].description, group }))
  );
  return (
    <EditorField
      label="Metric"
      tooltip="The figure to compute for each JobSet (and group)"
      width={WIDTH.long}
      htmlFor={id}
    >
      <Combobox<Metric>
        id={id}
        width={WIDTH.long}
        options={options}
        value={value}
        onChange={(o) => onChange(o.value)}
      />
    </EditorField>
  );
}

export function LayerField({ id, value, onChange }: { id: string; value: Layer; onChange: (layer: Layer) => void }) {
  return (
    <EditorField
      label="Layer"
      tooltip="Whose up-ness: the JobSet's own readiness rule, or whether its nodes are all there and Ready"
      htmlFor={id}
    >
      <RadioButtonGroup<Layer> id={id} options={described(LAYERS, LAYER_LABELS)} value={value} onChange={onChange} />
    </EditorField>
  );
}

/** Options filtered by what is typed: the value or its label contains it, without regard to case. */
function matching<T extends string>(options: Array<ComboboxOption<T>>, typed: string): Array<ComboboxOption<T>> {
  const needle = typed.trim().toLowerCase();
  return needle === ''
    ? options
    : options.filter((o) => o.value.toLowerCase().includes(needle) || (o.label ?? '').toLowerCase().includes(needle));
}

const REFUSED = '__upness_refused__';

/**
 * Namespaces: the service's, the dashboard's variables, or a typed name. A glob or anything else the
 * service cannot match is refused with a hint in the list, never stored.
 */
export function NamespacesField({
  id,
  value,
  lookup,
  variables,
  onChange,
}: {
  id: string;
  value: string[];
  lookup: Values;
  variables: string[];
  onChange: (namespaces: string[]) => void;
}) {
  const typed = useRef('');
  // Remounting clears what was typed once it became a chip (the list keeps its text otherwise).
  const [generation, setGeneration] = useState(0);
  const load = useCallback(
    async (input: string): Promise<Array<ComboboxOption<string>>> => {
      typed.current = input;
      const known: Array<ComboboxOption<string>> = [
        ...variables.map((v) => ({ value: v, description: 'Dashboard variable' })),
        ...lookup.values.map((v) => ({ value: v })),
      ];
      const options = matching(known, input);
      const text = input.trim();
      if (text !== '' && !known.some((o) => o.value === text)) {
        const problem = namespaceProblem(text);
        if (problem !== undefined) {
          // The hint is the label: a list is as wide as its longest label, and cuts descriptions.
          return [
            { value: REFUSED, label: problem, description: `Not a namespace: ${text}`, infoOption: true },
            ...options,
          ];
        }
        options.push({ value: text, label: text, description: 'Not listed by the service: use this name' });
      }
      return options;
    },
    [lookup.values, variables]
  );
  const width = WIDTH.long;
  return (
    <EditorField
      label="Namespaces"
      tooltip="Only JobSets in these namespaces; none chosen means all. Exact names or dashboard variables ($namespace); for a pattern use Name."
      width={width}
      htmlFor={id}
    >
      <>
        {lookupNote('namespaces', lookup, 'Type names instead.', width)}
        <MultiCombobox<string>
          key={generation}
          id={id}
          width="auto"
          minWidth={width}
          maxWidth={width + 24}
          placeholder={lookup.loading ? 'Listing namespaces…' : 'All namespaces'}
          options={load}
          value={value}
          onChange={(options) => {
            const next = options.map((o) => o.value).filter((v) => v !== REFUSED && namespaceProblem(v) === undefined);
            if (typed.current.trim() !== '' && next.length > value.length) {
              typed.current = '';
              setGeneration((g) => g + 1);
            }
            onChange(next);
          }}
        />
      </>
    </EditorField>
  );
}

/** A field that picks any number of fixed choices: none chosen means no restriction. */
function MultiSelectField({
  id,
  label,
  tooltip,
  placeholder,
  options,
  value,
  onChange,
}: {
  id: string;
  label: string;
  tooltip: string;
  placeholder: string;
  options: Array<ComboboxOption<string>>;
  value: string[];
  onChange: (values: string[]) => void;
}) {
  return (
    <EditorField label={label} tooltip={tooltip} width={WIDTH.medium} htmlFor={id}>
      <MultiCombobox<string>
        id={id}
        width="auto"
        minWidth={WIDTH.medium}
        maxWidth={WIDTH.long}
        placeholder={placeholder}
        options={options}
        value={value}
        onChange={(o) => onChange(o.map((x) => x.value))}
      />
    </EditorField>
  );
}

export function ClustersField({
  id,
  value,
  lookup,
  variables,
  onChange,
}: {
  id: string;
  value: string[];
  lookup: Values;
  variables: string[];
  onChange: (clusters: string[]) => void;
}) {
  return (
    <MultiSelectField
      id={id}
      label="Clusters"
      tooltip="Only JobSets of these clusters (several clusters writing to one store); none chosen means all"
      placeholder="All clusters"
      options={[...new Set([...variables, ...lookup.values, ...value])].map((v) => ({ value: v }))}
      value={value}
      onChange={onChange}
    />
  );
}

export function StatesField({
  id,
  value,
  onChange,
}: {
  id: string;
  value: string[];
  onChange: (states: string[]) => void;
}) {
  return (
    <MultiSelectField
      id={id}
      label="State at end"
      tooltip="Only JobSets in one of these states at the end of the range; none chosen means any"
      placeholder="Any state"
      options={described(STATES, STATE_LABELS)}
      value={value}
      onChange={onChange}
    />
  );
}

function groupLabel(value: string): string {
  if (value.startsWith('label:')) {
    return `Label ${value.slice('label:'.length)}`;
  }
  return (GROUP_LABELS as Record<string, Described>)[value]?.label ?? value;
}

/**
 * Group by: a dimension, or a label key (the service's keys; a typed key becomes `label:<key>`, after
 * the keys it matches). `cluster` only when the service has several clusters.
 */
export function GroupByField({
  id,
  value,
  fleet,
  labelKeys,
  clusters,
  onChange,
}: {
  id: string;
  value: GroupByName;
  /** A fleet query has no "each JobSet". */
  fleet: boolean;
  labelKeys: Values;
  clusters: Values;
  onChange: (groupBy: GroupByName) => void;
}) {
  const load = useCallback(
    async (input: string): Promise<Array<ComboboxOption<string>>> => {
      const dimensions = GROUP_DIMENSIONS.filter(
        (g) => !(fleet && g === 'none') && (g !== 'cluster' || clusters.values.length > 1 || value === 'cluster')
      );
      const known: Array<ComboboxOption<string>> = [
        ...inLabelOrder(dimensions, GROUP_LABELS).map((g) => ({ value: g, ...GROUP_LABELS[g], group: 'Dimensions' })),
        ...[
          ...new Set([...labelKeys.values.map((k) => `label:${k}`), ...(value.startsWith('label:') ? [value] : [])]),
        ].map((v) => ({
          value: v,
          label: groupLabel(v),
          description: 'One group per value of this label',
          group: 'Labels',
        })),
      ];
      const options = matching(known, input);
      const text = input.trim();
      if (text !== '') {
        const typed = toGroupBy(text);
        if (typed === null) {
          if (options.length === 0) {
            options.push({ value: REFUSED, label: `Not a dimension or a label key: ${text}`, infoOption: true });
          }
        } else if (!known.some((o) => o.value === typed)) {
          options.push({
            value: typed,
            label: groupLabel(typed),
            description: 'Label key not listed by the service: group by it',
            group: 'Labels',
          });
        }
      }
      return options;
    },
    [clusters.values.length, fleet, labelKeys.values, value]
  );
  return (
    <EditorField
      label="Group by"
      tooltip="One series or row per JobSet, per group (namespace, accelerator, topology, Kueue queue, job size, a label), or the whole fleet. Type a label key to group by it."
      width={WIDTH.medium}
      htmlFor={id}
    >
      <>
        {lookupNote('label keys', labelKeys, 'Type a key to group by it.', WIDTH.medium)}
        <Combobox<string>
          id={id}
          width={WIDTH.medium}
          options={load}
          value={{ value, label: groupLabel(value) }}
          onChange={(o) => {
            if (o.value !== REFUSED) {
              onChange(o.value as GroupByName);
            }
          }}
        />
      </>
    </EditorField>
  );
}

export function AggregateField({
  id,
  value,
  metric,
  onChange,
}: {
  id: string;
  value: AggregateName;
  metric: Metric;
  onChange: (aggregate: AggregateName) => void;
}) {
  const suited = defaultAggregate(metric);
  const order = [suited, ...inLabelOrder(AGGREGATES, AGGREGATE_LABELS).filter((a) => a !== suited)];
  const options = order.map((a) => ({
    value: a,
    label: AGGREGATE_LABELS[a].label,
    description:
      a === suited
        ? `Suits ${METRIC_LABELS[metric].label}. ${AGGREGATE_LABELS[a].description}`
        : AGGREGATE_LABELS[a].description,
  }));
  return (
    <EditorField label="Aggregate" tooltip="How a group's JobSets make one value" width={WIDTH.short + 4} htmlFor={id}>
      <Combobox<AggregateName>
        id={id}
        width={WIDTH.short + 4}
        options={options}
        value={value}
        onChange={(o) => onChange(o.value)}
      />
    </EditorField>
  );
}

export function WindowField({
  id,
  value,
  onChange,
}: {
  id: string;
  value: WindowName;
  onChange: (w: WindowName) => void;
}) {
  return (
    <EditorField label="Window" tooltip="What each point of the series covers" htmlFor={id}>
      <RadioButtonGroup<WindowName>
        id={id}
        options={described(inLabelOrder(WINDOWS, WINDOW_LABELS), WINDOW_LABELS)}
        value={value}
        onChange={onChange}
      />
    </EditorField>
  );
}

/** `groupBy: size`: the buckets' upper bounds; the tooltip names the groups they make. */
export function SizeBucketsField({
  id,
  value,
  onCommit,
}: {
  id: string;
  value: readonly number[];
  onCommit: (bounds: number[]) => void;
}) {
  return (
    <TextField
      id={id}
      label="Size buckets"
      tooltip={`Upper bounds of the job size buckets, ascending. A JobSet's size is its accelerators (GPUs, TPU chips), or its pods without any. These make the groups ${sizeBucketsShown(value)}.`}
      value={formatSizeBuckets(value)}
      placeholder="1, 8, 64, 512"
      width={WIDTH.medium}
      validate={(text) => {
        const parsed = parseSizeBuckets(text);
        return Array.isArray(parsed) ? undefined : parsed.error;
      }}
      onCommit={(text) => onCommit(parseSizeBuckets(text) as number[])}
    />
  );
}

export function RollingField({ id, value, onCommit }: { id: string; value: string; onCommit: (text: string) => void }) {
  return (
    <TextField
      id={id}
      label="Length"
      tooltip="Length of the rolling window: a number and a unit (ms, s, m, h, d, w), e.g. 30m, 24h, 7d or 1h30m; variables allowed ($window)."
      value={value}
      placeholder="24h"
      width={WIDTH.short}
      validate={rollingError}
      onCommit={onCommit}
    />
  );
}

export function ColumnsField({
  id,
  value,
  onChange,
}: {
  id: string;
  value: string[];
  onChange: (figures: string[]) => void;
}) {
  const options = METRIC_GROUPS.flatMap((group) =>
    FIGURES.filter((f) => METRIC_GROUP[f] === group).map((f) => ({
      value: f as string,
      label: METRIC_LABELS[f].label,
      description: METRIC_LABELS[f].description,
      group,
    }))
  );
  return (
    <EditorField
      label="Columns"
      tooltip="The figures the table shows; none chosen means every figure"
      width={WIDTH.long}
      htmlFor={id}
    >
      <MultiCombobox<string>
        id={id}
        width="auto"
        minWidth={WIDTH.long}
        maxWidth={WIDTH.long * 2}
        placeholder="Every figure"
        options={options}
        value={value}
        onChange={(o) => onChange(o.map((x) => x.value))}
      />
    </EditorField>
  );
}

/** A summary's usage split by state (issue 20 §4): for each chosen metric, its mean while up, not up, provisioning, down and suspended. */
export function UsageByStateField({
  id,
  value,
  onChange,
}: {
  id: string;
  value: UsageMetric[];
  onChange: (metrics: UsageMetric[]) => void;
}) {
  const options = USAGE_METRICS.map((m) => ({
    value: m,
    label: METRIC_LABELS[m].label,
    description: METRIC_LABELS[m].description,
  }));
  return (
    <EditorField
      label="Usage by state"
      tooltip="For each chosen resource, its mean while up, not up, provisioning, down and suspended: five columns a resource (none chosen: none)"
      width={WIDTH.long}
      htmlFor={id}
    >
      <MultiCombobox<UsageMetric>
        id={id}
        width="auto"
        minWidth={WIDTH.long}
        maxWidth={WIDTH.long * 2}
        placeholder="No usage columns"
        options={options}
        value={value}
        onChange={(o) => onChange(o.map((x) => x.value))}
      />
    </EditorField>
  );
}
