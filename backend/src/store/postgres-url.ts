// What `upness serve` needs to know of a --store value before it loads PostgreSQL's client: whether
// it names a database, and how to show it. Apart from postgres.ts, so that a service without
// --store never loads `pg` (about 5 MiB of RSS: README, Performance).

/** Whether a --store value names a PostgreSQL database (rather than a data dir). */
export function isPostgresUrl(value: string): boolean {
  return /^postgres(ql)?:\/\//i.test(value);
}

/** The URL for logs and messages: the password masked. */
export function describeUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== '') u.password = '***';
    return u.toString();
  } catch {
    return url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
  }
}
