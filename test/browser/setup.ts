// What the browser tier runs against: Debian's Chromium (installed when missing and running as
// root), a real `upness serve` on a simulated fleet, the harness page (src/test/harness.tsx) bundled
// with webpack + SWC as the plugin is, and a small HTTP server on 127.0.0.1 that serves the page,
// @grafana/ui's icons, and forwards the page's look-ups to the service. Everything started here is
// stopped by stopAll(), which also runs on exit and on SIGINT/SIGTERM, so nothing is left behind.

import { type ChildProcess, execSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import webpack from 'webpack';
import { ready, startServe } from '../support/serve.ts';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const CHROMIUM = '/usr/bin/chromium';
/** Where every screenshot of an editor state is written (git-ignored). */
export const SHOTS = join(ROOT, 'test-results/browser');
const BUNDLE_DIR = join(SHOTS, 'harness');
const ICONS = join(ROOT, 'node_modules/@grafana/ui/dist/public/img/icons');

const children = new Set<ChildProcess>();
const servers = new Set<Server>();

/** Kills what this process started; safe to call more than once, and from an exit handler (synchronous). */
export function stopAll(): void {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
    }
  }
  children.clear();
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
  servers.clear();
}
process.once('exit', stopAll);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    stopAll();
    process.exit(130);
  });
}

/** Debian's Chromium: installed with apt-get when missing and running as root; otherwise says how. */
export function ensureChromium(): string {
  if (existsSync(CHROMIUM)) {
    return CHROMIUM;
  }
  if (process.getuid?.() !== 0) {
    throw new Error(`${CHROMIUM} is missing and only root can install it: sudo apt-get install -y chromium`);
  }
  console.log('browser tier: installing Debian package chromium (apt-get update, apt-get install)');
  execSync('apt-get update -q && apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=600 chromium', {
    stdio: 'inherit',
  });
  if (!existsSync(CHROMIUM)) {
    throw new Error(`apt-get install chromium finished, but ${CHROMIUM} is still missing`);
  }
  return CHROMIUM;
}

/**
 * The flags that keep a headless Chromium quiet on a machine without network. The fresh profile
 * (`--user-data-dir`) is Playwright's own: launch() makes a new temporary one for each browser and
 * deletes it on close (it refuses the flag from outside).
 */
export function chromiumArgs(): string[] {
  return [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ];
}

/** Starts `upness serve --memory` on a free port (a simulated fleet) and resolves once it is ready. */
export async function startService(): Promise<string> {
  // Through spawnOwned: it dies with this process even if that is killed outright.
  const serve = await startServe(['--memory', '--jobsets', '12', '--history-days', '2']);
  children.add(serve.child);
  await ready(serve, 20_000);
  return serve.url;
}

/** Bundles the harness page with webpack and SWC, as the plugin is built (cached between runs). */
export async function bundle(): Promise<string> {
  mkdirSync(BUNDLE_DIR, { recursive: true });
  const compiler = webpack({
    mode: 'development',
    devtool: false,
    context: ROOT,
    entry: join(ROOT, 'src/test/harness.tsx'),
    output: { path: BUNDLE_DIR, filename: 'harness.js', publicPath: '/' },
    cache: { type: 'filesystem', cacheDirectory: join(ROOT, 'node_modules/.cache/upness-browser-tier') },
    resolve: { extensions: ['.tsx', '.ts', '.mjs', '.js', '.jsx'] },
    module: {
      rules: [
        {
          test: /\.[tj]sx?$/,
          exclude: /node_modules/,
          use: {
            loader: 'swc-loader',
            options: { jsc: { target: 'es2022', parser: { syntax: 'typescript', tsx: true } } },
          },
        },
        { test: /\.css$/, use: ['style-loader', 'css-loader'] },
        { test: /\.(png|jpe?g|gif|svg|woff2?|ttf|eot)$/, type: 'asset/resource' },
      ],
    },
    performance: { hints: false },
    infrastructureLogging: { level: 'error' },
  });
  await new Promise<void>((done, fail) =>
    compiler.run((error, stats) => {
      compiler.close(() => undefined);
      if (error || stats?.hasErrors()) {
        fail(error ?? new Error(stats!.toString({ all: false, errors: true })));
      } else {
        done();
      }
    })
  );
  return BUNDLE_DIR;
}

const PLACEHOLDER_ICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><circle cx="12" cy="12" r="9" fill="none" stroke="currentColor" stroke-width="2" stroke-dasharray="40 20"/></svg>';

const TYPES: Record<string, string> = { '.js': 'text/javascript', '.svg': 'image/svg+xml', '.html': 'text/html' };

const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>Upness editors</title>
<script>
  window.grafanaBootData = { settings: { appSubUrl: '' }, user: {}, navTree: [], assets: { dark: '', light: '' } };
  window.__grafana_public_path__ = '/public/';
</script></head>
<body style="margin:0"><div id="root"></div><script src="/harness.js"></script></body></html>`;

/**
 * Serves the page on 127.0.0.1 and forwards `/resources/values/...` to the service's
 * `/api/v1/values/...`; `/down/...` goes to a port where nothing listens (a real refused connection),
 * answered as Grafana answers a failed resource call: 502 `{message}`.
 */
export async function startPageServer(serviceUrl: string, bundleDir: string): Promise<string> {
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const deadPort = (closed.address() as AddressInfo).port;
  await new Promise((r) => closed.close(r));

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    try {
      if (url.pathname === '/favicon.ico') {
        res.writeHead(204).end();
      } else if (url.pathname === '/' || url.pathname === '/index.html') {
        res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
      } else if (url.pathname.startsWith('/resources/') || url.pathname.startsWith('/down/')) {
        const target = url.pathname.startsWith('/down/')
          ? `http://127.0.0.1:${deadPort}/api/v1/${url.pathname.slice('/down/'.length)}${url.search}`
          : `${serviceUrl}/api/v1/${url.pathname.slice('/resources/'.length)}${url.search}`;
        let answer: Response;
        try {
          answer = await fetch(target);
        } catch (error) {
          const cause = (error as { cause?: { message?: string } }).cause?.message ?? String(error);
          res.writeHead(502, { 'content-type': 'application/json' }).end(JSON.stringify({ message: cause }));
          return;
        }
        res.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text());
      } else if (url.pathname.startsWith('/public/build/img/icons/')) {
        // @grafana/ui ships its icons but not the few Grafana adds (the spinner): a plain circle for those.
        const file = join(ICONS, url.pathname.slice('/public/build/img/icons/'.length));
        const body = existsSync(file) ? readFileSync(file) : PLACEHOLDER_ICON;
        res.writeHead(200, { 'content-type': 'image/svg+xml' }).end(body);
      } else if (url.pathname.startsWith('/public/fonts/')) {
        // Grafana serves Inter itself (it is not in any npm package here): Debian's Liberation Sans stands in.
        const bold = /Medium|SemiBold|Bold/.test(url.pathname);
        const body = readFileSync(`/usr/share/fonts/truetype/liberation/LiberationSans-${bold ? 'Bold' : 'Regular'}.ttf`);
        res.writeHead(200, { 'content-type': 'font/ttf' }).end(body);
      } else {
        const file = join(bundleDir, url.pathname);
        const body = readFileSync(file);
        res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(body);
      }
    } catch {
      if (!res.headersSent) {
        res.writeHead(404).end();
      }
    }
  });
  servers.add(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
