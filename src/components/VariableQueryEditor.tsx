// The editor of a template variable's query: which list of values (each kind says what it lists),
// and the argument it takes, with suggestions from the service and the dashboard's variables. A
// saved query it cannot read (`label_values(namespace)`, what a Prometheus user writes) is shown as
// unread, with the reason, and any pick replaces it.

import React, { useCallback, useMemo } from 'react';
import type { QueryEditorProps } from '@grafana/data';
import { EditorField, EditorRow, EditorRows } from '@grafana/plugin-ui';
import { Combobox, type ComboboxOption, MultiCombobox, Text } from '@grafana/ui';

import type { DataSource } from '../datasource';
import { type UpnessOptions, type UpnessQuery, type UpnessVariableQuery, VALUE_KINDS, type ValueKind } from '../types';
import { toVariableQuery, VARIABLE_REF_ID } from '../variables';
import { isLabelKey, namespaceProblem } from './query/model';
import { useValues, type Values } from './useValues';

export type Props = QueryEditorProps<DataSource, UpnessQuery, UpnessOptions, UpnessVariableQuery>;

export const KIND_LABELS: Record<ValueKind, { label: string; description: string }> = {
  namespaces: { label: 'Namespaces', description: 'Every namespace that holds JobSets' },
  jobsets: { label: 'JobSet names', description: 'JobSet names, in every namespace or in some (e.g. $namespace)' },
  labelKeys: { label: 'Label keys', description: "The keys of the JobSets' labels, for a label variable" },
  labelValues: { label: 'Label values', description: 'The values one label key takes across the JobSets' },
  accelerators: { label: 'Accelerators', description: 'The accelerator types the JobSets run on' },
  topologies: { label: 'Topologies', description: 'The topologies the JobSets run on' },
  pools: { label: 'Node pools', description: 'The node pools (and TPU slices) the service watches' },
  clusters: { label: 'Clusters', description: 'The clusters writing to the store (several clusters, one database)' },
};

/** The kinds in the order offered: the commonest first, clusters (several clusters, one store) last. */
const KINDS = (Object.keys(KIND_LABELS) as ValueKind[]).filter((k) => VALUE_KINDS.includes(k));

const WIDTH = 36;

/** What the stored query stands for, or why it cannot be read. */
function read(query: UpnessVariableQuery | string | undefined): { current?: UpnessVariableQuery; problem?: string } {
  try {
    return { current: toVariableQuery(query) };
  } catch (error) {
    return { problem: error instanceof Error ? error.message : String(error) };
  }
}

function lookupNote(what: string, lookup: Values) {
  return lookup.error === undefined ? undefined : (
    <Text color="warning" variant="bodySmall">
      Could not list {what}: {lookup.error}. Type instead.
    </Text>
  );
}

/** A line above a field's input (a field's own description is not shown beside a custom label). */
function Note({ children }: { children: React.ReactNode }) {
  return children ? (
    <div style={{ maxWidth: WIDTH * 8, marginBottom: 4 }}>
      {typeof children === 'string' ? (
        <Text color="secondary" variant="bodySmall">
          {children}
        </Text>
      ) : (
        children
      )}
    </div>
  ) : null;
}

export function VariableQueryEditor({ query, onChange, datasource }: Props) {
  const { current, problem } = read(query as UpnessVariableQuery | string | undefined);
  const refId = current?.refId ?? VARIABLE_REF_ID;
  const namespaces = useValues(datasource, 'namespaces');
  const labelKeys = useValues(datasource, 'labelKeys');
  const variables = useMemo(() => datasource.getVariableNames(), [datasource]);
  const what = current?.what;

  const commit = (next: UpnessVariableQuery) => {
    if (problem !== undefined || JSON.stringify(next) !== JSON.stringify(current)) {
      onChange(next);
    }
  };

  const keyOptions = useCallback(
    async (input: string): Promise<Array<ComboboxOption<string>>> => {
      const needle = input.trim().toLowerCase();
      const known: Array<ComboboxOption<string>> = [
        ...variables.map((v) => ({ value: v, description: 'Dashboard variable' })),
        ...labelKeys.values.map((v) => ({ value: v })),
      ];
      const options = known.filter((o) => o.value.toLowerCase().includes(needle));
      const typed = input.trim();
      if (typed !== '' && !known.some((o) => o.value === typed) && isLabelKey(typed)) {
        options.push({ value: typed, description: 'Not listed by the service: use this key' });
      }
      return options;
    },
    [labelKeys.values, variables]
  );

  const namespaceOptions = useCallback(
    async (input: string): Promise<Array<ComboboxOption<string>>> => {
      const needle = input.trim().toLowerCase();
      const known: Array<ComboboxOption<string>> = [
        ...variables.map((v) => ({ value: v, description: 'Dashboard variable' })),
        ...namespaces.values.map((v) => ({ value: v })),
      ];
      const options = known.filter((o) => o.value.toLowerCase().includes(needle));
      const typed = input.trim();
      if (typed !== '' && !known.some((o) => o.value === typed)) {
        const why = namespaceProblem(typed);
        options.push(
          why === undefined
            ? { value: typed, description: 'Not listed by the service: use this name' }
            : { value: '__refused__', label: why, description: `Not a namespace: ${typed}`, infoOption: true }
        );
      }
      return options;
    },
    [namespaces.values, variables]
  );

  const chosenNamespaces = (current?.namespace ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

  return (
    <EditorRows>
      <EditorRow>
        <EditorField
          label="Values"
          tooltip="What the variable lists, from the Upness service"
          width={WIDTH}
          htmlFor="upness-variable-what"
          invalid={problem !== undefined}
          error={problem && `${problem}. Pick what to list to replace it.`}
        >
          <>
            <Combobox<ValueKind>
              id="upness-variable-what"
              width={WIDTH}
              placeholder="Pick what to list"
              options={KINDS.map((value) => ({ value, ...KIND_LABELS[value] }))}
              value={what ?? null}
              onChange={(option) => commit({ refId, what: option.value })}
            />
            {what && (
              <Text color="secondary" variant="bodySmall" element="p">
                {KIND_LABELS[what].description}
              </Text>
            )}
          </>
        </EditorField>
        {current?.what === 'jobsets' && (
          <EditorField
            label="Namespaces"
            tooltip="Only JobSets in these namespaces (names or variables, e.g. $namespace); none chosen means all"
            width={WIDTH}
            htmlFor="upness-variable-namespace"
          >
            <>
              <Note>{lookupNote('namespaces', namespaces) ?? 'None chosen: every namespace'}</Note>
              <MultiCombobox<string>
                id="upness-variable-namespace"
                width="auto"
                minWidth={WIDTH}
                maxWidth={WIDTH + 24}
                placeholder="All namespaces"
                options={namespaceOptions}
                value={chosenNamespaces}
                onChange={(options) => {
                  const chosen = options.map((o) => o.value).filter((v) => namespaceProblem(v) === undefined);
                  commit({ ...current, namespace: chosen.join(',') });
                }}
              />
            </>
          </EditorField>
        )}
        {current?.what === 'labelValues' && (
          <EditorField
            label="Label key"
            tooltip="The label whose values to list (a key the service knows, a typed key, or a variable)"
            width={WIDTH}
            htmlFor="upness-variable-key"
          >
            <>
              <Note>{lookupNote('label keys', labelKeys) ?? (current.key ? '' : 'Pick or type the label key')}</Note>
              <Combobox<string>
                id="upness-variable-key"
                width={WIDTH}
                placeholder="e.g. ml.example.com/team"
                options={keyOptions}
                value={current.key ? { value: current.key, label: current.key } : null}
                onChange={(option) => commit({ ...current, key: option.value })}
              />
            </>
          </EditorField>
        )}
      </EditorRow>
    </EditorRows>
  );
}
