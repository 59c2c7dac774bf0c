// Series: a metric over time, one line per JobSet or group.

import React from 'react';
import { EditorRow } from '@grafana/plugin-ui';

import { AggregateField, GroupByField, LayerField, MetricField, RollingField, WindowField } from './fields';
import { Filters } from './Filters';
import type { EditorProps } from './props';

export function SeriesEditor(props: EditorProps) {
  const { q, id, update, setMetric, lookups } = props;
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
          <AggregateField
            id={id('aggregate')}
            value={q.aggregate}
            metric={q.metric}
            onChange={(aggregate) => update({ aggregate })}
          />
        )}
      </EditorRow>
      <Filters {...props} />
    </>
  );
}
