// A template variable listing namespaces from the service, through the Go backend's CallResource.

import { expect, test } from '@grafana/plugin-e2e';

test('a variable lists the namespaces the service knows', async ({
  variableEditPage,
  readProvisionedDataSource,
  page,
}) => {
  const ds = await readProvisionedDataSource({ fileName: 'upness.yaml' });
  await variableEditPage.setVariableType('Query');
  await variableEditPage.datasource.set(ds.name);
  await expect(page.getByLabel('Values')).toHaveValue('Namespaces');
  await variableEditPage.runQuery();
  await expect(variableEditPage).toDisplayPreviews([/.+/]);
});
