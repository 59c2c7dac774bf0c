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
// begins and ends; that text is a JSON value (JSON.stringify's output, kept with its own parse), so
// putting its value back in the placeholder's place is the line's parse.
// Anything else (no earlier spec of this text, the placeholder elsewhere, the rest not JSON) parses
// the whole line as it is.

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

  /** JSON.parse(text), with the value and the errors JSON.parse gives. The value's spec may be shared with earlier lines' values: read it, never change it. */
  parse(text: string): unknown {
    const key = text.indexOf(KEY);
    if (key === -1) return JSON.parse(text);
    const start = key + KEY.length;
    const uid = uidOf(text);
    const known = uid === null ? undefined : this.#byUid.get(uid);
    const spec = known?.find((k) => holds(text, start, k.text));
    if (spec !== undefined) {
      const value = this.#withSpec(text, start, spec);
      if (value !== undefined) {
        this.reused++;
        return value;
      }
    }
    const value: unknown = JSON.parse(text);
    // A spec already kept is not kept twice (its line could not take this path for another reason).
    if (uid !== null && spec === undefined) this.#learn(text, start, uid, value);
    return value;
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

  /** Keeps the spec of a parsed line when its text is at `start`, as JSON.stringify writes it. */
  #learn(text: string, start: number, uid: string, value: unknown): void {
    const object = isRecord(value) ? value.object : undefined;
    const spec = isRecord(object) ? object.spec : undefined;
    if (!isRecord(spec)) return;
    const specText = JSON.stringify(spec);
    if (specText.length < SMALLEST || !holds(text, start, specText)) return;
    // What is kept is the parse of the text itself (the line's spec is the caller's, and -0 or 1e999 do not read back from their JSON.stringify).
    const entry: KnownSpec = { text: specText, value: JSON.parse(specText) };
    const known = this.#byUid.get(uid);
    if (known === undefined) this.#byUid.set(uid, [entry]);
    else {
      // The newest first; two kept (a JobSet's spec while it runs and while it is suspended).
      known.unshift(entry);
      if (known.length > 2) this.#chars -= known.pop()!.text.length;
    }
    this.#chars += specText.length;
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
