// Timestamp formatting on the hot path: the date part changes once a simulated day, so it is cached
// and the time of day is formatted by hand. Output equals Date.prototype.toISOString (years 1970–9999).

const DAY_MS = 86_400_000;

let cachedDay = NaN;
let cachedPrefix = '';

function datePrefix(day: number): string {
  if (day !== cachedDay) {
    cachedDay = day;
    cachedPrefix = new Date(day).toISOString().slice(0, 11);
  }
  return cachedPrefix;
}

function pad2(n: number): string {
  return n < 10 ? '0' + n : String(n);
}

function pad3(n: number): string {
  return n < 10 ? '00' + n : n < 100 ? '0' + n : String(n);
}

/** Kubernetes timestamps: RFC 3339 with whole seconds, "2026-01-01T00:00:05Z" (milliseconds dropped). */
export function kubeTime(ms: number): string {
  const day = Math.floor(ms / DAY_MS) * DAY_MS;
  const s = Math.floor((ms - day) / 1000);
  return `${datePrefix(day)}${pad2(Math.floor(s / 3600))}:${pad2(Math.floor(s / 60) % 60)}:${pad2(s % 60)}Z`;
}

/** RFC 3339 with milliseconds, exactly as new Date(ms).toISOString(). */
export function isoMillis(ms: number): string {
  const day = Math.floor(ms / DAY_MS) * DAY_MS;
  const r = ms - day;
  const s = Math.floor(r / 1000);
  return `${datePrefix(day)}${pad2(Math.floor(s / 3600))}:${pad2(Math.floor(s / 60) % 60)}:${pad2(s % 60)}.${pad3(r % 1000)}Z`;
}
