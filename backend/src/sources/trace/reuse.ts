// JSON.parse of trace lines that reuses the parse of an object's spec when its text repeats. A JobSet's
// spec (its pod templates) is most of its line and the same in every observation of its life (one
// text while it runs, another while suspended), so a replay parses it once per JobSet rather than once
// per line: the rest of the line is parsed with the spec's text replaced by a placeholder, and the
// spec parsed before is put in its place.
//
// The result is the value JSON.parse gives for the whole line, or JSON.parse's own error. Why: the
// placeholder is the string "\u0000" written with its escape, and a line given this path has no
// `\u0000` in it, so the only string "\u0000" in the rest's parse is the placeholder, lexed as one
// value. When that value is what the rest's parse holds at `object.spec` (the last "spec" key of
// the object, as JSON.parse keeps), the spec's text sits exactly where a value of object.spec
// begins and ends; that text is a JSON value (JSON.parse read it alone, and its parse is what is
// kept), so putting its value back in the placeholder's place is the line's parse.
// Anything else (the placeholder elsewhere, the rest not JSON) parses the whole line as it is.
//
// A spec not seen before takes the same path: its text is cut where a scan of brackets and strings
// says the object at the key ends, parsed alone and kept, and the rest parsed as above. The scan is
// only a guess (a line that is not JSON may mislead it): what vouches for the result is the argument
// above, which holds for any cut that JSON.parse reads as a value. This replaced parsing the line
// whole, then the spec written back by JSON.stringify and parsed again to keep it (a run's first
// line cost about four lines' worth, and each replay thread pays it for every JobSet it sees).
// A cut whose text is a spec kept before, of any object, takes that spec's parse (JobSets made from one
// template have the same spec: 3,054 texts among 9,634 runs' specs in bench:core's trace): the same text,
// so the same value, and it is read, never changed, as every kept spec is.

const KEY = '"spec":';
/** The string "\u0000" as JSON text: six characters, a backslash escape. */
const PLACEHOLDER = '"\\u0000"';
const PLACEHOLDER_VALUE = '\u0000';
const ESCAPED_NUL = '\\u0000';
/** Below this many characters a spec is parsed with its line: the saving would not pay for the lookups. */
const SMALLEST = 256;
/** Spec texts kept at most (characters, all objects together), to bound the memory of a replay of a large fleet. */
const DEFAULT_BOUND = 32 << 20;

interface KnownSpec {
  text: string;
  value: unknown;
}

/** The parses of the specs seen so far, by the object's UID: the last two texts of each (running, suspended). */
export class SpecReuse {
  #byUid = new Map<string, KnownSpec[]>();
  #chars = 0;
  /** The specs kept, by their text (shared by the objects that have it), the oldest first; their characters (at most a quarter of the bound, most of them the same strings as #byUid's). */
  #byText = new Map<string, KnownSpec>();
  #textChars = 0;
  readonly #bound: number;
  /** Lines whose spec was reused (tests and measurements). */
  reused = 0;

  /** Characters of the spec texts kept. */
  get keptChars(): number {
    return this.#chars;
  }

  constructor(bound = DEFAULT_BOUND) {
    this.#bound = bound;
  }

  /** JSON.parse(text), with the value and the errors JSON.parse gives. The value's spec may be shared with other lines' values (the kept parse): read it, never change it. */
  parse(text: string): unknown {
    const key = text.indexOf(KEY);
    if (key === -1) return JSON.parse(text);
    const start = key + KEY.length;
    const uid = uidOf(text);
    if (uid === null) return JSON.parse(text);
    const known = this.#byUid.get(uid);
    const spec = known?.find((k) => holds(text, start, k.text));
    if (spec !== undefined) {
      const value = this.#withSpec(text, start, spec);
      if (value !== undefined) {
        this.reused++;
        return value;
      }
    } else {
      // A spec not kept yet (no other spec of this object's has its text): kept when the line reads with it.
      const fresh = specAt(text, start, this.#byText);
      const value = fresh === null ? undefined : this.#withSpec(text, start, fresh);
      if (value !== undefined) {
        this.#keep(uid, fresh!);
        return value;
      }
    }
    return JSON.parse(text);
  }

  /** The line's value with the spec's, or undefined when this path cannot vouch for it. */
  #withSpec(text: string, start: number, spec: KnownSpec): unknown {
    if (text.includes(ESCAPED_NUL)) return undefined;
    let rest: unknown;
    try {
      rest = JSON.parse(text.slice(0, start) + PLACEHOLDER + text.slice(start + spec.text.length));
    } catch {
      return undefined;
    }
    const object = isRecord(rest) ? rest.object : undefined;
    if (!isRecord(object) || object.spec !== PLACEHOLDER_VALUE) return undefined;
    object.spec = spec.value;
    return rest;
  }

  /** Keeps `entry` as the newest spec of the object `uid`. */
  #keep(uid: string, entry: KnownSpec): void {
    if (!this.#byText.has(entry.text)) {
      this.#byText.set(entry.text, entry);
      this.#textChars += entry.text.length;
      for (const [oldest, spec] of this.#byText) {
        if (this.#textChars <= this.#bound / 4) break;
        this.#byText.delete(oldest);
        this.#textChars -= spec.text.length;
      }
    }
    const known = this.#byUid.get(uid);
    if (known === undefined) this.#byUid.set(uid, [entry]);
    else {
      // The newest first; two kept (a JobSet's spec while it runs and while it is suspended).
      known.unshift(entry);
      if (known.length > 2) this.#chars -= known.pop()!.text.length;
    }
    this.#chars += entry.text.length;
    // Past the bound, the objects kept longest ago go first (Map keeps the order they came in).
    for (const [oldest, specs] of this.#byUid) {
      if (this.#chars <= this.#bound) break;
      this.#byUid.delete(oldest);
      for (const s of specs) this.#chars -= s.text.length;
    }
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The spec whose text begins at `start` in `text` (an object of SMALLEST characters or more) with its
 * parse: the one kept with that text, or its own; null when there is none there, or its text as the
 * scan cuts it is not JSON.
 */
function specAt(text: string, start: number, byText: ReadonlyMap<string, KnownSpec>): KnownSpec | null {
  const end = endOfObject(text, start);
  if (end - start < SMALLEST) return null;
  const kept = byText.get(text.slice(start, end));
  if (kept !== undefined) return kept;
  // A copy of the spec's characters alone: a slice would keep the whole line alive with it.
  const specText = (text.slice(start, end) + ' ').slice(0, -1);
  try {
    return { text: specText, value: JSON.parse(specText) };
  } catch {
    return null;
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** Where the object that begins at `at` ends (after its closing brace), reading brackets outside strings; -1 when none begins there or it does not end. */
function endOfObject(text: string, at: number): number {
  if (text.charCodeAt(at) !== OPEN_BRACE) return -1;
  let depth = 0;
  for (let i = at; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = endOfString(text, i);
      if (i === -1) return -1;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
    else if ((c === CLOSE_BRACE || c === CLOSE_BRACKET) && --depth === 0) return i + 1;
  }
  return -1;
}

/** The closing quote of the string that opens at `open` (one not escaped by a backslash); -1 when it has none. */
function endOfString(text: string, open: number): number {
  for (let i = text.indexOf('"', open + 1); i !== -1; i = text.indexOf('"', i + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(i - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return i;
  }
  return -1;
}

/** `text` holds `part` at `at`. (A slice compared with ===: V8 compares the characters in bulk, where startsWith took ~50 times as long, 5 µs for a spec of 1.9 kB.) */
function holds(text: string, at: number, part: string): boolean {
  return text.slice(at, at + part.length) === part;
}

const UID_KEY = '"uid":"';

/** The text of the first "uid" key's string (the object's own, in a Kubernetes object's metadata): only the index of the specs kept, never trusted. */
function uidOf(text: string): string | null {
  const at = text.indexOf(UID_KEY);
  if (at === -1) return null;
  const from = at + UID_KEY.length;
  const end = text.indexOf('"', from);
  return end === -1 || end - from > 128 ? null : text.slice(from, end);
}
