// A query's answer as the bytes of Buffer.from(JSON.stringify(value), 'utf8'), written without the
// one string of the whole answer (issue 21 §4). JSON.stringify writes names, UIDs and figures as fast
// as anything in JavaScript can, and each column is still its work; but it writes a whole number
// beyond 32 bits (a time in epoch ms) through its general shortest-form algorithm, ~80 ns each, and a
// frame's time column is thousands of them (an slo table per JobSet name: a time a row, a quarter of
// its JSON's time). Here a column of such numbers is written digit by digit; every other array, and
// whatever is not a plain object, is JSON.stringify's own text, copied in. The bytes never differ
// (json-bytes.test.ts checks them against JSON.stringify over generated values and answers).

/** Objects nested deeper than this are JSON.stringify's to write (and a cycle its to refuse). */
const DEPTH = 32;

/** Whole numbers from here on are not small integers to V8, whose JSON writes them slowly. */
const SMALL = 2 ** 31;

class ByteWriter {
  buf: Buffer;
  at = 0;

  constructor(size: number) {
    this.buf = Buffer.allocUnsafe(size);
  }

  /** Room for `n` more bytes. */
  room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + n));
    this.buf.copy(grown, 0, 0, this.at);
    this.buf = grown;
  }

  byte(b: number): void {
    this.room(1);
    this.buf[this.at++] = b;
  }

  /** JSON text (JSON.stringify's), as UTF-8. */
  text(s: string): void {
    this.room(s.length * 3);
    this.at += this.buf.write(s, this.at, 'utf8');
  }

  /** A safe whole number, digit by digit (-0 as 0, as JSON writes it). */
  whole(v: number): void {
    this.room(17);
    const buf = this.buf;
    let x = v;
    if (x < 0) {
      buf[this.at++] = 0x2d;
      x = -x;
    }
    let digits = 1;
    for (let p = 10; p <= x; p *= 10) digits++;
    let at = this.at + digits;
    this.at = at;
    do {
      const q = Math.floor(x / 10);
      buf[--at] = 0x30 + (x - q * 10);
      x = q;
    } while (x > 0);
  }
}

/** A column of times: its first value a whole number beyond V8's small integers. */
function isWholeColumn(values: readonly unknown[]): boolean {
  const first = values[0];
  return typeof first === 'number' && Number.isSafeInteger(first) && (first >= SMALL || first < -SMALL);
}

function writeWholeColumn(w: ByteWriter, values: readonly unknown[]): void {
  w.byte(0x5b);
  for (let i = 0; i < values.length; i++) {
    if (i > 0) w.byte(0x2c);
    const v = values[i];
    if (typeof v === 'number' && Number.isSafeInteger(v)) w.whole(v);
    // Anything else in it (null, a fraction): as JSON.stringify writes an array's element.
    else w.text(JSON.stringify(v) ?? 'null');
  }
  w.byte(0x5d);
}

/** Whether JSON.stringify writes `v` as its own enumerable keys: a plain object without toJSON. */
function isPlainObject(v: object): boolean {
  if (Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as object | null;
  return (proto === Object.prototype || proto === null) && typeof (v as { toJSON?: unknown }).toJSON !== 'function';
}

/** Writes `v`; false, writing nothing, for what JSON leaves out (undefined, a function, a symbol). */
function write(w: ByteWriter, v: unknown, depth: number): boolean {
  if (typeof v === 'object' && v !== null && depth < DEPTH) {
    if (isPlainObject(v)) {
      writeObject(w, v as Record<string, unknown>, depth + 1);
      return true;
    }
    if (Array.isArray(v) && typeof (v as { toJSON?: unknown }).toJSON !== 'function') {
      if (isWholeColumn(v)) {
        writeWholeColumn(w, v);
        return true;
      }
      // An array of arrays or objects (a frame's columns, an answer's frames): each its own.
      if (typeof v[0] === 'object' && v[0] !== null) {
        writeArray(w, v, depth + 1);
        return true;
      }
    }
  }
  // JSON.stringify's own text (and its TypeError for a BigInt or a cycle).
  const text = JSON.stringify(v);
  if (text === undefined) return false;
  w.text(text);
  return true;
}

function writeArray(w: ByteWriter, values: readonly unknown[], depth: number): void {
  w.byte(0x5b);
  for (let i = 0; i < values.length; i++) {
    if (i > 0) w.byte(0x2c);
    if (!write(w, values[i], depth)) w.text('null');
  }
  w.byte(0x5d);
}

function writeObject(w: ByteWriter, object: Record<string, unknown>, depth: number): void {
  w.byte(0x7b);
  let first = true;
  for (const key of Object.keys(object)) {
    const mark = w.at;
    if (!first) w.byte(0x2c);
    w.text(JSON.stringify(key));
    w.byte(0x3a);
    if (write(w, object[key], depth)) first = false;
    // A value JSON leaves out: its key goes too.
    else w.at = mark;
  }
  w.byte(0x7d);
}

/**
 * The bytes of Buffer.from(JSON.stringify(value), 'utf8'), written without the string; undefined
 * where JSON.stringify answers undefined. `sizeHint`: the bytes to begin with (the buffer grows).
 */
export function jsonBytes(value: unknown, sizeHint = 64 * 1024): Buffer | undefined {
  const w = new ByteWriter(sizeHint);
  if (!write(w, value, 0)) return undefined;
  return w.buf.subarray(0, w.at);
}
