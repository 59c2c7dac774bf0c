// The formats of the embedded data dir that Upness ever wrote, and the steps that migrate each to
// the next. Opening a data dir of an older format migrates it in place, atomically:
//
//   1. every step, oldest first, writes the migrated data dir beside it: <dir>.format-<N>.tmp
//      (files and directory fsynced);
//   2. <dir> is renamed to <dir>.format-<old>.bak, then the last .tmp to <dir> (parent fsynced);
//   3. once the migrated <dir> has been opened and read, the .bak is deleted.
//
// A crash before 2 leaves <dir> as it was (the .tmp is deleted by the next try); between the two
// renames, <dir> is missing and the next start renames the .bak back and migrates again; after 2,
// the next start finds the migrated <dir> and deletes the .bak once it has read it. A data dir of a
// newer format is refused, naming the Upness version that wrote it.
//
// To change the format: bump FORMAT in ./records.ts, add a step here (FORMAT - 1 → FORMAT) that
// writes a complete data dir of the new format from one of the old, and add a data dir written by the
// last release of the old format to ./fixtures/ with the answers it gave (./fixtures/README.md).

import { closeSync, fsyncSync, openSync } from 'node:fs';
import { cp, mkdir, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { allNodeLayers, type Recovery } from './store.ts';
import { decodeLine, encodeLine, FORMAT, parseSnapshot, snapshotHeaderOf, snapshotText } from './records.ts';
import { UPNESS_VERSION } from './version.ts';

export const SNAPSHOT = 'snapshot.json';
export const segmentName = (n: number): string => `log-${String(n).padStart(6, '0')}.jsonl`;
export const SEGMENT = /^log-(\d{6,})\.jsonl$/;

/** Reads a data dir of a given format (the embedded store's recovery, told which format to accept). */
export type ReadDir = (dir: string, format: number) => Promise<Recovery>;

export interface FormatStep {
  from: number;
  to: number;
  /** What changes, for the log line that reports the migration. */
  change: string;
  /** Writes into the empty directory `into` a complete data dir of format `to` holding what `dir` (format `from`) holds. */
  migrate(dir: string, into: string, read: ReadDir): Promise<void>;
}

export function syncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes a snapshot's text (records.ts snapshotText) to `path`, and syncs it. The pieces are taken
 * before the first await, so the snapshot is of one moment even when they come from live timelines;
 * they are gathered into Buffers of about 1 MiB (outside V8's heap), never into one string.
 */
export async function writeSnapshot(path: string, pieces: Iterable<string>): Promise<void> {
  const buffers: Buffer[] = [];
  let chunk = '';
  for (const piece of pieces) {
    chunk += piece;
    if (chunk.length >= 1 << 20) {
      buffers.push(Buffer.from(chunk));
      chunk = '';
    }
  }
  buffers.push(Buffer.from(chunk));
  const handle = await open(path, 'w');
  try {
    for (const buffer of buffers) {
      // A write may stop short (a full disk) without failing; the next one then fails.
      for (let offset = 0; offset < buffer.length; ) offset += (await handle.write(buffer, offset)).bytesWritten;
    }
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Copies what is not the log or the snapshot (the simulator's simulation.json, ...), as it is. */
async function copyOthers(dir: string, into: string): Promise<void> {
  for (const f of await readdir(dir)) {
    if (f === SNAPSHOT || SEGMENT.test(f) || f.endsWith('.tmp')) continue;
    await cp(join(dir, f), join(into, f), { recursive: true, preserveTimestamps: true });
  }
}

/**
 * The usual step: the current reader reads the old format as it is (apply() in ./embedded.ts knows
 * its records), and the migrated data dir is one snapshot of it in the next format (its node layers,
 * pools and usage histories too), then the usage samplings logged after the old snapshot in a log
 * segment after it, with the other files (simulation.json) copied. A step that must change records as
 * it reads them writes its own.
 */
export function snapshotStep(from: number, change: string): FormatStep {
  return {
    from,
    to: from + 1,
    change,
    async migrate(dir, into, read) {
      const recovery = await read(dir, from);
      const usage = recovery.usage ?? { snapshot: [], log: [] };
      await writeSnapshot(
        join(into, SNAPSHOT),
        snapshotText(recovery.machines, 1, recovery.observedUntil, UPNESS_VERSION, allNodeLayers(recovery), from + 1, recovery.pools ?? [], usage.snapshot),
      );
      if (usage.log.length > 0) await writeSnapshot(join(into, segmentName(1)), [encodeLine({ k: 'header', format: from + 1, upness: UPNESS_VERSION }), ...usage.log.map(encodeLine)]);
      await copyOthers(dir, into);
    },
  };
}

/** Format N → N+1, oldest first, without gaps, the last ending at FORMAT. */
export const STEPS: readonly FormatStep[] = [
  // Format 1's records are all format-2 records (a transition's inline causes included); it kept no node layer.
  snapshotStep(1, 'causes become facts of their own beside the transitions, and the node layer is kept'),
  // Format 2's records are all format-3 records: meta without the goodput inputs reads as none (0
  // accelerators, no checkpoint interval), written out in full; no suspension carried a reason.
  snapshotStep(2, 'meta records carry the goodput inputs (accelerators, checkpoint interval), and suspended transitions why'),
  // Format 3's records are all format-4 records: meta without pods reads as 0 (not known: a JobSet
  // without accelerators has no known size until it is observed again), written out in full.
  snapshotStep(3, 'meta records carry the pod count (the job size without accelerators)'),
  // Format 4's records are all format-5 records; only the snapshot changes.
  snapshotStep(4, 'the snapshot keeps no node layer that its JobSet layer derives (closed, never up on its nodes)'),
];

/** The format a data dir is in, and the Upness that wrote it; null for an empty (new) one. */
export async function formatOf(dir: string): Promise<{ format: number; upness: string | null; file: string } | null> {
  const snapshot = join(dir, SNAPSHOT);
  try {
    // Its first line is enough (records.ts snapshotText); a snapshot of the one-line layout is read whole.
    const handle = await open(snapshot, 'r');
    let start: Buffer;
    try {
      const { buffer, bytesRead } = await handle.read(Buffer.alloc(1 << 16), 0, 1 << 16, 0);
      start = buffer.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
    const { format, upness } = snapshotHeaderOf(start) ?? parseSnapshot(await readFile(snapshot)).header;
    return { format, upness: upness ?? null, file: snapshot };
  } catch (error) {
    // A snapshot that is not JSON is reported by the recovery, which knows what to say.
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return null;
  }
  const first = (await readdir(dir)).filter((f) => SEGMENT.test(f)).sort()[0];
  if (first === undefined) return null;
  const text = await readFile(join(dir, first), 'utf8');
  const header = decodeLine(text.slice(0, Math.max(0, text.indexOf('\n'))));
  if (header?.k !== 'header') return null;
  return { format: header.format, upness: header.upness ?? null, file: join(dir, first) };
}

const exists = (path: string): Promise<boolean> =>
  stat(path).then(
    () => true,
    () => false,
  );

/** Backups of `dir` left by a migration: <dir>.format-<N>.bak. */
async function backups(dir: string): Promise<string[]> {
  const name = basename(dir);
  const pattern = new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.format-\\d+\\.bak$`);
  return (await readdir(dirname(dir)).catch(() => [])).filter((f) => pattern.test(f)).map((f) => join(dirname(dir), f));
}

/**
 * Before a data dir is opened: puts back a backup whose migration stopped between its two renames.
 * Returns the backups that a finished migration left (delete them once the dir has been read).
 */
export async function settle(dir: string): Promise<string[]> {
  const left = await backups(dir);
  if (left.length > 0 && !(await exists(dir))) {
    await rename(left[0]!, dir);
    syncDir(dirname(dir));
    return left.slice(1);
  }
  return left;
}

export interface Migration {
  from: number;
  to: number;
  /** The copy of the data dir as it was, kept until the migrated one has been read. */
  backup: string;
  changes: string[];
}

/** Migrates `dir` from format `from` to FORMAT in place (see the top of this file). */
export async function upgrade(dir: string, from: number, read: ReadDir): Promise<Migration> {
  const steps = STEPS.filter((s) => s.from >= from);
  if (steps[0]?.from !== from || steps.some((s, i) => s.to !== s.from + 1 || (i > 0 && s.from !== steps[i - 1]!.to)) || steps.at(-1)!.to !== FORMAT) {
    throw new Error(`no chain of migration steps from format ${from} to ${FORMAT}`);
  }
  let current = dir;
  for (const step of steps) {
    const into = `${dir}.format-${step.to}.tmp`;
    await rm(into, { recursive: true, force: true });
    await mkdir(into);
    await step.migrate(current, into, read);
    syncDir(into);
    if (current !== dir) await rm(current, { recursive: true, force: true });
    current = into;
  }
  const backup = `${dir}.format-${from}.bak`;
  await rm(backup, { recursive: true, force: true });
  await rename(dir, backup);
  syncDir(dirname(dir));
  await rename(current, dir);
  syncDir(dirname(dir));
  return { from, to: FORMAT, backup, changes: steps.map((s) => `${s.from} → ${s.to}: ${s.change}`) };
}
