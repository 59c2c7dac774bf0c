// The store's own metrics, registered by the store's owner on the service's registry and read from
// the store's status at scrape. The `_total` ones are counters (they only grow while the process runs).

import client from 'prom-client';
import type { StoreStatus } from './store.ts';

export function registerStoreMetrics(registry: client.Registry, status: () => StoreStatus): void {
  new client.Counter({
    name: 'upness_store_write_errors_total',
    help: 'Failed writes to the data dir (disk full, unwritable), read from the store at scrape.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(status().errors);
    },
  });
  new client.Gauge({
    name: 'upness_store_failing',
    help: '1 while the last write to the data dir failed: new records wait in memory and are retried.',
    registers: [registry],
    collect() {
      this.set(status().error === null ? 0 : 1);
    },
  });
  new client.Gauge({
    name: 'upness_store_pending_records',
    help: 'Records waiting to be written to the data dir.',
    registers: [registry],
    collect() {
      this.set(status().pendingRecords);
    },
  });
  new client.Counter({
    name: 'upness_store_written_bytes_total',
    help: 'Bytes written to the log since start.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(status().bytesWritten);
    },
  });
}
