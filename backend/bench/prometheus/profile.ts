// Reads the V8 profiles the Upness server writes when started with --cpu-prof / --heap-prof, and
// says where the time went in each phase of the run (the load, each question) and what the heap holds.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface CpuProfile {
  nodes: { id: number; callFrame: CallFrame }[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

interface HeapNode {
  callFrame: CallFrame;
  selfSize: number;
  children: HeapNode[];
}

/** A phase of the run, in the benchmark's monotonic clock (process.hrtime, µs): the same clock as V8's profile. */
export interface Phase {
  name: string;
  startUs: number;
  endUs: number;
}

export interface FunctionShare {
  functionName: string;
  where: string;
  percent: number;
}

export interface ProfileSummary {
  file: string;
  phases: { name: string; sampledMs: number; top: FunctionShare[]; byFile: { where: string; percent: number }[] }[];
  heap?: { totalBytes: number; top: { functionName: string; where: string; bytes: number }[] };
}

const ROOT = join(import.meta.dirname, '../../..');

function where(frame: CallFrame): string {
  if (frame.url === '') return '(native)';
  const path = frame.url.startsWith('file://') ? relative(ROOT, new URL(frame.url).pathname) : frame.url;
  return `${path}:${frame.lineNumber + 1}`;
}

function fileOf(frame: CallFrame): string {
  if (frame.url === '') return frame.functionName.startsWith('(') ? frame.functionName : '(native)';
  return frame.url.startsWith('file://') ? relative(ROOT, new URL(frame.url).pathname) : frame.url;
}

export function nowUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/** The newest file in `dir` with this extension. */
export function newest(dir: string, ext: string): string | null {
  let best: { path: string; mtime: number } | null = null;
  for (const f of readdirSync(dir)) {
    if (!f.endsWith(ext)) continue;
    const path = join(dir, f);
    const mtime = statSync(path).mtimeMs;
    if (best === null || mtime > best.mtime) best = { path, mtime };
  }
  return best?.path ?? null;
}

export function summarizeProfiles(cpuFile: string, heapFile: string | null, phases: Phase[], topN = 12): ProfileSummary {
  const profile = JSON.parse(readFileSync(cpuFile, 'utf8')) as CpuProfile;
  const frames = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  // If the clocks do not line up (they should: both are CLOCK_MONOTONIC), report the whole run as one phase.
  const aligned = phases.length > 0 && Math.abs(profile.startTime - phases[0]!.startUs) < 120e6;
  const use = aligned ? phases : [{ name: 'Whole run', startUs: profile.startTime, endUs: profile.endTime }];
  const perPhase = use.map(() => new Map<string, { frame: CallFrame; us: number }>());
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i]!;
    const frame = frames.get(profile.samples[i]!)!;
    if (frame.functionName === '(idle)') continue;
    const p = use.findIndex((ph) => t >= ph.startUs && t < ph.endUs);
    if (p < 0) continue;
    const key = `${frame.functionName}\u0000${frame.url}\u0000${frame.lineNumber}`;
    const entry = perPhase[p]!.get(key);
    const dt = profile.timeDeltas[i + 1] ?? profile.timeDeltas[i]!;
    if (entry === undefined) perPhase[p]!.set(key, { frame, us: dt });
    else entry.us += dt;
  }
  const summary: ProfileSummary = {
    file: relative(ROOT, cpuFile),
    phases: use.map((ph, i) => {
      const entries = [...perPhase[i]!.values()];
      const total = entries.reduce((a, e) => a + e.us, 0) || 1;
      const files = new Map<string, number>();
      for (const e of entries) files.set(fileOf(e.frame), (files.get(fileOf(e.frame)) ?? 0) + e.us);
      return {
        name: ph.name,
        sampledMs: total / 1000,
        top: entries
          .sort((a, b) => b.us - a.us)
          .slice(0, topN)
          .map((e) => ({ functionName: e.frame.functionName, where: where(e.frame), percent: (100 * e.us) / total })),
        byFile: [...files.entries()]
          .sort((a, b) => b[1] - a[1])
          .slice(0, 8)
          .map(([file, us]) => ({ where: file, percent: (100 * us) / total })),
      };
    }),
  };
  if (heapFile !== null) {
    const heap = JSON.parse(readFileSync(heapFile, 'utf8')) as { head: HeapNode };
    const sites = new Map<string, { frame: CallFrame; bytes: number }>();
    let totalBytes = 0;
    const walk = (node: HeapNode): void => {
      if (node.selfSize > 0) {
        totalBytes += node.selfSize;
        const key = `${node.callFrame.functionName}\u0000${node.callFrame.url}\u0000${node.callFrame.lineNumber}`;
        const site = sites.get(key);
        if (site === undefined) sites.set(key, { frame: node.callFrame, bytes: node.selfSize });
        else site.bytes += node.selfSize;
      }
      for (const child of node.children) walk(child);
    };
    walk(heap.head);
    summary.heap = {
      totalBytes,
      top: [...sites.values()]
        .sort((a, b) => b.bytes - a.bytes)
        .slice(0, topN)
        .map((s) => ({ functionName: s.frame.functionName, where: where(s.frame), bytes: s.bytes })),
    };
  }
  return summary;
}
