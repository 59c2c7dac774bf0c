// The data source's settings: where the Upness service answers, its bearer token (kept by
// Grafana as a secret and sent only to the Go plugin backend) and how long to wait for it.
// "Save & test" runs the Go backend's CheckHealth, which asks the service's /readyz.

import React from 'react';
import type { DataSourcePluginOptionsEditorProps } from '@grafana/data';
import { config } from '@grafana/runtime';
import { InlineField, Input, SecretInput, Stack, Text, TextLink } from '@grafana/ui';

import type { UpnessOptions, UpnessSecureJsonData } from '../types';

export type Props = DataSourcePluginOptionsEditorProps<UpnessOptions, UpnessSecureJsonData>;

const LABEL_WIDTH = 14;
export const DEFAULT_TIMEOUT_SECONDS = 30;

export function urlError(url: string): string | undefined {
  // As the Go backend checks it: http(s), a host, maybe a path prefix; no query, fragment or user.
  return url === '' || /^https?:\/\/[^\s/?#@]+(\/[^\s?#]*)?$/.test(url)
    ? undefined
    : 'Enter the address of the Upness service, e.g. http://upness.upness.svc:8080';
}

export function ConfigEditor({ options, onOptionsChange }: Props) {
  const { jsonData, secureJsonFields, secureJsonData } = options;
  // The Go backend falls back on the data source's own url field (provisioning files may set it).
  const url = jsonData.url || options.url || '';
  const timeoutInvalid = jsonData.timeoutSeconds !== undefined && !(jsonData.timeoutSeconds > 0);

  const setJsonData = (patch: Partial<UpnessOptions>) =>
    onOptionsChange({ ...options, jsonData: { ...jsonData, ...patch } });

  return (
    <Stack direction="column" gap={1}>
      <Text element="p" color="secondary">
        Upness answers with exact up/down figures for Kubernetes JobSets. Point this data source at a running{' '}
        <code>upness serve</code>.{' '}
        <TextLink href={`${config.appSubUrl}/plugins/${options.type || 'upness-jobset-datasource'}`} external inline>
          Documentation
        </TextLink>
      </Text>
      <div>
        <InlineField
          label="URL"
          labelWidth={LABEL_WIDTH}
          tooltip="The Upness service, as the Grafana server (not the browser) reaches it"
          invalid={urlError(url) !== undefined}
          error={urlError(url)}
          required
        >
          <Input
            id="upness-config-url"
            width={48}
            value={url}
            placeholder="http://upness.upness.svc:8080"
            onChange={(e) => setJsonData({ url: e.currentTarget.value.trim() })}
          />
        </InlineField>
        <InlineField
          label="Token"
          labelWidth={LABEL_WIDTH}
          tooltip="The service's bearer token (upness serve --token-file, or UPNESS_TOKEN). Leave empty when the service has none."
        >
          <SecretInput
            id="upness-config-token"
            width={48}
            isConfigured={secureJsonFields?.token ?? false}
            value={secureJsonData?.token ?? ''}
            placeholder="Bearer token"
            onChange={(e) =>
              onOptionsChange({ ...options, secureJsonData: { ...secureJsonData, token: e.currentTarget.value } })
            }
            onReset={() =>
              onOptionsChange({
                ...options,
                secureJsonFields: { ...secureJsonFields, token: false },
                secureJsonData: { ...secureJsonData, token: '' },
              })
            }
          />
        </InlineField>
        <InlineField
          label="Timeout"
          labelWidth={LABEL_WIDTH}
          tooltip="Seconds to wait for the service's answer to one request"
          invalid={timeoutInvalid}
          error="Enter a number of seconds greater than 0"
        >
          <Input
            id="upness-config-timeout"
            type="number"
            min={1}
            width={16}
            value={jsonData.timeoutSeconds ?? ''}
            placeholder={String(DEFAULT_TIMEOUT_SECONDS)}
            suffix="s"
            onChange={(e) => {
              const text = e.currentTarget.value.trim();
              setJsonData({ timeoutSeconds: text === '' ? undefined : Number(text) });
            }}
          />
        </InlineField>
      </div>
    </Stack>
  );
}
