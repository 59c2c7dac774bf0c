// A worker thread on the sources stripped ahead (./stripped-sources.js). A module loading hook is
// its thread's own, so a worker started by a service that runs on them registers the same files
// (their map, handed in workerData) before it loads its TypeScript entry: otherwise each worker
// would load Node's type stripper (~12 MiB) and strip its modules again. Plain JavaScript, so that
// starting it strips nothing.

import { workerData } from 'node:worker_threads';
import { loadStrippedSources } from './stripped-sources.js';

const { byUrl, entry } = workerData.strippedSources;
loadStrippedSources(byUrl);
await import(entry);
