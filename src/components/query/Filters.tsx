// Which JobSets a query covers: the row every query type shares.

import React from 'react';
import { EditorRow } from '@grafana/plugin-ui';

import { ClustersField, NamespacesField, StatesField, TextField, WIDTH } from './fields';
import { labelSelectorError, namePatternError } from './model';
import type { EditorProps } from './props';

export function Filters({ q, id, update, lookups, variables }: EditorProps) {
  const clusters = q.clusters ?? [];
  return (
    <EditorRow>
      <NamespacesField
        id={id('namespaces')}
        value={q.namespaces}
        lookup={lookups.namespaces}
        variables={variables}
        onChange={(namespaces) => update({ namespaces })}
      />
      <TextField
        id={id('name')}
        label="Name"
        tooltip="JobSet name: a glob (train-*, ? for one character) or a regular expression between slashes (/^train-\d+$/). Empty: any."
        value={q.name}
        placeholder="train-* or /^train-\d+$/"
        width={WIDTH.medium}
        validate={namePatternError}
        onCommit={(name) => update({ name })}
      />
      <TextField
        id={id('labelSelector')}
        label="Label selector"
        tooltip="A Kubernetes label selector on the JobSets: team=ml,tier in (a,b),!canary. Use `key in ($var)` for a multi-value variable."
        value={q.labelSelector}
        placeholder="team=ml,tier in (a,b),!canary"
        width={WIDTH.long}
        validate={labelSelectorError}
        onCommit={(labelSelector) => update({ labelSelector })}
      />
      <StatesField id={id('states')} value={q.states} onChange={(states) => update({ states })} />
      {(lookups.clusters.values.length > 1 || clusters.length > 0) && (
        <ClustersField
          id={id('clusters')}
          value={clusters}
          lookup={lookups.clusters}
          variables={variables}
          onChange={(c) => update({ clusters: c })}
        />
      )}
    </EditorRow>
  );
}
