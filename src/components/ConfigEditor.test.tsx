import React, { useState } from 'react';
import { fireEvent, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { DataSourceSettings } from '@grafana/data';

import type { UpnessOptions, UpnessSecureJsonData } from '../types';
import { ConfigEditor, URL_ERROR, urlError } from './ConfigEditor';

type Settings = DataSourceSettings<UpnessOptions, UpnessSecureJsonData>;

/** The settings page's options; the fields deprecated in Grafana 12 (id, database) are left out. */
function settings(patch: Partial<Settings> = {}): Settings {
  return {
    uid: 'upness',
    orgId: 1,
    name: 'Upness',
    type: 'upness-jobset-datasource',
    typeName: 'Upness',
    typeLogoUrl: '',
    access: 'proxy',
    url: '',
    user: '',
    basicAuth: false,
    basicAuthUser: '',
    isDefault: false,
    withCredentials: false,
    readOnly: false,
    jsonData: {},
    secureJsonFields: {},
    ...patch,
  } as Settings;
}

/** The editor as Grafana's settings page holds it: every change comes back as the new options. */
function setup(initial: Settings) {
  const onOptionsChange = jest.fn();
  function Page() {
    const [options, setOptions] = useState(initial);
    return (
      <ConfigEditor
        options={options}
        onOptionsChange={(next) => {
          onOptionsChange(next);
          setOptions(next);
        }}
      />
    );
  }
  render(<Page />);
  return { onOptionsChange, user: userEvent.setup() };
}

describe('ConfigEditor', () => {
  it('sets the service URL in jsonData', async () => {
    const { onOptionsChange } = setup(settings());
    fireEvent.change(screen.getByLabelText(/^URL/), { target: { value: 'http://upness.upness.svc:8080' } });
    expect(onOptionsChange).toHaveBeenLastCalledWith(
      expect.objectContaining({ jsonData: { url: 'http://upness.upness.svc:8080' } })
    );
    expect(screen.queryByText(/Enter the address/)).not.toBeInTheDocument();
  });

  it('says what a URL should look like', () => {
    setup(settings({ jsonData: { url: 'upness:8080' } }));
    expect(screen.getByText(/Enter the address of the Upness service/)).toBeInTheDocument();
    expect(urlError('')).toBeUndefined();
    expect(urlError('https://upness.example.com/base')).toBeUndefined();
    expect(urlError('ftp://upness')).toBeDefined();
    expect(urlError('http://upness:8080/?x=1')).toBeDefined();
    expect(urlError('http://user@upness:8080')).toBeDefined();
  });

  it('keeps the token in secureJsonData, next to the other settings', async () => {
    const { onOptionsChange, user } = setup(settings({ jsonData: { url: 'http://upness:8080' } }));
    await user.type(screen.getByLabelText(/^Token/), 's3cret');
    expect(onOptionsChange).toHaveBeenLastCalledWith(
      expect.objectContaining({ jsonData: { url: 'http://upness:8080' }, secureJsonData: { token: 's3cret' } })
    );
  });

  it('shows a stored token as configured, and resets it', async () => {
    const { onOptionsChange, user } = setup(settings({ secureJsonFields: { token: true } }));
    expect(screen.getByDisplayValue('configured')).toBeDisabled();
    await user.click(screen.getByRole('button', { name: 'Reset' }));
    expect(onOptionsChange).toHaveBeenLastCalledWith(
      expect.objectContaining({ secureJsonFields: { token: false }, secureJsonData: { token: '' } })
    );
    expect(screen.getByLabelText(/^Token/)).toBeEnabled();
  });

  it('sets the timeout in seconds, and clears it back to the default', () => {
    const { onOptionsChange } = setup(settings({ jsonData: { timeoutSeconds: 30 } }));
    const timeout = screen.getByLabelText(/^Timeout/);
    expect(timeout).toHaveAttribute('placeholder', '30');
    fireEvent.change(timeout, { target: { value: '60' } });
    expect(onOptionsChange).toHaveBeenLastCalledWith(expect.objectContaining({ jsonData: { timeoutSeconds: 60 } }));
    fireEvent.change(timeout, { target: { value: '0' } });
    expect(screen.getByText('Enter a number of seconds greater than 0')).toBeInTheDocument();
    fireEvent.change(timeout, { target: { value: '' } });
    expect(onOptionsChange).toHaveBeenLastCalledWith(
      expect.objectContaining({ jsonData: { timeoutSeconds: undefined } })
    );
  });

  it('judges the URL when the field is left, not while it is typed', async () => {
    const { user } = setup(settings());
    const url = screen.getByLabelText(/^URL/);
    await user.type(url, 'upness:80');
    expect(screen.queryByText(URL_ERROR)).not.toBeInTheDocument();
    await user.tab();
    expect(screen.getByText(URL_ERROR)).toBeInTheDocument();
    await user.clear(url);
    await user.type(url, 'http://upness:8080');
    expect(screen.queryByText(URL_ERROR)).not.toBeInTheDocument();
  });

  it('lays the settings out in Connection, Authentication and Additional settings sections', () => {
    setup(settings());
    for (const section of ['Connection', 'Authentication', 'Additional settings']) {
      expect(screen.getByRole('heading', { name: section })).toBeInTheDocument();
    }
  });

  it("links to the plugin's page in Grafana, in the same tab", () => {
    setup(settings());
    const link = screen.getByRole('link', { name: 'its page in Grafana' });
    expect(link).toHaveAttribute('href', expect.stringMatching(/\/plugins\/upness-jobset-datasource$/));
    expect(link).not.toHaveAttribute('target');
  });
});

describe('ConfigEditor with a provisioned url field', () => {
  it("shows the data source's own url, which the Go backend falls back on", () => {
    setup(settings({ url: 'http://upness:8080' }));
    expect(screen.getByLabelText(/^URL/)).toHaveValue('http://upness:8080');
  });
});
