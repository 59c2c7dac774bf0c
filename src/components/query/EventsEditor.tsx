// Events: interruptions and suspensions as annotation regions, until they end; or the
// interruptions counted by cause category (`groupBy: cause`, a "what broke us" bar chart).

import React from 'react';
import { EditorField, EditorRow } from '@grafana/plugin-ui';
import { RadioButtonGroup } from '@grafana/ui';

import { LayerField } from './fields';
import { Filters } from './Filters';
import type { EditorProps } from './props';

type Show = 'regions' | 'cause';

const SHOW_OPTIONS: Array<{ value: Show; label: string; description: string }> = [
  { value: 'regions', label: 'Regions', description: 'Each interruption and suspension as a region (annotations)' },
  {
    value: 'cause',
    label: 'Count by cause',
    description:
      'The interruptions in the range counted by cause: node, pod OOM, pod evicted/preempted, failure policy, unknown',
  },
];

export function EventsEditor(props: EditorProps) {
  const { q, id, update } = props;
  const show: Show = q.groupBy === 'cause' ? 'cause' : 'regions';
  return (
    <>
      <EditorRow>
        <EditorField
          label="Show"
          tooltip="Regions for annotations, or tables for a bar chart: interruptions by cause, and suspensions by reason (Kueue's where its Workload told it)"
          htmlFor={id('show')}
        >
          <RadioButtonGroup<Show>
            id={id('show')}
            options={SHOW_OPTIONS}
            value={show}
            onChange={(value) => update({ groupBy: value === 'cause' ? 'cause' : 'none' })}
          />
        </EditorField>
        <LayerField id={id('layer')} value={q.layer} onChange={(layer) => update({ layer })} />
      </EditorRow>
      <Filters {...props} />
    </>
  );
}
