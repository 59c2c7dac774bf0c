// Grafana's side of a panel's time: its range, its point budget and its interval, as Grafana works
// them out for a dashboard's panel. Apart from grafana.ts (which starts services and reads files
// from the clone) so that the dashboards benchmark (backend/bench/dashboards.ts), run by Node
// itself, can use it too.

import { parseDuration } from '../../backend/src/query/types.ts';

/* eslint-disable @typescript-eslint/no-explicit-any -- dashboards and panels are JSON documents */
type Json = any;

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

/** `now`, `now-7d`, `now-30m` with "now" at the end of the trace. */
export function relativeTime(text: string, now: number): number {
  const match = /^now(?:-(\d+)([smhdw]))?$/.exec(text);
  if (!match) throw new Error(`cannot map the time "${text}" onto the trace`);
  if (match[1] === undefined) return now;
  return now - parseDuration(`${match[1]}${match[2]}`)!;
}

/** Grafana's interval rounding (rangeutil.roundInterval), as far as it matters here. */
export function roundInterval(ms: number): number {
  const table: [number, number][] = [
    [1_500, 1_000],
    [3_500, 2_000],
    [7_500, 5_000],
    [12_500, 10_000],
    [17_500, 15_000],
    [25_000, 20_000],
    [45_000, 30_000],
    [90_000, MINUTE],
    [210_000, 2 * MINUTE],
    [450_000, 5 * MINUTE],
    [750_000, 10 * MINUTE],
    [1_050_000, 15 * MINUTE],
    [1_500_000, 20 * MINUTE],
    [2_700_000, 30 * MINUTE],
    [5_400_000, HOUR],
    [9_000_000, 2 * HOUR],
    [16_200_000, 3 * HOUR],
    [32_400_000, 6 * HOUR],
    [DAY, 12 * HOUR],
  ];
  for (const [upTo, value] of table) if (ms <= upTo) return value;
  return DAY;
}

export interface TimeContext {
  from: number;
  to: number;
  intervalMs: number;
  maxDataPoints: number;
}

/** What Grafana computes for a panel: its range, its point budget (its width) and its interval. */
export function panelTime(dashboard: Json, panel: Json | null, now: number): TimeContext {
  const to = relativeTime(dashboard.time.to, now);
  let from = relativeTime(dashboard.time.from, now);
  if (panel?.timeFrom) from = to - parseDuration(panel.timeFrom)!;
  const width = panel?.gridPos ? Math.round((panel.gridPos.w / 24) * 1900) : 1900;
  const maxDataPoints = panel?.maxDataPoints ?? width;
  const minInterval = panel?.interval ? parseDuration(panel.interval) : null;
  const intervalMs = Math.max(roundInterval((to - from) / maxDataPoints), minInterval ?? 0);
  return { from, to, intervalMs, maxDataPoints };
}
