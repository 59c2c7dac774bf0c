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

/** JSON texts of values written lately, at most `max` of them (cleared when full): a detail's figures and states repeat from request to request. */
function keptTexts<K>(max: number): (value: K) => string {
  const texts = new Map<K, string>();
  return (value) => {
    let text = texts.get(value);
    if (text === undefined) {
      text = JSON.stringify(value);
      if (texts.size >= max) texts.clear();
      texts.set(value, text);
    }
    return text;
  };
}

const formatted = keptTexts<number>(4096);

/** JSON.stringify(v) of a number or null: `null` for null and what is not finite. */
export function numberText(v: number | null): string {
  if (v === null) return 'null';
  return Number.isSafeInteger(v) && v >= LOW ? largeIntegerText(v) : formatted(v);
}

/** JSON.stringify(values) of an array, each item written by `cell`. */
function arrayText<T>(values: readonly T[], cell: (value: T) => string): string {
  let text = '[';
  for (let i = 0; i < values.length; i++) text += i === 0 ? cell(values[i]!) : `,${cell(values[i]!)}`;
  return `${text}]`;
}

/** JSON.stringify(values) of a column of numbers and nulls. */
export const numbersText = (values: readonly (number | null)[]): string => arrayText(values, numberText);

const quoted = keptTexts<string>(1024);

/** JSON.stringify(s) of a string or null. */
export function stringText(s: string | null): string {
  return s === null ? 'null' : quoted(s);
}

/** JSON.stringify(values) of a column of strings and nulls. */
export const stringsText = (values: readonly (string | null)[]): string => arrayText(values, stringText);
