// Why a watch broke, as a short label for logs and for upness_watch_restarts_total{cause}. Pure.

/** The causes of a restart. `http-<status>` for any HTTP status the apiserver answered with. */
export type RestartCause =
  | 'connection' // refused, reset, DNS, TLS: the apiserver could not be reached or dropped us
  | 'timeout' // a list or watch request got no answer in time
  | 'watchdog' // the watch was silent for too long (a half-open connection, a frozen apiserver)
  | 'gone' // 410 Gone: the resourceVersion was compacted away, so the watch relisted
  | 'forbidden' // 401/403: the credentials or RBAC do not allow it
  | `http-${number}`
  | 'error'; // anything else

function field(error: unknown, name: string): unknown {
  return error !== null && typeof error === 'object' ? (error as Record<string, unknown>)[name] : undefined;
}

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
]);

/** Classifies an error from a list or a watch (Node errors, undici errors, HTTP statuses). */
export function classifyError(error: unknown): RestartCause {
  // An abort whose reason is a timeout (AbortSignal.timeout) is a timeout.
  for (let e: unknown = error, depth = 0; e !== undefined && e !== null && depth < 5; e = field(e, 'cause'), depth++) {
    if (field(e, 'name') === 'TimeoutError') return 'timeout';
  }
  // A DOMException's numeric `code` is not an HTTP status; a Status object's `code` is.
  const status = field(error, 'statusCode') ?? (error instanceof DOMException ? undefined : field(error, 'code'));
  if (typeof status === 'number' && status >= 100 && status < 600) {
    if (status === 410) return 'gone';
    if (status === 401 || status === 403) return 'forbidden';
    return `http-${status}`;
  }
  for (let e: unknown = error, depth = 0; e !== undefined && e !== null && depth < 5; e = field(e, 'cause'), depth++) {
    const code = field(e, 'code');
    if (typeof code === 'string' && CONNECTION_CODES.has(code)) return 'connection';
    if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return 'timeout';
  }
  const message = String(field(error, 'message') ?? error);
  if (/terminated|socket hang up|other side closed|ECONNRESET|ECONNREFUSED/i.test(message)) return 'connection';
  if (/timed? ?out/i.test(message)) return 'timeout';
  return 'error';
}

/** A short, log-friendly description of an error and what caused it. */
export function describeError(error: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = error, depth = 0; e !== undefined && e !== null && depth < 4; e = field(e, 'cause'), depth++) {
    const message = field(e, 'message');
    const code = field(e, 'code');
    const text = typeof message === 'string' ? message : String(e);
    parts.push(typeof code === 'string' && !text.includes(code) ? `${text} (${code})` : text);
  }
  return parts.join(': ');
}
