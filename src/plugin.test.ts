// plugin.json: create-plugin's build reads src/plugin.json; the repository root holds the same file
// (DESIGN.md lists it there, and the Go backend's build reads it). They must not drift apart.

import rootPluginJson from '../plugin.json';
import pluginJson from './plugin.json';

describe('plugin.json', () => {
  it('is the same at the root and in src/', () => {
    expect(rootPluginJson).toEqual(pluginJson);
  });

  it('declares a backend data source with alerting, annotations and metrics', () => {
    expect(pluginJson).toMatchObject({
      type: 'datasource',
      id: 'upness-jobset-datasource',
      name: 'Upness',
      backend: true,
      executable: 'gpx_upness',
      alerting: true,
      annotations: true,
      metrics: true,
      info: { author: { name: 'Upness' }, logos: { small: 'img/logo.svg', large: 'img/logo.svg' } },
    });
    expect(pluginJson.dependencies.grafanaDependency).toMatch(/^>=12\./);
  });
});
