// The data source's settings, laid out as Prometheus and Loki lay out theirs: a description, then
// Connection (where the Upness service answers), Authentication (its bearer token, kept by Grafana as
// a secret and sent only to the Go plugin backend) and Additional settings (how long to wait).
// "Save & test" runs the Go backend's CheckHealth, which asks the service's /readyz.

import React, { useState } from 'react';
import type { DataSourcePluginOptionsEditorProps } from '@grafana/data';
import { ConfigSection } from '@grafana/plugin-ui';
import { config } from '@grafana/runtime';
import { Divider, Field, Input, SecretInput, Stack, Text, useTheme2 } from '@grafana/ui';

import type { UpnessOptions, UpnessSecureJsonData } from '../types';

export type Props = DataSourcePluginOptionsEditorProps<UpnessOptions, UpnessSecureJsonData>;

const WIDTH = 48;
export const DEFAULT_TIMEOUT_SECONDS = 30;
export const URL_ERROR = 'Enter the address of the Upness service, e.g. http://upness.upness.svc:8080';
export const TIMEOUT_ERROR = 'Enter a number of seconds greater than 0';

export function urlError(url: string): string | undefined {
  // As the Go backend checks it: http(s), a host, maybe a path prefix; no query, fragment or user.
  return url === '' || /^https?:\/\/[^\s/?#@]+(\/[^\s?#]*)?$/.test(url) ? undefined : URL_ERROR;
}

export function ConfigEditor({ options, onOptionsChange }: Props) {
  const theme = useTheme2();
  const { jsonData, secureJsonFields, secureJsonData } = options;
  // The Go backend falls back on the data source's own url field (provisioning files may set it).
  const url = jsonData.url || options.url || '';
  // The URL is judged once the user has left the field (or when it was saved that way), not while typing.
  const [urlTouched, setUrlTouched] = useState(url !== '');
  const [urlFocused, setUrlFocused] = useState(false);
  const shownUrlError = urlTouched && !urlFocused ? urlError(url) : undefined;
  const timeoutInvalid = jsonData.timeoutSeconds !== undefined && !(jsonData.timeoutSeconds > 0);

  const setJsonData = (patch: Partial<UpnessOptions>) =>
    onOptionsChange({ ...options, jsonData: { ...jsonData, ...patch } });

  return (
    <Stack direction="column" gap={2}>
      <div data-testid="upness-config-description">
        <Text element="p" color="secondary">
          Upness answers with exact up/down figures for Kubernetes JobSets: uptime, downtime, interruptions, recoveries,
          MTTR, MTBI, uptime ratio. Point this data source at a running <code>upness serve</code>. Each setting is
          described in the plugin&apos;s README, on{' '}
          {/* A plain link: Grafana's TextLink routes internal links through the app's router, which a
              plugin's settings page is not guaranteed to sit in; this page is in Grafana, so no "external" mark. */}
          <a
            href={`${config.appSubUrl}/plugins/${options.type || 'upness-jobset-datasource'}`}
            style={{ color: theme.colors.text.link, textDecoration: 'underline' }}
          >
            its page in Grafana
          </a>
          .
        </Text>
        <Text element="p" color="secondary" italic>
          Fields marked with * are required.
        </Text>
      </div>
      <Divider spacing={1} />
      <ConfigSection title="Connection" description="Where the Upness service answers the Grafana server.">
        <Field
          label="URL"
          description="The service as the Grafana server (not the browser) reaches it"
          required
          invalid={shownUrlError !== undefined}
          error={shownUrlError}
        >
          <Input
            id="upness-config-url"
            width={WIDTH}
            value={url}
            placeholder="http://upness.upness.svc:8080"
            onChange={(e) => setJsonData({ url: e.currentTarget.value.trim() })}
            onFocus={() => setUrlFocused(true)}
            onBlur={() => {
              setUrlFocused(false);
              setUrlTouched(true);
            }}
          />
        </Field>
      </ConfigSection>
      <Divider spacing={1} />
      <ConfigSection
        title="Authentication"
        description="The service's bearer token (upness serve --token-file, or UPNESS_TOKEN). Leave it empty when the service has none."
      >
        <Field label="Token" description="Encrypted by Grafana; sent only to the plugin's backend, never to browsers">
          <SecretInput
            id="upness-config-token"
            width={WIDTH}
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
        </Field>
      </ConfigSection>
      <Divider spacing={1} />
      <ConfigSection title="Additional settings" isCollapsible isInitiallyOpen={jsonData.timeoutSeconds !== undefined}>
        <Field
          label="Timeout"
          description="Seconds to wait for the service's answer to one request"
          invalid={timeoutInvalid}
          error={TIMEOUT_ERROR}
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
        </Field>
      </ConfigSection>
    </Stack>
  );
}
