// Summary: every figure over the range, one table row per JobSet or group, sorted and limited in the service.

import React from 'react';
import { EditorRow } from '@grafana/plugin-ui';

import { ColumnsField, LayerField, UsageByStateField } from './fields';
import { Filters } from './Filters';
import { GroupingRow } from './GroupingRow';
import type { EditorProps } from './props';
import { TableRow } from './TableRow';

export function SummaryEditor(props: EditorProps) {
  const { q, id, update } = props;
  return (
    <>
      <EditorRow>
        <ColumnsField id={id('figures')} value={q.figures} onChange={(figures) => update({ figures })} />
        <LayerField id={id('layer')} value={q.layer} onChange={(layer) => update({ layer })} />
        <UsageByStateField
          id={id('usageByState')}
          value={q.usageByState ?? []}
          onChange={(usageByState) => update({ usageByState })}
        />
      </EditorRow>
      {/* A grouped summary aggregates every figure; the ratio's own aggregate (pooled) suits them all. */}
      <GroupingRow {...props} metric="uptimeRatio" />
      <TableRow {...props} />
      <Filters {...props} />
    </>
  );
}
