// Preloaded into a measured process (`node --import …/buffer-owners.js`; bench:dashboards passes it
// to the service with --owners): counts the live typed arrays' own backing stores by the code that
// made them, so that "array buffers" can be read owner by owner (issue 21 §3). Each typed array made
// with a length or from values (not a view over a buffer given), and each Buffer, ArrayBuffer and
// TextEncoder's bytes made (below), is remembered with the first frames
// of its maker's stack, until a collection drops its buffer. Slower allocation, and only for a
// measurement: never loaded by `upness` itself. Plain JavaScript, as memory-probe.js.

const KINDS = ['Float64Array', 'Float32Array', 'Int32Array', 'Uint32Array', 'Int16Array', 'Uint16Array', 'Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'BigInt64Array', 'BigUint64Array'];
/** Typed arrays this small live in V8's heap, not in array buffers. */
const ON_HEAP_BYTES = 64;
const live = new Map();
let next = 0;
const dropped = new FinalizationRegistry((id) => live.delete(id));
/** The buffers already remembered. */
const counted = new WeakSet();

/** The first frames of the stack outside this file: "file:function" each, the maker first. */
function site() {
  const holder = {};
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 8;
  Error.captureStackTrace(holder, site);
  Error.stackTraceLimit = limit;
  const frames = String(holder.stack)
    .split('\n')
    .slice(1)
    .map((l) => l.trim().replace(/^at /, ''))
    .filter((l) => !l.includes('buffer-owners.js') && !l.startsWith('new ') && !l.includes('(<anonymous>)') && !l.startsWith('Function.from') && !l.includes('TypedArray.'));
  return frames
    .slice(0, 3)
    .map((f) => {
      const paren = f.lastIndexOf(' (');
      const fn = paren < 0 ? '' : f.slice(0, paren).replace(/^async /, '');
      const where = (paren < 0 ? f : f.slice(paren + 2, -1)).replace(/:\d+:\d+$/, '');
      return `${where.slice(where.lastIndexOf('/') + 1)} ${fn}`.trim();
    })
    .join(' ← ');
}

// A proxy of each constructor, not a subclass: instances keep their native prototype (libraries
// that walk it, as safe-stable-stringify does, see what they expect), and the prototype's
// `constructor` points at the proxy so that slice, map and `new (a.constructor)(n)` are counted too.
for (const name of KINDS) {
  const Native = globalThis[name];
  const Tracked = new Proxy(Native, {
    construct(target, args, newTarget) {
      const made = Reflect.construct(target, args, newTarget === Tracked ? target : newTarget);
      const given = args[0];
      if (made.byteLength > ON_HEAP_BYTES && !(given instanceof ArrayBuffer || (typeof SharedArrayBuffer !== 'undefined' && given instanceof SharedArrayBuffer))) {
        const id = next++;
        counted.add(made.buffer);
        live.set(id, { bytes: made.byteLength, site: site() });
        dropped.register(made.buffer, id);
      }
      return made;
    },
  });
  Object.defineProperty(Native.prototype, 'constructor', { value: Tracked, writable: true, configurable: true, enumerable: false });
  globalThis[name] = Tracked;
}

/** Remembers `buffer` (an ArrayBuffer made outside the typed arrays' constructors) with its maker, once. */
function remember(buffer) {
  if (!(buffer instanceof ArrayBuffer) || buffer.byteLength <= ON_HEAP_BYTES || counted.has(buffer)) return;
  counted.add(buffer);
  const id = next++;
  live.set(id, { bytes: buffer.byteLength, site: site() });
  dropped.register(buffer, id);
}

// Array buffers made elsewhere: Node's Buffers (their class extends the native Uint8Array, which the
// proxies above do not see), bare ArrayBuffers, and TextEncoder's bytes (made in C++). A Buffer from
// Node's shared pool of small buffers counts the pool (8 KiB) once, under its first taker.
for (const name of ['alloc', 'allocUnsafe', 'allocUnsafeSlow', 'from', 'concat']) {
  const made = Buffer[name];
  Buffer[name] = function (...args) {
    const b = made.apply(this, args);
    remember(b.buffer);
    return b;
  };
}
{
  const NativeArrayBuffer = globalThis.ArrayBuffer;
  globalThis.ArrayBuffer = new Proxy(NativeArrayBuffer, {
    construct(target, args, newTarget) {
      const made = Reflect.construct(target, args, newTarget === globalThis.ArrayBuffer ? target : newTarget);
      remember(made);
      return made;
    },
  });
  const encode = TextEncoder.prototype.encode;
  TextEncoder.prototype.encode = function (...args) {
    const bytes = encode.apply(this, args);
    remember(bytes.buffer);
    return bytes;
  };
}

/** The live typed arrays' backing stores by maker, largest first: [{ site, count, bytes }]. Collect first (gc) for what lives. */
globalThis[Symbol.for('upness.bench.bufferOwners')] = () => {
  const bySite = new Map();
  for (const { bytes, site: s } of live.values()) {
    const g = bySite.get(s) ?? { site: s, count: 0, bytes: 0 };
    g.count++;
    g.bytes += bytes;
    bySite.set(s, g);
  }
  return [...bySite.values()].sort((a, b) => b.bytes - a.bytes);
};
