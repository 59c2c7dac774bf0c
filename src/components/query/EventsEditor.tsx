// Events: interruptions as annotation regions, until their recovery.

import React from 'react';
import { EditorRow } from '@grafana/plugin-ui';

import { LayerField } from './fields';
import { Filters } from './Filters';
import type { EditorProps } from './props';

export function EventsEditor(props: EditorProps) {
  const { q, id, update } = props;
  return (
    <>
      <EditorRow>
        <LayerField id={id('layer')} value={q.layer} onChange={(layer) => update({ layer })} />
      </EditorRow>
      <Filters {...props} />
    </>
  );
}
