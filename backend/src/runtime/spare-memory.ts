// Memory handed between the replay and its trace worker threads, kept to be used again: a chunk's lines
// (trace-workers.ts) and a chunk's encoded views (trace-worker.ts). Fresh memory for every chunk cost
// the main thread more than applying the chunk's observations, and a worker's blocks under glibc's mmap
// threshold (128 KiB, bin/malloc.js) came from the main arena, whose freed holes the process kept after
// the load (README "Performance", "Parse threads' memory").

export interface SpareMemoryOptions {
  /** The least a new block holds (default 0). */
  least?: number;
  /** Bytes a new block holds beyond what was asked for (default 0). */
  headroom?: number;
  /** The most blocks kept (default 16). */
  kept?: number;
}

export class SpareMemory {
  readonly #spare: ArrayBuffer[] = [];
  readonly #least: number;
  readonly #headroom: number;
  readonly #kept: number;
  #made = 0;

  constructor(options: SpareMemoryOptions = {}) {
    this.#least = options.least ?? 0;
    this.#headroom = options.headroom ?? 0;
    this.#kept = options.kept ?? 16;
  }

  /** A kept block of at least `bytes`, else a new one (its old contents are the taker's to overwrite). */
  take(bytes: number): ArrayBuffer {
    const i = this.#spare.findIndex((m) => m.byteLength >= bytes);
    if (i !== -1) return this.#spare.splice(i, 1)[0]!;
    this.#made++;
    return new ArrayBuffer(Math.max(this.#least, bytes + this.#headroom));
  }

  /** A block whose user is done with it. */
  give(memory: ArrayBuffer): void {
    if (this.#spare.length < this.#kept) this.#spare.push(memory);
  }

  /** Blocks kept now. */
  get size(): number {
    return this.#spare.length;
  }

  /** Blocks made so far (not taken from those kept). */
  get made(): number {
    return this.#made;
  }
}
