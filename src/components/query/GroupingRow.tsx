// Group by, and once JobSets are grouped, how a group's JobSets make one value: the second row of
// the series and summary editors.

import React from 'react';
import { EditorRow } from '@grafana/plugin-ui';

import type { Metric } from '../../types';
import { AggregateField, GroupByField, SizeBucketsField } from './fields';
import type { EditorProps } from './props';

/** `metric`: the figure whose default aggregate the field suggests. */
export function GroupingRow({ q, id, update, lookups, metric }: EditorProps & { metric: Metric }) {
  return (
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
      {q.groupBy !== 'none' && (
        <AggregateField
          id={id('aggregate')}
          value={q.aggregate}
          metric={metric}
          onChange={(aggregate) => update({ aggregate })}
        />
      )}
    </EditorRow>
  );
}
