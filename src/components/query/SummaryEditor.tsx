// Summary: every figure over the range, one table row per JobSet or group.

import React from 'react';
import { EditorRow } from '@grafana/plugin-ui';

import { AggregateField, ColumnsField, GroupByField, LayerField } from './fields';
import { Filters } from './Filters';
import type { EditorProps } from './props';

export function SummaryEditor(props: EditorProps) {
  const { q, id, update, lookups } = props;
  return (
    <>
      <EditorRow>
        <ColumnsField id={id('figures')} value={q.figures} onChange={(figures) => update({ figures })} />
        <LayerField id={id('layer')} value={q.layer} onChange={(layer) => update({ layer })} />
      </EditorRow>
      <EditorRow>
        <GroupByField
          id={id('groupBy')}
          value={q.groupBy}
          fleet={false}
          labelKeys={lookups.labelKeys}
          clusters={lookups.clusters}
          onChange={(groupBy) => update({ groupBy })}
        />
        {q.groupBy !== 'none' && (
          // A grouped summary aggregates every figure; the ratio's own aggregate (pooled) suits them all.
          <AggregateField
            id={id('aggregate')}
            value={q.aggregate}
            metric="uptimeRatio"
            onChange={(aggregate) => update({ aggregate })}
          />
        )}
      </EditorRow>
      <Filters {...props} />
    </>
  );
}
