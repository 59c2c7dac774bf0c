// The query editor: the query type (each says what it is for and which panel it suits), then that
// type's own small editor (query/*Editor.tsx) built from shared fields. A change is stored and the
// query run once per real change; text fields commit on Enter or when they lose focus.

import React, { type ComponentType, useEffect, useMemo, useRef } from 'react';
import type { QueryEditorProps } from '@grafana/data';
import { EditorField, EditorHeader, EditorRows } from '@grafana/plugin-ui';
import { RadioButtonGroup, Text } from '@grafana/ui';

import type { DataSource } from '../datasource';
import { type Metric, QUERY_TYPES, type QueryType, type UpnessOptions, type UpnessQuery } from '../types';
import { QUERY_TYPE_LABELS } from './labels';
import { EventsEditor } from './query/EventsEditor';
import { FleetEditor } from './query/FleetEditor';
import { normalize, resolve, sameQuery, withMetric, withType } from './query/model';
import type { EditorProps } from './query/props';
import { SeriesEditor } from './query/SeriesEditor';
import { SloEditor } from './query/SloEditor';
import { StatesEditor } from './query/StatesEditor';
import { SummaryEditor } from './query/SummaryEditor';
import { useValues } from './useValues';

export type Props = QueryEditorProps<DataSource, UpnessQuery, UpnessOptions>;

const EDITORS: Record<QueryType, ComponentType<EditorProps>> = {
  series: SeriesEditor,
  summary: SummaryEditor,
  states: StatesEditor,
  events: EventsEditor,
  fleet: FleetEditor,
  slo: SloEditor,
};

export function QueryEditor({ query, onChange, onRunQuery, datasource }: Props) {
  // The last query handed to Grafana: a change equal to it (a list that reports one pick twice, a
  // choice made again) is no change, and runs nothing.
  const last = useRef(query);
  useEffect(() => {
    last.current = query;
  }, [query]);
  const change = (next: UpnessQuery, run: boolean) => {
    if (sameQuery(next, last.current)) {
      return;
    }
    last.current = next;
    onChange(next);
    if (run) {
      onRunQuery();
    }
  };

  // A saved query the editor would show otherwise than it is stored (a fleet query "per JobSet") is
  // stored as shown, once; the service answers it the same, so it is not run again.
  useEffect(() => {
    const shown = normalize(query);
    if (shown !== query) {
      change(shown, false);
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [query]);

  const q = resolve(normalize(query));
  const namespaces = useValues(datasource, 'namespaces');
  const labelKeys = useValues(datasource, 'labelKeys');
  const clusters = useValues(datasource, 'clusters');
  const variables = useMemo(() => datasource.getVariableNames(), [datasource]);

  const id = (field: string) => `upness-${query.refId}-${field}`;
  const props: EditorProps = {
    q,
    id,
    update: (patch) => change({ ...last.current, ...patch }, true),
    setMetric: (metric: Metric) => change(withMetric(last.current, metric), true),
    lookups: { namespaces, labelKeys, clusters },
    variables,
  };
  const Editor = EDITORS[q.queryType];
  const about = QUERY_TYPE_LABELS[q.queryType];

  return (
    <EditorRows>
      <EditorHeader>
        <EditorField label="Query type" htmlFor={id('queryType')}>
          <RadioButtonGroup<QueryType>
            id={id('queryType')}
            options={QUERY_TYPES.map((value) => ({ value, label: QUERY_TYPE_LABELS[value].label }))}
            value={q.queryType}
            onChange={(queryType) => change(withType(last.current, queryType), true)}
          />
        </EditorField>
        <div data-testid="upness-query-type-description">
          <Text element="p" color="secondary">
            {about.description}{' '}
            <Text color="primary" weight="medium">
              Panel: {about.panel}.
            </Text>
          </Text>
        </div>
      </EditorHeader>
      <Editor {...props} />
    </EditorRows>
  );
}
