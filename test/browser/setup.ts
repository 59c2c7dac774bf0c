// What the browser tier runs against: Debian's Chromium (installed when missing and running as
// root), a real `upness serve` on a simulated fleet, the harness page (src/test/harness.tsx) bundled
// with webpack + SWC as the plugin is, and a small HTTP server on 127.0.0.1 that serves the page,
// @grafana/ui's icons, and forwards the page's look-ups to the service. Everything started here is
// stopped by stopAll(), which also runs on exit and on SIGINT/SIGTERM, so nothing is left behind.

import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import webpack from 'webpack';
import { ensureDebianPackages } from '../support/debian.ts';
import { ready, startServe } from '../support/serve.ts';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const CHROMIUM = '/usr/bin/chromium';
/** Where every screenshot of an editor state is written (git-ignored). */
export const SHOTS = join(ROOT, 'test-results/browser');
const BUNDLE_DIR = join(SHOTS, 'harness');
const ICONS = join(ROOT, 'node_modules/@grafana/ui/dist/public/img/icons');

/**
 * The fonts @grafana/ui's GlobalStyles asks for (its fonts.ts: `${__grafana_public_path__}fonts/...`),
 * which Grafana serves from its own public/ folder, mapped to the same typefaces from npm
 * (@fontsource, devDependencies). Their latin subset: the editors' text is Latin (Grafana declares
 * Roboto Mono for exactly that range); anything else falls back as in any browser.
 */
const INTER = join(ROOT, 'node_modules/@fontsource/inter/files');
const ROBOTO_MONO = join(ROOT, 'node_modules/@fontsource/roboto-mono/files');
const FONTS: Record<string, string> = {
  'inter/Inter-Regular.woff2': join(INTER, 'inter-latin-400-normal.woff2'),
  'inter/Inter-Medium.woff2': join(INTER, 'inter-latin-500-normal.woff2'),
  'inter/Inter-Italic.woff2': join(INTER, 'inter-latin-400-italic.woff2'),
  'inter/Inter-MediumItalic.woff2': join(INTER, 'inter-latin-500-italic.woff2'),
  // Grafana's file is a variable Roboto Mono that it declares for weights 400 and 500 alike.
  'roboto/L0xTDF4xlVMF-BfR8bXMIhJHg45mwgGEFl0_3vrtSM1J-gEPT5Ese6hmHSh0mQ.woff2': join(ROBOTO_MONO, 'roboto-mono-latin-400-normal.woff2'),
};

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

/**
 * Debian's Chromium: installed with apt-get when missing and running as root; otherwise says how.
 * This is everything the tier installs outside npm: the Debian package `chromium` with its
 * dependencies (without recommends), which bring fontconfig and the fonts it depends on (DejaVu);
 * the page's own fonts come from npm (FONTS), so nothing here reads a file of another package.
 */
export async function ensureChromium(): Promise<string> {
  // The tier's Debian packages (test/support/debian.ts: chromium, without its recommends).
  await ensureDebianPackages('browser', (message) => console.log(message));
  if (!existsSync(CHROMIUM)) {
    throw new Error(`the Debian package chromium is installed, but ${CHROMIUM} is missing`);
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
        // Grafana's own fonts, from the npm packages of the same typefaces (an unknown one is a 404: a failed test).
        const file = FONTS[url.pathname.slice('/public/fonts/'.length)];
        if (file === undefined) {
          res.writeHead(404).end();
          return;
        }
        res.writeHead(200, { 'content-type': 'font/woff2' }).end(readFileSync(file));
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
