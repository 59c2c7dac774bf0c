// A readable table of JobSet summaries for people (`--format table`).

import type { JobSetSummary } from '../series/summary.ts';
import { humanDuration } from '../frames/text.ts';

export { humanDuration };

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
