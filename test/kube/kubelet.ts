// A stand-in kubelet for the node proxy tests: an HTTPS server that answers GET /stats/summary as
// a kubelet would, with a serving certificate and a client CA of its own (made with the openssl CLI,
// as cluster.ts makes the apiserver's), so that the real kube-apiserver reaches it exactly as it
// reaches a kubelet: --kubelet-certificate-authority verifies the stand-in, and the stand-in
// verifies the apiserver's --kubelet-client-certificate.
//
// It listens on this machine's first non-loopback IPv4 address, not on 127.0.0.1: the apiserver
// refuses to proxy to loopback and link-local addresses (proxyutil.IsProxyableIP), so a Node whose
// InternalIP is 127.0.0.1 cannot be reached through /proxy at all.

import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { TLSSocket } from 'node:tls';
import { ensureDebianPackages } from '../support/debian.ts';

const execFileP = promisify(execFile);

/** This machine's first non-loopback, non-link-local IPv4 address: one the apiserver will proxy to. */
export function proxyableAddress(): string {
  for (const addresses of Object.values(networkInterfaces())) {
    for (const a of addresses ?? []) if (a.family === 'IPv4' && !a.internal && !a.address.startsWith('169.254.')) return a.address;
  }
  throw new Error('no non-loopback IPv4 address on this machine: the apiserver proxies to no loopback address, so the node proxy cannot be tested here');
}

export interface KubeletPki {
  dir: string;
  /** For the apiserver: the CA that signed the kubelet's serving certificate, and its client certificate for kubelets. */
  apiserverFlags: string[];
  serving: { cert: string; key: string };
  clientCa: string;
}

/** A kubelet CA, the stand-in's serving certificate for `address`, and the apiserver's client certificate. */
export async function makeKubeletPki(address: string): Promise<KubeletPki> {
  await ensureDebianPackages('kube');
  const dir = await mkdtemp(join(tmpdir(), 'upness-kubelet-'));
  const file = (name: string): string => join(dir, name);
  const newKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '7'];
  const signed = ['-CA', file('ca.crt'), '-CAkey', file('ca.key'), '-addext', 'basicConstraints=critical,CA:FALSE'];
  const openssl = (args: string[]) => execFileP('openssl', args);
  await openssl(['req', '-x509', ...newKey, '-subj', '/CN=upness-test-kubelet-ca', '-keyout', file('ca.key'), '-out', file('ca.crt')]);
  await openssl(['req', '-x509', ...newKey, ...signed, '-subj', '/CN=stand-in-kubelet', '-addext', `subjectAltName=IP:${address}`,
    '-addext', 'extendedKeyUsage=serverAuth', '-keyout', file('kubelet.key'), '-out', file('kubelet.crt')]);
  await openssl(['req', '-x509', ...newKey, ...signed, '-subj', '/O=kubelet-api-clients/CN=kube-apiserver-kubelet-client',
    '-addext', 'extendedKeyUsage=clientAuth', '-keyout', file('client.key'), '-out', file('client.crt')]);
  return {
    dir,
    apiserverFlags: [
      '--kubelet-preferred-address-types=InternalIP',
      `--kubelet-certificate-authority=${file('ca.crt')}`,
      `--kubelet-client-certificate=${file('client.crt')}`,
      `--kubelet-client-key=${file('client.key')}`,
    ],
    serving: { cert: await readFile(file('kubelet.crt'), 'utf8'), key: await readFile(file('kubelet.key'), 'utf8') },
    clientCa: await readFile(file('ca.crt'), 'utf8'),
  };
}

/** Removes the certificates (after the apiserver that reads them has stopped). */
export async function removeKubeletPki(pki: KubeletPki): Promise<void> {
  await rm(pki.dir, { recursive: true, force: true });
}

export interface StandInKubelet {
  address: string;
  port: number;
  /** The requests it answered: path and the client certificate's CN. */
  requests: { path: string; client: string | null }[];
  /** What GET /stats/summary answers now (change it between samplings). */
  summary: unknown;
  /** How it answers: the summary, a page that is not JSON, or never (a kubelet that hangs). */
  mode: 'answer' | 'not-json' | 'hang';
  stop(): Promise<void>;
  /** The Node's status that points the apiserver at it. */
  nodeStatus(): object;
}

export async function startStandInKubelet(pki: KubeletPki, address: string, summary: unknown): Promise<StandInKubelet> {
  const requests: StandInKubelet['requests'] = [];
  const state: { summary: unknown; mode: StandInKubelet['mode'] } = { summary, mode: 'answer' };
  const server: Server = createServer({ ...pki.serving, ca: pki.clientCa, requestCert: true, rejectUnauthorized: true }, (req, res) => {
    const peer = (req.socket as TLSSocket).getPeerCertificate();
    requests.push({ path: req.url ?? '', client: typeof peer?.subject?.CN === 'string' ? peer.subject.CN : null });
    if (state.mode === 'hang') return; // closed when the server stops
    if (req.method === 'GET' && req.url?.split('?')[0] === '/stats/summary') {
      if (state.mode === 'not-json') res.writeHead(200, { 'content-type': 'text/html' }).end('<html>kubelet</html>');
      else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(state.summary));
    } else {
      res.writeHead(404).end('not found');
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, address, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    address,
    port,
    requests,
    get summary() {
      return state.summary;
    },
    set summary(value: unknown) {
      state.summary = value;
    },
    get mode() {
      return state.mode;
    },
    set mode(value: StandInKubelet['mode']) {
      state.mode = value;
    },
    nodeStatus: () => ({
      status: {
        addresses: [{ type: 'InternalIP', address }],
        daemonEndpoints: { kubeletEndpoint: { Port: port } },
        conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'stand-in', lastHeartbeatTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'), lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }],
      },
    }),
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
