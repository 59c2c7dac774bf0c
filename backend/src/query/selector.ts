// Kubernetes label selectors (`team=ml,tier in (a,b),!canary,env!=dev`) and name patterns (a
// glob, or a regular expression between slashes), parsed once per query into predicates.

// A regular expression from a request runs on V8's linear-time engine (the `l` flag), so no pattern
// can backtrack exponentially: `/^([a-z0-9-]+)+!$/` took 0.4 s on one 25-character name with the
// backtracking engine (×2 per character), and is tested against every JobSet's name. The engine is
// behind a V8 flag that the service turns on at start (cli/regexp-engine.ts; the backend's test
// tiers too). Where it is off (the plugin's editors in a browser, which only check a pattern's
// syntax), patterns compile without it.
let linear: string | undefined;
/** `l` when the linear-time engine is on, else nothing; asked on first use, after start-up. */
function linearFlag(): string {
  if (linear === undefined) {
    try {
      // eslint-disable-next-line no-invalid-regexp -- the flag exists only where V8's engine is on: that is the question
      new RegExp('', 'l');
      linear = 'l';
    } catch {
      linear = '';
    }
  }
  return linear;
}

export class QueryError extends Error {
  /** The query field at fault, e.g. "labelSelector". */
  readonly field: string;
  constructor(field: string, message: string) {
    super(`${field}: ${message}`);
    this.name = 'QueryError';
    this.field = field;
  }
}

type Requirement =
  | { op: 'exists' | 'notexists'; key: string }
  | { op: 'in' | 'notin'; key: string; values: Set<string> };

export type LabelPredicate = (labels: Readonly<Record<string, string>>) => boolean;

// Label keys and values as Kubernetes allows them: [prefix/]name, values may be empty.
const KEY = /^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;

function checkKey(key: string): string {
  if (!KEY.test(key) || key.length > 316) throw new QueryError('labelSelector', `"${key}" is not a valid label key`);
  return key;
}
function checkValue(value: string): string {
  if (!VALUE.test(value) || value.length > 63) throw new QueryError('labelSelector', `"${value}" is not a valid label value`);
  return value;
}

/** Splits on commas that are not inside parentheses. */
function requirements(selector: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(selector.slice(start, i));
      start = i + 1;
    }
    if (depth < 0 || depth > 1) throw new QueryError('labelSelector', 'unbalanced parentheses');
  }
  if (depth !== 0) throw new QueryError('labelSelector', 'unbalanced parentheses');
  parts.push(selector.slice(start));
  return parts.map((p) => p.trim());
}

function parseRequirement(text: string): Requirement {
  if (text === '') throw new QueryError('labelSelector', 'empty requirement (a stray comma?)');
  const set = /^(\S+)\s+(in|notin)\s*\((.*)\)$/.exec(text);
  if (set) {
    const values = set[3]!.split(',').map((v) => checkValue(v.trim()));
    return { op: set[2] as 'in' | 'notin', key: checkKey(set[1]!), values: new Set(values) };
  }
  const eq = /^([^=!\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(text);
  if (eq) {
    return { op: eq[2] === '!=' ? 'notin' : 'in', key: checkKey(eq[1]!), values: new Set([checkValue(eq[3]!)]) };
  }
  if (text.startsWith('!')) return { op: 'notexists', key: checkKey(text.slice(1).trim()) };
  if (/^\S+$/.test(text)) return { op: 'exists', key: checkKey(text) };
  throw new QueryError('labelSelector', `cannot read "${text}" (expected key, !key, key=value, key!=value, key in (a,b) or key notin (a,b))`);
}

/** Parses a label selector; the empty selector matches everything. */
export function parseLabelSelector(selector: string): LabelPredicate {
  if (selector.trim() === '') return () => true;
  const reqs = requirements(selector).map(parseRequirement);
  return (labels) =>
    reqs.every((r) => {
      const value = labels[r.key];
      switch (r.op) {
        case 'exists':
          return value !== undefined;
        case 'notexists':
          return value === undefined;
        case 'in':
          return value !== undefined && r.values.has(value);
        case 'notin':
          // As in Kubernetes: a missing label satisfies "!=" and "notin".
          return value === undefined || !r.values.has(value);
      }
    });
}

/** Whether a name pattern matches every name: empty, or a glob of stars only (`*`, a variable's All value). */
export function matchesEveryName(pattern: string): boolean {
  return /^\**$/.test(pattern);
}

/** The one name a pattern matches, when it is a plain name (no wildcard, not a regular expression). */
export function literalName(pattern: string): string | null {
  return pattern === '' || /[*?]/.test(pattern) || /^\/(.*)\/([a-z]*)$/s.test(pattern) ? null : pattern;
}

/**
 * `train-*` (glob: * any run, ? one character) or `/^train-\d+$/` (a regular expression, run in
 * linear time: no backreferences, lookahead or i, u, v or d flags; names are lowercase anyway).
 */
export function parseNamePattern(pattern: string): (name: string) => boolean {
  const compiled = compileNamePattern(pattern);
  if (compiled === null) return () => true;
  // A plain name (the commonest pattern: one JobSet's page) is a string compare, not a regex run.
  if (typeof compiled === 'string') return (name) => name === compiled;
  return (name) => compiled.test(name);
}

/**
 * What a name pattern compiles to: null (every name), the one name it matches, or the regular
 * expression that runs it (with the linear-time engine's `l` flag whenever that engine is on).
 */
export function compileNamePattern(pattern: string): RegExp | string | null {
  if (matchesEveryName(pattern)) return null;
  const regex = /^\/(.*)\/([a-z]*)$/s.exec(pattern);
  if (regex) {
    try {
      return new RegExp(regex[1]!, `${regex[2]!.replace(/[gyl]/g, '')}${linearFlag()}`);
    } catch (error) {
      const message = (error as Error).message;
      if (message.endsWith('Cannot be executed in linear time')) {
        throw new QueryError(
          'name',
          'this regular expression cannot be run in linear time: leave out backreferences, lookahead, large {n,m} counts and the i, u, v and d flags (JobSet names are lowercase)',
        );
      }
      // V8 says "Invalid regular expression: /<pattern>/<flags>: <reason>"; the reason is what helps.
      throw new QueryError('name', `not a valid regular expression (${message.slice(message.lastIndexOf(': ') + 2)})`);
    }
  }
  const literal = literalName(pattern);
  if (literal !== null) return literal;
  const escaped = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  // Linear time too: `*a*a*a*a*a*b` would otherwise backtrack polynomially in the name's length.
  return new RegExp(`^${escaped}$`, linearFlag());
}
