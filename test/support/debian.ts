// The Debian packages the test tiers install, in one place: each tier's prepare step calls
// ensureDebianPackages() with its own list before its first test, and the guard test
// (system-files.service.test.ts) checks that every system file a test reads belongs to one of these
// packages (or to what they depend on, or to a package every Debian system has). A file that only
// the author's machine happened to have fails that guard, not a new user's first run.

import { execFile } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const execFileP = promisify(execFile);

export interface TierPackage {
  /** The Debian package. */
  name: string;
  /** What the tests use of it (documentation, and the guard's paths for files not installed yet). */
  provides: readonly string[];
}

/** Per tier, what its prepare step installs. README "Development" lists the same. */
export const TIER_PACKAGES = {
  // kube-apiserver's and etcd's certificates are made with the openssl CLI.
  kube: [{ name: 'openssl', provides: ['/usr/bin/openssl'] }],
  // Debian's PostgreSQL server; pgrep (procps) finds a postmaster's children.
  postgres: [
    { name: 'postgresql', provides: ['/usr/lib/postgresql'] },
    { name: 'procps', provides: ['/usr/bin/pgrep'] },
  ],
  // The real browser the editors are driven in; its own dependencies bring fontconfig and a font.
  browser: [{ name: 'chromium', provides: ['/usr/bin/chromium'] }],
} as const satisfies Record<string, readonly TierPackage[]>;

export type Tier = keyof typeof TIER_PACKAGES;

/** Every package some tier installs. */
export const ALL_TIER_PACKAGES: readonly TierPackage[] = Object.values(TIER_PACKAGES).flat();

/** True when dpkg says the package is installed. */
export async function isInstalled(name: string): Promise<boolean> {
  try {
    const { stdout } = await execFileP('dpkg-query', ['-W', '-f=${db:Status-Status}', name]);
    return stdout.trim() === 'installed';
  } catch {
    return false;
  }
}

/**
 * Installs what the tier needs and is missing (apt-get update once, then apt-get install, as root,
 * serialised by a lock file in the cache so that tiers running at once do not fight over dpkg's
 * lock). Without root it says which command to run instead.
 */
export async function ensureDebianPackages(tier: Tier, progress: (message: string) => void = () => {}): Promise<void> {
  const wanted = TIER_PACKAGES[tier].map((p) => p.name);
  const missing: string[] = [];
  for (const name of wanted) if (!(await isInstalled(name))) missing.push(name);
  if (missing.length === 0) return;
  if (process.getuid?.() !== 0) {
    throw new Error(`the ${tier} tier needs the Debian package(s) ${missing.join(', ')}, and only root can install them: sudo apt-get install -y --no-install-recommends ${missing.join(' ')}`);
  }
  const started = Date.now();
  progress(`${tier}: installing Debian package(s) ${missing.join(', ')} (apt-get update, apt-get install) ...`);
  const cache = process.env.UPNESS_CACHE_DIR ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'upness');
  await mkdir(cache, { recursive: true });
  const script = [
    'set -e',
    // Another tier may have installed them while this one waited for the lock.
    `missing=$(for p in "$@"; do [ "$(dpkg-query -W -f='\${db:Status-Status}' "$p" 2>/dev/null)" = installed ] || echo "$p"; done)`,
    '[ -z "$missing" ] && exit 0',
    'apt-get update -q',
    'apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=600 $missing',
  ].join('\n');
  await execFileP('flock', [join(cache, 'apt.lock'), 'sh', '-c', script, 'install', ...missing], {
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    maxBuffer: 64 << 20,
  });
  for (const name of missing) {
    if (!(await isInstalled(name))) throw new Error(`apt-get install ${name} finished, but dpkg does not list ${name} as installed`);
  }
  progress(`${tier}: installed ${missing.join(', ')} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
