// Words for people: durations as annotations and tables show them.

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
