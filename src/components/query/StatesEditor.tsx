// States: each JobSet's state over time, for the State timeline panel.

import React from 'react';
import { EditorRow } from '@grafana/plugin-ui';

import { LayerField } from './fields';
import { Filters } from './Filters';
import type { EditorProps } from './props';

export function StatesEditor(props: EditorProps) {
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
