// JSON texts of a small answer's cells, written without JSON.stringify's number formatting (issue 21
// §4): one JobSet's detail is ~170 numbers, and their shortest decimal forms were most of its
// JSON's cost. Every function here returns exactly what JSON.stringify returns for the same value
// (json-text.test.ts checks them against it over generated values), so an answer's bytes do not
// depend on which path wrote them.

/** Zeros to pad a low part of fewer than eight digits. */
const ZEROS = ['', '0', '00', '000', '0000', '00000', '000000', '0000000'];
const LOW = 1e8;

/**
 * A whole number of 1e8 or more and below 2^53 (an epoch-ms time): its digits as two small
 * integers' (V8 writes those from a cache, where a larger number takes the general double path).
 */
function largeIntegerText(v: number): string {
  let high = Math.floor(v / LOW);
  let low = v - high * LOW;
  // v / 1e8 may round up or down across a whole number: mend the split (both parts are exact).
  if (low < 0) {
    high -= 1;
    low += LOW;
  } else if (low >= LOW) {
    high += 1;
    low -= LOW;
  }
  const digits = `${low}`;
  return `${high}${ZEROS[8 - digits.length]!}${digits}`;
}

/** Texts of numbers formatted lately: a detail's figures repeat from request to request. Cleared when full (its size bounded). */
const formatted = new Map<number, string>();
const FORMATTED_MAX = 4096;

/** JSON.stringify(v) of a number or null: `null` for null and what is not finite. */
export function numberText(v: number | null): string {
  if (v === null) return 'null';
  if (Number.isSafeInteger(v) && v >= LOW) return largeIntegerText(v);
  let text = formatted.get(v);
  if (text === undefined) {
    text = JSON.stringify(v);
    if (formatted.size >= FORMATTED_MAX) formatted.clear();
    formatted.set(v, text);
  }
  return text;
}

/** JSON.stringify(values) of a column of numbers and nulls. */
export function numbersText(values: readonly (number | null)[]): string {
  let text = '[';
  for (let i = 0; i < values.length; i++) text += i === 0 ? numberText(values[i]!) : `,${numberText(values[i]!)}`;
  return `${text}]`;
}

/** Texts of strings a column repeats (states, namespaces): their JSON quoted once. Cleared when full. */
const quoted = new Map<string, string>();
const QUOTED_MAX = 1024;

/** JSON.stringify(s) of a string or null. */
export function stringText(s: string | null): string {
  if (s === null) return 'null';
  let text = quoted.get(s);
  if (text === undefined) {
    text = JSON.stringify(s);
    if (quoted.size >= QUOTED_MAX) quoted.clear();
    quoted.set(s, text);
  }
  return text;
}

/** JSON.stringify(values) of a column of strings and nulls. */
export function stringsText(values: readonly (string | null)[]): string {
  let text = '[';
  for (let i = 0; i < values.length; i++) text += i === 0 ? stringText(values[i]!) : `,${stringText(values[i]!)}`;
  return `${text}]`;
}
