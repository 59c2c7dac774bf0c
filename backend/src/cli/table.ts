// A readable table of JobSet summaries for people (`--format table`).

import type { JobSetSummary } from '../series/summary.ts';

/** 93784 → "1d 2h", 3725 → "1h 2m", 65 → "1m 5s"; null → "–". */
export function humanDuration(seconds: number | null): string {
  if (seconds === null) return '–';
  const s = Math.round(seconds);
  const units: [number, string][] = [
    [86_400, 'd'],
    [3_600, 'h'],
    [60, 'm'],
    [1, 's'],
  ];
  const parts: string[] = [];
  let rest = s;
  for (const [size, unit] of units) {
    if (rest >= size || (parts.length === 0 && size === 1)) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
    if (parts.length === 2) break;
  }
  return parts.join(' ');
}

const COLUMNS: [string, (r: JobSetSummary) => string][] = [
  ['NAMESPACE', (r) => r.namespace],
  ['NAME', (r) => r.name],
  ['UID', (r) => r.uid.slice(0, 8)],
  ['STATE', (r) => r.state],
  ['UPTIME', (r) => (r.uptimeRatio === null ? '–' : `${(r.uptimeRatio * 100).toFixed(2)}%`)],
  ['UP', (r) => humanDuration(r.upSeconds)],
  ['DOWN', (r) => humanDuration(r.downSeconds)],
  ['PROVISIONING', (r) => humanDuration(r.provisioningSeconds)],
  ['INTERRUPTED', (r) => humanDuration(r.interruptionDowntimeSeconds)],
  ['SUSPENDED', (r) => humanDuration(r.suspendedSeconds)],
  ['UNKNOWN', (r) => humanDuration(r.unknownSeconds)],
  ['INTR', (r) => String(r.interruptions)],
  ['RECOV', (r) => String(r.recoveries)],
  ['MTTR', (r) => humanDuration(r.mttrSeconds)],
  ['MTBI', (r) => humanDuration(r.mtbiSeconds)],
  ['FIRST UP', (r) => humanDuration(r.timeToFirstUpSeconds)],
];

export function formatTable(rows: readonly JobSetSummary[]): string {
  const cells = [COLUMNS.map(([h]) => h), ...rows.map((r) => COLUMNS.map(([, f]) => f(r)))];
  const widths = COLUMNS.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  return cells.map((row) => row.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n') + '\n';
}
