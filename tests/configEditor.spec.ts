// Browser tests with @grafana/plugin-e2e: they need a Grafana server with this plugin installed
// and the Upness service running (docker compose up; see src/README.md), then `npm run e2e`.
// UPNESS_URL is the service as the Grafana server reaches it; UPNESS_TOKEN its token, if any.

import { expect, test } from '@grafana/plugin-e2e';

import type { UpnessOptions, UpnessSecureJsonData } from '../src/types';

const serviceUrl = process.env.UPNESS_URL ?? 'http://upness:8080';
const token = process.env.UPNESS_TOKEN ?? '';

test('smoke: the config editor renders', async ({ createDataSourceConfigPage, readProvisionedDataSource, page }) => {
  const ds = await readProvisionedDataSource({ fileName: 'upness.yaml' });
  await createDataSourceConfigPage({ type: ds.type });
  await expect(page.getByRole('textbox', { name: /^URL/ })).toBeVisible();
  await expect(page.getByLabel('Token')).toBeVisible();
  await page.getByRole('button', { name: 'Expand section Additional settings' }).click();
  await expect(page.getByLabel('Timeout')).toBeVisible();
});

test('"Save & test" succeeds when the service answers', async ({
  createDataSourceConfigPage,
  readProvisionedDataSource,
  page,
}) => {
  const ds = await readProvisionedDataSource<UpnessOptions, UpnessSecureJsonData>({ fileName: 'upness.yaml' });
  const configPage = await createDataSourceConfigPage({ type: ds.type });
  await page.getByRole('textbox', { name: /^URL/ }).fill(serviceUrl);
  if (token !== '') {
    await page.getByLabel('Token').fill(token);
  }
  await expect(configPage.saveAndTest()).toBeOK();
});

test('"Save & test" fails when nothing answers at the URL', async ({
  createDataSourceConfigPage,
  readProvisionedDataSource,
  page,
}) => {
  const ds = await readProvisionedDataSource({ fileName: 'upness.yaml' });
  const configPage = await createDataSourceConfigPage({ type: ds.type });
  await page.getByRole('textbox', { name: /^URL/ }).fill('http://127.0.0.1:9');
  await expect(configPage.saveAndTest()).not.toBeOK();
  await expect(configPage).toHaveAlert('error');
});
