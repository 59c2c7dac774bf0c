// The expensive things some tests need, made ready before any test starts (never inside a test's
// timeout), each cached outside the clone and keyed on its pinned version:
//   kube      kube-apiserver and etcd built from their pinned Go modules (test/kube/build.sh:
//             ~/.cache/upness/kube-<version>-etcd-<version>, minutes on a cold machine) and the
//             JobSet CRD of the pinned sigs.k8s.io/jobset release and Kueue's Workload CRD of the
//             pinned sigs.k8s.io/kueue release (Go module cache)
//   postgres  Debian's postgresql package (test/postgres/server.ts; apt-get, as root)
//   browser   Debian's chromium (test/support/debian.ts lists every Debian package the tiers install)
//   render    the Go program that renders alert templates as Grafana does (test/provisioning/render),
//             built into the cache, keyed on a hash of its sources
// Jest runs these as the globalSetup of the test projects that need them (jest.config.js); by
// hand: `node test/support/prepare.ts kube postgres`.

import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ensureBinaries, jobsetCrdPath, workloadCrdPath } from '../kube/cluster.ts';
import { ensurePostgres } from '../postgres/server.ts';
import { ensureDebianPackages } from './debian.ts';

export type Prerequisite = 'kube' | 'postgres' | 'render' | 'browser';
export const PREREQUISITES: readonly Prerequisite[] = ['kube', 'postgres', 'render', 'browser'];

const RENDER_SOURCES = join(import.meta.dirname, '..', 'provisioning', 'render');

/** Where the template renderer's binary is, for these sources (built by prepare(['render'])). */
export function templateRenderer(): string {
  const hash = createHash('sha256');
  for (const name of readdirSync(RENDER_SOURCES).sort()) {
    if (name.endsWith('.go') || name === 'go.mod') hash.update(name).update(readFileSync(join(RENDER_SOURCES, name)));
  }
  const cache = process.env.UPNESS_CACHE_DIR ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'upness');
  return join(cache, `template-renderer-${hash.digest('hex').slice(0, 16)}`, 'render');
}

const progress = (message: string): void => {
  process.stderr.write(`prerequisites: ${message}\n`);
};

export async function prepare(what: readonly Prerequisite[]): Promise<void> {
  for (const item of what) {
    const started = Date.now();
    if (item === 'kube') {
      await ensureDebianPackages('kube', progress);
      progress('kube-apiserver and etcd (built once from pinned Go modules and cached; minutes on a cold machine) ...');
      const dir = await ensureBinaries();
      const crd = await jobsetCrdPath();
      const workloadCrd = await workloadCrdPath();
      progress(`kube ready in ${((Date.now() - started) / 1000).toFixed(1)} s: ${dir}, CRDs ${crd}, ${workloadCrd}`);
    } else if (item === 'browser') {
      await ensureDebianPackages('browser', progress);
      progress(`browser ready in ${((Date.now() - started) / 1000).toFixed(1)} s: Debian's chromium`);
    } else if (item === 'render') {
      const binary = templateRenderer();
      if (!existsSync(binary)) {
        progress('the alert template renderer (go build, test/provisioning/render) ...');
        const path = `${process.env.PATH ?? ''}:/usr/local/go/bin`;
        await promisify(execFile)('go', ['build', '-o', binary, '.'], { cwd: RENDER_SOURCES, env: { ...process.env, PATH: path, GOTOOLCHAIN: 'local' } });
        progress(`renderer built in ${((Date.now() - started) / 1000).toFixed(1)} s: ${binary}`);
      }
    } else {
      progress('PostgreSQL (Debian package, installed once) ...');
      const pg = await ensurePostgres(progress);
      progress(`postgres ${pg.version} ready in ${((Date.now() - started) / 1000).toFixed(1)} s: ${pg.binDir}`);
    }
  }
}
