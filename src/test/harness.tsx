// The browser tier's page (test/browser/): one of the plugin's editors, rendered with @grafana/ui in
// one of Grafana's themes, as Grafana renders it, outside Grafana. Which editor, theme and stored
// query come from the URL. The data source's look-ups go to the page's server, which forwards them to
// a real `upness serve` (`/resources/values/...`), or to a port where nothing listens (`service=down`)
// as the Go backend's CallResource would; the answer comes back in the shape Grafana's backend
// service gives (a rejection `{status, data: {message}}` when it failed). Every onChange and
// onRunQuery is recorded in `window.upness` for the test to read.

import React, { useState } from 'react';
import { createRoot } from 'react-dom/client';
import { createTheme, type DataSourceSettings } from '@grafana/data';
import { setTemplateSrv } from '@grafana/runtime';
import { GlobalStyles, ThemeContext } from '@grafana/ui';

import { ConfigEditor } from '../components/ConfigEditor';
import { QueryEditor } from '../components/QueryEditor';
import { VariableQueryEditor } from '../components/VariableQueryEditor';
import { DataSource } from '../datasource';
import type { UpnessOptions, UpnessQuery, UpnessSecureJsonData, UpnessVariableQuery } from '../types';
import { fakeTemplateSrv } from './fakeTemplateSrv';
import { instanceSettings } from './settings';

interface Recorded {
  changes: unknown[];
  runs: number;
  /** Look-ups answered or failed so far. */
  lookups: number;
}
declare global {
  interface Window {
    upness: Recorded;
  }
}
window.upness = { changes: [], runs: 0, lookups: 0 };

const params = new URLSearchParams(window.location.search);
const editor = params.get('editor') ?? 'query';
const theme = createTheme({ colors: { mode: params.get('theme') === 'light' ? 'light' : 'dark' } });
const stored: unknown = JSON.parse(params.get('query') ?? 'null');
const base = params.get('service') === 'down' ? '/down' : '/resources';

// The dashboard's variables, as Grafana's template service would hold them.
setTemplateSrv(fakeTemplateSrv({ namespace: 'team-a', window: '24h' }));

class HarnessDataSource extends DataSource {
  async getResource<T>(path: string, params?: Record<string, string | string[]>): Promise<T> {
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(params ?? {})) {
      for (const v of Array.isArray(value) ? value : [value]) {
        search.append(key, v);
      }
    }
    try {
      const response = await fetch(`${base}/${path}?${search}`);
      const body = await response.json();
      if (!response.ok) {
        throw { status: response.status, data: body };
      }
      return body as T;
    } finally {
      window.upness.lookups++;
    }
  }
}
const datasource = new HarnessDataSource(instanceSettings());

function record(change: unknown) {
  window.upness.changes.push(change);
}

function Query() {
  const [query, setQuery] = useState<UpnessQuery>({ refId: 'A', ...(stored as Partial<UpnessQuery>) });
  return (
    <QueryEditor
      datasource={datasource}
      query={query}
      onChange={(next) => {
        record(next);
        setQuery(next);
      }}
      onRunQuery={() => window.upness.runs++}
    />
  );
}

function Variable() {
  const [query, setQuery] = useState(stored as UpnessVariableQuery);
  return (
    <VariableQueryEditor
      datasource={datasource}
      query={query}
      onChange={(next) => {
        record(next);
        setQuery(next);
      }}
      onRunQuery={() => window.upness.runs++}
    />
  );
}

function Config() {
  const [options, setOptions] = useState({
    uid: 'upness',
    name: 'Upness',
    type: 'upness-jobset-datasource',
    access: 'proxy',
    url: '',
    jsonData: {},
    secureJsonFields: {},
    ...(stored as object),
  } as DataSourceSettings<UpnessOptions, UpnessSecureJsonData>);
  return (
    <ConfigEditor
      options={options}
      onOptionsChange={(next) => {
        record(next);
        setOptions(next);
      }}
    />
  );
}

function Page() {
  const Editor = editor === 'config' ? Config : editor === 'variable' ? Variable : Query;
  return (
    <ThemeContext.Provider value={theme}>
      <GlobalStyles />
      <div
        id="editor"
        style={{
          // About a panel editor's query row: wide enough for a row of fields, with room for menus below.
          width: editor === 'config' ? 760 : 1180,
          minHeight: 120,
          padding: 16,
          background: theme.colors.background.primary,
        }}
      >
        <Editor />
      </div>
    </ThemeContext.Provider>
  );
}

createRoot(document.getElementById('root')!).render(<Page />);
