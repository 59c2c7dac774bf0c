// `node backend/bench/heap-breakdown.ts FILE.heapsnapshot [--top N]`: a heap snapshot (v8.writeHeapSnapshot,
// `npm run bench:rss -- --snapshot FILE`) grouped by what holds the bytes: per constructor (objects),
// or per node type (strings, arrays, code, ...), the count and the self size of each, largest first.
// Self size only: retained size needs the dominator tree, and the question here is what each run
// costs in objects of each kind, which self sizes divided by the runs answer.

import { readFileSync } from 'node:fs';
import { benchArgs } from './args.ts';

const { values: args, positionals } = benchArgs(import.meta.filename, { allowPositionals: true, options: { top: { type: 'string', default: '40' }, shapes: { type: 'boolean', default: false } } });
if (positionals.length !== 1) {
  process.stderr.write('usage: heap-breakdown.ts FILE.heapsnapshot [--top N]\n');
  process.exit(2);
}

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]]; edge_fields: string[]; edge_types: [string[], ...unknown[]] } };
  nodes: number[];
  edges: number[];
  strings: string[];
}

const snap = JSON.parse(readFileSync(positionals[0]!, 'utf8')) as Snapshot;
const fields = snap.snapshot.meta.node_fields;
const types = snap.snapshot.meta.node_types[0];
const width = fields.length;
const typeAt = fields.indexOf('type');
const nameAt = fields.indexOf('name');
const sizeAt = fields.indexOf('self_size');

const edgeWidth = snap.snapshot.meta.edge_fields.length;
const edgeCountAt = fields.indexOf('edge_count');
const edgeTypeAt = snap.snapshot.meta.edge_fields.indexOf('type');
const edgeNameAt = snap.snapshot.meta.edge_fields.indexOf('name_or_index');
const propertyType = snap.snapshot.meta.edge_types[0].indexOf('property');
let edge = 0;

const groups = new Map<string, { count: number; bytes: number }>();
let total = 0;
for (let i = 0; i < snap.nodes.length; i += width) {
  const type = types[snap.nodes[i + typeAt]!]!;
  const name = snap.strings[snap.nodes[i + nameAt]!]!;
  const size = snap.nodes[i + sizeAt]!;
  // Objects by constructor; strings, arrays and the rest by type (their names are their contents).
  const edges = snap.nodes[i + edgeCountAt]!;
  let shape = '';
  if (args.shapes && type === 'object' && name === 'Object') {
    // --shapes: plain objects by their property names, so that each kind of record shows apart.
    const names: string[] = [];
    for (let e = edge; e < edge + edges * edgeWidth && names.length < 8; e += edgeWidth) {
      if (snap.edges[e + edgeTypeAt] === propertyType) names.push(snap.strings[snap.edges[e + edgeNameAt]!]!);
    }
    shape = `{${names.join(',')}}`;
  }
  edge += edges * edgeWidth;
  const key = shape !== '' ? `object ${shape}` : type === 'object' || type === 'native' || type === 'closure' ? `${type} ${name}` : type === 'hidden' || type === 'object shape' ? `${type} ${name.slice(0, 40)}` : type;
  const g = groups.get(key) ?? { count: 0, bytes: 0 };
  g.count++;
  g.bytes += size;
  groups.set(key, g);
  total += size;
}

// Internal arrays (backing stores of arrays, Maps and Sets) are charged to what points at them first: shown as `array ← owner`.
if (args.shapes) {
  const keyOf = new Map<number, string>();
  let e = 0;
  const toAt = snap.snapshot.meta.edge_fields.indexOf('to_node');
  const arrayType = types.indexOf('array');
  for (let i = 0; i < snap.nodes.length; i += width) {
    const edges = snap.nodes[i + edgeCountAt]!;
    const ownerType = types[snap.nodes[i + typeAt]!]!;
    const owner = `${ownerType} ${snap.strings[snap.nodes[i + nameAt]!]!.slice(0, 30)}`;
    for (let k = 0; k < edges; k++, e += edgeWidth) {
      const to = snap.edges[e + toAt]!;
      if (snap.nodes[to + typeAt] === arrayType && !keyOf.has(to)) keyOf.set(to, `${owner} .${String(snap.strings[snap.edges[e + edgeNameAt]!] ?? snap.edges[e + edgeNameAt])}`.slice(0, 60));
    }
  }
  const g0 = groups.get('array');
  groups.delete('array');
  for (const [to, owner] of keyOf) {
    const g = groups.get(`array ← ${owner}`) ?? { count: 0, bytes: 0 };
    g.count++;
    g.bytes += snap.nodes[to + sizeAt]!;
    groups.set(`array ← ${owner}`, g);
    if (g0 !== undefined) {
      g0.count--;
      g0.bytes -= snap.nodes[to + sizeAt]!;
    }
  }
  if (g0 !== undefined && g0.count > 0) groups.set('array (no owner)', g0);
}

const rows = [...groups].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, Number(args.top));
process.stdout.write(`total self size ${(total / 2 ** 20).toFixed(1)} MiB in ${(snap.nodes.length / width).toLocaleString('en-US')} nodes\n`);
for (const [key, g] of rows) {
  process.stdout.write(`${(g.bytes / 2 ** 20).toFixed(2).padStart(8)} MiB ${g.count.toLocaleString('en-US').padStart(10)}  ${key}\n`);
}
