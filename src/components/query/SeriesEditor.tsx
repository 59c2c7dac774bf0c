// Series: a metric over time, one line per JobSet or group.

import React from 'react';
import { EditorRow } from '@grafana/plugin-ui';

import { LayerField, MetricField, RollingField, WindowField } from './fields';
import { Filters } from './Filters';
import { GroupingRow } from './GroupingRow';
import type { EditorProps } from './props';

export function SeriesEditor(props: EditorProps) {
  const { q, id, update, setMetric } = props;
  return (
    <>
      <EditorRow>
        <MetricField id={id('metric')} value={q.metric} withState onChange={setMetric} />
        <WindowField id={id('window')} value={q.window} onChange={(window) => update({ window })} />
        {q.window === 'rolling' && (
          <RollingField id={id('rolling')} value={q.rolling} onCommit={(rolling) => update({ rolling })} />
        )}
        <LayerField id={id('layer')} value={q.layer} onChange={(layer) => update({ layer })} />
      </EditorRow>
      <GroupingRow {...props} metric={q.metric} />
      <Filters {...props} />
    </>
  );
}
