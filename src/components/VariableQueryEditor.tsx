// The editor of a template variable's query: which list of values, and the argument it takes.

import React, { useState } from 'react';
import type { QueryEditorProps } from '@grafana/data';
import { Combobox, InlineField, InlineFieldRow, Input } from '@grafana/ui';

import type { DataSource } from '../datasource';
import { type UpnessOptions, type UpnessQuery, type UpnessVariableQuery, VALUE_KINDS, type ValueKind } from '../types';
import { toVariableQuery } from '../variables';

export type Props = QueryEditorProps<DataSource, UpnessQuery, UpnessOptions, UpnessVariableQuery>;

const LABEL_WIDTH = 14;

const KIND_LABELS: Record<ValueKind, { label: string; description: string }> = {
  clusters: { label: 'Clusters', description: 'Every cluster writing to the store (several clusters, one database)' },
  namespaces: { label: 'Namespaces', description: 'Namespaces that hold JobSets' },
  jobsets: { label: 'JobSet names', description: 'JobSet names, optionally in some namespaces only' },
  labelKeys: { label: 'Label keys', description: "Keys of the JobSets' labels" },
  labelValues: { label: 'Label values', description: 'Values of one label key' },
  accelerators: { label: 'Accelerators', description: 'Accelerator types the JobSets run on' },
  topologies: { label: 'Topologies', description: 'Topologies the JobSets run on' },
};

export function VariableQueryEditor({ query, onChange }: Props) {
  // A variable saved as text (`jobsets($namespace)`) is read as the object it stands for.
  let current: UpnessVariableQuery;
  let problem: string | undefined;
  try {
    current = toVariableQuery(query as UpnessVariableQuery | string | undefined);
  } catch (error) {
    current = toVariableQuery(undefined);
    problem = error instanceof Error ? error.message : String(error);
  }
  const argument = current.what === 'jobsets' ? (current.namespace ?? '') : (current.key ?? '');
  const [draft, setDraft] = useState(argument);
  const [shown, setShown] = useState(argument);
  if (argument !== shown) {
    setShown(argument);
    setDraft(argument);
  }

  const commitArgument = () => {
    if (draft.trim() === argument) {
      return;
    }
    const value = draft.trim();
    onChange(current.what === 'jobsets' ? { ...current, namespace: value } : { ...current, key: value });
  };

  return (
    <InlineFieldRow>
      <InlineField
        label="Values"
        labelWidth={LABEL_WIDTH}
        tooltip="What the variable lists, from the Upness service"
        invalid={problem !== undefined}
        error={problem}
      >
        <Combobox<ValueKind>
          id="upness-variable-what"
          width={28}
          options={VALUE_KINDS.map((value) => ({ value, ...KIND_LABELS[value] }))}
          value={current.what}
          onChange={(option) => onChange({ refId: current.refId, what: option.value })}
        />
      </InlineField>
      {current.what === 'jobsets' && (
        <InlineField
          label="Namespace"
          labelWidth={LABEL_WIDTH}
          tooltip="Only JobSets in these namespaces (comma-separated, variables allowed, e.g. $namespace). Empty: all."
        >
          <Input
            id="upness-variable-namespace"
            width={28}
            value={draft}
            placeholder="all, or $namespace"
            onChange={(e) => setDraft(e.currentTarget.value)}
            onBlur={commitArgument}
          />
        </InlineField>
      )}
      {current.what === 'labelValues' && (
        <InlineField
          label="Label key"
          labelWidth={LABEL_WIDTH}
          tooltip="The label whose values to list (variables allowed)"
          invalid={argument === ''}
          error="Enter a label key"
        >
          <Input
            id="upness-variable-key"
            width={28}
            value={draft}
            placeholder="team"
            onChange={(e) => setDraft(e.currentTarget.value)}
            onBlur={commitArgument}
          />
        </InlineField>
      )}
    </InlineFieldRow>
  );
}
