await import('pino'); await import('prom-client');
globalThis.gc(); await new Promise(r => setTimeout(r, 200)); globalThis.gc();
const what = process.argv[2];
const b = process.memoryUsage();
if (what !== 'none') for (const m of what.split(',')) await import(m);
globalThis.gc(); await new Promise(r => setTimeout(r, 200)); globalThis.gc();
const a = process.memoryUsage();
console.log(what.padEnd(40), ((a.rss - b.rss) / 2**20).toFixed(1), 'MiB rss;', ((a.heapUsed - b.heapUsed) / 2**20).toFixed(1), 'heap');
