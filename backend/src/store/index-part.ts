// The fleet index's part of a snapshot (issue 21 §7): the service's fleet index (series/fleet-index.ts)
// sorted and summed, as it was when the snapshot was written, so that a start takes it in instead of
// sorting and summing every stored transition again. A binary file beside the snapshot; the snapshot's
// header names it and the id the two share (records.ts `fleetIndex`):
//
//   <data dir>/snapshot.fleet-index
//     "UPNESSFI"  u32 LE: the head's length  head (JSON)  padding to 8 bytes
//     per partition: times (f64 × events), sums (f64 × sums), owners (u32 × events), indices (u32 × events)
//     u32 LE: crc32 of everything before
//   head: { id, upness, layout, partitions: [{ cluster, namespace, group, origin, events, sums }] }
//
// An owner is its timeline's place in the snapshot's machines list. Numbers are little-endian, as the
// machines that run Upness keep them (a big-endian one neither writes nor reads the part). Readers
// before it ignore the file and the header's field; a start takes the part only when its id, its
// Upness version, its checksum and its lengths are right, and the index then checks it against the
// timelines themselves (FleetIndex.adopt); anything else is refused and the index built as before.

import { endianness } from 'node:os';
import { crc32 } from 'node:zlib';
import type { Timeline } from '../timeline/types.ts';

export const INDEX_PART = 'snapshot.fleet-index';

/** One partition of the index (series/fleet-index.ts PartitionImage). */
export interface IndexPartition {
  cluster: string | null;
  namespace: string;
  group: string;
  origin: number;
  times: Float64Array;
  owners: Uint32Array;
  indices: Uint32Array;
  checkpoints: Float64Array;
}

/** The index as typed arrays (series/fleet-index.ts FleetIndexImage). */
export interface IndexPart {
  layout: string;
  partitions: IndexPartition[];
}

/** How a snapshot gets the index of the timelines it writes, given their places in it (FleetIndex.image); null: none to keep. */
export type IndexSource = (positionOf: (timeline: Timeline) => number | undefined) => IndexPart | null;

/** The snapshot header's field that names the part. */
export interface IndexPartRef {
  file: string;
  id: string;
}

const MAGIC = Buffer.from('UPNESSFI');
const littleEndian = endianness() === 'LE';

interface Head {
  id: string;
  upness: string;
  layout: string;
  partitions: { cluster: string | null; namespace: string; group: string; origin: number; events: number; sums: number }[];
}

const pad8 = (n: number): number => (8 - (n % 8)) % 8;
const bytesOf = (a: Float64Array | Uint32Array): Buffer => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

/** The part's bytes, in pieces (the arrays are not copied); null on a big-endian machine. */
export function encodeIndexPart(part: IndexPart, id: string, upness: string): Buffer[] | null {
  if (!littleEndian) return null;
  const head: Head = {
    id,
    upness,
    layout: part.layout,
    partitions: part.partitions.map((p) => ({ cluster: p.cluster, namespace: p.namespace, group: p.group, origin: p.origin, events: p.times.length, sums: p.checkpoints.length })),
  };
  const json = Buffer.from(JSON.stringify(head));
  const length = Buffer.alloc(4);
  length.writeUInt32LE(json.length);
  const pieces: Buffer[] = [MAGIC, length, json, Buffer.alloc(pad8(MAGIC.length + 4 + json.length))];
  for (const p of part.partitions) {
    // 8 bytes an event for owners and indices together: the next partition stays aligned.
    pieces.push(bytesOf(p.times), bytesOf(p.checkpoints), bytesOf(p.owners), bytesOf(p.indices));
  }
  let crc = 0;
  for (const piece of pieces) crc = crc32(piece, crc);
  const tail = Buffer.alloc(4);
  tail.writeUInt32LE(crc);
  pieces.push(tail);
  return pieces;
}

/** A typed array over `bytes` at `offset` (copied when not aligned for it). */
function view<T extends Float64Array | Uint32Array>(Kind: { new (b: ArrayBuffer, o: number, n: number): T; BYTES_PER_ELEMENT: number }, bytes: Buffer, offset: number, n: number): T {
  const at = bytes.byteOffset + offset;
  if (at % Kind.BYTES_PER_ELEMENT === 0) return new Kind(bytes.buffer as ArrayBuffer, at, n);
  const copy = Buffer.alloc(n * Kind.BYTES_PER_ELEMENT);
  bytes.copy(copy, 0, offset, offset + copy.length);
  return new Kind(copy.buffer as ArrayBuffer, copy.byteOffset, n);
}

/** The part in `bytes` when it is the one the snapshot names (`id`), written by this Upness, whole; else why not. */
export function decodeIndexPart(bytes: Buffer, id: string, upness: string): IndexPart | string {
  if (!littleEndian) return 'this machine is big-endian';
  if (bytes.length < MAGIC.length + 8 || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) return 'it is not a fleet index part';
  const end = bytes.length - 4;
  if (crc32(bytes.subarray(0, end)) !== bytes.readUInt32LE(end)) return 'its checksum is wrong';
  const headLength = bytes.readUInt32LE(MAGIC.length);
  let head: Head;
  try {
    head = JSON.parse(bytes.toString('utf8', MAGIC.length + 4, MAGIC.length + 4 + headLength)) as Head;
  } catch {
    return 'its head is not JSON';
  }
  if (head.id !== id) return `it is of another snapshot (${String(head.id)}, not ${id})`;
  if (head.upness !== upness) return `it was written by Upness ${String(head.upness)}, not this one (${upness})`;
  let offset = MAGIC.length + 4 + headLength;
  offset += pad8(offset);
  const partitions: IndexPartition[] = [];
  for (const p of head.partitions) {
    const size = 16 * p.events + 8 * p.sums;
    if (!Number.isInteger(p.events) || !Number.isInteger(p.sums) || p.events < 0 || p.sums < 0 || offset + size > end) return 'its lengths do not add up';
    const times = view(Float64Array, bytes, offset, p.events);
    offset += 8 * p.events;
    const checkpoints = view(Float64Array, bytes, offset, p.sums);
    offset += 8 * p.sums;
    const owners = view(Uint32Array, bytes, offset, p.events);
    offset += 4 * p.events;
    const indices = view(Uint32Array, bytes, offset, p.events);
    offset += 4 * p.events;
    partitions.push({ cluster: p.cluster, namespace: p.namespace, group: p.group, origin: p.origin, times, owners, indices, checkpoints });
  }
  if (offset !== end) return 'its lengths do not add up';
  return { layout: head.layout, partitions };
}
