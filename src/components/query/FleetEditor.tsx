// Fleet: how a metric spreads across a group's JobSets.

import React from 'react';
import { EditorRow } from '@grafana/plugin-ui';

import { GroupByField, LayerField, MetricField, SizeBucketsField } from './fields';
import { Filters } from './Filters';
import type { EditorProps } from './props';

export function FleetEditor(props: EditorProps) {
  const { q, id, update, setMetric, lookups } = props;
  return (
    <>
      <EditorRow>
        {/* A spread is of a figure: the state (`up`) is not offered. */}
        <MetricField id={id('metric')} value={q.metric} withState={false} onChange={setMetric} />
        <GroupByField
          id={id('groupBy')}
          value={q.groupBy}
          fleet
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
        <LayerField id={id('layer')} value={q.layer} onChange={(layer) => update({ layer })} />
      </EditorRow>
      <Filters {...props} />
    </>
  );
}
