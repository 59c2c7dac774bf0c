// The store contract (test/support/store/contract.ts) against the embedded store on real files. A reader reads a copy
// of the data dir (what is on disk, as a restart would find it), so the writer is not disturbed; the
// crash kills, with SIGKILL, a process of its own that wrote and flushed.

import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnOwned } from '../../../test/support/processes.ts';
import { EmbeddedStore } from './embedded.ts';
import { FORMAT } from './records.ts';
import { fromRecovery, storeContract, type Subject } from '../../../test/support/store/contract.ts';

async function embedded(): Promise<Subject> {
  const root = mkdtempSync(join(tmpdir(), 'upness-contract-'));
  const dir = join(root, 'data');
  let reads = 0;
  return {
    open: () => EmbeddedStore.open(dir),
    async read() {
      const copy = join(root, `read-${++reads}`);
      cpSync(dir, copy, { recursive: true });
      const { store, recovery } = await EmbeddedStore.open(copy);
      await store.close();
      return fromRecovery(recovery);
    },
    async crashAfterFlush() {
      const child = spawnOwned(process.execPath, [join(import.meta.dirname, '..', '..', '..', 'test', 'support', 'store', 'crash-writer.ts'), dir], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stderr!.on('data', (chunk) => (out += chunk));
      await new Promise<void>((resolve, reject) => {
        child.stdout!.on('data', (chunk) => {
          out += chunk;
          if (out.includes('flushed\n')) resolve();
        });
        child.once('exit', (code) => reject(new Error(`the writer exited with ${code} before it flushed: ${out}`)));
      });
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
    async refuseNewer() {
      writeFileSync(join(dir, 'snapshot.json'), JSON.stringify({ format: FORMAT + 1, upness: '9.9.9', nextSegment: 1, observedUntil: null, machines: [] }));
      return EmbeddedStore.open(dir).then(
        () => 'opened',
        (error: Error) => error.message,
      );
    },
    async dispose() {
      rmSync(root, { recursive: true, force: true });
    },
  };
}

storeContract('the embedded store', embedded);
