// A run's UID in 16 bytes (issue 21 §3). Kubernetes makes UIDs as RFC 4122 UUIDs, written in the
// canonical form: 36 characters, lowercase hex in groups of 8-4-4-4-12. A closed run the engine keeps
// holds such a UID as four 32-bit words (its arena record's: arena.ts) instead of a string of ~56
// bytes, and the engine finds runs by them (runs-by-uid.ts) instead of a Map of strings. A UID in any
// other form (a trace's, an old data dir's, uppercase, another length) is never encoded: it is kept
// as the string it is, so every UID reads back byte for byte.
//
// The words hold the 32 hex digits in order, the first digit in the high nibble of the first word:
// as the hyphens stand at the same places in every canonical UID and '0'–'9' sort before 'a'–'f',
// two canonical UIDs compare as their strings do when their words are compared as unsigned numbers
// in order (order.ts breaks ties by UID).

/** The words a UID is held in. */
export const UID_WORDS = 4;

const LENGTH = 36;
const HYPHEN = 0x2d;
/** Where each of the 32 hex digits stands in the string. */
const DIGIT_AT: readonly number[] = Array.from({ length: 32 }, (_, i) => i + (i >= 8 ? 1 : 0) + (i >= 12 ? 1 : 0) + (i >= 16 ? 1 : 0) + (i >= 20 ? 1 : 0));
const HEX: readonly number[] = Array.from('0123456789abcdef', (c) => c.charCodeAt(0));

/** A hex digit's value by character code, lowercase only; -1 for any other character. */
const DIGIT_VALUE = new Int8Array(128).fill(-1);
HEX.forEach((code, value) => (DIGIT_VALUE[code] = value));

/** Whether character `i` of a canonical UID is a hyphen. */
const isHyphenAt = (i: number): boolean => i === 8 || i === 13 || i === 18 || i === 23;

/**
 * Writes the words of `uid` at `words[at…at+3]` when it is canonical (lowercase, 8-4-4-4-12) and
 * returns true; else returns false, the words left as they were.
 */
export function encodeUid(uid: string, words: Uint32Array, at = 0): boolean {
  return uid.length === LENGTH && encodeFrom(uid, 0, words, at);
}

/** encodeUid of the 36 bytes (Latin-1 / ASCII) at `bytes[start…]`: a UID read from a file's bytes, without a string made of it. */
export function encodeUidBytes(bytes: Uint8Array, start: number, words: Uint32Array, at = 0): boolean {
  return start + LENGTH <= bytes.length && encodeFrom(bytes, start, words, at);
}

const codeAt = (source: string | Uint8Array, i: number): number => (typeof source === 'string' ? source.charCodeAt(i) : source[i]!);

/** The canonical UID's 36 characters at `source[start…]` (a string's code units or bytes) into words. */
function encodeFrom(source: string | Uint8Array, start: number, words: Uint32Array, at: number): boolean {
  if (codeAt(source, start + 8) !== HYPHEN || codeAt(source, start + 13) !== HYPHEN || codeAt(source, start + 18) !== HYPHEN || codeAt(source, start + 23) !== HYPHEN) return false;
  let w0 = 0;
  let w1 = 0;
  let w2 = 0;
  let w3 = 0;
  for (let d = 0; d < 32; d++) {
    const c = codeAt(source, start + DIGIT_AT[d]!);
    const value = c < 128 ? DIGIT_VALUE[c]! : -1;
    if (value < 0) return false;
    const shift = 28 - ((d & 7) << 2);
    if (d < 8) w0 |= value << shift;
    else if (d < 16) w1 |= value << shift;
    else if (d < 24) w2 |= value << shift;
    else w3 |= value << shift;
  }
  words[at] = w0;
  words[at + 1] = w1;
  words[at + 2] = w2;
  words[at + 3] = w3;
  return true;
}

/** The canonical UID held at `words[at…at+3]` (encodeUid's inverse). */
export function decodeUid(words: Uint32Array, at = 0): string {
  const chars = scratch;
  for (let d = 0; d < 32; d++) chars[DIGIT_AT[d]!] = HEX[(words[at + (d >> 3)]! >>> (28 - ((d & 7) << 2))) & 15]!;
  return String.fromCharCode.apply(null, chars);
}

/** decodeUid's characters (the hyphens written once). */
const scratch: number[] = Array.from({ length: LENGTH }, (_, i) => (isHyphenAt(i) ? HYPHEN : 0));

/** The order of two canonical UIDs held at `a[i…]` and `b[j…]`, as their strings compare: <0, 0, >0. */
export function compareUidWords(a: Uint32Array, i: number, b: Uint32Array, j: number): number {
  for (let k = 0; k < UID_WORDS; k++) {
    const x = a[i + k]!;
    const y = b[j + k]!;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/** Whether the words at `a[i…]` and `b[j…]` are the same UID. */
export function sameUidWords(a: Uint32Array, i: number, b: Uint32Array, j: number): boolean {
  return a[i] === b[j] && a[i + 1] === b[j + 1] && a[i + 2] === b[j + 2] && a[i + 3] === b[j + 3];
}

/** murmur3's finaliser: every bit of `h` moves every bit of the result. */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * A 32-bit hash of the canonical UID at `words[at…]` (all four words: a simulator's or a controller's
 * UIDs may differ in a few digits only).
 */
export function hashUidWords(words: Uint32Array, at = 0): number {
  let h = 0x9e3779b9;
  for (let k = 0; k < UID_WORDS; k++) h = Math.imul(h ^ words[at + k]!, 0x01000193) + 0x7f4a7c15;
  return mix(h);
}

/** A 32-bit hash of a UID that is not canonical (by its characters). */
export function hashUidText(uid: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < uid.length; i++) h = Math.imul(h ^ uid.charCodeAt(i), 0x01000193);
  return mix(h ^ uid.length);
}

const probe = new Uint32Array(UID_WORDS);

/** The hash of any UID: of its words when canonical (hashUidWords), of its characters when not. */
export function hashUid(uid: string): number {
  return encodeUid(uid, probe) ? hashUidWords(probe) : hashUidText(uid);
}
