// Browser tests with @grafana/plugin-e2e against a Grafana server with this plugin and a running
// Upness service (see configEditor.spec.ts). The provisioned data source is provisioning/datasources/upness.yaml.

import { expect, test } from '@grafana/plugin-e2e';

test('smoke: a new query shows the defaults', async ({ panelEditPage, readProvisionedDataSource }) => {
  const ds = await readProvisionedDataSource({ fileName: 'upness.yaml' });
  await panelEditPage.datasource.set(ds.name);
  const row = panelEditPage.getQueryEditorRow('A');
  await expect(row.getByRole('radio', { name: 'Series' })).toBeChecked();
  await expect(row.getByLabel('Metric')).toHaveValue('Uptime ratio');
  await expect(row.getByRole('radio', { name: 'Step' })).toBeChecked();
  await expect(row.getByLabel('Group by')).toHaveValue('Namespace');
});

test('the default query answers', async ({ panelEditPage, readProvisionedDataSource }) => {
  const ds = await readProvisionedDataSource({ fileName: 'upness.yaml' });
  await panelEditPage.datasource.set(ds.name);
  await expect(panelEditPage.refreshPanel()).toBeOK();
});

test('a summary fills a table with every figure', async ({ panelEditPage, readProvisionedDataSource }) => {
  const ds = await readProvisionedDataSource({ fileName: 'upness.yaml' });
  await panelEditPage.datasource.set(ds.name);
  await panelEditPage.setVisualization('Table');
  await panelEditPage.getQueryEditorRow('A').getByRole('radio', { name: 'Summary' }).check({ force: true });
  await expect(panelEditPage.refreshPanel()).toBeOK();
  await expect(panelEditPage.panel.fieldNames).toContainText(['namespace', 'name', 'state', 'uptimeRatio']);
});

test('a rolling window needs a duration', async ({ panelEditPage, readProvisionedDataSource }) => {
  const ds = await readProvisionedDataSource({ fileName: 'upness.yaml' });
  await panelEditPage.datasource.set(ds.name);
  const row = panelEditPage.getQueryEditorRow('A');
  await row.getByRole('radio', { name: 'Rolling' }).check({ force: true });
  await row.getByLabel('Length').fill('2 days');
  await row.getByLabel('Length').blur();
  await expect(row.getByText(/Enter a duration/)).toBeVisible();
});
