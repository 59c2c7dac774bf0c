import type { DataSourceInstanceSettings, DataSourcePluginMeta } from '@grafana/data';

import type { UpnessOptions } from '../types';

/** The settings Grafana would hand the data source for a provisioned instance. */
export function instanceSettings(
  jsonData: UpnessOptions = { url: 'http://upness:8080' }
): DataSourceInstanceSettings<UpnessOptions> {
  // `id` (deprecated, to be removed in Grafana 13) is left out.
  return {
    uid: 'upness',
    type: 'upness-jobset-datasource',
    name: 'Upness',
    access: 'proxy',
    readOnly: false,
    jsonData,
    meta: { id: 'upness-jobset-datasource', name: 'Upness', type: 'datasource' } as DataSourcePluginMeta,
  } as DataSourceInstanceSettings<UpnessOptions>;
}
