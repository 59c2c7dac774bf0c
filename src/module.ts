import { DataSourcePlugin } from '@grafana/data';

import { ConfigEditor } from './components/ConfigEditor';
import { QueryEditor } from './components/QueryEditor';
import { DataSource } from './datasource';
import type { UpnessOptions, UpnessQuery, UpnessSecureJsonData } from './types';

// Template variables have their own editor through the data source's `variables` support
// (src/variables.ts); annotations use the query editor above with an `events` query.
export const plugin = new DataSourcePlugin<DataSource, UpnessQuery, UpnessOptions, UpnessSecureJsonData>(DataSource)
  .setConfigEditor(ConfigEditor)
  .setQueryEditor(QueryEditor);
