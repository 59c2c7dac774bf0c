// The expensive things some tests need, made ready before any test starts (never inside a test's
// timeout), each cached outside the clone and keyed on its pinned version:
//   kube      kube-apiserver and etcd built from their pinned Go modules (test/kube/build.sh:
//             ~/.cache/upness/kube-<version>-etcd-<version>, minutes on a cold machine) and the
//             JobSet CRD of the pinned sigs.k8s.io/jobset release (Go module cache)
//   postgres  Debian's postgresql package (test/postgres/server.ts; apt-get, as root)
// Jest runs these as the globalSetup of the test projects that need them (jest.config.js); by
// hand: `node test/support/prepare.ts kube postgres`.

import { ensureBinaries, jobsetCrdPath } from '../kube/cluster.ts';
import { ensurePostgres } from '../postgres/server.ts';

export type Prerequisite = 'kube' | 'postgres';

const progress = (message: string): void => {
  process.stderr.write(`prerequisites: ${message}\n`);
};

export async function prepare(what: readonly Prerequisite[]): Promise<void> {
  for (const item of what) {
    const started = Date.now();
    if (item === 'kube') {
      progress('kube-apiserver and etcd (built once from pinned Go modules and cached; minutes on a cold machine) ...');
      const dir = await ensureBinaries();
      const crd = await jobsetCrdPath();
      progress(`kube ready in ${((Date.now() - started) / 1000).toFixed(1)} s: ${dir}, CRD ${crd}`);
    } else {
      progress('PostgreSQL (Debian package, installed once) ...');
      const pg = await ensurePostgres(progress);
      progress(`postgres ${pg.version} ready in ${((Date.now() - started) / 1000).toFixed(1)} s: ${pg.binDir}`);
    }
  }
}
