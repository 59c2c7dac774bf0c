// Shared option parsing for the CLI: clear messages that name the option.

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** An ISO-8601 / RFC 3339 time, e.g. 2026-01-01T00:00:00Z. */
export function parseTime(value: string, option: string): number {
  const ms = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?)?$/.test(value) ? Date.parse(value) : NaN;
  if (!Number.isFinite(ms)) throw new UsageError(`${option} must be an ISO-8601 time such as 2026-01-01T00:00:00Z, not "${value}"`);
  return ms;
}

export function parsePositiveInt(value: string, option: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n <= 0) throw new UsageError(`${option} must be a positive whole number, not "${value}"`);
  return n;
}

export function parsePositiveNumber(value: string, option: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0) throw new UsageError(`${option} must be a positive number, not "${value}"`);
  return n;
}

export function parseInteger(value: string, option: string): number {
  const n = Number(value);
  if (!/^-?\d+$/.test(value) || !Number.isSafeInteger(n)) throw new UsageError(`${option} must be a whole number, not "${value}"`);
  return n;
}
