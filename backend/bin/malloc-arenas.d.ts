// Types of malloc-arenas.js (plain JavaScript: the bin runs under any Node), for the benchmarks that import it.
export declare const MALLOC_ARENAS: string;
export declare function execWithFewMallocArenas(): void;
