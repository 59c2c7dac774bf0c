// Tests bring what they need: every system file that test code names (an absolute path such as
// /usr/bin/chromium, or a command it runs such as `openssl`) must belong, by `dpkg -S`, to a Debian
// package that a tier's prepare step installs (test/support/debian.ts), to one those depend on, or to
// a package every Debian system has (Essential or Priority: required). A file not installed yet must
// be one a declared package provides. So a font, a binary or a package that only the author's
// machine happened to have fails here, on the author's machine, instead of on a new user's.
//
// What it reads: test code (test/, backend/test/, backend/bench/, every *.test.ts(x) and Go
// *_test.go, .ci/run, the tiers' shell scripts), for path literals under /usr, /etc, /lib, /bin,
// /sbin, /opt and /var, and for the commands given to execFile/spawn and their kin.

import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ALL_TIER_PACKAGES } from './debian.ts';

const ROOT = join(__dirname, '..', '..');

/** Named in test code, but not read from this machine's system: each says why. */
const NOT_READ: Record<string, string> = {
  '/var/run/secrets/kubernetes.io/serviceaccount': 'the in-cluster service account of a pod: tests check the product without it',
  '/var/lib/upness': 'a data-dir path given to a parser (isPostgresUrl), never opened',
  '/etc/config': "a JobSet's container args and volume mount in a generated manifest, never opened",
  '/var/lib/grafana': "a path inside the Grafana container of docker-compose.yaml, checked as text",
  '/etc/grafana': "a path inside the Grafana container of docker-compose.yaml, checked as text",
};
/** Given on every machine this project runs on (not a Debian package): each says why. */
const MACHINE: Record<string, string> = {
  '/usr/local/go': 'the Go toolchain every machine has (Go 1.26 at /usr/local/go)',
  '/usr/bin/node': "the machine's Node 20; the test that uses it skips when it is absent",
  '/usr/bin/npm': "the machine's npm, which runs `npm ci` and `npm test` themselves",
};

const SCANNED_DIRS = ['test', 'backend/test', 'backend/bench', 'backend/src', 'src', 'pkg', '.ci'];
const SKIP_DIRS = new Set(['node_modules', 'dist', 'test-results', 'testdata', 'fixtures', 'coverage']);

function isTestCode(rel: string): boolean {
  if (rel === '.ci/run') return true;
  if (rel === 'test/support/system-files.service.test.ts') return false; // its examples are made up
  if (/\.(test|spec)\.tsx?$/.test(rel) || rel.endsWith('_test.go')) return true;
  if (rel.startsWith('backend/src/') || rel.startsWith('src/') || rel.startsWith('pkg/')) return false;
  return /\.(ts|tsx|js|cjs|mjs|sh)$/.test(rel);
}

/** The repository's own files (tracked, or new and not ignored): not what a run left behind, such as
 *  the benchmark's unpacked Prometheus package under the git-ignored backend/bench/results/. */
function testCodeFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '--', ...SCANNED_DIRS], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 << 20 });
  return listed
    .split('\n')
    .filter((rel) => rel !== '' && !rel.split('/').some((part) => SKIP_DIRS.has(part)) && isTestCode(rel) && existsSync(join(ROOT, rel)));
}

const PATH_LITERAL = /(?:^|['"`\s=:(])(\/(?:usr|etc|lib|lib64|bin|sbin|opt|var)\/[^'"`\s$:;,)]*)(\$\{)?/g;
const COMMAND = /\b(?:execFile|execFileSync|execFileP|execSync|spawn|spawnSync|spawnOwned|run|exec\.Command)\(\s*['"`]([a-z][\w.+-]*)(?=['"`\s])/g;

interface Use {
  what: string;
  kind: 'path' | 'command';
  where: string;
  /** The fixed part of a template (`<dir>/Sans-${weight}.ttf`): it reads from that folder. */
  partial?: boolean;
}

/** Every system path and command the test code names, with the first place it does. */
export function uses(files = testCodeFiles()): Use[] {
  const seen = new Map<string, Use>();
  for (const rel of files) {
    const lines = readFileSync(join(ROOT, rel), 'utf8').split('\n');
    lines.forEach((line, i) => {
      if (/^\s*(\/\/|#|\*)/.test(line)) return; // comments name paths to explain, not to read
      for (const m of line.matchAll(PATH_LITERAL)) {
        const what = m[1]!.replace(/\/+$/, '');
        if (!seen.has(what)) seen.set(what, { what, kind: 'path', where: `${rel}:${i + 1}`, partial: m[2] !== undefined });
      }
      for (const m of line.matchAll(COMMAND)) {
        const what = m[1]!;
        if (!seen.has(`cmd:${what}`)) seen.set(`cmd:${what}`, { what, kind: 'command', where: `${rel}:${i + 1}` });
      }
    });
  }
  return [...seen.values()];
}

interface Installed {
  essential: Set<string>;
  /** Package → the packages it needs (Depends, Pre-Depends): of `a | b`, the first, which apt installs on a fresh machine. */
  needs: Map<string, string[]>;
  /** Virtual package → the real ones that provide it. */
  providers: Map<string, string[]>;
}

function installed(): Installed {
  const out = execFileSync('dpkg-query', ['-W', '-f=${db:Status-Status}\t${Package}\t${Essential}\t${Priority}\t${Depends}, ${Pre-Depends}\t${Provides}\n'], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  const result: Installed = { essential: new Set(), needs: new Map(), providers: new Map() };
  const packageName = (s: string) => s.trim().split(/[\s:(]/)[0]!;
  const names = (field: string) => field.split(',').map(packageName).filter(Boolean);
  // An installed second alternative (fonts-liberation for fontconfig-config's `fonts-dejavu-core | … |
  // fonts-liberation`) is there by chance, not because a tier's package needs it.
  const firstAlternatives = (field: string) => field.split(',').map((group) => packageName(group.split('|')[0] ?? '')).filter(Boolean);
  for (const row of out.split('\n')) {
    const [status, name, essential, priority, depends, provides] = row.split('\t');
    if (status !== 'installed' || !name) continue;
    if (essential === 'yes' || priority === 'required') result.essential.add(name);
    result.needs.set(name, firstAlternatives(depends ?? ''));
    for (const virtual of names(provides ?? '')) result.providers.set(virtual, [...(result.providers.get(virtual) ?? []), name]);
  }
  return result;
}

/** The declared packages and everything they depend on, as installed here, and what every system has. */
function allowedPackages(db: Installed): Set<string> {
  const reached = new Set<string>();
  const queue = ALL_TIER_PACKAGES.map((p) => p.name);
  while (queue.length > 0) {
    const name = queue.pop()!;
    if (reached.has(name)) continue;
    reached.add(name);
    queue.push(...(db.needs.get(name) ?? []), ...(db.providers.get(name) ?? []));
  }
  return new Set([...reached, ...db.essential]);
}

/** The paths dpkg knows, with their packages: one `dpkg -S` for all (each call reads dpkg's whole database). */
function dpkgOwners(paths: readonly string[]): Map<string, string[]> {
  const run = spawnSync('dpkg', ['-S', ...paths], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const owned = new Map<string, string[]>();
  for (const line of run.stdout.split('\n')) {
    if (line === '' || line.startsWith('diversion')) continue;
    const at = line.indexOf(': /');
    if (at < 0) continue;
    owned.set(line.slice(at + 2), line.slice(0, at).split(',').map((name) => name.trim().split(':')[0]!));
  }
  return owned;
}

/** The forms dpkg may list a path under (merged /usr: /usr/bin/x is often listed as /bin/x; symlinks). */
function forms(path: string): string[] {
  const all = new Set([path, realpathSync(path)]);
  for (const p of [...all]) if (p.startsWith('/usr/')) all.add(p.slice(4));
  return [...all];
}

function commandPath(name: string): string | null {
  const run = spawnSync('sh', ['-c', 'command -v "$1"', 'which', name], { encoding: 'utf8' });
  return run.status === 0 && run.stdout.trim().startsWith('/') ? run.stdout.trim() : null;
}

const under = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`);
const declaredProvider = (path: string) => ALL_TIER_PACKAGES.find((p) => p.provides.some((prefix) => under(path, prefix)));

/** Why a use is not covered, or null when it is. */
export function problem(use: Use, owned: Map<string, string[]>, allowed: Set<string>): string | null {
  let path: string | null = use.what;
  if (use.kind === 'command') {
    path = commandPath(use.what);
    if (path === null) {
      const provider = ALL_TIER_PACKAGES.find((p) => p.provides.some((q) => q.endsWith(`/${use.what}`)));
      return provider ? null : `the command \`${use.what}\` (${use.where}) is not installed here, and no tier's prepare step installs it (test/support/debian.ts)`;
    }
  }
  if (Object.keys(NOT_READ).some((p) => under(path!, p)) || Object.keys(MACHINE).some((p) => under(path!, p))) return null;
  // A template's fixed part (`<dir>/Sans-${weight}.ttf`) reads from its folder.
  const read = existsSync(path) ? path : use.partial && existsSync(dirname(path)) ? dirname(path) : null;
  if (read === null) {
    return declaredProvider(path) ? null : `${path} (${use.where}) is not on this machine, and no tier's prepare step installs a package that provides it (test/support/debian.ts)`;
  }
  const own = [...new Set(forms(read).flatMap((form) => owned.get(form) ?? []))];
  if (own.length === 0) {
    return declaredProvider(path) ? null : `${read} (${use.where}) belongs to no Debian package (dpkg -S), and nothing the tiers install provides it`;
  }
  if (own.some((p) => allowed.has(p))) return null;
  return `${read} (${use.where}) belongs to the Debian package ${own.join(', ')}, which no tier's prepare step installs (test/support/debian.ts) and none of theirs needs: a fresh machine does not have it`;
}

describe('system files that tests read', () => {
  const allowed = allowedPackages(installed());
  const all = uses();
  const readPath = (use: Use): string | null => {
    const path = use.kind === 'command' ? commandPath(use.what) : use.what;
    if (path === null) return null;
    if (existsSync(path)) return path;
    return use.partial && existsSync(dirname(path)) ? dirname(path) : null;
  };
  // The negative example below: Debian's fonts-liberation, which chromium only recommends and no tier
  // installs (the font that once failed every browser test on a fresh machine). Built from parts so
  // that this file, which the scan skips, names no system path of its own.
  const LIBERATION = ['', 'usr', 'share', 'fonts', 'truetype', 'liberation'].join('/');
  const examples = [LIBERATION, `${LIBERATION}/LiberationSans-Regular.ttf`].filter(existsSync);
  const owned = dpkgOwners([...new Set(all.map(readPath).filter((p): p is string => p !== null).concat(examples).flatMap(forms))]);

  it('finds what the tiers use (the scan itself works)', () => {
    const names = all.map((u) => u.what);
    expect(names).toEqual(expect.arrayContaining(['/usr/lib/postgresql', 'openssl']));
    expect(all.find((u) => u.what === '/usr/lib/postgresql')?.where).toMatch(/^test\/postgres\/server\.ts:\d+$/);
  });

  it('each belongs to a package a tier installs, one they need, or one every Debian system has', () => {
    const problems = all.map((u) => problem(u, owned, allowed)).filter((p): p is string => p !== null);
    expect(problems).toEqual([]);
  });

  it('catches a file only the author had: a font read from a package nothing installs', () => {
    const font: Use = { what: `${LIBERATION}/LiberationSans-`, kind: 'path', where: 'example.ts:1', partial: true };
    expect(problem(font, owned, allowed)).toMatch(/fonts-liberation|not on this machine/);
    const tool: Use = { what: 'no-such-tool-upness', kind: 'command', where: 'example.ts:2' };
    expect(problem(tool, owned, allowed)).toMatch(/not installed here/);
  });

  it('installs packages only through the one declared list', () => {
    const installers = testCodeFiles().filter((rel) => rel !== 'test/support/debian.ts' && /apt-get\W+(-\S+\s+)*install\b/.test(readFileSync(join(ROOT, rel), 'utf8')));
    expect(installers).toEqual([]);
  });
});
